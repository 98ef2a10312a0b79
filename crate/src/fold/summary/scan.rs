//! Walking a turn's messages: what each role contributes. User text gives the ask (host
//! metadata split off), assistant text the answer, tool calls the tools used and their
//! arguments' facts, tool results and host entries facts and error lines, thinking decisions
//! only. It never classifies words itself ([`super::classify`] does) and never renders.

use super::classify::{scan_text, scan_tool_output, Source};
use super::decisions::scan_decisions;
use super::errors::scan_errors;
use super::neutralise::clean_inline;
use super::shorten::{brief, cut_chars};
use super::{add, add_text, Facts};
use crate::model::hostmeta;
use crate::model::message::{self, Kind, PartKind};
use serde_json::Value;

/// Tool-call argument strings longer than this are content being written, not facts.
const MAX_ARG: usize = 300;
/// Nesting followed inside tool-call arguments.
const MAX_DEPTH: usize = 16;
/// Distinct tool names kept.
const TOOL_CAP: usize = 32;
/// The ask and answer kept in [`Facts`], in characters.
const FACT_ASK_CHARS: usize = 300;
const FACT_ANSWER_CHARS: usize = 400;

/// What the walk over a turn found.
#[derive(Default)]
pub(super) struct Scan {
    pub facts: Facts,
    /// Tools in first-call order, with how often each was called.
    pub tool_counts: Vec<(String, usize)>,
    /// The user texts of the turn (host metadata split off).
    pub asks: Vec<String>,
    /// The last assistant text.
    pub answer: String,
    thinking_decisions: Vec<String>,
}

/// Walks the turn's messages in order.
pub(super) fn scan(messages: &[Value]) -> Scan {
    let mut s = Scan::default();
    for msg in messages {
        match message::kind(msg) {
            Kind::User => scan_user(msg, &mut s),
            Kind::Assistant => scan_assistant(msg, &mut s),
            Kind::ToolResult => scan_result_message(msg, &mut s),
            Kind::System => {}
            Kind::Other => scan_other(msg, &mut s),
        }
    }
    // Decisions from thinking come after those the turn states openly.
    for d in std::mem::take(&mut s.thinking_decisions) {
        add(&mut s.facts.decisions, &d);
    }
    s.facts.ask = brief(&s.asks.join(" / "), FACT_ASK_CHARS);
    s.facts.answer = brief(&s.answer, FACT_ANSWER_CHARS);
    s
}

fn append(buf: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !buf.is_empty() {
        buf.push('\n');
    }
    buf.push_str(text);
}

