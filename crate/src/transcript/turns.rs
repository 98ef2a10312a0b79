//! Turns: the unit of folding.
//!
//! A turn is a user prompt and everything up to the next user prompt (consecutive user
//! messages, such as a prompt followed by a host-injected context message, open one turn).
//! Messages before the first prompt form the *preamble* (compaction summaries, custom
//! messages), which is never folded.
//!
//! Each turn has a content key: a 64-bit FNV-1a hash of its first user message's role,
//! content and timestamp, so the same turn is recognised whether it comes from the host's
//! `assemble` messages or from the transcript, whatever fields the host adds around it.

use crate::model::message::{self, field, Kind, PartKind};
use crate::model::tokens;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::ops::Range;

/// Token counts of a turn by role and by part type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TokenBreakdown {
    pub total: usize,
    pub user: usize,
    pub assistant: usize,
    pub tool_result: usize,
    pub other: usize,
    pub text: usize,
    pub thinking: usize,
    pub tool_call: usize,
    pub image: usize,
}

impl TokenBreakdown {
    /// Adds one message.
    pub fn add(&mut self, m: &Value) {
        let n = tokens::message(m);
        self.total += n;
        match message::kind(m) {
            Kind::User => self.user += n,
            Kind::Assistant => self.assistant += n,
            Kind::ToolResult => self.tool_result += n,
            _ => self.other += n,
        }
        match field(m, "content") {
            Some(Value::Array(parts)) => {
                for p in parts {
                    let t = tokens::part(p);
                    match message::part_kind(p) {
                        PartKind::Thinking => self.thinking += t,
                        PartKind::ToolCall => self.tool_call += t,
                        PartKind::Image => self.image += t,
                        _ => self.text += t,
                    }
                }
            }
            Some(c) => self.text += tokens::content(c),
            None => {}
        }
        if let Some(Value::String(rc)) = field(m, "reasoning_content") {
            self.thinking += tokens::text(rc);
        }
        if let Some(Value::Array(calls)) = field(m, "tool_calls") {
            for c in calls {
                if let Some(f) = field(c, "function") {
                    self.tool_call += tokens::text(message::str_field(f, "name"));
                    self.tool_call += tokens::text(&field(f, "arguments").map(tokens::json_text).unwrap_or_default());
                }
            }
        }
    }
}

/// One turn of a message list.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSpan {
    /// Message positions `[start, end)`.
    pub range: Range<usize>,
    /// Content key of the first user message.
    pub key: u64,
}

/// Splits messages into the preamble range and the turns.
pub fn split(messages: &[Value]) -> (Range<usize>, Vec<TurnSpan>) {
    split_by(
        messages.len(),
        |i| message::kind(&messages[i]),
        |i| key_of(&messages[i]),
    )
}

/// [`split`] of `n` messages, given the kind of each and the content key of each (asked of
/// the first message of each turn only).
pub fn split_by(n: usize, kind: impl Fn(usize) -> Kind, key: impl Fn(usize) -> u64) -> (Range<usize>, Vec<TurnSpan>) {
    let mut starts = Vec::new();
    let mut prev_user = false;
    for i in 0..n {
        let k = kind(i);
        let user = k == Kind::User;
        if user && !prev_user {
            starts.push(i);
        }
        if matches!(k, Kind::User | Kind::Assistant | Kind::ToolResult) {
            prev_user = user;
        }
    }
    let pre_end = starts.first().copied().unwrap_or(n);
    let turns = starts
        .iter()
        .enumerate()
        .map(|(t, &s)| {
            let e = starts.get(t + 1).copied().unwrap_or(n);
            TurnSpan {
                range: s..e,
                key: key(s),
            }
        })
        .collect();
    (0..pre_end, turns)
}

/// The content key of a message: FNV-1a over role, content and timestamp.
pub fn key_of(m: &Value) -> u64 {
    let mut h = Fnv::new();
    h.write(message::role(m).as_bytes());
    h.write(&[0]);
    if let Some(c) = field(m, "content") {
        h.write(tokens::json_text(c).as_bytes());
    }
    h.write(&[0]);
    if let Some(t) = field(m, "timestamp") {
        h.write(tokens::json_text(t).as_bytes());
    }
    h.finish()
}

/// Formats a content key as a turn id (used when no transcript entry id is known).
pub fn hash_id(key: u64) -> String {
    format!("h{key:016x}")
}

/// A 64-bit FNV-1a hasher (stable across platforms and versions, unlike `DefaultHasher`).
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

/// Plain text of a message's visible text parts (no thinking, no tool payloads).
pub fn visible_text(m: &Value) -> String {
    match field(m, "content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => join(
            &parts
                .iter()
                .filter(|p| message::part_kind(p) == PartKind::Text)
                .map(|p| message::str_field(p, "text"))
                .collect::<Vec<_>>(),
            "\n",
        ),
        _ => String::new(),
    }
}

