//! Recall blocks: folded turns the upcoming prompt refers to, sent again in full just before
//! the prompt, each marked with its turn id. Their stubs stay where they are, so the front of
//! the request does not change; a block stays in place in later requests until the next plan.
//! It decides which folded turns come back and what the block looks like, never which turns
//! fold.

use crate::config::Config;
use crate::fold::append::clean_window;
use crate::fold::planner::{Decision, TurnExplain};
use crate::fold::relevance::Relevance;
use crate::fold::truncate;
use crate::model::message;
use crate::model::steps::Step;
use crate::transcript::history::History;
use crate::transcript::turns::TurnSpan;
use serde_json::Value;

/// A folded turn comes back when the prompt refers to it: its relevance (in [0, 1], 1 for the
/// turn that has most to do with the prompt) is at least this ...
const RECALL_RELEVANCE: f64 = 0.6;
/// ... and it holds at least this share of the prompt's weight (the idf of its terms).
const RECALL_COVERAGE: f64 = 0.5;
/// At most this many turns come back for one prompt.
const RECALL_TURNS: usize = 2;

/// The turns a block sends, its steps and their tokens.
#[derive(Debug, Clone)]
pub struct Block {
    pub turns: Vec<usize>,
    pub steps: Vec<Step>,
    pub tokens: usize,
}

/// The recall block for a prompt: among the `folded` turns, the ones it refers to most (by
/// `relevance`, per turn), as many as fit in `room` tokens; `None` when none does.
/// `steps_of(t)`: turn `t`'s messages as the block sends them ([`turn_steps`]).
pub fn choose(
    h: &History,
    folded: &[usize],
    relevance: &Relevance,
    ids: &dyn Fn(usize) -> String,
    steps_of: &dyn Fn(usize) -> Vec<Step>,
    room: usize,
) -> Option<Block> {
    let mut candidates: Vec<usize> = folded
        .iter()
        .copied()
        .filter(|&t| {
            relevance.of(t) >= RECALL_RELEVANCE && relevance.coverage.get(t).is_some_and(|&c| c >= RECALL_COVERAGE)
        })
        .collect();
    // Most relevant first; equal ones newest first.
    candidates.sort_by(|&a, &b| relevance.of(b).total_cmp(&relevance.of(a)).then(b.cmp(&a)));
    let mut chosen: Vec<(usize, Vec<Step>)> = Vec::new();
    let mut tokens = 0;
    for t in candidates.into_iter().take(RECALL_TURNS) {
        let mut steps = steps_of(t);
        // The prompt follows the block: it must end with an answer.
        let answered = steps
            .last()
            .is_some_and(|s| message::kind(s.resolve(h.messages)) == message::Kind::Assistant);
        if !answered {
            continue;
        }
        mark_first(h, &mut steps, &ids(t));
        let cost: usize = steps.iter().map(|s| h.step_tokens(s)).sum();
        if tokens + cost <= room {
            tokens += cost;
            chosen.push((t, steps));
        }
    }
    if chosen.is_empty() {
        return None;
    }
    // In turn order, as they happened.
    chosen.sort_by_key(|(t, _)| *t);
    let turns = chosen.iter().map(|(t, _)| *t).collect();
    let steps = chosen
        .into_iter()
        .flat_map(|(_, s)| s)
        .map(|s| Step { recall: true, ..s })
        .collect();
    Some(Block { turns, steps, tokens })
}

/// A turn's messages as a recall block sends them: cleaned as a completed turn is (tool
/// results kept), huge tool results cut to head and tail, content as parts; a pinned turn as
/// the host has it. Empty when the gate refuses the cleaned turn.
pub fn turn_steps(h: &History, cfg: &Config, span: &TurnSpan, pinned: bool) -> Vec<Step> {
    let keep = match pinned {
        true => std::slice::from_ref(&span.range),
        false => &[],
    };
    let Some((mut steps, _, _)) = clean_window(h, span.range.clone(), cfg, true, keep) else {
        return Vec::new();
    };
    if !pinned {
        for s in steps.iter_mut() {
            let Some(i) = s.source.filter(|&i| !h.shape(i).results.is_empty()) else {
                continue;
            };
            if let Some(cut) = truncate::tool_result(s.resolve(h.messages), cfg.tool_result_truncate_chars) {
                *s = Step::replace(i, cut);
            }
        }
    }
    steps
}

/// Puts the recall marker in front of the block's first user message.
fn mark_first(h: &History, steps: &mut [Step], id: &str) {
    let Some(s) = steps
        .iter_mut()
        .find(|s| message::kind(s.resolve(h.messages)) == message::Kind::User)
    else {
        return;
    };
    let mut m = s.resolve(h.messages).clone();
    let marker = serde_json::json!({"type": "text", "text": format!("[recalled: turn {id}, folded earlier in this conversation, sent again because the next request refers to it]")});
    if let Some(Value::Array(parts)) = message::as_object_mut(&mut m).and_then(|o| o.get_mut("content")) {
        parts.insert(0, marker);
    }
    s.message = Some(std::rc::Rc::new(m));
}

/// Marks a folded turn's explanation as recalled.
pub fn mark(e: &mut TurnExplain) {
    if e.decision != Decision::Recalled {
        e.decision = Decision::Recalled;
        e.reason.push_str("; recalled before the prompt");
    }
}
