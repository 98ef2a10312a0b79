//! Head + tail truncation of huge tool results.
//!
//! Keeps the first two thirds and the last third of the allowed characters, cut on
//! character boundaries (preferring a nearby line break), with a marker in between that
//! says how much was left out and how to get it back. Deterministic: the same text and
//! limit always give the same bytes, so a truncated result stays prompt-cache stable.
//! Lengths are in Unicode scalar values (characters), not bytes.

use crate::model::message::{self, PartKind};
use serde_json::Value;

/// How far (in characters) a cut may move to land on a line break.
const SNAP: usize = 200;

/// Truncates `text` to about `max_chars` characters, or returns `None` if it fits.
pub fn head_tail(text: &str, max_chars: usize) -> Option<String> {
    let total = text.chars().count();
    if total <= max_chars || max_chars == 0 {
        return None;
    }
    let head_n = max_chars * 2 / 3;
    let tail_n = max_chars - head_n;
    let mut head_end = byte_at(text, head_n);
    let mut tail_start = byte_at(text, total - tail_n);
    let snap_start = byte_at(text, head_n.saturating_sub(SNAP));
    if let Some(nl) = text[snap_start..head_end].rfind('\n') {
        head_end = snap_start + nl;
    }
    let snap_end = byte_at(text, (total - tail_n + SNAP).min(total));
    if let Some(nl) = text[tail_start..snap_end].find('\n') {
        tail_start += nl + 1;
    }
    let omitted = text[head_end..tail_start].chars().count();
    Some(format!(
        "{}\n[… {omitted} characters omitted by contextfold (head and tail kept); recover the turn for the full output …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    ))
}

/// The byte offset of character `n` of `text` (its length when `n` is the character count).
fn byte_at(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(b, _)| b)
}

/// Truncates the text parts of a tool-result message whose total text exceeds
/// `max_chars`. Returns the edited copy, or `None` when nothing needed cutting. Ids, tool
/// name, error flag and image parts are kept as they are.
pub fn tool_result(msg: &Value, max_chars: usize) -> Option<Value> {
    let mut out = msg.clone();
    let mut changed = false;
    match out.get_mut("content") {
        Some(Value::String(s)) => {
            if let Some(t) = head_tail(s, max_chars) {
                *s = t;
                changed = true;
            }
        }
        Some(Value::Array(parts)) => {
            for p in parts.iter_mut() {
                changed |= truncate_part(p, max_chars);
            }
        }
        _ => {}
    }
    changed.then_some(out)
}

fn truncate_part(p: &mut Value, max_chars: usize) -> bool {
    match message::part_kind(p) {
        PartKind::Text => {
            let cut = head_tail(message::str_field(p, "text"), max_chars);
            match (cut, p.as_object_mut()) {
                (Some(t), Some(o)) => {
                    o.insert("text".into(), Value::String(t));
                    true
                }
                _ => false,
            }
        }
        PartKind::ToolResult => match p.get_mut("content") {
            Some(Value::String(s)) => match head_tail(s, max_chars) {
                Some(t) => {
                    *s = t;
                    true
                }
                None => false,
            },
            Some(Value::Array(inner)) => {
                let mut changed = false;
                for x in inner.iter_mut() {
                    changed |= truncate_part(x, max_chars);
                }
                changed
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(head_tail("abc", 10), None);
    }

    #[test]
    fn keeps_head_and_tail_within_limit() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let t = head_tail(&text, 1000).unwrap();
        assert!(t.starts_with("line 0\n"));
        assert!(t.ends_with("line 1999\n"));
        assert!(t.contains("characters omitted"));
        assert!(t.chars().count() < 1000 + 150);
        assert_eq!(head_tail(&text, 1000).unwrap(), t, "deterministic");
    }

    #[test]
    fn never_splits_a_character() {
        let text = "上下文".repeat(1000);
        let t = head_tail(&text, 100).unwrap();
        assert!(t.starts_with("上下文"));
    }

    #[test]
    fn tool_result_keeps_ids() {
        let m = json!({"role":"toolResult","toolCallId":"c","toolName":"read","isError":false,
            "content":[{"type":"text","text":"x".repeat(500)},{"type":"image","data":"AA","mimeType":"image/png"}]});
        let t = tool_result(&m, 100).unwrap();
        assert_eq!(t["toolCallId"], "c");
        assert_eq!(t["content"][1], m["content"][1]);
        assert!(t["content"][0]["text"].as_str().unwrap().len() < 300);
        assert!(tool_result(&m, 1000).is_none());
    }
}
