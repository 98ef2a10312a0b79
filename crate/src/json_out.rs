//! The results' JSON, written by hand.
//!
//! The result types keep their derived `Serialize` (tests and other Rust callers use it), but
//! the wasm exports print them with [`to_string`]: the derived impls compile one
//! `serialize_field` per field type and the whole serializer into every export, where this
//! writer is one small function per type behind `&dyn Json`. The output is byte for byte what
//! `serde_json::to_string` prints for the derived impls: the tests below compare the two on
//! the results of real sessions and every character of the string escaping.

use crate::assemble::{AssembleStats, Decision, TurnExplain};
use crate::clean::CleanStats;
use crate::index::{EntryRef, Rewrite, SessionIndex, TurnRecord};
use crate::prune::{PruneResult, PrunedUnit, Skipped, Strategy};
use crate::session::{AssembleResult, IndexUpdate};
use crate::steps::Step;
use crate::topics::Topic;
use crate::turns::TokenBreakdown;
use crate::CleanResult;
use serde_json::Value;
use std::rc::Rc;

/// A value that writes itself as JSON (compact, as `serde_json::to_string`).
pub trait Json {
    fn write(&self, o: &mut String);
}

/// `v` as JSON text.
pub fn to_string(v: &dyn Json) -> String {
    let mut o = String::new();
    v.write(&mut o);
    o
}

/// An object being written: `{`, then `"key":value` pairs separated by commas, then `}`.
struct Obj<'a> {
    o: &'a mut String,
    first: bool,
}

fn obj(o: &mut String) -> Obj<'_> {
    o.push('{');
    Obj { o, first: true }
}

impl Obj<'_> {
    /// A field. Keys are the crate's own field names: nothing in them needs escaping.
    fn f(&mut self, key: &str, v: &dyn Json) -> &mut Self {
        if !self.first {
            self.o.push(',');
        }
        self.first = false;
        self.o.push('"');
        self.o.push_str(key);
        self.o.push_str("\":");
        v.write(self.o);
        self
    }

    /// A field left out when it is `None` (`#[serde(skip_serializing_if = "Option::is_none")]`).
    fn opt(&mut self, key: &str, v: Option<&dyn Json>) -> &mut Self {
        match v {
            Some(v) => self.f(key, v),
            None => self,
        }
    }

    fn end(&mut self) {
        self.o.push('}');
    }
}

/// `Some(v)` as a trait object, for [`Obj::opt`].
fn some<T: Json>(v: &Option<T>) -> Option<&dyn Json> {
    v.as_ref().map(|v| v as &dyn Json)
}

/// A JSON string literal, escaped as serde_json escapes: `"`, `\` and the control characters
/// below U+0020 (`\b \t \n \f \r` by name, the others as `\u00XX` in lowercase hex).
fn write_str(o: &mut String, s: &str) {
    o.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        o.push_str(&s[start..i]);
        start = i + 1;
        let named = match b {
            b'"' => '"',
            b'\\' => '\\',
            0x08 => 'b',
            0x09 => 't',
            0x0A => 'n',
            0x0C => 'f',
            0x0D => 'r',
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                o.push_str("\\u00");
                o.push(HEX[(b >> 4) as usize] as char);
                o.push(HEX[(b & 15) as usize] as char);
                continue;
            }
        };
        o.push('\\');
        o.push(named);
    }
    o.push_str(&s[start..]);
    o.push('"');
}

fn write_u64(o: &mut String, n: u64) {
    o.push_str(itoa::Buffer::new().format(n));
}

impl Json for str {
    fn write(&self, o: &mut String) {
        write_str(o, self);
    }
}

impl Json for String {
    fn write(&self, o: &mut String) {
        write_str(o, self);
    }
}

impl Json for usize {
    fn write(&self, o: &mut String) {
        write_u64(o, *self as u64);
    }
}

impl Json for u64 {
    fn write(&self, o: &mut String) {
        write_u64(o, *self);
    }
}

impl Json for u32 {
    fn write(&self, o: &mut String) {
        write_u64(o, u64::from(*self));
    }
}

impl Json for bool {
    fn write(&self, o: &mut String) {
        o.push_str(if *self { "true" } else { "false" });
    }
}

