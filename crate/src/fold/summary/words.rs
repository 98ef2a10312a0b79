//! Splitting a text into words for the fact finders: each word's core (quotes and trailing
//! punctuation trimmed), its byte range in the text, whether it starts a sentence, is followed
//! by punctuation or a colon, sits in code (a one-word span, a span, a fence) or is a URL. It
//! never decides what a word is.

use super::shorten::floor_boundary;
use crate::text::cjk::is_cjk;

/// Whether a word sits in code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Code {
    No,
    /// A one-word inline code span: `` `open_position_value` ``.
    Word,
    /// An inline code span with spaces: `` `cargo test -p x` ``.
    Span,
    /// A fenced block.
    Fence,
}

/// A word: its core (surrounding quotes and punctuation trimmed) and where it stands.
pub(super) struct Word<'a> {
    pub core: &'a str,
    /// Byte range of `core` in the scanned text.
    pub start: usize,
    pub end: usize,
    pub sentence_start: bool,
    /// Punctuation follows (a proper-name run ends here).
    pub breaks_after: bool,
    /// A colon follows: a label (`Flight Number:`), not a name.
    pub label: bool,
    pub code: Code,
    pub url: bool,
}

/// The byte offset of `sub`, a slice of `text`, in `text`.
fn offset(text: &str, sub: &str) -> usize {
    (sub.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

fn is_delim(c: char) -> bool {
    matches!(
        c,
        '"' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ';' | '|' | '=' | '*' | '“' | '”' | '«' | '»'
    )
}

/// Whether `s` starts with `prefix`, ASCII letters in any case.
pub(super) fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Only ASCII digits (true for "").
pub(super) fn all_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
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
pub(super) fn words(text: &str) -> Vec<Word<'_>> {
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
                let len = rest
                    .find(|ch: char| ch.is_whitespace() || is_cjk(ch) || "\"'<>`|".contains(ch))
                    .unwrap_or(rest.len());
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
            let label = after_core.contains(':') || rest[len..].trim_start_matches(['*', ' ']).starts_with(':');
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
    let ends_sentence = trailing.contains(['.', '!', '?', '…', ':']);
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
