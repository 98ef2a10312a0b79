//! The frontier cleaner.
//!
//! Before the frontier (see [`crate::clean::frontier`]) it removes what a completed turn no longer
//! needs: thinking blocks, the top-level `reasoning_content`, completed tool results together
//! with the calls they answer, and assistant messages left with nothing to say. At and after
//! the frontier it touches nothing.
//!
//! What the seed algorithm leaves implicit, and providers require (PROVIDERS.md), is decided
//! here too:
//! * a tool exchange (one assistant message's calls, parallel or not, and all their
//!   results, wherever they sit) is dropped or kept as a unit; a mixed text + calls message
//!   keeps its text;
//! * the live tool loop (the unfinished turn at the end) is left whole, its steps before the
//!   frontier included;
//! * an exchange or message whose removal would leave two user prompts (or two answers)
//!   adjacent is kept;
//! * thinking is kept on a message that keeps tool calls unless its provider is known not to
//!   need it (what goes from one message is [`crate::model::strip`]'s);
//! * a text remnant that would sit right before another assistant message is merged into it
//!   (or, when that message must stay untouched, dropped; or, when it still carries thinking,
//!   its exchange is kept), so roles still alternate.
//!
//! The cleaner only proposes; [`crate::clean::gate`] checks the result. It reads the messages'
//! kinds, pairing and copies from a [`History`] (a live session's are kept across requests).

use crate::clean::frontier::{self, Frontier};
use crate::config::CleanConfig;
use crate::model::message::{self, Kind, PartKind};
use crate::model::pairing::Pairing;
use crate::model::steps::Step;
use crate::model::strip::StripOptions;
use crate::transcript::history::{History, HistoryCache};
use serde::Serialize;
use serde_json::Value;
use std::rc::Rc;

/// What the cleaner did, in the seed's terms plus a few of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanStats {
    pub messages_before: usize,
    pub messages_after: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    /// Top-level `reasoning_content` fields cleared.
    #[serde(rename = "cleanedRC")]
    pub cleaned_rc: usize,
    /// Thinking blocks removed.
    pub cleaned_think: usize,
    /// Completed tool results dropped.
    pub drop_tool: usize,
    /// Assistant messages dropped because they only carried tool calls.
    #[serde(rename = "dropAsstTC")]
    pub drop_asst_tc: usize,
    /// Tool calls removed from assistant messages (their results were dropped).
    pub dropped_calls: usize,
    /// Assistant messages dropped because cleaning left them empty (only thinking).
    pub dropped_empty: usize,
    /// Text remnants merged into the following assistant message.
    pub merged_text: usize,
    /// Index of the frontier message.
    pub frontier: usize,
}

impl CleanStats {
    /// Adds (`sign` 1) or takes away (`sign` -1) the counts of what `other` removed (not its
    /// message and token totals).
    pub fn add_counts(&mut self, other: &CleanStats, sign: isize) {
        let add = |a: &mut usize, b: usize| *a = a.saturating_add_signed(sign * b as isize);
        add(&mut self.cleaned_rc, other.cleaned_rc);
        add(&mut self.cleaned_think, other.cleaned_think);
        add(&mut self.drop_tool, other.drop_tool);
        add(&mut self.drop_asst_tc, other.drop_asst_tc);
        add(&mut self.dropped_calls, other.dropped_calls);
        add(&mut self.dropped_empty, other.dropped_empty);
        add(&mut self.merged_text, other.merged_text);
    }

    /// True when the cleaner changed anything.
    pub fn changed(&self) -> bool {
        self.cleaned_rc
            + self.cleaned_think
            + self.drop_tool
            + self.drop_asst_tc
            + self.dropped_calls
            + self.dropped_empty
            + self.merged_text
            > 0
    }
}

/// The cleaner's proposal: a plan and its counts.
#[derive(Debug, Clone)]
pub struct Cleaned {
    pub steps: Vec<Step>,
    pub stats: CleanStats,
    pub frontier: Frontier,
}

/// Cleans `messages` per `cfg`.
pub fn clean(messages: &[Value], cfg: &CleanConfig) -> Cleaned {
    clean_history(messages, cfg, false)
}

/// Cleans `messages`; with `complete`, the history is known to end with a finished turn (the
/// upcoming prompt is not part of it), so the frontier is after the last message.
pub fn clean_history(messages: &[Value], cfg: &CleanConfig, complete: bool) -> Cleaned {
    clean_keeping(&HistoryCache::of(messages).view(messages), cfg, complete, &[])
}

