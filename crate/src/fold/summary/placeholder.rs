//! The one-line placeholder that stands in for a masked tool result: the tool's name, the
//! facts the result returned (as [`super::facts`] finds them: error lines, identifiers, dates,
//! numbers, names, paths, links), its size and the route back to it. It never decides which
//! results are masked.

use super::classify::{scan_tool_output, Source};
use super::errors::scan_errors;
use super::neutralise::clean_inline;
use super::shorten::cut_chars;
use super::stub::{approx_count, clean_id, Recovery};
use super::Facts;
use crate::model::{message, tokens};
use crate::transcript::turns::result_text;
use serde_json::Value;

/// The facts a tool result returned: every kind a summary keeps of prose (identifiers and
/// names too), read from the values of a JSON result (not its keys), and its error lines.
fn returned_facts(result: &Value) -> Facts {
    let text = result_text(result);
    let mut f = Facts::default();
    scan_tool_output(&text, Source::Prose, &mut f);
    let failed = scan_errors(&text, false, &mut f.errors);
    let flagged = [("isError"), ("is_error")]
        .iter()
        .any(|k| message::field(result, k).and_then(Value::as_bool) == Some(true));
    if flagged && !failed {
        if let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
            f.errors.push(first.to_string());
        }
    }
    f
}

/// Longest error line shown, in characters.
const ERROR_CHARS: usize = 100;
/// Longest fact shown, in characters.
const ITEM_CHARS: usize = 48;

/// The placeholder of a tool result (`result`: the tool-result message, or an Anthropic
/// `tool_result` block), at most `max_tokens` by [`tokens::text`] when that leaves room for its
/// fixed parts, e.g.
/// `[result of get_user_details masked (~1.2k tokens): ids mia_li_3668, NO6JO3; dates 2024-05-20; numbers $1,200; names Mia Li; recover with context_engine_recover turn m0012]`.
///
/// Facts are added kind by kind, round robin (errors first, then ids, dates, numbers, names,
/// paths, links), until the next one would not fit.
pub fn placeholder(
    tool: &str,
    result: &Value,
    tokens: usize,
    turn_id: &str,
    recovery: Recovery,
    max_tokens: usize,
) -> String {
    let f = returned_facts(result);
    let tool = cut_chars(&clean_inline(tool), ITEM_CHARS);
    let tool = if tool.is_empty() { "a tool".to_string() } else { tool };
    let head = format!("[result of {tool} masked (~{} tokens)", approx_count(tokens));
    let tail = match recovery {
        Recovery::Tool => format!("; recover with {} turn {}]", super::RECOVERY_TOOL, clean_id(turn_id)),
        Recovery::Unavailable => format!("; turn {}, left out of this request]", clean_id(turn_id)),
    };
    let kinds: [(&str, &[String], usize); 7] = [
        ("error", &f.errors, ERROR_CHARS),
        ("ids", &f.identifiers, ITEM_CHARS),
        ("dates", &f.dates, ITEM_CHARS),
        ("numbers", &f.numbers, ITEM_CHARS),
        ("names", &f.names, ITEM_CHARS),
        ("paths", &f.paths, ITEM_CHARS),
        ("links", &f.urls, ITEM_CHARS),
    ];
    let mut shown: Vec<Vec<String>> = vec![Vec::new(); kinds.len()];
    let render = |shown: &[Vec<String>]| -> String {
        let mut out = head.clone();
        let mut first = true;
        for ((label, _, _), items) in kinds.iter().zip(shown) {
            if items.is_empty() {
                continue;
            }
            out.push_str(if first { ": " } else { "; " });
            first = false;
            out.push_str(label);
            out.push(' ');
            out.push_str(&items.join(if *label == "error" { " / " } else { ", " }));
        }
        out.push_str(&tail);
        out
    };
    // Round robin: the k-th fact of every kind before the (k+1)-th of any.
    let most = kinds.iter().map(|(_, items, _)| items.len()).max().unwrap_or(0);
    'fill: for k in 0..most {
        for (slot, (label, items, chars)) in kinds.iter().enumerate() {
            let Some(item) = items.get(k) else { continue };
            // One error line is enough to say the call failed.
            if *label == "error" && k > 0 {
                continue;
            }
            shown[slot].push(cut_chars(item, *chars));
            if tokens::text(&render(&shown)) > max_tokens {
                shown[slot].pop();
                break 'fill;
            }
        }
    }
    render(&shown)
}