/// Text of a tool result message's content (for relevance and truncation decisions).
pub fn result_text(m: &Value) -> String {
    match field(m, "content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => join(
            &parts
                .iter()
                .map(|p| match message::part_kind(p) {
                    PartKind::Text => message::str_field(p, "text").to_string(),
                    PartKind::ToolResult => match field(p, "content") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Array(inner)) => join(
                            &inner.iter().map(|x| message::str_field(x, "text")).collect::<Vec<_>>(),
                            "\n",
                        ),
                        _ => String::new(),
                    },
                    _ => String::new(),
                })
                .collect::<Vec<_>>(),
            "\n",
        ),
        _ => String::new(),
    }
}

/// Shortens text to at most `max` characters on a character boundary, with an ellipsis.
pub fn preview(text: &str, max: usize) -> String {
    let squashed: String = join(&text.split_whitespace().collect::<Vec<_>>(), " ");
    if squashed.chars().count() <= max {
        return squashed;
    }
    let cut: String = squashed.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// The stable sorted order of `n` items: positions `0..n` ordered by `less` (which compares
/// two positions), equal items in their original order.
///
/// A bottom-up merge sort written to save wasm bytes. Only `fold::summary` still calls it
/// (through [`sort_by`]; [`join`] too); the rest of the crate uses std's `sort_by`/`join`. It
/// goes when summary moves to std's too.
pub fn sorted_order(n: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut buf = vec![0usize; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut a, mut b) = (start, mid);
            for slot in &mut buf[start..end] {
                let take_b = a == mid || (b < end && less(order[b], order[a]));
                if take_b {
                    *slot = order[b];
                    b += 1;
                } else {
                    *slot = order[a];
                    a += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut order, &mut buf);
        width *= 2;
    }
    order
}

/// `parts.join(sep)` (see [`sorted_order`] for why it is still here).
pub fn join<S: AsRef<str>>(parts: &[S], sep: &str) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(p.as_ref());
    }
    out
}

/// Sorts `v` stably by `less` (see [`sorted_order`]).
pub fn sort_by<T>(v: &mut [T], mut less: impl FnMut(&T, &T) -> bool) {
    sort_dyn(v, &mut less);
}

/// [`sort_by`], compiled once per element type rather than once per comparator.
fn sort_dyn<T>(v: &mut [T], less: &mut dyn FnMut(&T, &T) -> bool) {
    let order = sorted_order(v.len(), &mut |a, b| less(&v[a], &v[b]));
    // Position i takes the item at order[i]: along each cycle of the permutation, swapping
    // every position with the next one moves each item once.
    let mut placed = vec![false; order.len()];
    for start in 0..order.len() {
        let mut i = start;
        while !placed[i] {
            placed[i] = true;
            let next = order[i];
            if next != start {
                v.swap(i, next);
            }
            i = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn join_is_std_join() {
        let words = ["", "a", "bc", "", "déf", "😀", "g h"];
        for n in 0..=words.len() {
            for sep in ["", " ", "\n", "; ", " / ", ", ", "—–"] {
                let strs = &words[..n];
                let strings: Vec<String> = strs.iter().map(|w| w.to_string()).collect();
                assert_eq!(join(strs, sep), strs.join(sep));
                assert_eq!(join(&strings, sep), strings.join(sep));
            }
        }
    }

    #[test]
    fn turns_start_at_user_prompts() {
        let m = vec![
            json!({"role":"compactionSummary","summary":"s"}),
            json!({"role":"user","content":"a","timestamp":1}),
            json!({"role":"user","content":"ctx","timestamp":2}),
            json!({"role":"assistant","content":[{"type":"toolCall","id":"c","name":"t"}]}),
            json!({"role":"toolResult","toolCallId":"c","content":[]}),
            json!({"role":"assistant","content":[{"type":"text","text":"x"}]}),
            json!({"role":"user","content":"b","timestamp":3}),
        ];
        let (pre, t) = split(&m);
        assert_eq!(pre, 0..1);
        assert_eq!(t.iter().map(|x| x.range.clone()).collect::<Vec<_>>(), vec![1..6, 6..7]);
        assert_ne!(t[0].key, t[1].key);
        // extra host fields do not change the key
        let mut with_extra = m[1].clone();
        with_extra["__openclaw"] = json!({"senderIsOwner": true});
        assert_eq!(key_of(&with_extra), t[0].key);
    }

    #[test]
    fn preview_cuts_on_chars() {
        assert_eq!(preview("héllo   wörld", 20), "héllo wörld");
        assert_eq!(preview("上下文引擎", 3), "上下…");
    }

    #[test]
    fn sorts_are_stable() {
        let mut v: Vec<(u8, usize)> = [3u8, 1, 2, 1, 3, 0, 2, 1]
            .iter()
            .enumerate()
            .map(|(k, &x)| (x, k))
            .collect();
        let mut expected = v.clone();
        expected.sort_by_key(|p| p.0);
        sort_by(&mut v, |a, b| a.0 < b.0);
        assert_eq!(v, expected);
        for n in 0..40usize {
            let mut w: Vec<usize> = (0..n).map(|k| (k * 7919) % 13).collect();
            let mut e = w.clone();
            e.sort();
            sort_by(&mut w, |a, b| a < b);
            assert_eq!(w, e);
        }
    }
}