/// [`clean_history`] of a history whose facts are known, that also leaves the messages in
/// `keep` (whole turns, e.g. pinned ones) exactly as they are.
pub fn clean_keeping(h: &History, cfg: &CleanConfig, complete: bool, keep: &[std::ops::Range<usize>]) -> Cleaned {
    let messages = h.messages;
    let pairing = h.pairing();
    let kept = |i: usize| keep.iter().any(|r| r.contains(&i));
    let fr = if complete {
        frontier::after_end(messages)
    } else {
        frontier::find(messages, &pairing)
    };
    let end = frontier::keep_recent_turns(messages, fr.index, cfg.keep_recent_turns);
    // The live tool loop is in progress even before its frontier: its earlier steps, their
    // results and their thinking stay whole (PROVIDERS.md rule 8).
    let end = fr.loop_start.map_or(end, |s| end.min(s));
    let kinds: Vec<Kind> = (0..h.len()).map(|i| h.kind(i)).collect();
    let mut drop_ex = vec![false; messages.len()];
    if cfg.drop_tool_results {
        for i in 0..end {
            let msg = &messages[i];
            // The pairing holds a slot for each of the message's tool calls.
            if kinds[i] != Kind::Assistant || pairing.answer_of[i].is_empty() {
                continue;
            }
            let within = pairing.answer_of[i].iter().flatten().all(|&(r, _)| r < end && !kept(r));
            drop_ex[i] = within && !kept(i) && (message::has_text(msg) || cfg.drop_tool_call_messages);
        }
    }
    // Messages kept whole: those the caller protects, and those dropped only because they
    // were empty or orphaned, brought back.
    let mut keep_whole = vec![false; messages.len()];
    for (i, k) in keep_whole.iter_mut().enumerate() {
        *k = kept(i);
    }
    let build = |drop_ex: &[bool], keep_whole: &[bool]| {
        let mut pass = Pass::run(h, &kinds, cfg, &pairing, end, drop_ex, keep_whole);
        pass.merge_remnants(messages, &kinds, end);
        pass
    };
    // Restore what a removal would join into two adjacent prompts or answers; each round
    // restores at least one exchange or message and flags only go one way, so this ends.
    let mut pass = build(&drop_ex, &keep_whole);
    let mut restored: Vec<Vec<Restored>> = Vec::new();
    while let Some(group) = pass
        .joins(&kinds)
        .into_iter()
        .find_map(|(a, b)| restore(&kinds, &pairing, &pass, a, b, &drop_ex, &keep_whole))
    {
        for &r in &group {
            r.set(true, &mut drop_ex, &mut keep_whole);
        }
        restored.push(group);
        pass = build(&drop_ex, &keep_whole);
    }
    // A restoration can make another one unnecessary: undo those until none is left, so the
    // result is minimal and cleaning this output again finds nothing more to remove.
    // The latest restoration is tried first.
    while pass.joins(&kinds).is_empty() {
        let mut undone = false;
        let mut k = restored.len();
        while k > 0 {
            k -= 1;
            for &r in &restored[k] {
                r.set(false, &mut drop_ex, &mut keep_whole);
            }
            let trial = build(&drop_ex, &keep_whole);
            if trial.joins(&kinds).is_empty() {
                pass = trial;
                undone = true;
                restored.remove(k);
                continue;
            }
            for &r in &restored[k] {
                r.set(true, &mut drop_ex, &mut keep_whole);
            }
        }
        if !undone {
            break;
        }
    }
    pass.finish(h, fr)
}

/// A removal the adjacency repair takes back.
#[derive(Debug, Clone, Copy)]
enum Restored {
    /// Keep the tool exchange of assistant message `i`.
    Exchange(usize),
    /// Keep message `i` as it is.
    Whole(usize),
}

impl Restored {
    fn set(self, on: bool, drop_ex: &mut [bool], keep_whole: &mut [bool]) {
        match self {
            Restored::Exchange(i) => drop_ex[i] = !on,
            Restored::Whole(i) => keep_whole[i] = on,
        }
    }
}

/// One output entry before adjacency repair.
struct Entry {
    source: usize,
    message: Option<Rc<Value>>,
    had_calls: bool,
}

struct Pass {
    entries: Vec<Entry>,
    stats: CleanStats,
}

