//! What a folded turn becomes when no model is available: a deterministic, extractive
//! summary of one turn, and the one-line stub that stands in for folded turns.
//!
//! A turn is a user message and everything up to the next user message (assistant text,
//! thinking, tool calls and tool results) in any of the shapes [`message`] reads. The summary
//! keeps what a later request is most likely to need: the ask (host metadata stripped), the
//! final answer (with its closing question, which is often a pending ask), the tools used, and
//! the facts the turn names: paths, URLs, identifiers, numbers, dates, proper names, error
//! lines and decisions. Tool output contributes facts but is never quoted; thinking
//! contributes decisions only.
//!
//! Everything here is pure, deterministic, linear in the input and free of panics; extraction
//! is hand-written scanning. A summary is plain text that sits *inside* the turn it replaces:
//! every line starts with a label of ours, all input text is collapsed onto those lines, and
//! chat-template tokens (`<|…|>`, `[INST]`, `</…>`) are broken up, so no part of it can pass
//! for another message. This module never calls a model and never decides *what* to fold.
//!
//! Sets of characters as patterns are `&[char]` slices throughout (and for `trim_*_matches`
//! single characters too): std compiles each pattern function once per pattern type, and
//! arrays are a type per length; one type keeps one copy of each in the wasm core
//! (bench/size/README.md, fourth round).

use crate::model::hostmeta::{self, is_month, WEEKDAYS};
use crate::model::message::{self, Kind, PartKind};
use crate::transcript::turns;
use crate::{model::tokens, text::cjk::is_cjk};
use serde::Serialize;
use serde_json::Value;

/// Most entries any [`Facts`] list keeps (first seen wins).
pub const LIST_CAP: usize = 12;
/// Longest error line or decision kept in [`Facts`], in characters.
const ITEM_CHARS: usize = 160;
/// Longest error line or decision shown in a summary, in characters.
const SHOWN_ITEM_CHARS: usize = 140;
/// Words longer than this (bytes) are noise (base64, minified code), never facts.
const MAX_WORD: usize = 300;
/// Tool-call argument strings longer than this are content being written, not facts.
const MAX_ARG: usize = 300;
/// Only the head of a very long line is searched for error markers (bytes).
const ERROR_SCAN_BYTES: usize = 4096;
/// Nesting followed inside tool-call arguments.
const MAX_DEPTH: usize = 16;
/// Distinct tool names kept.
const TOOL_CAP: usize = 32;
/// The ask and answer kept in [`Facts`], in characters.
const FACT_ASK_CHARS: usize = 300;
const FACT_ANSWER_CHARS: usize = 400;
/// The ask and answer a summary shrinks from, in characters.
const SOURCE_CHARS: usize = 1200;
/// Longest turn id shown, in characters.
const ID_CHARS: usize = 64;
/// Longest stub label, in estimated tokens.
const LABEL_TOKENS: usize = 12;

/// One turn to summarise.
#[derive(Debug, Clone, Copy)]
pub struct SummaryInput<'a> {
    /// The turn's stable id, shown in the summary's first line.
    pub turn_id: &'a str,
    /// The turn's messages in order (any of the accepted wire shapes).
    pub messages: &'a [Value],
    /// Upper bound for [`tokens::text`] of the summary.
    pub max_tokens: usize,
}

/// What a turn contains, as found by [`facts`]. Lists keep first-seen order, hold no
/// duplicates and at most [`LIST_CAP`] entries (`tools` at most 32).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct Facts {
    /// The user's request, host metadata stripped, whitespace collapsed, shortened.
    pub ask: String,
    /// The final assistant text, shortened (a closing question is kept).
    pub answer: String,
    /// Distinct tool names in call order.
    pub tools: Vec<String>,
    /// File paths (`/a/b.c`, `src/x.rs:42`, `C:\x`, `Cargo.toml`).
    pub paths: Vec<String>,
    /// `http`/`https` URLs.
    pub urls: Vec<String>,
    /// Code identifiers and ids: snake_case, CamelCase, `a::b`, uuids, hashes, `call_…`.
    pub identifiers: Vec<String>,
    /// Numbers with units, decimals, money or percent (`840 tokens`, `$12.50`, `11 passed`).
    pub numbers: Vec<String>,
    /// Dates (`2026-11-30`, `7 May 2023`, `May 7, 2023`, `2023年5月7日`).
    pub dates: Vec<String>,
    /// Capitalised proper names and acronyms not at a sentence start.
    pub names: Vec<String>,
    /// Error lines: errors, failures, panics, exceptions, failed tool results, non-zero exits.
    pub errors: Vec<String>,
    /// Sentences that decide or plan (decided, will, should, let's, fixed, next, todo, …).
    pub decisions: Vec<String>,
}

/// The facts of a turn's messages (see [`Facts`]).
pub fn facts(messages: &[Value]) -> Facts {
    scan(messages).facts
}

/// A plain-text summary of one turn, at most `max_tokens` by [`tokens::text`].
///
/// First line `[summary of turn <id>]`, then `Asked:`, `Did:` (tools with counts), `Answer:`,
/// and the facts not already visible in the ask or answer: `Files:`, `Errors:`, `Ids:`,
/// `Numbers/dates:`, `Names:`, `Links:`, `Decisions:`. Over budget, the lowest-priority lines
/// lose entries first (links, numbers, names, ids, decisions, files, tools, errors), then
/// the answer and the ask shrink; the ask, the answer and errors outrank everything else.
pub fn extractive(input: &SummaryInput) -> String {
    let max = input.max_tokens;
    let s = scan(input.messages);
    let mut header = String::from("[summary of turn ");
    header.push_str(&clean_id(input.turn_id));
    header.push(']');
    let room = max.saturating_sub(tokens::text(&header));

    let ask_src = brief(&turns::join(&s.asks, " / "), SOURCE_CHARS);
    let answer_src = brief(&s.answer, SOURCE_CHARS);
    let ask = shorten(&ask_src, chars_for_tokens(&ask_src, room.saturating_mul(3) / 10));
    let answer = shorten(
        &answer_src,
        chars_for_tokens(&answer_src, room.saturating_mul(35) / 100),
    );

    let mut shown = ask.clone();
    shown.push(' ');
    shown.push_str(&answer);
    let f = &s.facts;
    let fresh = |items: &[String], cap: usize, chars: usize| -> Vec<String> {
        let mut out = Vec::new();
        for x in items.iter().filter(|x| !shown.contains(x.as_str())).take(cap) {
            out.push(cut_chars(x.trim_end_matches(&['.', ':', ';', '。'][..]), chars));
        }
        out
    };
    // The most telling error lines first (a panic or `error:` over a `... FAILED` tally).
    let mut errors = f.errors.clone();
    turns::sort_by(&mut errors, |a, b| error_weight(a) > error_weight(b));
    let mut did = Vec::new();
    for (name, n) in &s.tool_counts {
        did.push(if *n > 1 { format!("{name} ×{n}") } else { name.clone() });
    }
    let mut dates_numbers = fresh(&f.dates, 6, ITEM_CHARS);
    dates_numbers.extend(fresh(&f.numbers, 8, ITEM_CHARS));

    // Display order; `rank` decides what goes first when over budget (lowest first).
    let mut lines = vec![
        Line::text("", header.clone(), 100),
        Line::shrinking("Asked", ask_src, ask, 90),
        Line::items("Did", did, ", ", 70),
        Line::shrinking("Answer", answer_src, answer, 85),
        Line::items("Files", fresh(&f.paths, 8, ITEM_CHARS), ", ", 60),
        Line::items("Errors", fresh(&errors, 4, SHOWN_ITEM_CHARS), "; ", 80),
        Line::items("Ids", fresh(&f.identifiers, 8, ITEM_CHARS), ", ", 50),
        Line::items("Numbers/dates", dates_numbers, ", ", 40),
        Line::items("Names", fresh(&f.names, 8, ITEM_CHARS), ", ", 45),
        Line::items("Links", fresh(&f.urls, 3, ITEM_CHARS), ", ", 30),
        Line::items("Decisions", fresh(&f.decisions, 3, SHOWN_ITEM_CHARS), "; ", 55),
    ];
    fit(&mut lines, max);
    let out = render(&lines);
    if tokens::text(&out) <= max {
        out
    } else {
        prefix_within(&out, max)
    }
}

