//! Masking: a tool result's content replaced by a one-line placeholder (see
//! [`crate::fold::summary::placeholder`]) that keeps the facts it returned. The message keeps
//! its role, call id, tool name and error flag, so the call and its result still pair; an
//! Anthropic user message keeps its other blocks. It never decides which results are masked.

use crate::fold::summary::{placeholder, Recovery};
use crate::model::message::{self, PartKind};
use crate::model::tokens;
use crate::transcript::turns;
use serde_json::Value;

/// The longest placeholder, in estimated tokens.
pub const PLACEHOLDER_TOKENS: usize = 96;

/// A copy of tool-result message `msg` with each result's content replaced by its placeholder
/// (`names`: the tool name of each result slot, in order), or `None` when no placeholder would
/// be smaller than the content it replaces.
pub fn mask(msg: &Value, names: &[String], turn_id: &str, recovery: Recovery) -> Option<Value> {
    let mut out = msg.clone();
    let name = |slot: usize| names.get(slot).map_or("", String::as_str);
    let mut changed = false;
    match message::role(msg) {
        // OpenClaw `toolResult` (parts) and OpenAI `tool` (string) messages hold one result.
        "toolResult" | "tool" => {
            let tool = match name(0) {
                "" => message::str_field(msg, "toolName"),
                n => n,
            };
            let size = tokens::message(msg);
            let line = placeholder(tool, msg, size, turn_id, recovery, PLACEHOLDER_TOKENS);
            if tokens::text(&line) < size {
                let content = match message::field(msg, "content") {
                    Some(Value::String(_)) => Value::String(line),
                    _ => message::text_parts(line),
                };
                message::as_object_mut(&mut out)?.insert("content".into(), content);
                changed = true;
            }
        }
        // Anthropic: `tool_result` blocks inside a user message.
        _ => {
            let Some(Value::Array(parts)) = out.get_mut("content") else {
                return None;
            };
            let mut slot = 0;
            for p in parts.iter_mut() {
                if message::part_kind(p) != PartKind::ToolResult {
                    continue;
                }
                let text = turns::result_text(&serde_json::json!({"content": [p.clone()]}));
                let size = tokens::text(&text);
                let line = placeholder(name(slot), p, size, turn_id, recovery, PLACEHOLDER_TOKENS);
                slot += 1;
                if tokens::text(&line) < size {
                    if let Some(o) = p.as_object_mut() {
                        o.insert("content".into(), Value::String(line));
                        changed = true;
                    }
                }
            }
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn big(text: &str) -> String {
        format!("{text} {}", "filler words of the listing ".repeat(60))
    }

    #[test]
    fn an_openclaw_result_keeps_its_ids_and_facts() {
        let m = json!({"role": "toolResult", "toolCallId": "call_7", "toolName": "get_user_details", "isError": false,
            "content": [{"type": "text", "text": big("user mia_li_3668 booked reservation NO6JO3 on 2024-05-20 for $1,200")}]});
        let out = mask(&m, &[], "m0012", Recovery::Tool).unwrap();
        assert_eq!(out["toolCallId"], "call_7");
        assert_eq!(out["toolName"], "get_user_details");
        assert_eq!(out["isError"], false);
        let line = out["content"][0]["text"].as_str().unwrap();
        assert!(line.starts_with("[result of get_user_details masked (~"), "{line}");
        for fact in [
            "mia_li_3668",
            "NO6JO3",
            "2024-05-20",
            "$1,200",
            "context_engine_recover turn m0012",
        ] {
            assert!(line.contains(fact), "{fact} missing from {line}");
        }
        assert!(tokens::message(&out) < tokens::message(&m));
        assert!(tokens::text(line) <= PLACEHOLDER_TOKENS);
    }

    #[test]
    fn openai_and_anthropic_results_stay_paired() {
        let m = json!({"role": "tool", "tool_call_id": "c1", "content": big("order #A1B2C3 shipped")});
        let out = mask(&m, &["lookup_order".into()], "t1", Recovery::Unavailable).unwrap();
        assert_eq!(out["tool_call_id"], "c1");
        let s = out["content"].as_str().unwrap();
        assert!(
            s.starts_with("[result of lookup_order masked") && s.ends_with("turn t1, left out of this request]"),
            "{s}"
        );

        let a = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu1", "content": big("file src/main.rs has 42 lines")},
            {"type": "text", "text": "and here is more"}]});
        let out = mask(&a, &["read".into()], "t2", Recovery::Tool).unwrap();
        assert_eq!(out["content"][0]["tool_use_id"], "tu1");
        assert!(out["content"][0]["content"].as_str().unwrap().contains("src/main.rs"));
        assert_eq!(out["content"][1], a["content"][1]);
    }

    #[test]
    fn a_short_result_is_not_masked() {
        let m = json!({"role": "toolResult", "toolCallId": "c", "toolName": "ls", "content": [{"type": "text", "text": "ok"}]});
        assert!(mask(&m, &[], "t", Recovery::Tool).is_none());
    }
}