impl Pass {
    fn run(
        h: &History,
        kinds: &[Kind],
        cfg: &CleanConfig,
        pairing: &Pairing,
        end: usize,
        drop_ex: &[bool],
        keep_whole: &[bool],
    ) -> Pass {
        let mut stats = CleanStats::default();
        let mut entries = Vec::with_capacity(h.len());
        for (j, msg) in h.messages.iter().enumerate() {
            let keep = Entry {
                source: j,
                message: None,
                had_calls: false,
            };
            if j >= end || keep_whole[j] {
                entries.push(keep);
                continue;
            }
            match kinds[j] {
                Kind::Assistant => {
                    if let Some(e) = clean_assistant(h, j, cfg, drop_ex[j], &mut stats) {
                        entries.push(e);
                    }
                }
                // Tool results, including Anthropic `tool_result` blocks sent next to new
                // user text: a result goes with its call.
                kind @ (Kind::ToolResult | Kind::User) if !pairing.call_of[j].is_empty() => {
                    let mut drop = Vec::with_capacity(pairing.call_of[j].len());
                    let mut n = 0;
                    for c in &pairing.call_of[j] {
                        let d = match c {
                            Some((a, _)) => drop_ex[*a],
                            None => cfg.drop_tool_results,
                        };
                        n += usize::from(d);
                        drop.push(d);
                    }
                    stats.drop_tool += n;
                    if n == 0 {
                        entries.push(keep);
                    } else if n < drop.len() || kind == Kind::User {
                        entries.push(Entry {
                            source: j,
                            message: Some(Rc::new(without_result_blocks(msg, &drop))),
                            had_calls: false,
                        });
                    }
                }
                _ => entries.push(keep),
            }
        }
        Pass { entries, stats }
    }

    /// Merges a text remnant (an assistant message that lost its calls) into the assistant
    /// message that now follows it, or drops it when that message must stay untouched. A
    /// remnant that still carries thinking (it may be neither removed nor moved) is kept, and
    /// the adjacency it leaves is repaired by restoring its exchange.
    fn merge_remnants(&mut self, messages: &[Value], kinds: &[Kind], end: usize) {
        let mut out: Vec<Entry> = Vec::with_capacity(self.entries.len());
        for e in self.entries.drain(..) {
            if significant(kinds[e.source]) {
                let prev = out.iter().rposition(|p| significant(kinds[p.source]));
                if let Some(p) = prev {
                    let (a, b) = (&out[p], &e);
                    let both_asst = kinds[a.source] == Kind::Assistant && kinds[b.source] == Kind::Assistant;
                    let were_apart = (a.source + 1..b.source).any(|k| significant(kinds[k]));
                    if both_asst && were_apart && a.had_calls && a.message.is_some() {
                        let target = e.message.as_deref().unwrap_or(&messages[e.source]);
                        match (e.source < end).then(|| merge_text(a, target)).flatten() {
                            Some(merged) => {
                                out.remove(p);
                                self.stats.merged_text += 1;
                                out.push(Entry {
                                    source: e.source,
                                    message: Some(Rc::new(merged)),
                                    had_calls: e.had_calls,
                                });
                                continue;
                            }
                            None if !has_thinking(a.message.as_deref()) => {
                                out.remove(p);
                                self.stats.drop_asst_tc += 1;
                            }
                            None => {}
                        }
                    }
                }
            }
            out.push(e);
        }
        self.entries = out;
    }

    /// Output neighbours of the same role (prompts or answers) that the input kept apart.
    fn joins(&self, kinds: &[Kind]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut prev: Option<usize> = None;
        for e in &self.entries {
            let b = e.source;
            if !significant(kinds[b]) {
                continue;
            }
            if let Some(a) = prev {
                let (ka, kb) = (kinds[a], kinds[b]);
                if ka == kb && matches!(ka, Kind::User | Kind::Assistant) && (a + 1..b).any(|k| significant(kinds[k])) {
                    out.push((a, b));
                }
            }
            prev = Some(b);
        }
        out
    }

    /// Produces the plan and final counts.
    fn finish(mut self, h: &History, fr: Frontier) -> Cleaned {
        let mut steps = Vec::with_capacity(self.entries.len());
        let mut tokens_after = 0;
        for e in self.entries {
            let s = Step {
                source: Some(e.source),
                message: e.message,
                reuse: None,
                recall: false,
            };
            tokens_after += h.step_tokens(&s);
            steps.push(s);
        }
        self.stats.messages_before = h.len();
        self.stats.messages_after = steps.len();
        self.stats.tokens_before = h.tokens_of(0..h.len());
        self.stats.tokens_after = tokens_after;
        self.stats.frontier = fr.index;
        Cleaned {
            steps,
            stats: self.stats,
            frontier: fr,
        }
    }
}

