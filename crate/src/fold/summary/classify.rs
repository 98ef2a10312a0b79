//! Which fact each word of a text is: a URL, a date, a path, a number, an identifier or part
//! of a proper name, in that order of precedence, and which of them a text may contribute
//! given where it came from ([`Source`]). The tests for each kind live in the kind's module;
//! this module never reads sentences (decisions, errors) or messages.

use super::dates::{is_date, multi_date};
use super::identifiers::{ident_like, is_identifier};
use super::names::name_word;
use super::numbers::number;
use super::paths::is_path;
use super::words::{words, Code};
use super::{add, Facts};
use serde_json::Value;

/// Words longer than this (bytes) are noise (base64, minified code), never facts.
const MAX_WORD: usize = 300;

/// Where a text came from: what it may contribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// User or assistant prose: every kind of fact.
    Prose,
    /// Tool-call arguments: paths, URLs, ids, dates, numbers with units.
    Arg,
    /// Plain-text tool output: paths, URLs, dates, numbers with units (no ids or names: too
    /// noisy). JSON output is data and gives every kind (see [`scan_tool_output`]).
    Output,
}

/// Scans a text for paths, URLs, ids, numbers, dates and (in prose) proper names.
pub(super) fn scan_text(text: &str, src: Source, f: &mut Facts) {
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
                        if !prev.breaks_after && gap.bytes().all(|b| b == b' ') {
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

/// Scans what a tool returned. A JSON object or array is data: its string and number values
/// (never its keys) are scanned one per line as [`Source::Prose`], so the ids, names and dates
/// it returned count as facts; any other text is scanned as `plain` says.
pub(super) fn scan_tool_output(text: &str, plain: Source, f: &mut Facts) {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => {
            let mut values = String::new();
            leaves(&v, &mut values);
            scan_text(&values, Source::Prose, f);
        }
        _ => scan_text(text, plain, f),
    }
}

/// The string and number values of a JSON document, one per line.
fn leaves(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Number(n) => {
            out.push_str(&n.to_string());
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
        Value::Object(o) => o.values().for_each(|x| leaves(x, out)),
        _ => {}
    }
}

/// Adds the proper-name run `(start, end, ..)` of `text`, if any.
fn flush_name(text: &str, run: Option<(usize, usize, usize, usize)>, f: &mut Facts) {
    if let Some((s, e, _, _)) = run {
        if let Some(name) = text.get(s..e) {
            add(&mut f.names, name);
        }
    }
}
