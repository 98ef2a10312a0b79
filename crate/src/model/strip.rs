//! What the cleaner removes from one assistant message: its thinking blocks, its top-level
//! `reasoning_content`, and its tool calls when their results go.
//!
//! It sees one message and the [`StripOptions`] and nothing else, so the copy it makes is a
//! function of the two: [`crate::transcript::history`] keeps it keyed by both. Which messages are
//! stripped, and whether their calls go, is the cleaner's decision ([`crate::clean::cleaner`]).

use crate::config::CleanConfig;
use crate::model::message::{self, PartKind};
use serde_json::Value;

/// Everything [`strip`] reads besides the message: the key of the copy it makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StripOptions {
    /// Remove thinking blocks ([`CleanConfig::clean_thinking`]).
    pub clean_thinking: bool,
    /// Remove `reasoning_content` ([`CleanConfig::clear_reasoning_content`]).
    pub clear_reasoning_content: bool,
    /// Remove the tool calls (their results are dropped with them).
    pub drop_calls: bool,
}

impl StripOptions {
    /// The options for a message whose calls go (`drop_calls`) or stay.
    pub fn new(cfg: &CleanConfig, drop_calls: bool) -> StripOptions {
        StripOptions {
            clean_thinking: cfg.clean_thinking,
            clear_reasoning_content: cfg.clear_reasoning_content,
            drop_calls,
        }
    }
}

/// An assistant message without what the cleaner removes from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stripped {
    /// The copy; `None` when nothing is removed.
    pub out: Option<Value>,
    /// What was removed.
    pub counts: StripCounts,
}

/// What [`strip`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StripCounts {
    /// Tool calls the message issued.
    pub calls: usize,
    /// Thinking blocks removed.
    pub think: usize,
    /// `reasoning_content` fields removed (0 or 1).
    pub rc: usize,
    /// Tool calls removed.
    pub dropped_calls: usize,
    /// The copy is empty for providers (and is dropped).
    pub empty: bool,
}

/// Strips `msg`. Thinking stays on a message that keeps its tool calls unless its provider
/// is known not to need it (PROVIDERS.md rule 9).
pub fn strip(msg: &Value, o: StripOptions) -> Stripped {
    let calls = message::tool_calls(msg).len();
    let keeps_calls = calls > 0 && !o.drop_calls;
    let may_strip = !keeps_calls || message::provider_tolerates_missing_reasoning(msg);
    let strip_thinking = o.clean_thinking && may_strip;
    let (mut think, mut rc, mut dropped_calls) = (0, 0, 0);
    let unchanged = Stripped {
        out: None,
        counts: StripCounts {
            calls,
            ..StripCounts::default()
        },
    };
    let mut out = msg.clone();
    if let Some(Value::Array(parts)) = out.get_mut("content") {
        parts.retain(|p| match message::part_kind(p) {
            PartKind::Thinking if strip_thinking => {
                think += 1;
                false
            }
            PartKind::ToolCall if o.drop_calls => {
                dropped_calls += 1;
                false
            }
            _ => true,
        });
    }
    let Some(obj) = out.as_object_mut() else {
        return unchanged;
    };
    if o.drop_calls {
        if let Some(Value::Array(c)) = obj.remove("tool_calls") {
            dropped_calls += c.len();
        }
    }
    if o.clear_reasoning_content && may_strip {
        let has_rc = obj
            .get("reasoning_content")
            .is_some_and(|v| !v.is_null() && v.as_str() != Some(""));
        if has_rc {
            obj.remove("reasoning_content");
            rc += 1;
        }
    }
    if think + rc + dropped_calls == 0 {
        return unchanged;
    }
    let empty = message::is_empty_assistant(&out);
    Stripped {
        out: Some(out),
        counts: StripCounts {
            calls,
            think,
            rc,
            dropped_calls,
            empty,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_option_removes_its_part() {
        let m = json!({"role": "assistant", "reasoning_content": "r", "content": [
            {"type": "thinking", "thinking": "t"},
            {"type": "text", "text": "a"},
            {"type": "toolCall", "id": "c", "name": "read"}
        ]});
        let all = StripOptions {
            clean_thinking: true,
            clear_reasoning_content: true,
            drop_calls: true,
        };
        let s = strip(&m, all);
        assert_eq!(
            s.out,
            Some(json!({"role": "assistant", "content": [{"type": "text", "text": "a"}]}))
        );
        assert_eq!((s.counts.think, s.counts.rc, s.counts.dropped_calls), (1, 1, 1));
        // A message that keeps its calls keeps its reasoning (unknown provider).
        let keep_calls = strip(
            &m,
            StripOptions {
                drop_calls: false,
                ..all
            },
        );
        assert_eq!(keep_calls.out, None);
        assert_eq!(keep_calls.counts.calls, 1);
        let none = StripOptions {
            clean_thinking: false,
            clear_reasoning_content: false,
            drop_calls: false,
        };
        assert_eq!(strip(&m, none).out, None);
    }
}