/// What to bring back so that output neighbours `a` and `b` are apart again: the latest
/// dropped exchange or message between them (or, failing that, `a`'s own exchange); `None`
/// when there is nothing left to bring back.
fn restore(
    kinds: &[Kind],
    pairing: &Pairing,
    pass: &Pass,
    a: usize,
    b: usize,
    drop_ex: &[bool],
    keep_whole: &[bool],
) -> Option<Vec<Restored>> {
    let present = |i: usize| pass.entries.iter().any(|e| e.source == i);
    for i in (a + 1..b).rev() {
        if present(i) || !significant(kinds[i]) {
            continue;
        }
        if drop_ex[i] {
            return Some(vec![Restored::Exchange(i)]);
        }
        let mut issuers = Vec::new();
        for &(k, _) in pairing.call_of[i].iter().flatten() {
            if drop_ex[k] {
                issuers.push(Restored::Exchange(k));
            }
        }
        if !issuers.is_empty() {
            return Some(issuers);
        }
        if !keep_whole[i] {
            return Some(vec![Restored::Whole(i)]);
        }
    }
    drop_ex[a].then(|| vec![Restored::Exchange(a)])
}

fn has_thinking(m: Option<&Value>) -> bool {
    m.and_then(message::parts)
        .is_some_and(|p| p.iter().any(|x| message::part_kind(x) == PartKind::Thinking))
}

/// Messages that count for role alternation (custom and unknown roles are not sent as turns).
fn significant(k: Kind) -> bool {
    matches!(k, Kind::User | Kind::Assistant | Kind::ToolResult)
}

/// Cleans one assistant message before the frontier; `None` when it is dropped.
fn clean_assistant(
    h: &History,
    j: usize,
    cfg: &CleanConfig,
    drop_calls: bool,
    stats: &mut CleanStats,
) -> Option<Entry> {
    // Made once per message and options: a live session's earlier messages are stripped
    // once, not on every request.
    let s = h.cleaned(j, StripOptions::new(cfg, drop_calls));
    let c = s.counts;
    stats.cleaned_think += c.think;
    stats.cleaned_rc += c.rc;
    let Some(copy) = &s.copy else {
        return Some(Entry {
            source: j,
            message: None,
            had_calls: false,
        });
    };
    if c.empty {
        if c.calls > 0 {
            stats.drop_asst_tc += 1;
        } else {
            stats.dropped_empty += 1;
        }
        return None;
    }
    stats.dropped_calls += c.dropped_calls;
    Some(Entry {
        source: j,
        message: Some(Rc::clone(&copy.message)),
        had_calls: c.dropped_calls > 0,
    })
}

/// Removes the `tool_result` blocks flagged in `drop` (by result slot) from a user message.
fn without_result_blocks(msg: &Value, drop: &[bool]) -> Value {
    let mut out = msg.clone();
    if let Some(Value::Array(parts)) = out.get_mut("content") {
        let mut slot = 0;
        parts.retain(|p| {
            if message::part_kind(p) != PartKind::ToolResult {
                return true;
            }
            let keep = !drop.get(slot).copied().unwrap_or(false);
            slot += 1;
            keep
        });
    }
    out
}

/// Puts a remnant's text parts in front of `target`'s content, when both are part arrays,
/// neither carries thinking (thinking blocks are never moved) and `target` is a plain answer
/// (text merged into a tool-call message would make it a mixed message the next run strips).
fn merge_text(remnant: &Entry, target: &Value) -> Option<Value> {
    let r = remnant.message.as_deref()?;
    let rp = message::parts(r)?;
    let tp = message::parts(target)?;
    if has_thinking(Some(r))
        || has_thinking(Some(target))
        || rp.iter().any(|x| message::part_kind(x) != PartKind::Text)
        || !message::tool_calls(target).is_empty()
    {
        return None;
    }
    let mut merged = target.clone();
    let mut content = rp.clone();
    content.extend_from_slice(tp);
    merged.as_object_mut()?.insert("content".into(), Value::Array(content));
    Some(merged)
}