impl Json for f64 {
    fn write(&self, o: &mut String) {
        // serde_json's float printer (zmij), and `null` for NaN and the infinities as it does.
        if self.is_finite() {
            o.push_str(zmij::Buffer::new().format_finite(*self));
        } else {
            o.push_str("null");
        }
    }
}

/// A JSON value as `serde_json::to_string` prints it (compact, keys in the map's order).
impl Json for Value {
    fn write(&self, o: &mut String) {
        match self {
            Value::Null => o.push_str("null"),
            Value::Bool(b) => b.write(o),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    write_u64(o, u);
                } else if let Some(i) = n.as_i64() {
                    o.push_str(itoa::Buffer::new().format(i));
                } else {
                    n.as_f64().unwrap_or(f64::NAN).write(o);
                }
            }
            Value::String(s) => write_str(o, s),
            Value::Array(items) => {
                o.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        o.push(',');
                    }
                    v.write(o);
                }
                o.push(']');
            }
            Value::Object(m) => {
                o.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        o.push(',');
                    }
                    write_str(o, k);
                    o.push(':');
                    v.write(o);
                }
                o.push('}');
            }
        }
    }
}

impl<T: Json + ?Sized> Json for &T {
    fn write(&self, o: &mut String) {
        (**self).write(o);
    }
}

impl<T: Json + ?Sized> Json for Rc<T> {
    fn write(&self, o: &mut String) {
        (**self).write(o);
    }
}

impl<T: Json> Json for Option<T> {
    fn write(&self, o: &mut String) {
        match self {
            Some(v) => v.write(o),
            None => o.push_str("null"),
        }
    }
}

impl<A: Json, B: Json> Json for (A, B) {
    fn write(&self, o: &mut String) {
        o.push('[');
        self.0.write(o);
        o.push(',');
        self.1.write(o);
        o.push(']');
    }
}

impl<T: Json> Json for [T] {
    fn write(&self, o: &mut String) {
        o.push('[');
        for (i, v) in self.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            v.write(o);
        }
        o.push(']');
    }
}

impl<T: Json> Json for Vec<T> {
    fn write(&self, o: &mut String) {
        self.as_slice().write(o);
    }
}

/// A unit enum variant, as its (renamed) name.
fn name(o: &mut String, s: &str) {
    o.push('"');
    o.push_str(s);
    o.push('"');
}

impl Json for Decision {
    fn write(&self, o: &mut String) {
        name(
            o,
            match self {
                Decision::Kept => "kept",
                Decision::Cleaned => "cleaned",
                Decision::Truncated => "truncated",
                Decision::Summarized => "summarized",
                Decision::Stubbed => "stubbed",
            },
        );
    }
}

impl Json for Strategy {
    fn write(&self, o: &mut String) {
        name(
            o,
            match self {
                Strategy::Fifo => "fifo",
                Strategy::SlidingWindow => "sliding-window",
                Strategy::Importance => "importance",
            },
        );
    }
}

impl Json for Rewrite {
    fn write(&self, o: &mut String) {
        name(
            o,
            match self {
                Rewrite::BranchSwitch => "branchSwitch",
                Rewrite::UnknownParent => "unknownParent",
            },
        );
    }
}

impl Json for Step {
    fn write(&self, o: &mut String) {
        obj(o)
            .opt("source", some(&self.source))
            .opt("message", some(&self.message))
            .opt("reuse", some(&self.reuse))
            .end();
    }
}

impl Json for CleanStats {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("messagesBefore", &self.messages_before)
            .f("messagesAfter", &self.messages_after)
            .f("tokensBefore", &self.tokens_before)
            .f("tokensAfter", &self.tokens_after)
            .f("cleanedRC", &self.cleaned_rc)
            .f("cleanedThink", &self.cleaned_think)
            .f("dropTool", &self.drop_tool)
            .f("dropAsstTC", &self.drop_asst_tc)
            .f("droppedCalls", &self.dropped_calls)
            .f("droppedEmpty", &self.dropped_empty)
            .f("mergedText", &self.merged_text)
            .f("frontier", &self.frontier)
            .end();
    }
}

