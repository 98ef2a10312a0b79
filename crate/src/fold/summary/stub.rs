//! The one-line stub that stands in for folded turns: its label, the ids it lists, the
//! approximate size it names and the route back it offers. It never decides which turns fold,
//! what the label says or whether the recovery tool is offered; the planner hands those in.

use super::cut_chars;
use super::neutralise::clean_inline;
use super::shorten::{floor_boundary, prefix_within};
use crate::model::hostmeta::strip_host_metadata;
use crate::model::tokens;

/// Longest turn id shown, in characters.
const ID_CHARS: usize = 64;
/// Longest stub label, in estimated tokens.
const LABEL_TOKENS: usize = 12;

/// The agent tool that brings a folded turn back.
pub const RECOVERY_TOOL: &str = "context_engine_recover";

/// Whether the model of a request can call [`RECOVERY_TOOL`], which decides what a stub
/// promises.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Recovery {
    /// The tool is offered, or nothing says it is not (CLI, library): the stub names it.
    #[default]
    Tool,
    /// The tool is not offered: the stub says the turn was left out and names no tool.
    Unavailable,
}

impl Recovery {
    /// From a request's `recoveryTool`: absent means offered.
    pub fn offered(recovery_tool: Option<bool>) -> Recovery {
        match recovery_tool {
            Some(false) => Recovery::Unavailable,
            _ => Recovery::Tool,
        }
    }

    /// The end of a stub line.
    fn route(self) -> String {
        match self {
            Recovery::Tool => format!("recover with {RECOVERY_TOOL}"),
            Recovery::Unavailable => "left out of this request".to_string(),
        }
    }
}

/// The one-line stub for folded turns, e.g.
/// `[folded: "ledger / cents" — turns t12, t13 (~840 tokens); recover with context_engine_recover]`,
/// or, when the request does not offer the tool,
/// `[folded: "ledger / cents" — turns t12, t13 (~840 tokens); left out of this request]`.
///
/// Up to three ids are listed; more are shown as `first..last (N turns, ~T tokens)`. The label
/// is stripped of host metadata, neutralised and kept under ~12 tokens; ids are never shortened
/// below 64 characters, so they stay usable for recovery.
pub fn stub(label: &str, turn_ids: &[&str], tokens: usize, recovery: Recovery) -> String {
    let label = stub_label(label);
    let ids: Vec<String> = turn_ids.iter().map(|t| clean_id(t)).collect();
    let label = if label.is_empty() {
        String::new()
    } else {
        format!(": \"{label}\"")
    };
    let turns = match ids.as_slice() {
        [] => String::new(),
        [one] => format!(" — turn {one}"),
        [_, _] | [_, _, _] => format!(" — turns {}", ids.join(", ")),
        [first, .., last] => format!(" — turns {first}..{last}"),
    };
    let count = if ids.len() > 3 {
        format!("{} turns, ", ids.len())
    } else {
        String::new()
    };
    format!(
        "[folded{label}{turns} ({count}~{} tokens); {}]",
        approx_count(tokens),
        recovery.route()
    )
}

/// A turn id fit for one line: cleaned, no spaces or brackets, at most 64 characters.
pub(super) fn clean_id(id: &str) -> String {
    let head = &id[..floor_boundary(id, ID_CHARS * 8)];
    let c: String = clean_inline(head)
        .chars()
        .map(|c| match c {
            ' ' => '_',
            '[' => '(',
            ']' => ')',
            _ => c,
        })
        .collect();
    let c = cut_chars(&c, ID_CHARS);
    if c.is_empty() {
        "?".to_string()
    } else {
        c
    }
}

/// The label: host metadata stripped, one line, no quotes or brackets of its own, at most
/// [`LABEL_TOKENS`].
fn stub_label(label: &str) -> String {
    let head = &label[..floor_boundary(label, 4096)];
    let clean: String = clean_inline(&strip_host_metadata(head))
        .chars()
        .map(|c| match c {
            '"' | '“' | '”' => '\'',
            '[' => '(',
            ']' => ')',
            _ => c,
        })
        .collect();
    if tokens::text(&clean) <= LABEL_TOKENS {
        return clean;
    }
    let mut cut = prefix_within(&clean, LABEL_TOKENS.saturating_sub(1));
    cut.push('…');
    cut
}

/// `840`, `8.4k`, `84k`, `1.2M`.
pub(super) fn approx_count(n: usize) -> String {
    if n < 1_000 {
        n.to_string()
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
