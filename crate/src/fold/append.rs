//! Appending: a request that adds turns to the previous one sends the previous request's
//! messages exactly as they were sent, then the new turns (cleaned as completed turns are, tool
//! results kept), then, when the prompt refers to a turn folded earlier, a recall block. Its
//! cost is the new turns alone. It declines (and the caller plans anew) when the result would
//! cross the high-water mark (`summarizeThreshold` × budget) or the validity gate refuses the
//! new part.
//!
//! Between plans, the explanations of earlier turns are those of the plan that laid them out
//! (their protection follows the newest turns).

use crate::clean::cleaner::{self, CleanStats};
use crate::clean::frontier::Frontier;
use crate::clean::gate;
use crate::config::Config;
use crate::fold::layout::{Laid, Layout, Recall};
use crate::fold::planner::{normalize_content, AssembleStats, Decision, TurnExplain, SUMMARY_WORTH_TOKENS};
use crate::fold::recall;
use crate::fold::relevance::Relevance;
use crate::model::steps::Step;
use crate::transcript::history::{History, HistoryCache};
use crate::transcript::turns::TurnSpan;
use std::ops::Range;

/// The reason of the newest turn.
pub(crate) const NEWEST: &str = "newest turn (never folded)";

/// What the caller knows of the turns a request adds.
pub struct Added<'a> {
    /// The id of turn `t` of the history.
    pub id: &'a dyn Fn(usize) -> String,
    /// Whether turn `t` is pinned (sent exactly as the host has it).
    pub pinned: &'a dyn Fn(usize) -> bool,
    /// Per turn of the history (at least the turns the layout lays out): relevance to the
    /// upcoming prompt; empty without a prompt.
    pub relevance: &'a Relevance,
    /// Whether turn `t` (by id) has a summary already.
    pub summarized: &'a dyn Fn(&str) -> bool,
    /// Whether turn `t` (by id) was folded by a manual compaction (never recalled).
    pub compacted: &'a dyn Fn(&str) -> bool,
    /// The upcoming prompt is passed separately: every message is part of a finished turn.
    pub history_complete: bool,
}

/// A request appended to a layout.
pub struct Appended {
    pub steps: Vec<Step>,
    pub estimated_tokens: usize,
    pub turns: Vec<TurnExplain>,
    pub stats: AssembleStats,
    pub summarize: Vec<String>,
}

/// Messages `range` of `h` cleaned on their own (a completed turn is cleaned the same way
/// wherever it sits), content as parts; `pinned`: ranges of `h` left as the host has them.
/// `None` when the validity gate refuses the result.
pub(crate) fn clean_window(
    h: &History,
    range: Range<usize>,
    cfg: &Config,
    complete: bool,
    pinned: &[Range<usize>],
) -> Option<(Vec<Step>, CleanStats, Frontier)> {
    let (start, end) = (range.start, range.end);
    let window = &h.messages[range];
    let cache = HistoryCache::of(window);
    let w = cache.view(window);
    let keep: Vec<Range<usize>> = pinned
        .iter()
        .filter(|r| r.start >= start && r.end <= end)
        .map(|r| r.start - start..r.end - start)
        .collect();
    let cleaned = cleaner::clean_keeping(&w, &cfg.fold_clean(), complete, &keep);
    gate::check_history(&w, &cleaned.steps, cleaned.frontier.loop_start).ok()?;
    let mut steps: Vec<Step> = cleaned
        .steps
        .into_iter()
        .map(|s| Step {
            source: s.source.map(|i| i + start),
            message: s.message,
            reuse: None,
            recall: false,
        })
        .collect();
    normalize_content(h, &mut steps);
    let frontier = Frontier {
        index: cleaned.frontier.index + start,
        loop_start: cleaned.frontier.loop_start.map(|i| i + start),
    };
    Some((steps, cleaned.stats, frontier))
}

