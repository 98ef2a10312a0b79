//! Text made safe to show inside a turn: one line, whitespace and control runs collapsed,
//! invisible characters dropped, and chat-template tokens (`<|…|>`, `</…>`, `[INST]`,
//! `<<SYS>>`, role tags) broken up so no summary line can pass for another message. It never
//! shortens or drops visible text beyond that.

use super::words::starts_with_ci;

/// Zero-width and bidirectional-control characters (used to hide or reorder text).
fn is_invisible(c: char) -> bool {
    matches!(c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xFEFF | 0xAD)
}

/// One line of plain text: whitespace and control runs collapsed to one space, invisible
/// characters dropped, chat-template tokens broken up, trimmed.
pub(super) fn clean_inline(s: &str) -> String {
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
const ROLE_TAGS: &[&str] = &[
    "system", "assistant", "user", "human", "tool", "developer", "im_start", "im_end", "start_of_turn",
    "end_of_turn", "function",
];

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
        if rest.starts_with('<') && ROLE_TAGS.iter().any(|t| starts_with_ci(&rest[1..], t)) {
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
const LINE_PREFIXES: &[&str] = &[
    "system:", "assistant:", "user:", "human:", "developer:", "tool:", "<|", "[inst]", "[/inst]", "</", "<<sys>>",
    "<system", "<assistant", "<user",
];

/// Quotes a line that would read as a role or template marker.
pub(super) fn neutralise_line(line: &str) -> String {
    let t = line.trim_start();
    if LINE_PREFIXES.iter().any(|p| starts_with_ci(t, p)) {
        format!("> {t}")
    } else {
        line.to_string()
    }
}