/// The text of a `content` value: the string, or its text parts joined by newlines.
fn content_text(content: Option<&Value>) -> String {
    let mut out = String::new();
    match content {
        Some(Value::String(t)) => out.push_str(t),
        Some(Value::Array(parts)) => {
            for p in parts {
                match p {
                    Value::String(t) => append(&mut out, t),
                    _ if message::part_kind(p) == PartKind::Text => append(&mut out, message::str_field(p, "text")),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

fn is_true(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

fn scan_user(msg: &Value, s: &mut Scan) {
    if is_true(msg, "runtimeContextCarrier") {
        return;
    }
    let mut text = String::new();
    match msg.get("content") {
        Some(Value::String(t)) => text.push_str(t),
        Some(Value::Array(parts)) => {
            for p in parts {
                match message::part_kind(p) {
                    PartKind::Text => append(&mut text, message::str_field(p, "text")),
                    PartKind::ToolResult => scan_result_block(p, s),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    let (kept, host) = hostmeta::split_host(&text);
    // Host event lines are not the ask, but an exec failure they report is still an error.
    scan_errors(&host.join("\n"), false, &mut s.facts.errors);
    if kept.trim().is_empty() {
        return;
    }
    scan_text(&kept, Source::Prose, &mut s.facts);
    scan_decisions(&kept, false, &mut s.facts.decisions);
    scan_errors(&kept, false, &mut s.facts.errors);
    s.asks.push(kept);
}

fn scan_assistant(msg: &Value, s: &mut Scan) {
    let mut text = String::new();
    let mut thinking = String::new();
    match msg.get("content") {
        Some(Value::String(t)) => text.push_str(t),
        Some(Value::Array(parts)) => {
            for p in parts {
                match message::part_kind(p) {
                    PartKind::Text => append(&mut text, message::str_field(p, "text")),
                    PartKind::Thinking if !is_true(p, "redacted") => {
                        append(&mut thinking, message::str_field(p, "thinking"))
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    if let Some(r) = msg.get("reasoning_content").and_then(Value::as_str) {
        append(&mut thinking, r);
    }

    let calls = message::tool_calls(msg);
    let args = call_args(msg);
    for (k, call) in calls.iter().enumerate() {
        let raw = args.get(k).copied().flatten();
        // OpenAI sends arguments as a JSON string.
        let parsed: Option<Value> = match raw {
            Some(Value::String(js)) => serde_json::from_str(js).ok(),
            _ => None,
        };
        let a = parsed.as_ref().or(raw);
        let mut name = call.name.as_str();
        if name == "tool_call" {
            // OpenClaw's tool-search surface wraps plugin tools: the real name is `id`.
            if let Some(inner) = a.and_then(|v| v.get("id")).and_then(Value::as_str) {
                name = inner;
            }
        }
        note_tool(s, name);
        if let Some(a) = a {
            scan_args(a, 0, &mut s.facts);
        }
    }

    let error_message = message::str_field(msg, "errorMessage");
    if !error_message.trim().is_empty() {
        add_text(&mut s.facts.errors, &format!("model error: {error_message}"));
    }

    let text = hostmeta::strip_directives(&text);
    if !text.trim().is_empty() {
        scan_text(&text, Source::Prose, &mut s.facts);
        scan_decisions(&text, false, &mut s.facts.decisions);
        scan_errors(&text, true, &mut s.facts.errors);
        s.answer = text.into_owned();
    }
    if !thinking.is_empty() {
        scan_decisions(&thinking, true, &mut s.thinking_decisions);
    }
}

/// The arguments of each tool call, in [`message::tool_calls`] order.
fn call_args(msg: &Value) -> Vec<Option<&Value>> {
    let in_parts = message::parts(msg)
        .into_iter()
        .flatten()
        .filter(|p| message::part_kind(p) == PartKind::ToolCall)
        .map(|p| p.get("arguments").or_else(|| p.get("input")));
    let openai = msg
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| c.get("function").and_then(|f| f.get("arguments")));
    in_parts.chain(openai).collect()
}

fn note_tool(s: &mut Scan, name: &str) {
    let mut name = cut_chars(&clean_inline(name), 40);
    if name.is_empty() {
        name = "tool".to_string();
    }
    if let Some(entry) = s.tool_counts.iter_mut().find(|(n, _)| *n == name) {
        entry.1 += 1;
    } else if s.tool_counts.len() < TOOL_CAP {
        s.facts.tools.push(name.clone());
        s.tool_counts.push((name, 1));
    }
}

fn scan_args(v: &Value, depth: usize, f: &mut Facts) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::String(t) if t.len() <= MAX_ARG => scan_text(t, Source::Arg, f),
        Value::Array(items) => items.iter().for_each(|x| scan_args(x, depth + 1, f)),
        Value::Object(map) => map.values().for_each(|x| scan_args(x, depth + 1, f)),
        _ => {}
    }
}

fn scan_result_message(msg: &Value, s: &mut Scan) {
    if message::role(msg) == "user" {
        if let Some(parts) = message::parts(msg) {
            for p in parts {
                if message::part_kind(p) == PartKind::ToolResult {
                    scan_result_block(p, s);
                }
            }
        }
        return;
    }
    let text = content_text(msg.get("content"));
    let mut tool = message::str_field(msg, "toolName");
    if tool.is_empty() {
        tool = message::str_field(msg, "name");
    }
    scan_output(&text, is_true(msg, "isError"), tool, s);
}

/// An Anthropic `tool_result` block.
fn scan_result_block(block: &Value, s: &mut Scan) {
    let text = content_text(block.get("content"));
    scan_output(&text, is_true(block, "is_error"), "", s);
}

fn scan_output(text: &str, is_error: bool, tool: &str, s: &mut Scan) {
    scan_tool_output(text, Source::Output, &mut s.facts);
    let found = scan_errors(text, false, &mut s.facts.errors);
    if is_error && !found {
        let first = text.lines().map(str::trim).find(|l| !l.is_empty());
        // `tool: first line`, `tool failed`, the line alone or `a tool call failed`.
        let mut line = clean_inline(tool);
        match first {
            Some(l) => {
                if !line.is_empty() {
                    line.push_str(": ");
                }
                line.push_str(l);
            }
            None => line.push_str(if line.is_empty() {
                "a tool call failed"
            } else {
                " failed"
            }),
        }
        add_text(&mut s.facts.errors, &line);
    }
}

fn scan_other(msg: &Value, s: &mut Scan) {
    match message::role(msg) {
        "bashExecution" => {
            note_tool(s, "bash");
            let command = message::str_field(msg, "command");
            if command.len() <= MAX_ARG {
                scan_text(command, Source::Arg, &mut s.facts);
            }
            scan_output(message::str_field(msg, "output"), false, "bash", s);
            if let Some(code) = msg.get("exitCode").and_then(Value::as_i64) {
                if code != 0 {
                    let line = format!("bash exit code {code}: {}", cut_chars(command, 80));
                    add_text(&mut s.facts.errors, &line);
                }
            }
        }
        "custom" if !is_true(msg, "excludeFromContext") => {
            let text = content_text(msg.get("content"));
            scan_output(&text, false, "", s);
        }
        "compactionSummary" | "branchSummary" => {
            scan_output(message::str_field(msg, "summary"), false, "", s);
        }
        _ => {}
    }
}