/// The one-line stub for folded turns, e.g.
/// `[folded: "ledger / cents" — turns t12, t13 (~840 tokens); recover with context_engine_recover]`.
///
/// Up to three ids are listed; more are shown as `first..last (N turns, ~T tokens)`. The label
/// is stripped of host metadata, neutralised and kept under ~12 tokens; ids are never shortened
/// below 64 characters, so they stay usable for recovery.
pub fn stub(label: &str, turn_ids: &[&str], tokens: usize) -> String {
    let label = stub_label(label);
    let mut ids = Vec::new();
    for t in turn_ids {
        ids.push(clean_id(t));
    }
    let mut out = String::from("[folded");
    if !label.is_empty() {
        out.push_str(": \"");
        out.push_str(&label);
        out.push('"');
    }
    let n = ids.len();
    match n {
        0 => {}
        1 => {
            out.push_str(" — turn ");
            out.push_str(&ids[0]);
        }
        2 | 3 => {
            out.push_str(" — turns ");
            out.push_str(&turns::join(&ids, ", "));
        }
        _ => {
            out.push_str(" — turns ");
            out.push_str(&ids[0]);
            out.push_str("..");
            out.push_str(&ids[n - 1]);
        }
    }
    out.push_str(" (");
    if n > 3 {
        out.push_str(&format!("{n} turns, "));
    }
    out.push('~');
    out.push_str(&approx_count(tokens));
    out.push_str(" tokens); recover with context_engine_recover]");
    out
}

/// The text a user typed, without what the host wraps around it (see [`hostmeta`]).
pub use crate::model::hostmeta::strip_host_metadata;

// ---------------------------------------------------------------------------------------------
// Walking the turn
// ---------------------------------------------------------------------------------------------

/// What the walk over a turn found.
#[derive(Default)]
struct Scan {
    facts: Facts,
    tool_counts: Vec<(String, usize)>,
    asks: Vec<String>,
    answer: String,
    thinking_decisions: Vec<String>,
}

/// Where a text came from: what it may contribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// User or assistant prose: every kind of fact.
    Prose,
    /// Tool-call arguments: paths, URLs, ids, dates, numbers with units.
    Arg,
    /// Tool output: paths, URLs, dates, numbers with units (no ids or names: too noisy).
    Output,
}

fn scan(messages: &[Value]) -> Scan {
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
    s.facts.ask = brief(&turns::join(&s.asks, " / "), FACT_ASK_CHARS);
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
    scan_errors(&turns::join(&host, "\n"), false, &mut s.facts.errors);
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
        let mut line = String::from("model error: ");
        line.push_str(error_message);
        add_text(&mut s.facts.errors, &line);
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
    let mut out = Vec::new();
    if let Some(parts) = message::parts(msg) {
        for p in parts {
            if message::part_kind(p) == PartKind::ToolCall {
                out.push(p.get("arguments").or_else(|| p.get("input")));
            }
        }
    }
    if let Some(calls) = msg.get("tool_calls").and_then(Value::as_array) {
        for c in calls {
            out.push(c.get("function").and_then(|f| f.get("arguments")));
        }
    }
    out
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
    scan_text(text, Source::Output, &mut s.facts);
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

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

/// Whether a word sits in code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Code {
    No,
    /// A one-word inline code span: `` `open_position_value` ``.
    Word,
    /// An inline code span with spaces: `` `cargo test -p x` ``.
    Span,
    /// A fenced block.
    Fence,
}

/// A word: its core (surrounding quotes and punctuation trimmed) and where it stands.
struct Word<'a> {
    core: &'a str,
    /// Byte range of `core` in the scanned text.
    start: usize,
    end: usize,
    sentence_start: bool,
    /// Punctuation follows (a proper-name run ends here).
    breaks_after: bool,
    /// A colon follows: a label (`Flight Number:`), not a name.
    label: bool,
    code: Code,
    url: bool,
}

