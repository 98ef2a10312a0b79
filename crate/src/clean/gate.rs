//! The validity gate: the engine's last step.
//!
//! Checks a plan's output against PROVIDERS.md rules 1–15 *relative to the input*: the output
//! may keep a violation the input already had, but must not introduce one. Standalone rules
//! (pairing, empty messages, first message, alternation, array content) are counted on both
//! sides; relational rules (batches, signed thinking, images, kept fields, …) compare each
//! output message with the input message it came from. On failure the caller returns the
//! input unchanged and reports the reason.
//!
//! What it needs of the input messages and of the replacements a live session keeps (their
//! [`Shape`]s, and the verdict of the comparison of a kept replacement with its source) comes
//! from a [`History`].

use crate::model::message::{self, Kind, PartKind};
use crate::model::pairing::Pairer;
use crate::model::steps::Step;
use crate::transcript::history::{History, HistoryCache, Replacement, Shape};
use serde_json::Value;
use std::rc::Rc;

/// Why a plan was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The PROVIDERS.md rule number (0: the plan itself is malformed).
    pub rule: u8,
    pub reason: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rule {}: {}", self.rule, self.reason)
    }
}

/// Standalone rule violation counts of a message list.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    unanswered_calls: usize,
    orphan_results: usize,
    empty: usize,
    first_not_user: usize,
    same_role_runs: usize,
}

/// The shape of a step's output message: known for input messages and for the replacements
/// the history keeps, worked out for the others.
enum ShapeOf<'a> {
    Known(&'a Shape),
    Kept(Rc<Replacement>),
    Fresh(Shape),
}

impl std::ops::Deref for ShapeOf<'_> {
    type Target = Shape;

    fn deref(&self) -> &Shape {
        match self {
            ShapeOf::Known(s) => s,
            ShapeOf::Kept(r) => r.shape(),
            ShapeOf::Fresh(s) => s,
        }
    }
}

fn shape_of<'a>(h: &History<'a>, s: &Step) -> ShapeOf<'a> {
    match (&s.message, s.source) {
        (None, Some(i)) => ShapeOf::Known(h.shape(i)),
        (Some(m), Some(i)) => match h.replacement(i, m) {
            Some(r) => ShapeOf::Kept(r),
            None => ShapeOf::Fresh(Shape::of(m)),
        },
        (m, None) => ShapeOf::Fresh(Shape::of(m.as_deref().unwrap_or(&Value::Null))),
    }
}

fn counts(ms: &[ShapeOf]) -> Counts {
    let mut c = Counts::default();
    let mut pairer = Pairer::default();
    for m in ms {
        pairer.push_ids(&m.calls, &m.results);
    }
    let pairing = pairer.pairing();
    let turn_msg = |i: &usize| matches!(ms[*i].kind, Kind::User | Kind::Assistant);
    let sig: Vec<usize> = (0..ms.len())
        .filter(|&i| matches!(ms[i].kind, Kind::User | Kind::Assistant | Kind::ToolResult))
        .collect();
    // The live, unfinished tool loop at the very end may have unanswered calls.
    let last_turn_msg = sig.iter().rev().find(|i| turn_msg(i)).copied();
    for (pos, &i) in sig.iter().enumerate() {
        let m = &ms[i];
        match m.kind {
            Kind::Assistant => {
                // Rule 1: answered, and before the next user/assistant message.
                let next_turn = sig[pos + 1..].iter().find(|i| turn_msg(i)).copied().unwrap_or(ms.len());
                for ans in &pairing.answer_of[i] {
                    match ans {
                        // `<=`: an Anthropic user message may carry results next to new text.
                        Some((r, _)) if *r <= next_turn => {}
                        None if Some(i) == last_turn_msg => {}
                        _ => c.unanswered_calls += 1,
                    }
                }
                if m.blank {
                    c.empty += 1;
                }
            }
            Kind::ToolResult | Kind::User if !pairing.call_of[i].is_empty() => {
                // Rule 2: answers a call of the nearest preceding assistant message.
                let nearest = sig[..pos].iter().rev().find(|i| turn_msg(i)).copied();
                for call in &pairing.call_of[i] {
                    match call {
                        Some((a, _)) if Some(*a) == nearest => {}
                        _ => c.orphan_results += 1,
                    }
                }
            }
            _ => {}
        }
        // Rule 12: same-role runs among prompts and answers.
        if pos > 0 {
            let (a, b) = (ms[sig[pos - 1]].kind, m.kind);
            if a == b && matches!(a, Kind::User | Kind::Assistant) {
                c.same_role_runs += 1;
            }
        }
    }
    // Rule 11: the conversation starts with a user prompt.
    if let Some(&first) = sig.first() {
        if ms[first].kind != Kind::User {
            c.first_not_user = 1;
        }
    }
    c
}

fn refuse(rule: u8, reason: String) -> Result<(), Refusal> {
    Err(Refusal { rule, reason })
}

