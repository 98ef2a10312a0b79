//! Texts cut to a length: a character count (at a word boundary when one is near, with `…`),
//! whole leading sentences plus a closing question, or a token budget. Markdown is made plain
//! first. It never decides how long a line may be; callers pass the length.

use super::neutralise::clean_inline;
use crate::model::hostmeta;
use crate::model::tokens;

/// The largest char boundary at or below `max`.
pub(super) fn floor_boundary(s: &str, max: usize) -> usize {
    if max >= s.len() {
        return s.len();
    }
    (0..=max).rev().find(|&k| s.is_char_boundary(k)).unwrap_or(0)
}

/// Sentences of one line: split after `.!?` before a space (or at the end) and after `。！？`.
pub(super) fn sentences(s: &str) -> Vec<&str> {
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
        out.push_str(t.trim_start_matches('#').trim_start());
        out.push('\n');
    }
    hostmeta::strip_directives(&out.replace("**", "")).into_owned()
}

/// At most `max` characters, cut at a character (preferably word) boundary, with `…`.
pub(super) fn cut_chars(s: &str, max: usize) -> String {
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
pub(super) fn shorten(s: &str, max: usize) -> String {
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
/// [`super::SOURCE_CHARS`]). Only the head and the tail of a huge text can matter, so only they are
/// read.
pub(super) fn brief(text: &str, max: usize) -> String {
    const HEAD: usize = 8 * 1024;
    const TAIL: usize = 2 * 1024;
    if text.len() <= HEAD + TAIL {
        return shorten(&plain_text(text), max);
    }
    let head = &text[..floor_boundary(text, HEAD)];
    let tail_start = (text.len() - TAIL..text.len())
        .find(|&k| text.is_char_boundary(k))
        .unwrap_or(text.len());
    shorten(&plain_text(&format!("{head}\n…\n{}", &text[tail_start..])), max)
}

/// Characters of `src` that cost about `tokens` (by its own mix of scripts), at least 16.
pub(super) fn chars_for_tokens(src: &str, tokens: usize) -> usize {
    let chars = src.chars().count();
    let cost = tokens::text(src).max(1);
    (tokens.saturating_mul(chars) / cost).max(16)
}

/// The longest prefix of `s` within `max` tokens, cut at a character boundary.
pub(super) fn prefix_within(s: &str, max: usize) -> String {
    let bounds: Vec<usize> = s.char_indices().map(|(k, _)| k).chain([s.len()]).collect();
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
