//! What a folded turn becomes: a summarized turn, a run of stubbed turns, the shortened ask
//! they keep. It never decides which turns fold.

use super::cost::steps_tokens;
use super::{TurnPlan, SHORT_ASK_CHARS, SUMMARY_ASK_TOKENS};
use crate::fold::summary::{self, Recovery};
use crate::model::message::{self, Kind};
use crate::model::steps::Step;
use crate::transcript::history::History;
use crate::transcript::turns::{self, TurnSpan};
use serde_json::Value;

pub(super) fn with_text(src: &Value, text: String) -> Value {
    let mut m = src.clone();
    if let Some(o) = m.as_object_mut() {
        o.insert("content".into(), message::text_parts(text));
        o.remove("tool_calls");
        o.remove("reasoning_content");
    }
    m
}

pub(super) fn short_ask(messages: &[Value], i: usize) -> String {
    let visible = turns::visible_text(&messages[i]);
    let text = crate::model::hostmeta::strip_host_metadata(&visible);
    let p = turns::preview(&text, SHORT_ASK_CHARS);
    if p.is_empty() {
        "(earlier request)".into()
    } else {
        p
    }
}

/// A summarized turn: the user message (shortened if long) and the summary in the turn's
/// last assistant message.
pub(super) fn summary_steps(h: &History, p: &TurnPlan, summary_text: &str) -> Vec<Step> {
    folded_steps(h, &p.span, &p.span, true, summary_text, "\n")
}

/// A run of stubbed turns: the first turn's ask, shortened, and one stub line in the last
/// turn's final assistant message.
pub(super) fn stub_run(
    h: &History,
    run: &[TurnPlan],
    label: &str,
    ids: &[String],
    tokens: usize,
    recovery: Recovery,
) -> (Vec<Step>, usize) {
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let line = summary::stub(label, &id_refs, tokens, recovery);
    let steps = folded_steps(h, &run[0].span, &run[run.len() - 1].span, false, &line, " ");
    let after = steps_tokens(h, &steps);
    (steps, after)
}

/// The steps of a folded run of turns (`first` to `last`, possibly one turn): the first
/// turn's user message and `text` in the last assistant message of the run; without an
/// assistant message, the shortened ask and `text` joined by `sep` in the user message.
/// `keep_short_ask`: a user message of at most [`SUMMARY_ASK_TOKENS`] is kept as it is.
pub(super) fn folded_steps(
    h: &History,
    first: &TurnSpan,
    last: &TurnSpan,
    keep_short_ask: bool,
    text: &str,
    sep: &str,
) -> Vec<Step> {
    let messages = h.messages;
    let u = first.range.start;
    // The last assistant message of the run: spans are contiguous, so searching back from the
    // end of the last one finds the last turn's, else an earlier turn's.
    let asst = (u..last.range.end).rev().find(|&i| h.kind(i) == Kind::Assistant);
    match asst {
        Some(a) => {
            let user_step = if keep_short_ask && h.tokens(u) <= SUMMARY_ASK_TOKENS {
                Step::keep(u)
            } else {
                Step::replace(u, with_text(&messages[u], short_ask(messages, u)))
            };
            vec![user_step, Step::replace(a, with_text(&messages[a], text.to_string()))]
        }
        None => vec![Step::replace(
            u,
            with_text(&messages[u], [short_ask(messages, u).as_str(), text].join(sep)),
        )],
    }
}