impl Json for CleanResult {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("steps", &self.steps)
            .f("stats", &self.stats)
            .opt("fallback", some(&self.fallback))
            .end();
    }
}

impl Json for TurnExplain {
    fn write(&self, o: &mut String) {
        // One the caller already has from its previous response (see `DeltaRequest::reuse`).
        if self.repeated {
            o.push('0');
            return;
        }
        obj(o)
            .f("id", &self.id)
            .f("topic", &self.topic)
            .f("decision", &self.decision)
            .f("reason", &self.reason)
            .f("tokensBefore", &self.tokens_before)
            .f("tokensAfter", &self.tokens_after)
            .f("protected", &self.protected)
            .f("range", &self.range)
            .end();
    }
}

impl Json for AssembleStats {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("budget", &self.budget)
            .f("turns", &self.turns)
            .f("kept", &self.kept)
            .f("cleaned", &self.cleaned)
            .f("truncated", &self.truncated)
            .f("summarized", &self.summarized)
            .f("stubbed", &self.stubbed)
            .f("clean", &self.clean)
            .f("overBudget", &self.over_budget)
            .end();
    }
}

/// A plan's steps, compactly for a caller that keeps replacements (see
/// `AssembleResult::compact`): a kept message as its source `i`, a replacement sent before as
/// `-i - 1`.
struct Steps<'a>(&'a [Step], bool);

impl Json for Steps<'_> {
    fn write(&self, o: &mut String) {
        o.push('[');
        for (k, st) in self.0.iter().enumerate() {
            if k > 0 {
                o.push(',');
            }
            match (st.source, &st.message, st.reuse) {
                (Some(i), None, None) if self.1 => write_u64(o, i as u64),
                (Some(i), None, Some(true)) if self.1 => {
                    o.push('-');
                    write_u64(o, i as u64 + 1);
                }
                _ => st.write(o),
            }
        }
        o.push(']');
    }
}

impl Json for AssembleResult {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("steps", &Steps(&self.steps, self.compact))
            .f("estimatedTokens", &self.estimated_tokens)
            .f("turns", &self.turns)
            .f("stats", &self.stats)
            .f("summarize", &self.summarize)
            .f("folded", &self.folded)
            .opt("fallback", some(&self.fallback))
            .end();
    }
}

impl Json for PrunedUnit {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("turnIds", &self.turn_ids)
            .f("range", &self.range)
            .f("tokens", &self.tokens)
            .opt("score", some(&self.score))
            .end();
    }
}

impl Json for Skipped {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("protected", &self.protected)
            .f("pinned", &self.pinned)
            .f("excluded", &self.excluded)
            .f("gate", &self.gate)
            .end();
    }
}

impl Json for PruneResult {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("strategy", &self.strategy)
            .f("pruned", &self.pruned)
            .f("turnIds", &self.turn_ids)
            .f("messages", &self.messages)
            .f("steps", &self.steps)
            .f("messagesBefore", &self.messages_before)
            .f("messagesAfter", &self.messages_after)
            .f("tokensBefore", &self.tokens_before)
            .f("tokensAfter", &self.tokens_after)
            .f("targetMet", &self.target_met)
            .f("skipped", &self.skipped)
            .end();
    }
}

impl Json for EntryRef {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("id", &self.id)
            .f("role", &self.role)
            .opt("range", some(&self.range))
            .opt("seq", some(&self.seq))
            .end();
    }
}

impl Json for TokenBreakdown {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("total", &self.total)
            .f("user", &self.user)
            .f("assistant", &self.assistant)
            .f("toolResult", &self.tool_result)
            .f("other", &self.other)
            .f("text", &self.text)
            .f("thinking", &self.thinking)
            .f("toolCall", &self.tool_call)
            .f("image", &self.image)
            .end();
    }
}

impl Json for TurnRecord {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("id", &self.id)
            .f("key", &self.key)
            .f("entries", &self.entries)
            .f("tokens", &self.tokens)
            .f("tools", &self.tools)
            .f("userPreview", &self.user_preview)
            .f("assistantPreview", &self.assistant_preview)
            .opt("startedAt", some(&self.started_at))
            .opt("endedAt", some(&self.ended_at))
            .f("compacted", &self.compacted)
            .f("topicAssistant", &self.topic_assistant)
            .f("topicUser", &self.topic_user)
            .end();
    }
}