fn offset(text: &str, sub: &str) -> usize {
    (sub.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

fn is_delim(c: char) -> bool {
    matches!(
        c,
        '"' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ';' | '|' | '=' | '*' | '“' | '”' | '«' | '»'
    )
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The entries of a word list written as one string, one space between entries (a table of
/// string slices costs 8 bytes of wasm per entry on top of the text).
fn words_in(list: &'static str) -> std::str::Split<'static, char> {
    list.split(' ')
}

/// The entries of a list of phrases written as one string, separated by `|`.
fn phrases_in(list: &'static str) -> std::str::Split<'static, char> {
    list.split('|')
}

/// Whether `word` is an entry of the word list `list`.
fn listed(list: &'static str, word: &str) -> bool {
    words_in(list).any(|w| w == word)
}

/// Whether `word`, ASCII letters in any case, is an entry of the lowercase word list `list`
/// (`listed(list, &word.to_ascii_lowercase())` without the copy).
fn listed_ci(list: &'static str, word: &str) -> bool {
    words_in(list).any(|w| w.eq_ignore_ascii_case(word))
}

/// Only ASCII digits (true for "").
fn all_digits(s: &str) -> bool {
    bytes_all(s, |b| b.is_ascii_digit())
}

/// Whether every byte of `s` passes `f` (one loop for every test, where `bytes().all` compiles
/// one per closure).
fn bytes_all(s: &str, f: fn(u8) -> bool) -> bool {
    for b in s.bytes() {
        if !f(b) {
            return false;
        }
    }
    true
}

/// Whether some byte of `s` passes `f`.
fn bytes_any(s: &str, f: fn(u8) -> bool) -> bool {
    for b in s.bytes() {
        if f(b) {
            return true;
        }
    }
    false
}

/// The value of at most 9 ASCII digits (what `parse::<u32>` gives them).
fn digits_value(s: &str) -> u32 {
    s.bytes().fold(0, |n, b| n * 10 + u32::from(b - b'0'))
}

/// The largest char boundary at or below `max`.
fn floor_boundary(s: &str, max: usize) -> usize {
    if max >= s.len() {
        return s.len();
    }
    let mut k = max;
    while k > 0 && !s.is_char_boundary(k) {
        k -= 1;
    }
    k
}

fn starts_list_item(t: &str) -> bool {
    let b = t.as_bytes();
    matches!(b.first(), Some(b'-' | b'*' | b'+' | b'#' | b'>'))
        || t.starts_with('•')
        || (b.first().is_some_and(u8::is_ascii_digit)
            && b.iter()
                .find(|c| !c.is_ascii_digit())
                .is_some_and(|&c| c == b'.' || c == b')'))
}

/// Splits a text into words, tracking sentence starts and code.
fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut sentence_start = true;
    let mut fence = false;
    for line in text.split('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = !fence;
            sentence_start = true;
            continue;
        }
        if trimmed.is_empty() {
            sentence_start = true;
            continue;
        }
        if starts_list_item(trimmed) {
            sentence_start = true;
        }
        let mut span = Code::No;
        let mut i = 0;
        while i < line.len() {
            let Some(c) = line[i..].chars().next() else {
                break;
            };
            let cl = c.len_utf8();
            if c.is_whitespace() {
                i += cl;
                continue;
            }
            if c == '`' {
                span = if span == Code::No {
                    open_span(&line[i + 1..])
                } else {
                    Code::No
                };
                i += 1;
                continue;
            }
            if is_cjk(c) || is_delim(c) {
                if matches!(c, '。' | '！' | '？' | '；') {
                    sentence_start = true;
                }
                i += cl;
                continue;
            }
            let code = if fence { Code::Fence } else { span };
            let rest = &line[i..];
            if starts_with_ci(rest, "http://") || starts_with_ci(rest, "https://") {
                let mut len = rest.len();
                for (k, ch) in rest.char_indices() {
                    if ch.is_whitespace() || is_cjk(ch) || "\"'<>`|".contains(ch) {
                        len = k;
                        break;
                    }
                }
                let url = trim_url(&rest[..len]);
                let start = offset(text, url);
                out.push(Word {
                    core: url,
                    start,
                    end: start + url.len(),
                    sentence_start: false,
                    breaks_after: true,
                    label: false,
                    code,
                    url: true,
                });
                sentence_start = false;
                i += len.max(1);
                continue;
            }
            let len = word_len(rest);
            if len == 0 {
                i += cl;
                continue;
            }
            let raw = &rest[..len];
            let (core, trail_trimmed, ends_sentence) = trim_word(raw);
            let next = rest[len..].chars().next();
            let after_core = &raw[offset(raw, core) + core.len()..];
            let label = after_core.contains(':') || rest[len..].trim_start_matches(&['*', ' '][..]).starts_with(':');
            if core.chars().any(char::is_alphanumeric) {
                let start = offset(text, core);
                out.push(Word {
                    core,
                    start,
                    end: start + core.len(),
                    sentence_start,
                    breaks_after: trail_trimmed || next.is_some_and(|n| !n.is_whitespace()),
                    label,
                    code,
                    url: false,
                });
                sentence_start = ends_sentence;
            } else if ends_sentence {
                sentence_start = true;
            }
            i += len;
        }
    }
    out
}

/// After an opening backtick: a one-word span if it closes soon with no space inside.
fn open_span(rest: &str) -> Code {
    let head = &rest[..floor_boundary(rest, 120)];
    match head.find('`') {
        Some(j) if j > 0 && !head[..j].chars().any(char::is_whitespace) => Code::Word,
        _ => Code::Span,
    }
}

/// Bytes of the word at the start of `rest` (a comma between digits does not end it).
fn word_len(rest: &str) -> usize {
    let mut len = 0;
    let mut prev_digit = false;
    for (k, ch) in rest.char_indices() {
        if ch.is_whitespace() || ch == '`' || is_cjk(ch) {
            break;
        }
        if is_delim(ch) {
            // The next character is a digit when its first byte is one.
            let next_digit = rest.as_bytes().get(k + ch.len_utf8()).is_some_and(u8::is_ascii_digit);
            if !(ch == ',' && prev_digit && next_digit) {
                break;
            }
        }
        prev_digit = ch.is_ascii_digit();
        len = k + ch.len_utf8();
    }
    len
}

/// The core of a raw word, whether trailing punctuation was trimmed, and whether that
/// punctuation ends a sentence.
fn trim_word(raw: &str) -> (&str, bool, bool) {
    const LEAD: &[char] = &['\'', '‘', '’', '"', '“', '¿', '¡'];
    const TRAIL: &[char] = &['.', ',', ';', ':', '!', '?', '\'', '’', '"', '”', '…'];
    let lead = raw.trim_start_matches(LEAD);
    let mut core = lead.trim_end_matches(TRAIL);
    let trailing = &lead[core.len()..];
    let ends_sentence = trailing.contains(&['.', '!', '?', '…', ':'][..]);
    // Markdown emphasis: `_word_`.
    if core.len() > 2 && core.starts_with('_') && core.ends_with('_') && !core[1..core.len() - 1].contains('_') {
        core = &core[1..core.len() - 1];
    }
    (core, !trailing.is_empty(), ends_sentence)
}

/// A URL without trailing punctuation or unbalanced closing brackets.
fn trim_url(url: &str) -> &str {
    let mut u = url;
    let mut open = u.matches('(').count();
    let mut close = u.matches(')').count();
    loop {
        match u.chars().last() {
            Some(c) if ".,;:!?*".contains(c) => u = &u[..u.len() - 1],
            Some(')') if close > open => {
                u = &u[..u.len() - 1];
                close -= 1;
            }
            Some(']' | '}') => u = &u[..u.len() - 1],
            Some('(') => {
                u = &u[..u.len() - 1];
                open = open.saturating_sub(1);
            }
            _ => return u,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Classifying words
// ---------------------------------------------------------------------------------------------

/// Scans a text for paths, URLs, ids, numbers, dates and (in prose) proper names.
fn scan_text(text: &str, src: Source, f: &mut Facts) {
    let ws = words(text);
    // Current proper-name run: (start, end, word count, index of its last word).
    let mut run: Option<(usize, usize, usize, usize)> = None;
    let mut i = 0;
    while i < ws.len() {
        let w = &ws[i];
        let mut used = 1;
        let mut name_end = None;
        if w.core.len() > MAX_WORD {
            // noise
        } else if w.url {
            add(&mut f.urls, w.core);
        } else if let Some((date, n)) = multi_date(&ws, i, text) {
            add(&mut f.dates, date);
            used = n;
        } else if is_date(w.core) {
            add(&mut f.dates, w.core);
        } else if is_path(w.core) {
            add(&mut f.paths, w.core);
        } else if let Some((num, strong, n)) = number(&ws, i, text) {
            if strong || src == Source::Prose {
                add(&mut f.numbers, num);
            }
            used = n;
        } else if (w.code == Code::Word && ident_like(w.core)) || is_identifier(w.core) {
            if src != Source::Output {
                add(&mut f.identifiers, w.core);
            }
        } else if src == Source::Prose && w.code == Code::No {
            name_end = name_word(w);
        }
        match name_end {
            Some(end) => {
                let joined = match run {
                    Some((s, _, count, last)) if last + 1 == i && count < 4 => {
                        let prev = &ws[last];
                        let gap = text.get(prev.end..w.start).unwrap_or("\n");
                        if !prev.breaks_after && bytes_all(gap, |b| b == b' ') {
                            Some((s, end, count + 1, i))
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                if joined.is_none() {
                    flush_name(text, run.take(), f);
                }
                run = joined.or(Some((w.start, end, 1, i)));
            }
            None => flush_name(text, run.take(), f),
        }
        i += used;
    }
    flush_name(text, run, f);
}

fn flush_name(text: &str, run: Option<(usize, usize, usize, usize)>, f: &mut Facts) {
    if let Some((s, e, _, _)) = run {
        if let Some(name) = text.get(s..e) {
            add(&mut f.names, name);
        }
    }
}

/// Two words separated only by spaces or a comma (a date's parts).
fn adjacent(text: &str, a: &Word, b: &Word) -> bool {
    match text.get(a.end..b.start) {
        Some(gap) => !gap.is_empty() && gap.len() <= 3 && bytes_all(gap, |c| c == b' ' || c == b','),
        None => false,
    }
}

/// `7`, `07`, `7th`, `21st` (1–31).
fn is_day(s: &str) -> bool {
    // Its leading digits and the rest (the same split as at its trailing letters whenever the
    // test below can pass).
    let suffix = s.trim_start_matches(DIGITS);
    let digits = &s[..s.len() - suffix.len()];
    if !(suffix.is_empty() || listed_ci("st nd rd th", suffix)) {
        return false;
    }
    (1..=2).contains(&digits.len()) && all_digits(digits) && (1..=31).contains(&digits_value(digits))
}

/// `s` without its first byte when that is one of the ASCII bytes `set`.
fn strip_ascii<'a>(s: &'a str, set: &[u8]) -> Option<&'a str> {
    s.bytes().next().filter(|b| set.contains(b)).and_then(|_| s.get(1..))
}

const DIGITS: &[char] = &['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

fn is_year(s: &str) -> bool {
    s.len() == 4 && all_digits(s) && (1000..=2999).contains(&digits_value(s))
}

/// A date spread over several words (`7 May 2023`, `7th of May`, `May 7, 2023`, `May 2023`)
/// or written with CJK units (`2023年5月7日`, `5月7日`): the date (a slice of `text`; the
/// words of the first kinds are ASCII, so cleaning only collapses spaces) and the words it
/// used.
fn multi_date<'t>(ws: &[Word], i: usize, text: &'t str) -> Option<(&'t str, usize)> {
    if let Some(d) = cjk_date(ws, i, text) {
        return Some(d);
    }
    let a = &ws[i];
    let adj = |x: usize| x + 1 < ws.len() && adjacent(text, &ws[x], &ws[x + 1]);
    // The date's last word.
    let mut last = None;
    if is_day(a.core) {
        let mut j = i + 1;
        if adj(i) && ws[j].core.eq_ignore_ascii_case("of") {
            j += 1;
        }
        if adj(j - 1) && is_month(ws[j].core) {
            last = Some(j + usize::from(adj(j) && is_year(ws[j + 1].core)));
        }
    }
    if last.is_none() && is_month(a.core) && adj(i) {
        let b = &ws[i + 1];
        if is_day(b.core) {
            last = Some(i + 1 + usize::from(adj(i + 1) && is_year(ws[i + 2].core)));
        } else if is_year(b.core) {
            last = Some(i + 1);
        }
    }
    let last = last?;
    Some((text.get(a.start..ws[last].end).unwrap_or(""), last + 1 - i))
}

/// `2023年5月7日`, `2023年5月`, `5月7日`: a year or a month, then as many of the next units as
/// follow, each a number of one or two digits right after the previous unit (a month alone
/// is not a date).
fn cjk_date<'t>(ws: &[Word], i: usize, text: &'t str) -> Option<(&'t str, usize)> {
    let small = |s: &str| (1..=2).contains(&s.len()) && all_digits(s);
    let a = &ws[i];
    let (units, min) = if is_year(a.core) {
        ("年|月|日号", 1)
    } else if small(a.core) {
        ("月|日号", 2)
    } else {
        return None;
    };
    let (mut end, mut n) = (a.start, 0);
    for (k, unit) in phrases_in(units).enumerate() {
        let Some(w) = ws.get(i + k).filter(|w| k == 0 || (w.start == end && small(w.core))) else {
            break;
        };
        let Some(c) = text.get(w.end..)?.chars().next().filter(|&c| unit.contains(c)) else {
            break;
        };
        end = w.end + c.len_utf8();
        n = k + 1;
    }
    if n < min {
        return None;
    }
    Some((text.get(a.start..end)?, n))
}

/// `2026-11-30`, `2026-11-30T05:02:00Z`, `2026/11/30`, `30/11/2026`, `30.11.2026`.
fn is_date(w: &str) -> bool {
    // The date characters are ASCII, so the first other byte starts a character.
    let k = w
        .bytes()
        .position(|c| !(c.is_ascii_digit() || c == b'-' || c == b'/' || c == b'.'))
        .unwrap_or(w.len());
    let (head, tail) = w.split_at(k);
    if !(tail.is_empty() || tail.starts_with('T')) {
        return false;
    }
    let Some(sep) = head.chars().find(|c| !c.is_ascii_digit()) else {
        return false;
    };
    let mut groups = head.split(sep);
    let (Some(a), Some(b), Some(c), None) = (groups.next(), groups.next(), groups.next(), groups.next()) else {
        return false;
    };
    if a.is_empty() || b.is_empty() || c.is_empty() || !all_digits(a) || !all_digits(b) || !all_digits(c) {
        return false;
    }
    let n = digits_value;
    if a.len() == 4 && b.len() <= 2 && c.len() <= 2 {
        return (1000..=2999).contains(&n(a)) && (1..=12).contains(&n(b)) && (1..=31).contains(&n(c));
    }
    c.len() == 4
        && a.len() <= 2
        && b.len() <= 2
        && (1..=31).contains(&n(a))
        && (1..=31).contains(&n(b))
        && (n(a) <= 12 || n(b) <= 12)
        && (1000..=2999).contains(&n(c))
}

#[rustfmt::skip]
const KNOWN_EXT: &str = "rs toml md mdx json jsonl json5 yaml yml txt py pyi ipynb ts tsx js jsx mjs cjs go java \
    kt c h cc cpp hpp cs rb php sh bash zsh ps1 html htm css scss sql lock xml csv tsv log \
    ini cfg conf env swift vue svelte lua zig dart ex exs hs ml scala pdf png jpg jpeg gif \
    svg webp mp3 mp4 wav zip gz tgz tar exe dll so dylib wasm proto graphql gradle plist db \
    sqlite docx xlsx pptx patch diff";

/// `(stem, ext)` when the segment ends in a plausible extension.
fn split_ext(seg: &str) -> Option<(&str, &str)> {
    let (stem, ext) = seg.rsplit_once('.')?;
    let ok = !stem.is_empty()
        && (1..=8).contains(&ext.len())
        && bytes_all(ext, |b| b.is_ascii_alphanumeric())
        && bytes_any(ext, |b| b.is_ascii_alphabetic());
    ok.then_some((stem, ext))
}

/// Drops a `:line` or `:line:col` suffix.
fn strip_line_suffix(w: &str) -> &str {
    let mut s = w;
    for _ in 0..2 {
        match s.rsplit_once(':') {
            Some((head, tail)) if !tail.is_empty() && all_digits(tail) => s = head,
            _ => break,
        }
    }
    s
}

/// `/a/b.c`, `src/x.rs:42`, `~/x`, `./x`, `C:\x`, `Cargo.toml`.
fn is_path(w: &str) -> bool {
    if w.len() < 3 || w.contains("://") || w.starts_with('-') {
        return false;
    }
    if !w.chars().all(|c| c.is_alphanumeric() || "/\\._-~@+%:#$".contains(c)) || !w.chars().any(char::is_alphabetic) {
        return false;
    }
    let b = w.as_bytes();
    if b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\' {
        return w.len() > 3;
    }
    let bare = strip_line_suffix(w);
    if bare.contains(':') {
        return false;
    }
    if bare.starts_with("~/") || bare.starts_with("./") || bare.starts_with("../") {
        return !bare.trim_start_matches(&['.', '~', '/'][..]).is_empty();
    }
    let slashes = bare.matches('/').count();
    let last = bare.rsplit_once('/').map_or(bare, |(_, l)| l);
    if let Some(rest) = bare.strip_prefix('/') {
        return !rest.is_empty() && !bare.contains("//") && (slashes >= 2 || split_ext(last).is_some());
    }
    if slashes >= 1 {
        let inner = bare.strip_suffix('/').unwrap_or(bare);
        return segments_filled(inner, b'/') && (split_ext(last).is_some() || slashes >= 2);
    }
    if bare.contains('\\') {
        return segments_filled(bare, b'\\') && split_ext(last).is_some();
    }
    match split_ext(bare) {
        Some((stem, ext)) => {
            let product = ext.eq_ignore_ascii_case("js") && stem.bytes().next().is_some_and(|b| b.is_ascii_uppercase());
            listed_ci(KNOWN_EXT, ext)
                && !product
                && bytes_all(stem, |b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        }
        None => false,
    }
}

/// Whether every `sep`-separated segment of `s` is non-empty (`s.split(sep).all(..)`).
fn segments_filled(s: &str, sep: u8) -> bool {
    let mut prev = sep;
    for b in s.bytes() {
        if b == sep && prev == sep {
            return false;
        }
        prev = b;
    }
    prev != sep
}

#[rustfmt::skip]
const UNIT_WORDS: &str = "test tests passed failed failing ignored skipped errors error warnings warning files \
    file lines items turns messages tokens bytes kb mb gb tb ms s sec secs seconds second \
    min mins minutes minute hours hour hrs h days day weeks week months month years year yrs \
    people persons users times percent dollars dollar usd eur euros euro gbp cents cent yuan \
    rmb km miles mi kg lbs lb g cm mm ft feet meters metres points pts rows records commits \
    retries attempts requests calls steps pages words chars characters kids children am pm k \
    x";
#[rustfmt::skip]
const ATTACHED_UNITS: &str = "ms s sec secs min mins h hr hrs d k m b bn kb mb gb tb kib mib gib px pt em rem x fps hz \
    khz mhz ghz kg g mg lb lbs km cm mm mi ft ml l am pm w kw kwh mbps gbps usd eur °c °f";
const CJK_UNITS: &[char] = &[
    '元', '块', '角', '个', '次', '天', '年', '月', '日', '号', '岁', '人', '条', '位', '秒', '周', '万', '亿', '千',
    '百', '倍', '米', '斤', '克', '项', '份', '件', '张', '页', '行', '％', '分', '小', '公',
];
#[rustfmt::skip]
const CURRENCIES: &str = "US$ $ € £ ¥ ₹";

/// A number worth keeping at `ws[i]`: the text (a slice of `text`), whether it is "strong"
/// (unit, money, percent, count), and how many words it used.
fn number<'t>(ws: &[Word<'t>], i: usize, text: &'t str) -> Option<(&'t str, bool, usize)> {
    let w = &ws[i];
    let core = w.core;
    let mut s = core;
    let mut money = false;
    for c in words_in(CURRENCIES) {
        if let Some(rest) = s.strip_prefix(c) {
            s = rest;
            money = true;
            break;
        }
    }
    let version = strip_ascii(s, b"vV").filter(|r| r.bytes().next().is_some_and(|b| b.is_ascii_digit()));
    if let Some(v) = version {
        let ok = v.contains('.') && bytes_all(v, |b| b.is_ascii_digit() || b == b'.');
        return ok.then_some((core, false, 1));
    }
    let s = match strip_ascii(s, b"-+") {
        Some(r) if r.bytes().next().is_some_and(|b| b.is_ascii_digit()) => r,
        _ => s,
    };
    if !s.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        return None;
    }
    let b = s.as_bytes();
    let mut k = 0;
    let mut dots = 0;
    let mut commas = false;
    while k < b.len() {
        let c = b[k];
        let next_digit = b.get(k + 1).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_digit() {
            k += 1;
        } else if c == b'.' && next_digit {
            dots += 1;
            k += 1;
        } else if c == b',' && next_digit {
            commas = true;
            k += 1;
        } else {
            break;
        }
    }
    let (num, suffix) = s.split_at(k);
    if dots >= 2 {
        return suffix.is_empty().then_some((core, false, 1));
    }
    if suffix == "%" {
        return Some((core, true, 1));
    }
    if !suffix.is_empty() {
        return listed_ci(ATTACHED_UNITS, suffix).then_some((core, true, 1));
    }
    let zero = bytes_all(num, |c| !(b'1'..=b'9').contains(&c));
    // A unit right after it, CJK (`500元`, `3小时`) or a word (`12 passed`, `840 tokens`).
    let after = text.get(w.end..).unwrap_or("");
    if let Some(c) = after.chars().next().filter(|c| CJK_UNITS.contains(c)) {
        let unit = match words_in("小时 分钟 公里 公斤").find(|u| after.starts_with(u)) {
            Some(two) => two,
            // `小` and `公` only begin a unit of two characters.
            None if matches!(c, '小' | '公') => return None,
            None => &after[..c.len_utf8()],
        };
        return Some((&text[w.start..w.end + unit.len()], true, 1));
    }
    if let Some(next) = ws.get(i + 1) {
        let unit = next.core;
        if adjacent(text, w, next) && text.get(w.end..next.start) == Some(" ") && listed_ci(UNIT_WORDS, unit) {
            let counts_failure = listed_ci("failed failing errors error", unit);
            if zero && !counts_failure {
                return None;
            }
            // One space between them: the number, the space and the unit.
            return Some((&text[w.start..next.end], true, 2));
        }
    }
    if money {
        return Some((core, true, 1));
    }
    if zero {
        return None;
    }
    if dots == 1 || commas || num.len() >= 2 {
        return Some((core, false, 1));
    }
    None
}

fn is_uuid(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(k, &c)| {
            if matches!(k, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

fn is_camel(w: &str) -> bool {
    let b = w.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    // `aB` or `ABc` somewhere.
    for k in 1..b.len() {
        if b[k].is_ascii_uppercase()
            && (b[k - 1].is_ascii_lowercase()
                || (b[k - 1].is_ascii_uppercase() && b.get(k + 1).is_some_and(u8::is_ascii_lowercase)))
        {
            return true;
        }
    }
    false
}

fn is_word_ident(w: &str) -> bool {
    !w.is_empty() && bytes_all(w, |b| b.is_ascii_alphanumeric() || b == b'_') && !w.as_bytes()[0].is_ascii_digit()
}

/// A code identifier or an id: uuid, hash, `a::b`, snake_case, CamelCase, `abc123def`,
/// `dotted.snake_name`, `PROJ-123`.
fn is_identifier(w: &str) -> bool {
    if w.len() < 3 || w.len() > 120 || !w.is_ascii() {
        return false;
    }
    if is_uuid(w) {
        return true;
    }
    let b = w.as_bytes();
    let has_letter = bytes_any(w, |b| b.is_ascii_alphabetic());
    let has_digit = bytes_any(w, |b| b.is_ascii_digit());
    if (7..=64).contains(&b.len())
        && bytes_all(w, |b| b.is_ascii_hexdigit())
        && has_digit
        && bytes_any(w, |c| matches!(c, b'a'..=b'f'))
    {
        return true;
    }
    if w.contains("::") {
        return w.split("::").all(is_word_ident);
    }
    if bytes_all(w, |c| c.is_ascii_alphanumeric() || c == b'_') {
        if !has_letter || b[0].is_ascii_digit() {
            return false;
        }
        return (w.contains('_') && w.trim_matches(&['_'][..]).len() > 1) || is_camel(w) || (b.len() >= 6 && has_digit);
    }
    if w.contains('.') && bytes_all(w, |c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.') {
        // At least two segments: `w` contains a dot.
        return w.split('.').all(is_word_ident) && w.split('.').any(|s| s.contains('_') || is_camel(s));
    }
    if let Some((key, num)) = w.split_once('-') {
        return (2..=10).contains(&key.len())
            && bytes_all(key, |c| c.is_ascii_uppercase())
            && (2..=6).contains(&num.len())
            && all_digits(num);
    }
    false
}

/// A word inside a one-word code span that reads as a name in code.
fn ident_like(w: &str) -> bool {
    (2..=100).contains(&w.len())
        && w.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
        && bytes_all(w, |b| b.is_ascii_alphanumeric() || b"_.:-$#@!?".contains(&b))
}

#[rustfmt::skip]
const NAME_STOP: &str = "I I'm I've I'll I'd Im OK Ok Okay Yes No Hi Hey Hello Thanks Thank Please Sure The A An \
    And But Or So If Then This That These Those It It's Its We You He She They My Our Your \
    His Her Their What When Where Why How Who Which Also Just Note Oh Wow Great Good Nice \
    Cool Well Error Result Option Some None Err True False Null String Vec Self Done Fixed \
    Step Next Today Tomorrow Yesterday Asked Answer Did Files Errors Ids Names Links \
    Decisions";
#[rustfmt::skip]
const ACRONYM_STOP: &str = "TODO FIXME NOTE ERROR WARN WARNING INFO DEBUG TRACE FAILED FAIL PASS PASSED THE AND API \
    JSON HTTP HTTPS URL URI CLI UTC GMT CPU GPU RAM SQL CSV HTML CSS PDF USD EUR LLM FAQ \
    ASAP FYI BTW LOL OMG IMO TBD YES NOT ALL NEW README EOF NULL TRUE FALSE GET POST PUT \
    DELETE UTF ASCII SSH TLS SSL DNS TCP UDP";

/// When `w` is a proper-name word, the end of the name (a possessive `'s` dropped).
fn name_word(w: &Word) -> Option<usize> {
    let core = w.core;
    let base = core
        .strip_suffix("'s")
        .or_else(|| core.strip_suffix("’s"))
        .unwrap_or(core)
        .trim_end_matches(&['\'', '’', '+'][..]);
    let count = base.chars().count();
    if !(2..=30).contains(&count) || !base.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    let end = w.start + base.len();
    let letters = base.bytes().filter(u8::is_ascii_alphabetic).count();
    if bytes_all(base, |b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
        let acronym = letters >= 3 && count <= 8 && !listed(ACRONYM_STOP, base);
        return acronym.then_some(end);
    }
    if w.sentence_start || w.label || listed(NAME_STOP, base) || is_month(base) || WEEKDAYS.contains(&base) {
        return None;
    }
    let proper = base.split('-').all(|seg| {
        let mut cs = seg.chars();
        cs.next().is_some_and(char::is_uppercase) && cs.all(|c| c.is_lowercase() || c == '\'' || c == '’')
    });
    proper.then_some(end)
}

// ---------------------------------------------------------------------------------------------
// Sentences: decisions and errors
// ---------------------------------------------------------------------------------------------

/// Sentences of one line: split after `.!?` before a space (or at the end) and after `。！？`.
fn sentences(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, c) in s.char_indices() {
        let end = k + c.len_utf8();
        let split = match c {
            '.' | '!' | '?' => s[end..].chars().next().map_or(true, char::is_whitespace),
            '。' | '！' | '？' => true,
            _ => false,
        };
        if split {
            let sent = s[start..end].trim();
            if !sent.is_empty() {
                out.push(sent);
            }
            start = end;
        }
    }
    let tail = s[start..].trim();
    if !tail.is_empty() {
        out.push(tail);
    }
    out
}

#[rustfmt::skip]
const DECISION_WORDS: &str = "decided decide decision will i'll i’ll we'll we’ll should let's let’s fixed chose \
    choose chosen agreed agree todo next";
#[rustfmt::skip]
const DECISION_CJK: &str = "决定 应该 修复 修好 改为 改成 选择 同意 待办 下一步 接下来 计划 打算 我会 将会";

/// `needle` occurs in `hay` as a whole word (ASCII boundaries).
fn has_word(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(k, m)| {
        let before = hay.as_bytes().get(k.wrapping_sub(1)).copied();
        let after = hay.as_bytes().get(k + m.len()).copied();
        (k == 0 || !before.is_some_and(|b| b.is_ascii_alphanumeric()))
            && !after.is_some_and(|b| b.is_ascii_alphanumeric())
    })
}

/// Markers that still count in thinking, where "I should use the X tool" is procedure.
#[rustfmt::skip]
const THINKING_DECISION_WORDS: &str = "decided decide decision chose chosen agreed todo instead";

/// A sentence that decides or plans: one pass over its words. `strict` (for thinking) only
/// accepts explicit decisions.
fn is_decision(sentence: &str, strict: bool) -> bool {
    if !sentence.is_ascii() && words_in(DECISION_CJK).any(|w| sentence.contains(w)) {
        return true;
    }
    // `’` counts as `'` (the lists hold both spellings).
    let lower = sentence.to_ascii_lowercase();
    let mut prev = "";
    for w in lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '’')) {
        let w = w.trim_matches(&['\'', '’'][..]);
        if w.is_empty() {
            continue;
        }
        let hit = if strict {
            listed(THINKING_DECISION_WORDS, w) || (w == "to" && listed("plan switched switch", prev))
        } else {
            listed(DECISION_WORDS, w)
                || (w == "to" && listed("going plan switched switch", prev))
                || (w == "us" && prev == "let")
        };
        if hit {
            return true;
        }
        prev = w;
    }
    false
}

fn scan_decisions(text: &str, strict: bool, out: &mut Vec<String>) {
    let mut fence = false;
    for line in text.lines() {
        if out.len() >= LIST_CAP {
            return;
        }
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        for sentence in sentences(line) {
            let sent = sentence.trim_start_matches(&['-', '*', '•', '#', '>', ' '][..]).trim();
            // Not a sentence but a blob (minified code, base64): nothing to decide there.
            if sent.len() < 8 || sent.len() > 2000 || sent.ends_with('?') || sent.ends_with('？') {
                continue;
            }
            if is_decision(sent, strict) {
                add_text(out, sent);
            }
        }
    }
}

#[rustfmt::skip]
const ERROR_MARKERS: &str = "error[|panicked|panic:|traceback (most recent|exception:|exception in|uncaught|fatal:\
    |fatal error|segmentation fault|command not found|no such file|permission denied\
    |cannot find|could not|unable to|not found|assertion failed|undefined reference\
    |timed out|enoent|eacces|econnrefused";
#[rustfmt::skip]
const ERROR_CJK: &str = "错误 失败 报错 异常 崩溃 找不到";
#[rustfmt::skip]
const EXIT_MARKERS: &str = "exit code|exit status|exited with code|exited with status|exitcode|exit_code|returncode\
    |return code";

/// The word before byte `k` of `lower`, without punctuation.
fn word_before(lower: &str, k: usize) -> &str {
    let from = floor_boundary(lower, k.saturating_sub(32));
    let t = lower[from..k].trim_end();
    // After the last whitespace, from the first to the last alphanumeric character.
    let mut found: Option<(usize, usize)> = None;
    for (p, c) in t.char_indices().rev() {
        if c.is_whitespace() {
            break;
        }
        if c.is_alphanumeric() {
            found = Some((p, found.map_or(p + c.len_utf8(), |(_, e)| e)));
        }
    }
    found.map_or("", |(s, e)| &t[s..e])
}

/// One pass over the words of a (lowercased) line: could any error rule match?
fn error_trigger(lower: &str) -> bool {
    lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        w.starts_with("err")
            || w.ends_with("error")
            || w.starts_with("fail")
            || w.starts_with("panic")
            || w.ends_with("exception")
            || w.starts_with("exit")
            || listed(ERROR_TRIGGERS, w)
    })
}

/// Words that start an error marker without matching the word rules of [`error_trigger`].
#[rustfmt::skip]
const ERROR_TRIGGERS: &str = "traceback fatal segmentation denied cannot could unable found such timed enoent \
    eacces econnrefused uncaught undefined returncode code status";

fn is_error_line(line: &str) -> bool {
    let head = &line[..floor_boundary(line, ERROR_SCAN_BYTES)];
    if !head.is_ascii() && words_in(ERROR_CJK).any(|m| head.contains(m)) {
        return true;
    }
    let lower = head.to_ascii_lowercase();
    if !error_trigger(&lower) {
        return false;
    }
    if phrases_in(ERROR_MARKERS).any(|m| lower.contains(m)) {
        return true;
    }
    if lower.starts_with("error") || head.starts_with("FAIL ") || has_word(head, "ERROR") {
        return true;
    }
    let b = lower.as_bytes();
    for w in ["failed", "failure", "failures"] {
        for (k, _) in lower.match_indices(w) {
            let after = lower.as_bytes().get(k + w.len()).copied();
            let before = lower.as_bytes().get(k.wrapping_sub(1)).copied();
            if (k > 0 && before.is_some_and(|b| b.is_ascii_alphanumeric()))
                || after.is_some_and(|b| b.is_ascii_alphanumeric())
            {
                continue;
            }
            if !listed("0 no zero without never not", word_before(&lower, k)) {
                return true;
            }
        }
    }
    for (k, _) in lower.match_indices("error") {
        // `error:` as a message (`TypeError: x`, `error: x`), not a path (`crate::error::Error`).
        if b.get(k + 5) == Some(&b':') && b.get(k + 6) != Some(&b':') && (k == 0 || b[k - 1] != b':') {
            return true;
        }
        // `error` or `errors` after a non-zero count (`errors` starts with `error`, so its
        // places are among those of `error`).
        let prev = word_before(&lower, k);
        if !prev.is_empty() && all_digits(prev) && bytes_any(prev, |b| b != b'0') {
            return true;
        }
    }
    phrases_in(EXIT_MARKERS).any(|m| {
        lower.match_indices(m).any(|(k, _)| {
            let rest = lower[k + m.len()..].trim_start_matches(&[' ', ':', '=', '"', '\''][..]);
            let rest = rest.strip_prefix('-').unwrap_or(rest);
            let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
            !digits.is_empty() && bytes_any(digits, |b| b != b'0')
        })
    })
}

/// How telling an error line is: 2 for panics, exceptions, `error:` and model errors, 1 for
/// a failed tool's own line or an exit code, 0 for tallies such as `... FAILED`.
fn error_weight(line: &str) -> u8 {
    let lower = line.to_ascii_lowercase();
    #[rustfmt::skip]
    const STRONG: &str = "panicked|error:|error[|exception|traceback|fatal|model error|assertion|no such file\
        |not found|permission denied|错误|报错|异常";
    if phrases_in(STRONG).any(|m| lower.contains(m) || line.contains(m)) {
        2
    } else if lower.contains("test result") || lower.contains("... failed") || lower.starts_with("fail ") {
        0
    } else {
        1
    }
}

/// Pushes the error lines of `text` (only those in fenced blocks when `fenced_only`); returns
/// whether it had any.
fn scan_errors(text: &str, fenced_only: bool, out: &mut Vec<String>) -> bool {
    let mut found = false;
    let mut fence = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if t.is_empty() || (fenced_only && !fence) {
            continue;
        }
        if is_error_line(t) {
            found = true;
            if out.len() >= LIST_CAP {
                return true;
            }
            add_text(out, t);
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------
// Text hygiene
// ---------------------------------------------------------------------------------------------

/// Zero-width and bidirectional-control characters (used to hide or reorder text).
fn is_invisible(c: char) -> bool {
    matches!(c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xFEFF | 0xAD)
}

/// One line of plain text: whitespace and control runs collapsed to one space, invisible
/// characters dropped, chat-template tokens broken up, trimmed.
fn clean_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(1 << 20));
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() || c.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if is_invisible(c) {
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
    }
    neutralise(&out)
}

#[rustfmt::skip]
const ROLE_TAGS: &str = "system assistant user human tool developer im_start im_end start_of_turn end_of_turn \
    function";

/// Breaks up tokens that chat templates treat as structure: `<|…|>`, `</…>`, `<system>`,
/// `[INST]`, `<<SYS>>`.
fn neutralise(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with("<|") || rest.starts_with("</") {
            out.push_str("< ");
            i += 1;
            continue;
        }
        if rest.starts_with("|>") {
            out.push_str("| ");
            i += 1;
            continue;
        }
        if starts_with_ci(rest, "[inst]") || starts_with_ci(rest, "[/inst]") {
            out.push_str("[ ");
            i += 1;
            continue;
        }
        if starts_with_ci(rest, "<<sys>>") || starts_with_ci(rest, "<</sys>>") {
            out.push_str("< ");
            i += 1;
            continue;
        }
        if rest.starts_with('<') && words_in(ROLE_TAGS).any(|t| starts_with_ci(&rest[1..], t)) {
            out.push_str("< ");
            i += 1;
            continue;
        }
        let Some(c) = rest.chars().next() else {
            break;
        };
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Role prefixes a line must never start with.
#[rustfmt::skip]
const LINE_PREFIXES: &str = "system: assistant: user: human: developer: tool: <| [inst] [/inst] </ <<sys>> <system \
    <assistant <user";

/// Quotes a line that would read as a role or template marker.
fn neutralise_line(line: &str) -> String {
    let t = line.trim_start();
    if words_in(LINE_PREFIXES).any(|p| starts_with_ci(t, p)) {
        let mut out = String::from("> ");
        out.push_str(t);
        out
    } else {
        line.to_string()
    }
}

/// Markdown made plain: fenced code becomes `[code]`, emphasis and heading marks go,
/// delivery directives go.
fn plain_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(1 << 20));
    let mut fence = false;
    for line in s.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            if !fence {
                out.push_str("[code]\n");
            }
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        out.push_str(t.trim_start_matches(&['#'][..]).trim_start());
        out.push('\n');
    }
    hostmeta::strip_directives(&out.replace("**", "")).into_owned()
}

