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
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| message::part_kind(p) == PartKind::Text)
            .map(|p| message::str_field(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Text of a tool result message's content (for relevance and truncation decisions).
pub fn result_text(m: &Value) -> String {
    match field(m, "content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match message::part_kind(p) {
                PartKind::Text => message::str_field(p, "text").to_string(),
                PartKind::ToolResult => match field(p, "content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(inner)) => inner
                        .iter()
                        .map(|x| message::str_field(x, "text"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                },
                _ => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Shortens text to at most `max` characters on a character boundary, with an ellipsis.
pub fn preview(text: &str, max: usize) -> String {
    let squashed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if squashed.chars().count() <= max {
        return squashed;
    }
    let cut: String = squashed.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