/// A refusal about output message `i`: `message {i}: {what}` (one `format!` for all).
fn refuse_at(rule: u8, i: usize, what: &str) -> Result<(), Refusal> {
    refuse(rule, format!("message {i}: {what}"))
}

/// The parts of kind `k`, in order.
fn of_kind(parts: &[Value], k: PartKind) -> Vec<&Value> {
    parts.iter().filter(|p| message::part_kind(p) == k).collect()
}

/// The standalone shapes of the messages `steps` stand for.
fn shapes<'a>(h: &History<'a>, steps: &[Step]) -> Vec<ShapeOf<'a>> {
    steps.iter().map(|s| shape_of(h, s)).collect()
}

/// Checks `steps` over `input`. `live_from`: first index of the live tool loop, if any.
pub fn check(input: &[Value], steps: &[Step], live_from: Option<usize>) -> Result<(), Refusal> {
    check_history(&HistoryCache::of(input).view(input), steps, live_from)
}

/// [`check`] over a history whose facts are known.
pub fn check_history(h: &History, steps: &[Step], live_from: Option<usize>) -> Result<(), Refusal> {
    let input = h.messages;
    // Rule 0: sources in range and in order, each used once (a recall block sends messages
    // again: its sources are only in range).
    let mut last: Option<usize> = None;
    for s in steps {
        if let Some(i) = s.source {
            if i >= input.len() || (!s.recall && last.is_some_and(|l| i <= l)) {
                return refuse(0, format!("plan source {i} is out of range or out of order"));
            }
            if !s.recall {
                last = Some(i);
            }
        } else if s.message.is_none() {
            return refuse(0, "plan step has neither a source nor a message".into());
        }
    }
    for s in steps {
        relational(h, s, live_from)?;
    }
    // Rule 8: no message with thinking dropped from the live tool loop.
    if let Some(l) = live_from {
        if let Some(i) =
            (l..input.len()).find(|&i| message::has_reasoning(&input[i]) && !steps.iter().any(|s| s.source == Some(i)))
        {
            return refuse_at(8, i, "dropped with its thinking from the live tool loop");
        }
    }
    // The output may keep a violation the input already had: the input is counted only when
    // the output has one (most plans have none).
    let b = counts(&shapes(h, steps));
    if b == Counts::default() {
        return Ok(());
    }
    let a = counts(&shapes(h, &crate::model::steps::identity(input.len())));
    let pairs: [(u8, &str, usize, usize); 5] = [
        (
            1,
            "tool calls without a following result",
            a.unanswered_calls,
            b.unanswered_calls,
        ),
        (
            2,
            "tool results without a call in the preceding assistant message",
            a.orphan_results,
            b.orphan_results,
        ),
        (10, "empty or blank assistant messages", a.empty, b.empty),
        (
            11,
            "conversation not starting with a user message",
            a.first_not_user,
            b.first_not_user,
        ),
        (
            12,
            "consecutive messages of the same role",
            a.same_role_runs,
            b.same_role_runs,
        ),
    ];
    for (rule, what, before, after) in pairs {
        if after > before {
            return refuse(rule, format!("{what}: output has {after}, input had {before}"));
        }
    }
    Ok(())
}