/// At most `max` characters, cut at a character (preferably word) boundary, with `…`.
fn cut_chars(s: &str, max: usize) -> String {
    let Some((end, _)) = s.char_indices().nth(max) else {
        return s.to_string();
    };
    if max == 0 {
        return String::new();
    }
    let keep = s.char_indices().nth(max - 1).map_or(end, |(k, _)| k);
    let mut head = &s[..keep];
    if let Some(sp) = head.rfind(' ') {
        if sp * 4 >= keep * 3 {
            head = &head[..sp];
        }
    }
    let mut out = head.trim_end().to_string();
    out.push('…');
    out
}

/// At most `max` characters of `s` (cleaned): whole leading sentences, and the closing question
/// when there is one (a pending ask outlives the detail before it).
fn shorten(s: &str, max: usize) -> String {
    let s = clean_inline(s);
    if s.chars().nth(max).is_none() {
        return s;
    }
    if max < 24 {
        return cut_chars(&s, max);
    }
    let sents = sentences(&s);
    let last = sents.last().copied().unwrap_or("");
    let question = sents.len() > 1 && (last.ends_with('?') || last.ends_with('？'));
    let budget = if question { max * 3 / 5 } else { max };
    let mut head = String::new();
    let mut used = 0;
    let body = if question {
        &sents[..sents.len() - 1]
    } else {
        &sents[..]
    };
    for sent in body {
        let n = sent.chars().count();
        let sep = usize::from(!head.is_empty());
        if used + sep + n > budget {
            // Fill what is left with the head of this sentence, or mark the gap.
            let left = budget.saturating_sub(used + sep);
            if left >= 24 || head.is_empty() {
                if sep == 1 {
                    head.push(' ');
                }
                head.push_str(&cut_chars(sent, left));
            } else {
                head.push_str(" …");
            }
            break;
        }
        if sep == 1 {
            head.push(' ');
        }
        head.push_str(sent);
        used += sep + n;
    }
    if question {
        let left = max.saturating_sub(head.chars().count() + 1);
        if left >= 12 {
            head.push(' ');
            head.push_str(&cut_chars(last, left));
        }
    }
    cut_chars(&head, max)
}

