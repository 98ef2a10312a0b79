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
//! The parts, in the order a summary is made:
//! - [`scan`] walks the turn's messages (user, assistant, tool results, host entries) and
//!   hands each text to the fact finders with what it may contribute;
//! - [`words`] splits a text into words; [`classify`] says which fact each word is, through
//!   [`dates`], [`numbers`], [`paths`], [`identifiers`] and [`names`]; [`decisions`] and
//!   [`errors`] read whole sentences and lines;
//! - [`shorten`] cuts texts to a length, [`neutralise`] makes them safe to show, and
//!   [`render`] lays out the summary's lines and fits them to the budget;
//! - [`stub`](mod@stub) writes the one-line stub, [`placeholder`](mod@placeholder) the one line
//!   that stands in for a masked tool result.

mod classify;
mod dates;
mod decisions;
mod errors;
mod identifiers;
mod names;
mod neutralise;
mod numbers;
mod paths;
mod placeholder;
mod render;
mod scan;
mod shorten;
mod stub;
mod words;

#[cfg(test)]
mod tests;

use crate::model::tokens;
use neutralise::clean_inline;
use render::Line;
use serde::Serialize;
use serde_json::Value;
use shorten::{brief, chars_for_tokens, cut_chars, floor_boundary, prefix_within};
use stub::clean_id;

/// The text a user typed, without what the host wraps around it (see
/// [`crate::model::hostmeta`]).
pub use crate::model::hostmeta::strip_host_metadata;
pub use placeholder::placeholder;
pub use stub::{stub, Recovery, RECOVERY_TOOL};

/// Most entries any [`Facts`] list keeps (first seen wins).
pub const LIST_CAP: usize = 12;
/// Longest error line or decision kept in [`Facts`], in characters.
const ITEM_CHARS: usize = 160;
/// Longest error line or decision shown in a summary, in characters.
const SHOWN_ITEM_CHARS: usize = 140;
/// The ask and answer a summary shrinks from, in characters.
const SOURCE_CHARS: usize = 1200;

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
    scan::scan(messages).facts
}

/// A plain-text summary of one turn, at most `max_tokens` by [`tokens::text`].
///
/// First line `[summary of turn <id>]`, then `Asked:`, `Did:` (tools with counts), `Answer:`,
/// and the facts not already visible in the ask or answer: `Files:`, `Errors:`, `Ids:`,
/// `Numbers/dates:`, `Names:`, `Links:`, `Decisions:`. Over budget, the lowest-priority lines
/// lose entries first (links, numbers and dates, decisions, names, ids, files, tools, errors),
/// then the answer and the ask shrink; the ask, the answer and errors outrank everything else.
/// Ids, names and dates outrank decisions: they are short and exact, what the next step of a
/// task reuses (an account, a booking, a payment method), where a decision is often the ask
/// again in other words.
pub fn extractive(input: &SummaryInput) -> String {
    let max = input.max_tokens;
    let s = scan::scan(input.messages);
    let header = format!("[summary of turn {}]", clean_id(input.turn_id));
    let room = max.saturating_sub(tokens::text(&header));

    let ask_src = brief(&s.asks.join(" / "), SOURCE_CHARS);
    let answer_src = brief(&s.answer, SOURCE_CHARS);
    let ask = shorten::shorten(&ask_src, chars_for_tokens(&ask_src, room.saturating_mul(3) / 10));
    let answer = shorten::shorten(
        &answer_src,
        chars_for_tokens(&answer_src, room.saturating_mul(35) / 100),
    );

    let shown = format!("{ask} {answer}");
    let f = &s.facts;
    let fresh = |items: &[String], cap: usize, chars: usize| -> Vec<String> {
        items
            .iter()
            .filter(|x| !shown.contains(x.as_str()))
            .take(cap)
            .map(|x| cut_chars(x.trim_end_matches(['.', ':', ';', '。']), chars))
            .collect()
    };
    // The most telling error lines first (a panic or `error:` over a `... FAILED` tally).
    let mut errors = f.errors.clone();
    errors.sort_by_key(|e| std::cmp::Reverse(errors::weight(e)));
    let did = s
        .tool_counts
        .iter()
        .map(|(name, n)| if *n > 1 { format!("{name} ×{n}") } else { name.clone() })
        .collect();
    let mut dates_numbers = fresh(&f.dates, 6, ITEM_CHARS);
    dates_numbers.extend(fresh(&f.numbers, 8, ITEM_CHARS));

    // Display order; `rank` decides what goes first when over budget (lowest first).
    let mut lines = vec![
        Line::text("", header, 100),
        Line::shrinking("Asked", ask_src, ask, 90),
        Line::items("Did", did, ", ", 70),
        Line::shrinking("Answer", answer_src, answer, 85),
        Line::items("Files", fresh(&f.paths, 8, ITEM_CHARS), ", ", 60),
        Line::items("Errors", fresh(&errors, 4, SHOWN_ITEM_CHARS), "; ", 80),
        Line::items("Ids", fresh(&f.identifiers, 8, ITEM_CHARS), ", ", 58),
        Line::items("Numbers/dates", dates_numbers, ", ", 52),
        Line::items("Names", fresh(&f.names, 8, ITEM_CHARS), ", ", 56),
        Line::items("Links", fresh(&f.urls, 3, ITEM_CHARS), ", ", 30),
        Line::items("Decisions", fresh(&f.decisions, 3, SHOWN_ITEM_CHARS), "; ", 55),
    ];
    render::fit(&mut lines, max);
    let out = render::render(&lines);
    if tokens::text(&out) <= max {
        out
    } else {
        prefix_within(&out, max)
    }
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