/// Appends the turns of `h` after the ones `layout` lays out (it must lay out the start of
/// `h`), in place; `None`, with `layout` unchanged, when the request would cross the
/// high-water mark or the gate refuses it. The turns laid out before are neither copied nor
/// looked at again, but for the folded ones a recall block may send again.
pub fn append(h: &History, layout: &mut Layout, budget: usize, cfg: &Config, added: &Added) -> Option<Appended> {
    if layout.cut {
        return None;
    }
    let (_, spans) = h.split();
    let k = layout.turns.len();
    let n = spans.len();
    if spans.get(k).map_or(h.len(), |s| s.range.start) != layout.covered() {
        return None;
    }
    let protected_from = n.saturating_sub(cfg.preserve_recent_messages.max(1));
    // What this request adds to the layout: turns now complete, their cleaner counts, and the
    // newest turn (laid out again by the next request).
    let mut laid: Vec<Laid> = Vec::new();
    let mut laid_clean = CleanStats::default();
    let mut new_tokens = 0;
    // The newest turn of the previous request, as it was sent, when it is complete now.
    let mut from = k;
    let mut tail_clean = CleanStats::default();
    let mut newest: Option<Laid> = None;
    let same_tail = layout
        .tail
        .as_ref()
        .filter(|l| spans.get(k).is_some_and(|s| s.key == l.key && s.range == l.range));
    if let Some(tail) = same_tail {
        new_tokens += tail.explain.tokens_after;
        if n > k + 1 {
            laid_clean.add_counts(&layout.tail_clean, 1);
            let mut done = tail.clone();
            if done.explain.reason == NEWEST {
                done.explain.reason = "sent whole by the last plan".into();
            }
            laid.push(done);
        } else {
            tail_clean = layout.tail_clean.clone();
            newest = Some(tail.clone());
        }
        from = k + 1;
    }
    // The other new turns but the newest, then the newest (cleaned on its own: it may still
    // be a live tool loop).
    let pinned = |range: Range<usize>| -> Vec<Range<usize>> {
        (from..n)
            .filter(|&t| (added.pinned)(t) && spans[t].range.start >= range.start && spans[t].range.end <= range.end)
            .map(|t| spans[t].range.clone())
            .collect()
    };
    if from < n {
        let settled = spans[from].range.start..spans[n - 1].range.start;
        if !settled.is_empty() {
            let (steps, counts, _) = clean_window(h, settled.clone(), cfg, true, &pinned(settled))?;
            laid_clean.add_counts(&counts, 1);
            for (t, steps) in split_steps(steps, &spans[from..n - 1]) {
                let l = lay_new(h, from + t, &spans[from + t], steps, n, protected_from, added);
                new_tokens += l.explain.tokens_after;
                laid.push(l);
            }
        }
        let last = spans[n - 1].range.clone();
        let (steps, counts, _) = clean_window(h, last.clone(), cfg, added.history_complete, &pinned(last))?;
        tail_clean = counts;
        let l = lay_new(h, n - 1, &spans[n - 1], steps, n, protected_from, added);
        new_tokens += l.explain.tokens_after;
        newest = Some(l);
    }
    let laid_tokens: usize = laid.iter().map(|l| l.explain.tokens_after).sum();
    let high = (budget as f64 * cfg.summarize_threshold) as usize;
    let mut estimated = layout.tokens + new_tokens;
    if estimated > high {
        return None;
    }
    // Folded turns the prompt refers to come back (once per layout), room permitting.
    let block = match added.relevance.is_empty() {
        true => None,
        false => {
            let folded: Vec<usize> = (0..k)
                .filter(|&t| layout.turns[t].folded() && !(added.compacted)(&layout.turns[t].explain.id))
                .filter(|&t| !layout.recalled(t))
                .collect();
            recall::choose(
                h,
                &folded,
                added.relevance,
                &|t| (added.id)(t),
                &|t| recall::turn_steps(h, cfg, &spans[t], (added.pinned)(t)),
                high - estimated,
            )
        }
    };
    if let Some(b) = &block {
        let sources: Vec<usize> = b.turns.iter().flat_map(|&t| spans[t].range.clone()).collect();
        gate_block(h, &sources, &b.steps)?;
    }
    // Accepted: the layout grows by what was added.
    layout.clean.add_counts(&laid_clean, 1);
    layout.turns.extend(laid);
    layout.tokens += laid_tokens;
    if let Some(b) = block {
        estimated += b.tokens;
        layout.tokens += b.tokens;
        layout.recalls.push(Recall {
            after: n,
            turns: b.turns,
            steps: b.steps,
        });
    }
    let tail_steps: Vec<Step> = newest.as_ref().map_or_else(Vec::new, |l| l.steps.clone());
    let steps = layout.steps_with(&tail_steps);
    let mut turns: Vec<TurnExplain> = layout.turns.iter().map(|l| l.explain.clone()).collect();
    turns.extend(newest.as_ref().map(|l| l.explain.clone()));
    for e in turns.iter_mut().take(protected_from) {
        e.protected = e.protected && e.reason == "pinned";
    }
    for r in &layout.recalls {
        for &t in &r.turns {
            recall::mark(&mut turns[t]);
        }
    }
    let mut stats = AssembleStats::default();
    for e in &turns {
        stats.count(e.decision);
    }
    stats.budget = budget;
    stats.turns = n;
    stats.clean = layout.clean.clone();
    stats.clean.add_counts(&tail_clean, 1);
    stats.clean.messages_before = h.len();
    stats.clean.tokens_before = h.tokens_of(0..h.len());
    stats.clean.messages_after = steps.len();
    stats.clean.tokens_after = estimated;
    stats.clean.frontier = h.len();
    layout.tail = newest;
    layout.tail_clean = tail_clean;
    // The next plan folds these first: worth a summary once the request is past the target.
    let target = (budget as f64 * cfg.low_water()) as usize;
    let summarize = match estimated > target {
        true => layout
            .fold_next
            .iter()
            .filter_map(|&t| layout.turns.get(t).map(|l| &l.explain))
            .filter(|e| e.tokens_after >= SUMMARY_WORTH_TOKENS && !(added.summarized)(&e.id))
            .map(|e| e.id.clone())
            .take(cfg.max_compactions_per_cycle)
            .collect(),
        false => Vec::new(),
    };
    Some(Appended {
        steps,
        estimated_tokens: estimated,
        turns,
        stats,
        summarize,
    })
}

