//! The message view: what a message *is* for the engine, read from any of the three
//! wire shapes it accepts, without copying or normalising the JSON.
//!
//! Messages stay `serde_json::Value`s (with `preserve_order`, so unknown fields and their
//! order survive). This module only classifies them and locates their parts:
//!
//! * OpenClaw `AgentMessage`: roles `user`, `assistant`, `toolResult`, `custom`,
//!   `compactionSummary`, `branchSummary`, `bashExecution`; parts `text`, `thinking`
//!   (incl. `redacted`), `toolCall`, `image`.
//! * OpenAI chat: `role: "tool"` + `tool_call_id`, assistant `tool_calls`, top-level
//!   `reasoning_content`.
//! * Anthropic messages: `thinking` / `redacted_thinking` / `tool_use` blocks in assistant
//!   content, `tool_result` blocks inside user content.
//!
//! It never decides anything; the cleaner, the gate and the planner do.

use serde_json::{Map, Value};

/// What role a message plays in a conversation, whatever its wire shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A user prompt (a user message that is not only tool results).
    User,
    /// A model answer: text, thinking, tool calls.
    Assistant,
    /// A message that only carries tool results (OpenClaw `toolResult`, OpenAI `tool`,
    /// or an Anthropic user message made only of `tool_result` blocks).
    ToolResult,
    /// System or developer instructions.
    System,
    /// Anything else (custom, summaries, bash executions, unknown roles): passed through.
    Other,
}

/// Where a tool call lives inside an assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRef {
    /// The call id (may repeat within a session).
    pub id: String,
    /// The tool name, when present.
    pub name: String,
}

/// The role of a content part, for counting and cleaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Image,
    Other,
}

/// Classifies one content part (`content[i]`).
pub fn part_kind(part: &Value) -> PartKind {
    match field(part, "type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("thinking") | Some("redacted_thinking") => PartKind::Thinking,
        Some("toolCall") | Some("tool_use") => PartKind::ToolCall,
        Some("tool_result") => PartKind::ToolResult,
        Some("image") | Some("image_url") => PartKind::Image,
        _ => PartKind::Other,
    }
}

/// The message's `role` string, or `""`.
pub fn role(msg: &Value) -> &str {
    field(msg, "role").and_then(Value::as_str).unwrap_or("")
}

/// The message's `content` array, when it is one.
pub fn parts(msg: &Value) -> Option<&Vec<Value>> {
    field(msg, "content").and_then(Value::as_array)
}

/// Classifies a message.
pub fn kind(msg: &Value) -> Kind {
    match role(msg) {
        "user" => {
            if is_tool_result_carrier(msg) {
                Kind::ToolResult
            } else {
                Kind::User
            }
        }
        "assistant" => Kind::Assistant,
        "toolResult" | "tool" => Kind::ToolResult,
        "system" | "developer" => Kind::System,
        _ => Kind::Other,
    }
}

/// An Anthropic user message whose content is only `tool_result` blocks (at least one).
fn is_tool_result_carrier(msg: &Value) -> bool {
    match parts(msg) {
        Some(p) if !p.is_empty() => count_parts(p, PartKind::ToolResult) == p.len(),
        _ => false,
    }
}

/// How many of `parts` are of kind `k`.
pub(crate) fn count_parts(parts: &[Value], k: PartKind) -> usize {
    let mut n = 0;
    for p in parts {
        if part_kind(p) == k {
            n += 1;
        }
    }
    n
}

/// The tool calls an assistant message issues, in order: OpenClaw `toolCall` parts,
/// Anthropic `tool_use` blocks, then OpenAI `tool_calls` entries.
pub fn tool_calls(msg: &Value) -> Vec<CallRef> {
    let mut out = Vec::new();
    if kind(msg) != Kind::Assistant || !issues_calls(msg) {
        return out;
    }
    if let Some(p) = parts(msg) {
        for part in p {
            if part_kind(part) == PartKind::ToolCall {
                out.push(CallRef {
                    id: str_field(part, "id").to_string(),
                    name: str_field(part, "name").to_string(),
                });
            }
        }
    }
    if let Some(calls) = field(msg, "tool_calls").and_then(Value::as_array) {
        for c in calls {
            out.push(CallRef {
                id: str_field(c, "id").to_string(),
                name: field(c, "function")
                    .map(|f| str_field(f, "name"))
                    .unwrap_or("")
                    .to_string(),
            });
        }
    }
    out
}

/// The ids of [`tool_calls`], in order.
pub fn call_ids(msg: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for c in tool_calls(msg) {
        out.push(c.id);
    }
    out
}