/// A message's text made plain and shortened to `max` characters (at most
/// [`SOURCE_CHARS`]). Only the head and the tail of a huge text can matter, so only they are
/// read.
fn brief(text: &str, max: usize) -> String {
    const HEAD: usize = 8 * 1024;
    const TAIL: usize = 2 * 1024;
    if text.len() <= HEAD + TAIL {
        return shorten(&plain_text(text), max);
    }
    let head = &text[..floor_boundary(text, HEAD)];
    let mut tail_start = text.len() - TAIL;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let mut joined = head.to_string();
    joined.push_str("\n…\n");
    joined.push_str(&text[tail_start..]);
    shorten(&plain_text(&joined), max)
}

/// Characters of `src` that cost about `tokens` (by its own mix of scripts), at least 16.
fn chars_for_tokens(src: &str, tokens: usize) -> usize {
    let chars = src.chars().count();
    let cost = tokens::text(src).max(1);
    (tokens.saturating_mul(chars) / cost).max(16)
}

/// The longest prefix of `s` within `max` tokens, cut at a character boundary.
fn prefix_within(s: &str, max: usize) -> String {
    let mut bounds = Vec::new();
    for (k, _) in s.char_indices() {
        bounds.push(k);
    }
    bounds.push(s.len());
    let (mut lo, mut hi) = (0, bounds.len() - 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if tokens::text(&s[..bounds[mid]]) <= max {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    s[..bounds[lo]].trim_end().to_string()
}

/// Adds a short fact (cleaned), unless present or the list is full.
fn add(list: &mut Vec<String>, item: &str) {
    if list.len() >= LIST_CAP {
        return;
    }
    let item = clean_inline(item);
    if !item.is_empty() && !list.contains(&item) {
        list.push(item);
    }
}

/// Adds a sentence or line (cleaned, at most [`ITEM_CHARS`]).
fn add_text(list: &mut Vec<String>, text: &str) {
    if list.len() >= LIST_CAP {
        return;
    }
    let head = &text[..floor_boundary(text, ITEM_CHARS * 8)];
    add(list, &cut_chars(&clean_inline(head), ITEM_CHARS));
}

/// A turn id fit for one line: cleaned, no spaces or brackets, at most 64 characters.
fn clean_id(id: &str) -> String {
    let head = &id[..floor_boundary(id, ID_CHARS * 8)];
    let c = map_chars(&clean_inline(head), |c| match c {
        ' ' => '_',
        '[' => '(',
        ']' => ')',
        _ => c,
    });
    let c = cut_chars(&c, ID_CHARS);
    if c.is_empty() {
        "?".to_string()
    } else {
        c
    }
}

/// `s` with each character replaced by `f`'s (one function for both callers).
fn map_chars(s: &str, f: fn(char) -> char) -> String {
    let mut out = String::new();
    for c in s.chars() {
        out.push(f(c));
    }
    out
}

fn stub_label(label: &str) -> String {
    let head = &label[..floor_boundary(label, 4096)];
    let clean = map_chars(&clean_inline(&strip_host_metadata(head)), |c| match c {
        '"' | '“' | '”' => '\'',
        '[' => '(',
        ']' => ')',
        _ => c,
    });
    if tokens::text(&clean) <= LABEL_TOKENS {
        return clean;
    }
    let mut cut = prefix_within(&clean, LABEL_TOKENS.saturating_sub(1));
    cut.push('…');
    cut
}

/// `840`, `8.4k`, `84k`, `1.2M`.
fn approx_count(n: usize) -> String {
    if n < 1_000 {
        // `format!` rather than `to_string`, whose specialisation for integers compiles its own
        // copy of the integer printer.
        format!("{n}")
    } else if n < 9_950 {
        let d = (n + 50) / 100;
        format!("{}.{}k", d / 10, d % 10)
    } else if n < 999_500 {
        format!("{}k", (n + 500) / 1_000)
    } else {
        let d = (n + 50_000) / 100_000;
        format!("{}.{}M", d / 10, d % 10)
    }
}

// ---------------------------------------------------------------------------------------------
// Summary lines and the budget
// ---------------------------------------------------------------------------------------------

enum Body {
    /// Text that can shrink from `src`; `shown` is what is rendered.
    Text {
        src: String,
        shown: String,
        shrinks: bool,
    },
    Items {
        items: Vec<String>,
        sep: &'static str,
    },
}

struct Line {
    label: &'static str,
    body: Body,
    /// Higher survives longer.
    rank: u8,
}

impl Line {
    fn text(label: &'static str, shown: String, rank: u8) -> Line {
        Line {
            label,
            body: Body::Text {
                src: String::new(),
                shown,
                shrinks: false,
            },
            rank,
        }
    }
    fn shrinking(label: &'static str, src: String, shown: String, rank: u8) -> Line {
        Line {
            label,
            body: Body::Text {
                src,
                shown,
                shrinks: true,
            },
            rank,
        }
    }
    fn items(label: &'static str, items: Vec<String>, sep: &'static str, rank: u8) -> Line {
        Line {
            label,
            body: Body::Items { items, sep },
            rank,
        }
    }
    fn rendered(&self) -> Option<String> {
        let body = match &self.body {
            Body::Text { shown, .. } if !shown.is_empty() => shown.clone(),
            Body::Items { items, sep } if !items.is_empty() => turns::join(items, sep),
            _ => return None,
        };
        let line = if self.label.is_empty() {
            body
        } else {
            let mut line = self.label.to_string();
            line.push_str(": ");
            line.push_str(&body);
            line
        };
        Some(neutralise_line(&line))
    }
}

fn render(lines: &[Line]) -> String {
    let mut out = String::new();
    let mut first = true;
    for line in lines.iter().filter_map(Line::rendered) {
        if !first {
            out.push('\n');
        }
        out.push_str(&line);
        first = false;
    }
    out
}

/// Trims lines, lowest rank first, until the rendering is within `max` tokens: lists lose
/// their last entries, texts shrink by a quarter at a time and go below 16 characters.
fn fit(lines: &mut [Line], max: usize) {
    let fits = |lines: &[Line]| tokens::text(&render(lines)) <= max;
    if fits(lines) {
        return;
    }
    let mut order = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        if line.rank < 100 {
            order.push(k);
        }
    }
    turns::sort_by(&mut order, |&a, &b| lines[a].rank < lines[b].rank);
    for k in order {
        while !fits(lines) {
            match &mut lines[k].body {
                Body::Items { items, .. } => {
                    // The last long entry (an error line, a decision) shortens before it goes.
                    let last_chars = items.last().map_or(0, |x| x.chars().count());
                    if items.len() == 1 && last_chars > 48 {
                        items[0] = cut_chars(&items[0], (last_chars * 3 / 4).max(40));
                    } else if items.pop().is_none() {
                        break;
                    }
                }
                Body::Text { src, shown, shrinks } => {
                    let n = shown.chars().count();
                    let next = n * 3 / 4;
                    if !*shrinks || next < 16 {
                        shown.clear();
                        break;
                    }
                    *shown = shorten(src, next);
                }
            }
        }
        if fits(lines) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(text: &str) -> Facts {
        let mut f = Facts::default();
        scan_text(text, Source::Prose, &mut f);
        f
    }

    #[test]
    fn summary_paths() {
        for p in [
            "/a/b.c",
            "src/x.rs",
            "src/x.rs:42",
            "src/ledger.rs:42:9",
            "C:\\x\\y.txt",
            "~/notes",
            "Cargo.toml",
            "./run.sh",
            "/usr/bin/env",
        ] {
            assert!(is_path(p), "{p}");
        }
        for p in [
            "and/or",
            "e.g",
            "3.14",
            "/new",
            "Node.js",
            "https://x.io/a",
            "TCP/IP",
            "24/7",
            "v1.2.3",
        ] {
            assert!(!is_path(p), "{p}");
        }
    }

    #[test]
    fn summary_dates() {
        let f = scanned("Met on 7 May 2023, then May 7, 2023 and 2026-11-30T05:02Z; also 7th of May and June 2024.");
        assert_eq!(
            f.dates,
            vec![
                "7 May 2023",
                "May 7, 2023",
                "2026-11-30T05:02Z",
                "7th of May",
                "June 2024"
            ]
        );
        let f = scanned("我在2023年5月7日去了，5月8日回来。");
        assert_eq!(f.dates, vec!["2023年5月7日", "5月8日"]);
        assert!(!is_date("1234-56-78"));
        assert!(is_date("30/11/2026"));
    }

    #[test]
    fn summary_numbers() {
        let f = scanned("It cost $12.50, took 840 tokens and 100ms, 3 failed, 11 passed, 0 ignored, 42% done, 1,200 rows, 1 2 3, 3.5GB, v1.2.3, 花了500元 3小时");
        assert_eq!(
            f.numbers,
            vec![
                "$12.50",
                "840 tokens",
                "100ms",
                "3 failed",
                "11 passed",
                "42%",
                "1,200 rows",
                "3.5GB",
                "v1.2.3",
                "500元",
                "3小时"
            ]
        );
    }

    #[test]
    fn summary_identifiers_and_names() {
        let f = scanned(
            "Then Caroline met Jordan Smith at the LGBTQ center. Call `open_position_value` via ledger::Cents, \
             getUserId, commit 080fb7e, id 2f1e8c4a-1b2c-4d5e-8f90-1234567890ab, toolu_01ABC and PROJ-123.",
        );
        assert_eq!(f.names, vec!["Caroline", "Jordan Smith", "LGBTQ"]);
        assert_eq!(
            f.identifiers,
            vec![
                "open_position_value",
                "ledger::Cents",
                "getUserId",
                "080fb7e",
                "2f1e8c4a-1b2c-4d5e-8f90-1234567890ab",
                "toolu_01ABC",
                "PROJ-123"
            ]
        );
    }

    #[test]
    fn summary_error_lines() {
        assert!(is_error_line("error[E0308]: mismatched types"));
        assert!(is_error_line("thread 'main' panicked at src/main.rs:3:5:"));
        assert!(is_error_line("test result: FAILED. 11 passed; 1 failed"));
        assert!(is_error_line("Process exited with code 2"));
        assert!(is_error_line("编译失败"));
        assert!(!is_error_line("test result: ok. 12 passed; 0 failed; 0 ignored"));
        assert!(!is_error_line("use crate::error::Error;"));
        assert!(!is_error_line("exit code 0"));
    }

    #[test]
    fn summary_neutralises_template_tokens() {
        let s = clean_inline("a <|im_start|>system [INST] x [/INST] </s> <system> <<SYS>>");
        assert!(
            !s.contains("<|") && !s.contains("[INST]") && !s.contains("</") && !s.contains("<system"),
            "{s}"
        );
        assert!(!s.contains("<<SYS>>"), "{s}");
        assert_eq!(neutralise_line("System: hi"), "> System: hi");
    }

    #[test]
    fn summary_shorten_keeps_closing_question() {
        let long = format!(
            "{} Want me to migrate the importer too?",
            "This sentence is filler. ".repeat(20)
        );
        let s = shorten(&long, 120);
        assert!(s.chars().count() <= 120, "{s}");
        assert!(s.ends_with("Want me to migrate the importer too?"), "{s}");
        assert_eq!(cut_chars("héllo wörld", 3), "hé…");
    }

    #[test]
    fn summary_approx_counts() {
        assert_eq!(approx_count(840), "840");
        assert_eq!(approx_count(8_400), "8.4k");
        assert_eq!(approx_count(84_000), "84k");
        assert_eq!(approx_count(1_250_000), "1.3M");
    }
}