/// Rules that compare an output message with its source.
fn relational(h: &History, s: &Step, live_from: Option<usize>) -> Result<(), Refusal> {
    let Some(out) = &s.message else { return Ok(()) };
    let Some(i) = s.source else {
        // Inserted messages carry no signed or binary content (rules 7, 13).
        if message::parts(out).is_some_and(|p| {
            p.iter()
                .any(|x| matches!(message::part_kind(x), PartKind::Thinking | PartKind::Image))
        }) {
            return refuse(7, "an inserted message carries thinking or image content".into());
        }
        return Ok(());
    };
    let src = &h.messages[i];
    // The verdict depends only on the two messages (outside the live loop): a replacement
    // the history keeps that passed in an earlier request of a live session passes again.
    let live = live_from.is_some_and(|l| i >= l);
    let kept = if live { None } else { h.replacement(i, out) };
    if kept.as_ref().is_some_and(|r| r.checked()) {
        return Ok(());
    }
    let src_parts = message::parts(src).map(Vec::as_slice).unwrap_or(&[]);
    let out_parts = message::parts(out).map(Vec::as_slice).unwrap_or(&[]);
    // Rule 3: a batch of calls is kept or removed whole.
    let (n_in, n_out) = (message::tool_calls(src).len(), message::tool_calls(out).len());
    if n_out != 0 && n_out != n_in {
        return refuse_at(3, i, &format!("{n_out} of {n_in} parallel tool calls kept"));
    }
    // Rule 7: thinking blocks kept byte-identical, in order, never moved.
    let src_thinking = of_kind(src_parts, PartKind::Thinking);
    let out_thinking = of_kind(out_parts, PartKind::Thinking);
    if !is_subsequence(&out_thinking, &src_thinking) {
        return refuse_at(7, i, "a thinking block was edited or moved");
    }
    // Rule 8: no thinking removed inside the live tool loop.
    if live && out_thinking.len() != src_thinking.len() {
        return refuse_at(8, i, "thinking removed inside the live tool loop");
    }
    // Rule 9: a message that keeps tool calls keeps its reasoning unless the provider allows.
    if n_out > 0
        && message::has_reasoning(src)
        && !message::has_reasoning(out)
        && !message::provider_tolerates_missing_reasoning(src)
    {
        return refuse_at(9, i, "tool calls kept without their reasoning");
    }
    // Rule 13: images kept whole.
    let src_images = of_kind(src_parts, PartKind::Image);
    if !of_kind(out_parts, PartKind::Image)
        .iter()
        .all(|img| src_images.contains(img))
    {
        return refuse_at(13, i, "an image block was altered");
    }
    // Rule 14: array content stays an array.
    if message::field(src, "content").is_some_and(Value::is_array)
        && !message::field(out, "content").is_some_and(Value::is_array)
    {
        return refuse_at(14, i, "content array turned into another type");
    }
    // Rules 6 and 15: every field not deliberately edited is passed through unchanged.
    const EDITABLE: [&str; 3] = ["content", "reasoning_content", "tool_calls"];
    if let (Some(so), Some(oo)) = (src.as_object(), out.as_object()) {
        for (k, v) in so {
            if !EDITABLE.contains(&k.as_str()) && oo.get(k) != Some(v) {
                let rule = if matches!(k.as_str(), "toolCallId" | "tool_call_id" | "toolName" | "isError") {
                    6
                } else {
                    15
                };
                return refuse_at(rule, i, &format!("field `{k}` changed or dropped"));
            }
        }
    } else {
        return refuse_at(15, i, "not an object");
    }
    if let Some(r) = kept {
        r.set_checked();
    }
    Ok(())
}

fn is_subsequence(small: &[&Value], big: &[&Value]) -> bool {
    let mut it = big.iter();
    small.iter().all(|x| it.any(|y| y == x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::steps;
    use serde_json::json;

    fn sample() -> Vec<Value> {
        vec![
            json!({"role":"user","content":"q"}),
            json!({"role":"assistant","content":[{"type":"toolCall","id":"a","name":"t"},{"type":"toolCall","id":"b","name":"t"}]}),
            json!({"role":"toolResult","toolCallId":"a","toolName":"t","content":[],"isError":false}),
            json!({"role":"toolResult","toolCallId":"b","toolName":"t","content":[],"isError":false}),
            json!({"role":"assistant","content":[{"type":"text","text":"done"}]}),
        ]
    }

    #[test]
    fn identity_passes() {
        let m = sample();
        assert!(check(&m, &steps::identity(m.len()), None).is_ok());
    }

    #[test]
    fn orphan_result_is_refused() {
        let m = sample();
        let steps = vec![Step::keep(0), Step::keep(2), Step::keep(3), Step::keep(4)];
        assert_eq!(check(&m, &steps, None).unwrap_err().rule, 2);
    }

    #[test]
    fn half_a_batch_is_refused() {
        let m = sample();
        let mut one = m[1].clone();
        one["content"].as_array_mut().unwrap().pop();
        let steps = vec![Step::keep(0), Step::replace(1, one), Step::keep(2), Step::keep(4)];
        assert_eq!(check(&m, &steps, None).unwrap_err().rule, 3);
    }

    #[test]
    fn edited_thinking_is_refused() {
        let m = vec![
            json!({"role":"user","content":"q"}),
            json!({"role":"assistant","content":[{"type":"thinking","thinking":"x","thinkingSignature":"s"},{"type":"text","text":"a"}]}),
        ];
        let mut edited = m[1].clone();
        edited["content"][0]["thinking"] = json!("y");
        assert_eq!(
            check(&m, &[Step::keep(0), Step::replace(1, edited)], None)
                .unwrap_err()
                .rule,
            7
        );
    }

    #[test]
    fn dropped_field_and_new_same_role_run_are_refused() {
        let m = sample();
        let mut r = m[2].clone();
        r.as_object_mut().unwrap().remove("toolName");
        let steps = vec![
            Step::keep(0),
            Step::keep(1),
            Step::replace(2, r),
            Step::keep(3),
            Step::keep(4),
        ];
        assert_eq!(check(&m, &steps, None).unwrap_err().rule, 6);
        let u = vec![
            json!({"role":"user","content":"a"}),
            json!({"role":"assistant","content":"x"}),
            json!({"role":"user","content":"b"}),
        ];
        assert_eq!(check(&u, &[Step::keep(0), Step::keep(2)], None).unwrap_err().rule, 12);
    }

    #[test]
    fn existing_violations_are_tolerated() {
        let m = vec![
            json!({"role":"tool","tool_call_id":"x","content":"r"}),
            json!({"role":"user","content":"q"}),
        ];
        assert!(check(&m, &steps::identity(2), None).is_ok());
    }
}