/// Whether a message has a tool call part or OpenAI `tool_calls` entries.
fn issues_calls(msg: &Value) -> bool {
    parts(msg).is_some_and(|p| count_parts(p, PartKind::ToolCall) > 0)
        || field(msg, "tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty())
}

/// The call ids a tool-result message answers, in order.
pub fn result_ids(msg: &Value) -> Vec<String> {
    if kind(msg) != Kind::ToolResult && kind(msg) != Kind::User {
        return Vec::new();
    }
    match role(msg) {
        "toolResult" => vec![str_field(msg, "toolCallId").to_string()],
        "tool" => vec![str_field(msg, "tool_call_id").to_string()],
        "user" => {
            let mut out = Vec::new();
            for b in parts(msg).map_or(&[][..], Vec::as_slice) {
                if part_kind(b) == PartKind::ToolResult {
                    out.push(str_field(b, "tool_use_id").to_string());
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// A string field or `""`.
pub fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    field(v, key).and_then(Value::as_str).unwrap_or("")
}

/// A field of a JSON object. Messages and their parts have a handful of keys, and the ones
/// looked up most (`role`, `type`, `content`) come first, so a scan in key order beats hashing
/// the key (the map's hasher is SipHash); large objects use the map's own lookup.
#[inline]
pub fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(m) if m.len() <= 16 => m.iter().find(|(k, _)| same_key(k, key)).map(|(_, v)| v),
        Value::Object(m) => m.get(key),
        _ => None,
    }
}

/// Key equality, length and first byte first: most keys of a message differ in one of them,
/// and a full comparison is a call to `memcmp`.
#[inline]
fn same_key(k: &str, key: &str) -> bool {
    let (a, b) = (k.as_bytes(), key.as_bytes());
    a.len() == b.len() && a.first() == b.first() && a == b
}

/// True when the message has visible, non-blank text: a string `content`, a `text` part
/// with non-whitespace text, or (for non-assistant roles) any non-thinking part.
pub fn has_text(msg: &Value) -> bool {
    match field(msg, "content") {
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(p)) => p.iter().any(|part| match part_kind(part) {
            PartKind::Text => !str_field(part, "text").trim().is_empty(),
            _ => false,
        }),
        _ => false,
    }
}

/// True when the message has a text part that is blank (empty or whitespace).
pub fn has_blank_text(msg: &Value) -> bool {
    parts(msg).is_some_and(|p| {
        p.iter()
            .any(|x| part_kind(x) == PartKind::Text && str_field(x, "text").trim().is_empty())
    })
}

/// True when the message carries reasoning: thinking parts or `reasoning_content`.
pub fn has_reasoning(msg: &Value) -> bool {
    let top = field(msg, "reasoning_content")
        .map(|v| !v.is_null() && v.as_str() != Some(""))
        .unwrap_or(false);
    top || parts(msg).is_some_and(|p| count_parts(p, PartKind::Thinking) > 0)
}

/// An assistant message that is "empty" for providers: no parts, only thinking, or only
/// blank text, and no tool calls.
pub fn is_empty_assistant(msg: &Value) -> bool {
    if role(msg) != "assistant" {
        return false;
    }
    if !tool_calls(msg).is_empty() {
        return false;
    }
    match field(msg, "content") {
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(Value::Array(p)) => !p.iter().any(|part| match part_kind(part) {
            PartKind::Text => !str_field(part, "text").trim().is_empty(),
            PartKind::Thinking => false,
            _ => true,
        }),
        _ => true,
    }
}

/// Whether the provider that wrote this assistant message is known to accept an
/// assistant tool-call message without its reasoning (PROVIDERS.md rule 9). Unknown
/// providers are assumed to need it.
pub fn provider_tolerates_missing_reasoning(msg: &Value) -> bool {
    let provider = str_field(msg, "provider");
    let api = str_field(msg, "api").as_bytes();
    const SAFE: [&str; 6] = [
        "anthropic",
        "openai",
        "google",
        "amazon-bedrock",
        "azure-openai",
        "vertex",
    ];
    for p in SAFE {
        if provider.eq_ignore_ascii_case(p) {
            return true;
        }
    }
    provider.is_empty() && api.len() >= 9 && api[..9].eq_ignore_ascii_case(b"anthropic")
}

/// `[{"type": "text", "text": text}]`: content made of one text part. Built directly: `json!`
/// with a variable in it serializes the variable through `serde_json::to_value`.
pub fn text_parts(text: String) -> Value {
    let mut part = Map::new();
    part.insert("type".into(), Value::String("text".into()));
    part.insert("text".into(), Value::String(text));
    Value::Array(vec![Value::Object(part)])
}

/// The message with its string content as one text part (other messages as they are).
pub fn with_parts(msg: &Value) -> Value {
    let mut out = msg.clone();
    if let (Some(Value::String(text)), Some(o)) = (field(msg, "content"), out.as_object_mut()) {
        o.insert("content".into(), text_parts(text.clone()));
    }
    out
}

/// A mutable view of a message's object, for the few places that build replacements.
pub fn as_object_mut(msg: &mut Value) -> Option<&mut Map<String, Value>> {
    msg.as_object_mut()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_all_three_shapes() {
        assert_eq!(kind(&json!({"role":"toolResult","toolCallId":"a"})), Kind::ToolResult);
        assert_eq!(kind(&json!({"role":"tool","tool_call_id":"a"})), Kind::ToolResult);
        let anthropic = json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]});
        assert_eq!(kind(&anthropic), Kind::ToolResult);
        assert_eq!(result_ids(&anthropic), vec!["a"]);
        assert_eq!(kind(&json!({"role":"user","content":"hi"})), Kind::User);
        assert_eq!(kind(&json!({"role":"custom","customType":"x"})), Kind::Other);
        let oa = json!({"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f"}}]});
        assert_eq!(
            tool_calls(&oa),
            vec![CallRef {
                id: "c1".into(),
                name: "f".into()
            }]
        );
    }

    #[test]
    fn empty_assistant_rules() {
        assert!(is_empty_assistant(&json!({"role":"assistant","content":[]})));
        assert!(is_empty_assistant(
            &json!({"role":"assistant","content":[{"type":"thinking","thinking":"x"}]})
        ));
        assert!(is_empty_assistant(
            &json!({"role":"assistant","content":[{"type":"text","text":"  "}]})
        ));
        assert!(!is_empty_assistant(
            &json!({"role":"assistant","content":[{"type":"text","text":"ok"}]})
        ));
        assert!(!is_empty_assistant(
            &json!({"role":"assistant","content":null,"tool_calls":[{"id":"a"}]})
        ));
    }
}