impl Json for SessionIndex {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("version", &self.version)
            .f("tip", &self.tip)
            .f("entries", &self.entries)
            .f("preamble", &self.preamble)
            .f("turns", &self.turns)
            .opt("firstKeptEntryId", some(&self.first_kept_entry_id))
            .f("skipped", &self.skipped)
            .f("prevUser", &self.prev_user)
            .end();
    }
}

impl Json for IndexUpdate {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("turns", &self.turns)
            .f("newTurns", &self.new_turns)
            .opt("rewrite", some(&self.rewrite))
            .end();
    }
}

impl Json for Topic {
    fn write(&self, o: &mut String) {
        obj(o)
            .f("id", &self.id)
            .f("firstTurn", &self.first_turn)
            .f("lastTurn", &self.last_turn)
            .f("label", &self.label)
            .f("terms", &self.terms)
            .end();
    }
}

/// `Session.topics()`'s result: `{"topics": [...], "topicOfTurn": [...]}` (the wasm export's).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub fn topics(topics: &[Topic], topic_of_turn: &[usize]) -> String {
    let mut o = String::new();
    obj(&mut o).f("topics", &topics).f("topicOfTurn", &topic_of_turn).end();
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    fn same<T: Json + Serialize>(v: &T) {
        assert_eq!(to_string(v), serde_json::to_string(v).unwrap());
    }

    #[test]
    fn strings_escape_as_serde_json() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let s = format!("a{c}b{c}");
            same(&s);
        }
        same(&String::new());
        same(&"\"\\\u{0}\u{1f}\u{7f}é😀".to_string());
    }

    #[test]
    fn scalars_as_serde_json() {
        for n in [0u64, 1, 9, 10, 99, 12345, u64::from(u32::MAX), u64::MAX] {
            same(&n);
            same(&(n as usize));
        }
        same(&u32::MAX);
        same(&true);
        same(&false);
        for f in [
            0.0,
            -0.0,
            1.0,
            0.1,
            1.5e300,
            -2.25e-300,
            f64::NAN,
            f64::INFINITY,
            1.0 / 3.0,
        ] {
            same(&f);
            same(&Some(f));
        }
        same(&None::<String>);
        same(&(3usize, 4usize));
        same(&Some((5u64, 6u64)));
        same(&vec![Some(1u64), None]);
        same(&Vec::<String>::new());
        for d in [
            Decision::Kept,
            Decision::Cleaned,
            Decision::Truncated,
            Decision::Summarized,
            Decision::Stubbed,
        ] {
            same(&d);
        }
        for s in [Strategy::Fifo, Strategy::SlidingWindow, Strategy::Importance] {
            same(&s);
        }
        for r in [Rewrite::BranchSwitch, Rewrite::UnknownParent] {
            same(&r);
        }
    }

    /// The entries of the repository's sample sessions, and their messages.
    fn samples() -> Vec<(Vec<crate::index::Entry>, Vec<Value>)> {
        ["session", "multitopic"]
            .iter()
            .map(|name| {
                let path = format!("{}/../samples/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
                let text = std::fs::read_to_string(path).unwrap();
                let entries: Vec<_> = text
                    .lines()
                    .map(|l| crate::index::Entry::from_value(serde_json::from_str(l).unwrap()).unwrap())
                    .collect();
                let messages = entries.iter().filter_map(|e| e.message.clone()).collect();
                (entries, messages)
            })
            .collect()
    }

    #[test]
    fn results_as_serde_json() {
        use serde_json::json;
        for (entries, messages) in samples() {
            assert!(messages.len() > 10);
            for complete in [false, true] {
                same(&crate::clean_history(&messages, &Default::default(), complete));
            }
            for (budget, prompt) in [(300, None), (2000, Some("ledger tests")), (100_000, None)] {
                let req = json!({"messages": messages, "entries": entries.iter().map(|e| json!({
                    "id": e.id, "parentId": e.parent_id, "type": e.kind, "message": e.message,
                })).collect::<Vec<_>>(), "budget": budget, "prompt": prompt});
                same(&crate::one_shot(req).unwrap().run().unwrap());
            }
            for req in [
                json!({"messages": messages, "strategy": "fifo", "maxTurns": 1, "protectRecentTurns": 1}),
                json!({"messages": messages, "strategy": "sliding-window", "keepMessages": 4, "protectRecentTurns": 1}),
                json!({"messages": messages, "strategy": "importance", "targetTokens": 200, "protectRecentTurns": 1}),
            ] {
                let r = crate::prune::prune(&crate::prune::PruneRequest::from_value(req).unwrap()).unwrap();
                assert!(!r.pruned.is_empty(), "{:?}", r.strategy);
                same(&r);
            }
            let mut index = crate::index::SessionIndex::build(&entries);
            same(&index);
            index.first_kept_entry_id = Some("x\"y".into());
            index.tip = None;
            if let Some(t) = index.turns.first_mut() {
                t.started_at = Some(json!("2026-11-02T09:00:28.000Z"));
                t.ended_at = Some(json!(1.5));
                t.entries[0].range = Some((3, 4));
                t.entries[0].seq = Some(7);
            }
            same(&index);
            let mut session = crate::session::Session::new(Default::default());
            let half = entries.len() / 2;
            same(&session.rebuild(&entries[..half]));
            same(&session.append(&entries[half..]));
            let (topics, of) = session.topics();
            assert!(!topics.is_empty());
            same(&topics);
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Topics<'a> {
                topics: &'a [Topic],
                topic_of_turn: &'a [usize],
            }
            assert_eq!(
                super::topics(&topics, &of),
                serde_json::to_string(&Topics {
                    topics: &topics,
                    topic_of_turn: &of
                })
                .unwrap()
            );
            let delta = crate::session::DeltaRequest::from_value(json!({"keep": 0, "append": messages})).unwrap();
            same(&session.assemble_delta(delta).unwrap());
            // A caller that keeps replacements and explanations: compact steps, repeated
            // explanations as `0` (the second request repeats the first).
            let mut explained: Vec<Value> = Vec::new();
            for keep in [0, messages.len()] {
                let append = if keep == 0 { messages.clone() } else { Vec::new() };
                let delta = crate::session::DeltaRequest::from_value(
                    json!({"keep": keep, "append": append, "reuse": true, "budget": 2000}),
                );
                let r = session.assemble_delta(delta.unwrap()).unwrap();
                assert!(r.compact);
                assert_eq!(r.turns.iter().any(|t| t.repeated), keep > 0);
                // Decoded as the JS layer decodes it, the compact form is the plain one.
                let mut out: Value = serde_json::from_str(&to_string(&r)).unwrap();
                let mut numbers = 0;
                for s in out["steps"].as_array_mut().unwrap() {
                    if let Some(n) = s.as_i64() {
                        numbers += 1;
                        *s = match n >= 0 {
                            true => json!({"source": n}),
                            false => json!({"source": -n - 1, "reuse": true}),
                        };
                    }
                }
                assert!(numbers > 0);
                for (i, t) in out["turns"].as_array_mut().unwrap().iter_mut().enumerate() {
                    if *t == json!(0) {
                        *t = explained[i].clone();
                    }
                }
                explained = out["turns"].as_array().unwrap().clone();
                assert_eq!(out, serde_json::to_value(&r).unwrap());
            }
        }
        same(&crate::session::IndexUpdate {
            turns: 3,
            new_turns: 1,
            rewrite: Some(Rewrite::BranchSwitch),
        });
        let message = Some(Rc::new(
            json!({"role": "user", "content": "a \"b\"\n", "n": [1, 2.5, -3e-7]}),
        ));
        for (source, reuse) in [(None, None), (Some(4), Some(true)), (Some(0), Some(false))] {
            same(&Step {
                source,
                message: message.clone(),
                reuse,
            });
            same(&Step {
                source,
                message: None,
                reuse,
            });
        }
        same(&CleanResult {
            steps: vec![],
            stats: CleanStats::default(),
            fallback: Some("gate: \"x\"".into()),
        });
    }
}