/// The steps of consecutive turns, split by turn (`spans`, in order).
fn split_steps(steps: Vec<Step>, spans: &[TurnSpan]) -> Vec<(usize, Vec<Step>)> {
    let mut out: Vec<(usize, Vec<Step>)> = (0..spans.len()).map(|t| (t, Vec::new())).collect();
    let mut t = 0;
    for s in steps {
        while t + 1 < spans.len() && s.source.is_some_and(|i| i >= spans[t + 1].range.start) {
            t += 1;
        }
        out[t].1.push(s);
    }
    out
}

/// A new turn as laid out: its steps and explanation.
fn lay_new(
    h: &History,
    t: usize,
    span: &TurnSpan,
    steps: Vec<Step>,
    n: usize,
    protected_from: usize,
    added: &Added,
) -> Laid {
    let tokens: usize = steps.iter().map(|s| h.step_tokens(s)).sum();
    let changed = steps.iter().any(|s| s.message.is_some()) || steps.len() != span.range.len();
    let pinned = (added.pinned)(t);
    let reason = match () {
        _ if pinned => "pinned",
        _ if t + 1 == n => NEWEST,
        _ => "appended since the last plan",
    };
    Laid {
        key: span.key,
        range: span.range.clone(),
        explain: TurnExplain {
            id: (added.id)(t),
            topic: String::new(),
            decision: if changed { Decision::Cleaned } else { Decision::Kept },
            reason: reason.into(),
            tokens_before: h.tokens_of(span.range.clone()),
            tokens_after: tokens,
            protected: t >= protected_from || pinned,
            range: (span.range.start, span.range.end),
            repeated: false,
        },
        steps,
    }
}

/// Gates a recall block against the turns it sends again (as if they were the whole input).
fn gate_block(h: &History, sources: &[usize], steps: &[Step]) -> Option<()> {
    let input: Vec<serde_json::Value> = sources.iter().map(|&i| h.messages[i].clone()).collect();
    let at = |i: usize| sources.iter().position(|&s| s == i);
    let local: Vec<Step> = steps
        .iter()
        .map(|s| Step {
            source: s.source.and_then(at),
            message: s.message.clone(),
            reuse: None,
            recall: false,
        })
        .collect();
    gate::check(&input, &local, None).ok()
}
