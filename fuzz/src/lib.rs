//! Shared pieces of the fuzz targets: structured sessions in the three message shapes the core
//! reads, transcript lines turned into index entries the way the JS reader does, and the
//! properties every target asserts.

use arbitrary::{Arbitrary, Unstructured};
use contextfold::clean::{cleaner, frontier, gate};
use contextfold::config::CleanConfig;
use contextfold::model::pairing::Pairing;
use contextfold::model::steps::{self, Step};
use contextfold::transcript::entry::Entry;
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------------------------
// Structured sessions
// ---------------------------------------------------------------------------------------------

/// The wire shape of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum Shape {
    OpenClaw,
    OpenAi,
    Anthropic,
}

/// How a session picks shapes: one for all messages (what hosts send) or per message.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Shapes {
    One(Shape),
    Mixed,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Prompt {
    Str,
    Parts,
    WithImage,
    Blank,
    EmptyParts,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Think {
    Plain,
    Signed,
    Redacted,
    Empty,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Text {
    None,
    Some,
    Blank,
    Two,
}

#[derive(Debug, Clone, Arbitrary)]
pub struct Answer {
    pub thinking: Vec<Think>,
    pub text: Text,
    /// Call ids from a small alphabet, so ids repeat across and within messages.
    pub calls: Vec<u8>,
    pub text_after_calls: bool,
    /// 0: none, 1: deepseek (needs reasoning on tool-call messages), 2: anthropic, 3: openai.
    pub provider: u8,
    pub reasoning_content: bool,
    pub content_null: bool,
    pub extra_field: bool,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Body {
    Text,
    Parts,
    Image,
    Empty,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct ToolResult {
    pub id: u8,
    pub error: bool,
    pub body: Body,
}

#[derive(Debug, Clone, Arbitrary)]
pub enum Item {
    System,
    User(Prompt),
    Assistant(Answer),
    Result(ToolResult),
    /// Several results in one Anthropic user message (other shapes: one message each).
    Results(Vec<ToolResult>),
    /// A user message with results and new text (Anthropic allows both).
    ResultsAndText(Vec<ToolResult>),
    /// custom, compactionSummary, branchSummary, bashExecution, or an unknown role.
    Other(u8),
}

/// A session spec: what happens, rendered in the chosen shapes.
#[derive(Debug, Clone, Arbitrary)]
pub struct Session {
    pub shapes: Shapes,
    pub items: Vec<Item>,
}

const PROVIDERS: [&str; 4] = ["", "deepseek", "anthropic", "openai"];

fn call_id(k: u8) -> String {
    format!("call_{}", k % 6)
}

fn provider(m: &mut Map<String, Value>, p: u8) {
    let p = PROVIDERS[(p % 4) as usize];
    if !p.is_empty() {
        m.insert("provider".into(), json!(p));
    }
}

impl Session {
    /// Renders the spec as messages; `u` picks the per-message shapes of a mixed session.
    pub fn render(&self, u: &mut Unstructured) -> Vec<Value> {
        let mut out = Vec::with_capacity(self.items.len());
        for (n, item) in self.items.iter().enumerate().take(64) {
            let shape = match self.shapes {
                Shapes::One(s) => s,
                Shapes::Mixed => Shape::arbitrary(u).unwrap_or(Shape::OpenClaw),
            };
            out.extend(render_item(item, shape, n));
        }
        out
    }
}

fn thinking_part(t: Think, shape: Shape, n: usize) -> Value {
    match (shape, t) {
        (Shape::Anthropic, Think::Redacted) => json!({"type": "redacted_thinking", "data": format!("opaque{n}")}),
        (Shape::Anthropic, Think::Empty) => json!({"type": "thinking", "thinking": "", "signature": ""}),
        (Shape::Anthropic, _) => {
            json!({"type": "thinking", "thinking": format!("reasoning {n}"), "signature": format!("sig{n}")})
        }
        (_, Think::Plain) => json!({"type": "thinking", "thinking": format!("reasoning {n}")}),
        (_, Think::Signed) => {
            json!({"type": "thinking", "thinking": format!("reasoning {n}"), "thinkingSignature": format!("sig{n}")})
        }
        (_, Think::Redacted) => {
            json!({"type": "thinking", "thinking": "", "thinkingSignature": format!("enc{n}"), "redacted": true})
        }
        (_, Think::Empty) => json!({"type": "thinking", "thinking": ""}),
    }
}

fn texts(t: Text, n: usize) -> Vec<String> {
    match t {
        Text::None => vec![],
        Text::Some => vec![format!("answer {n} about the parser")],
        Text::Blank => vec!["  ".into()],
        Text::Two => vec![format!("first part {n}"), format!("second part {n}")],
    }
}

fn result_body(r: &ToolResult, n: usize) -> Value {
    match r.body {
        Body::Text => json!(format!("output {n} of {}", call_id(r.id))),
        Body::Parts => json!([{"type": "text", "text": format!("output {n}")}]),
        Body::Image => json!([{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}]),
        Body::Empty => json!([]),
    }
}

fn render_result(r: &ToolResult, shape: Shape, n: usize) -> Value {
    let id = call_id(r.id);
    match shape {
        Shape::OpenClaw => {
            let mut content = result_body(r, n);
            if content.is_string() {
                content = json!([{"type": "text", "text": content}]);
            }
            json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": content, "isError": r.error})
        }
        Shape::OpenAi => json!({"role": "tool", "tool_call_id": id, "content": result_body(r, n)}),
        Shape::Anthropic => json!({"role": "user", "content": [anthropic_result(r, n)]}),
    }
}

fn anthropic_result(r: &ToolResult, n: usize) -> Value {
    let mut b = json!({"type": "tool_result", "tool_use_id": call_id(r.id), "content": result_body(r, n)});
    if r.error {
        b["is_error"] = json!(true);
    }
    b
}

fn render_item(item: &Item, shape: Shape, n: usize) -> Vec<Value> {
    match item {
        Item::System => vec![json!({"role": if n % 2 == 0 { "system" } else { "developer" }, "content": "be brief"})],
        Item::User(p) => vec![match p {
            Prompt::Str => json!({"role": "user", "content": format!("question {n} about parsers")}),
            Prompt::Parts => json!({"role": "user", "content": [{"type": "text", "text": format!("question {n}")}]}),
            Prompt::WithImage => {
                json!({"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image", "data": "aGk=", "mimeType": "image/png"}]})
            }
            Prompt::Blank => json!({"role": "user", "content": " "}),
            Prompt::EmptyParts => json!({"role": "user", "content": []}),
        }],
        Item::Assistant(a) => vec![render_answer(a, shape, n)],
        Item::Result(r) => vec![render_result(r, shape, n)],
        Item::Results(rs) | Item::ResultsAndText(rs) => {
            let rs: Vec<&ToolResult> = rs.iter().take(4).collect();
            match shape {
                Shape::Anthropic => {
                    let mut blocks: Vec<Value> = rs.iter().map(|r| anthropic_result(r, n)).collect();
                    if matches!(item, Item::ResultsAndText(_)) {
                        blocks.push(json!({"type": "text", "text": format!("and question {n}")}));
                    }
                    vec![json!({"role": "user", "content": blocks})]
                }
                _ => {
                    let mut v: Vec<Value> = rs.iter().map(|r| render_result(r, shape, n)).collect();
                    if matches!(item, Item::ResultsAndText(_)) {
                        v.push(json!({"role": "user", "content": format!("and question {n}")}));
                    }
                    v
                }
            }
        }
        Item::Other(k) => vec![match k % 5 {
            0 => json!({"role": "custom", "customType": "note", "content": "remember this", "display": true}),
            1 => json!({"role": "compactionSummary", "summary": "earlier: parsers", "tokensBefore": 1000}),
            2 => json!({"role": "branchSummary", "summary": "other branch", "fromId": "x"}),
            3 => json!({"role": "bashExecution", "command": "ls", "output": "a b", "exitCode": 0}),
            _ => json!({"role": "robot", "content": [{"type": "hologram", "data": n}]}),
        }],
    }
}

fn render_answer(a: &Answer, shape: Shape, n: usize) -> Value {
    let calls: Vec<String> = a.calls.iter().take(4).map(|&k| call_id(k)).collect();
    let mut m = Map::new();
    m.insert("role".into(), json!("assistant"));
    match shape {
        Shape::OpenAi => {
            let text = texts(a.text, n).join(" ");
            m.insert(
                "content".into(),
                if a.content_null || text.is_empty() {
                    Value::Null
                } else {
                    json!(text)
                },
            );
            if a.reasoning_content || !a.thinking.is_empty() {
                m.insert("reasoning_content".into(), json!(format!("reasoning {n}")));
            }
            if !calls.is_empty() {
                let tc: Vec<Value> = calls
                    .iter()
                    .map(|id| json!({"id": id, "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}))
                    .collect();
                m.insert("tool_calls".into(), json!(tc));
            }
        }
        _ => {
            let mut parts: Vec<Value> = a.thinking.iter().take(3).map(|&t| thinking_part(t, shape, n)).collect();
            let text: Vec<Value> = texts(a.text, n)
                .into_iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect();
            let call_parts: Vec<Value> = calls
                .iter()
                .map(|id| match shape {
                    Shape::Anthropic => json!({"type": "tool_use", "id": id, "name": "read", "input": {"path": "a"}}),
                    _ => json!({"type": "toolCall", "id": id, "name": "read", "arguments": {"path": "a"}}),
                })
                .collect();
            if a.text_after_calls {
                parts.extend(call_parts);
                parts.extend(text);
            } else {
                parts.extend(text);
                parts.extend(call_parts);
            }
            m.insert("content".into(), json!(parts));
            if shape == Shape::OpenClaw && a.reasoning_content {
                m.insert("reasoning_content".into(), json!("raw reasoning"));
            }
            m.insert(
                "stopReason".into(),
                json!(if calls.is_empty() { "stop" } else { "toolUse" }),
            );
        }
    }
    provider(&mut m, a.provider);
    if a.extra_field {
        m.insert("__vendor".into(), json!({"keep": n}));
    }
    Value::Object(m)
}

/// Cleaner options from one byte (every combination of the flags; 0–3 recent turns kept).
pub fn clean_config(b: u8) -> CleanConfig {
    CleanConfig {
        clean_thinking: b & 1 != 0,
        clear_reasoning_content: b & 2 != 0,
        drop_tool_results: b & 4 != 0,
        drop_tool_call_messages: b & 8 != 0,
        keep_recent_turns: ((b >> 4) & 3) as usize,
    }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/// The cleaner's ungated proposal passes the validity gate, is deterministic, and cleaning
/// its output again changes nothing (PROVIDERS.md "How to test it").
pub fn check_clean(messages: &[Value], cfg: &CleanConfig, complete: bool) {
    let a = cleaner::clean_history(messages, cfg, complete);
    if let Err(refusal) = gate::check(messages, &a.steps, a.frontier.loop_start) {
        panic!(
            "the gate refuses the cleaner's proposal ({refusal})\ninput: {}\nsteps: {}",
            serde_json::to_string(messages).unwrap_or_default(),
            serde_json::to_string(&a.steps).unwrap_or_default()
        );
    }
    let b = cleaner::clean_history(messages, cfg, complete);
    assert_eq!(a.steps, b.steps, "clean is not deterministic");
    assert_eq!(a.stats, b.stats, "clean stats are not deterministic");
    assert!(
        a.steps.iter().all(|s| s.source.is_none_or(|i| i < messages.len())),
        "a step points outside the input"
    );
    // The gated entry point returns the same plan.
    let gated = contextfold::clean::clean_history(messages, cfg, complete);
    assert!(gated.fallback.is_none());
    assert_eq!(gated.steps, a.steps);
    // Idempotence: the output is already clean.
    let out = steps::apply(&a.steps, messages);
    let again = cleaner::clean_history(&out, cfg, complete);
    assert!(
        !again.stats.changed(),
        "cleaning the output again changes it: {:?}\ninput: {}\noutput: {}",
        again.stats,
        serde_json::to_string(messages).unwrap_or_default(),
        serde_json::to_string(&out).unwrap_or_default()
    );
}

/// The frontier the gate is given for a plan over `messages`.
pub fn live_from(messages: &[Value], complete: bool) -> Option<usize> {
    if complete {
        frontier::after_end(messages).loop_start
    } else {
        frontier::find(messages, &Pairing::of(messages)).loop_start
    }
}

/// Steps point inside the input.
pub fn steps_in_range(steps: &[Step], n: usize) -> bool {
    steps.iter().all(|s| s.source.is_none_or(|i| i < n))
}

// ---------------------------------------------------------------------------------------------
// Transcripts
// ---------------------------------------------------------------------------------------------

/// Index entries from JSONL bytes, by the rules of the JS reader (`toEntry` in
/// js/core/readers.js): lines that are not JSON objects with a string id are skipped, a
/// parent or type that is not a string is dropped, byte ranges are kept.
pub fn entries_from_jsonl(data: &[u8]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut start = 0usize;
    for line in data.split(|&b| b == b'\n') {
        let range = (start as u64, (start + line.len() + 1) as u64);
        start += line.len() + 1;
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(id) = v.get("id").and_then(Value::as_str) else {
            continue;
        };
        let kind = match v.get("type") {
            None | Some(Value::Null) => "message".to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => "unknown".to_string(),
        };
        if kind == "session" {
            continue;
        }
        let message = (kind == "message")
            .then(|| v.get("message").filter(|m| m.is_object()).cloned())
            .flatten();
        let first_kept_entry_id = (kind == "compaction")
            .then(|| v.get("firstKeptEntryId").and_then(Value::as_str).map(str::to_string))
            .flatten();
        out.push(Entry {
            id: Some(id.to_string()),
            parent_id: v.get("parentId").and_then(Value::as_str).map(str::to_string),
            kind,
            message,
            range: Some(range),
            seq: None,
            first_kept_entry_id,
        });
    }
    out
}
