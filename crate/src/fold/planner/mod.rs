//! The budgeted assemble: what the model sees when folding is on.
//!
//! On top of the cleaner, per turn (a user prompt and what follows it):
//! * Phase 1, turns outside the protected tail: a turn of another topic (or sub-topic)
//!   becomes a one-line **stub** that names the topic and the turn ids; a same-topic turn
//!   uses its summary when the budget made it fold, else its cleaned messages. A topic the
//!   upcoming prompt refers to counts as the current one for this request.
//! * Phase 2: the last `preserveRecentMessages` turns are never folded.
//! * Phase 3, over `summarizeThreshold` × budget: huge tool results are cut head + tail in
//!   this very request; if still over the budget, the largest turns are queued for a
//!   background summary and the oldest unprotected turns fold (summary if one exists, else
//!   stub) until the request fits. Only the protected tail alone can exceed the budget, and
//!   then the result says so.
//! * Phase 4: content is normalized to arrays of parts.
//!
//! A stub or summary is used only when its estimate is below what the turn costs cleaned (a
//! summary may give way to a smaller stub); otherwise the turn is sent cleaned. Its reason
//! then says so.
//!
//! Stubs and summaries live *inside* the turn they replace (the user message keeps a short
//! form of the ask, the turn's last assistant message carries the stub or summary text), so
//! roles still alternate and no tool call or result is orphaned. Folding a turn for the budget
//! is sticky: the caller remembers it and passes it back, so old turns do not flip between
//! kept and folded from one request to the next (prompt-cache stability).

mod cost;
mod render;
mod smaller;
mod stubs;

use cost::{cost, steps_tokens};
use render::{render, Rendered};
use smaller::unfold_larger;
use stubs::summary_steps;

use crate::clean::cleaner;
use crate::config::Config;
use crate::fold::summary::Recovery;
use crate::fold::truncate;
use crate::hash::{HashMap, HashSet};
use crate::model::message::{self, Kind};
use crate::model::steps::Step;
use crate::transcript::history::History;
use crate::transcript::turns::{self, TurnSpan};
use serde::Serialize;
use std::borrow::Cow;
use std::rc::Rc;

/// What happened to a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Decision {
    Kept,
    Cleaned,
    Truncated,
    Summarized,
    Stubbed,
}

/// The per-turn explanation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnExplain {
    pub id: String,
    pub topic: String,
    pub decision: Decision,
    pub reason: String,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub protected: bool,
    /// The turn's message positions `[start, end)` in the input.
    pub range: (usize, usize),
    /// Sent to a caller that keeps explanations, which already has this one from its previous
    /// response: serialized as `0` (see [`crate::wire::assemble::DeltaRequest::reuse`]).
    #[serde(skip)]
    pub repeated: bool,
}

/// Totals of one assemble.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssembleStats {
    pub budget: usize,
    pub turns: usize,
    pub kept: usize,
    pub cleaned: usize,
    pub truncated: usize,
    pub summarized: usize,
    pub stubbed: usize,
    /// Messages and tokens before and after, and the cleaner's counts.
    pub clean: cleaner::CleanStats,
    /// The protected tail alone exceeds the budget.
    pub over_budget: bool,
}

/// Everything the planner knows besides the messages (computed by the session layer).
#[derive(Debug, Default)]
pub struct Context {
    /// Per turn: its id (transcript entry id, or content hash id).
    pub turn_ids: Vec<String>,
    /// Per turn: topic id; and each topic's label.
    pub topic_of: Vec<usize>,
    pub topic_labels: Vec<String>,
    /// Topics the upcoming prompt refers to.
    pub relevant_topics: HashSet<usize>,
    /// Per turn: sub-topic label from the background classifier, if any.
    pub subtopic_of: Vec<Option<String>>,
    /// Summaries by turn id.
    pub summaries: Rc<HashMap<String, String>>,
    /// Turns folded for the budget by earlier requests (sticky).
    pub folded: Rc<HashSet<String>>,
    /// Turns folded by a manual compaction (sticky like `folded`, with their own reason).
    pub compacted: Rc<HashSet<String>>,
    /// Whether stubs may name the recovery tool (the request offers it).
    pub recovery: Recovery,
    /// Turns that must never be folded.
    pub pinned: HashSet<String>,
    /// The upcoming prompt is passed separately: every message is part of a finished turn.
    pub history_complete: bool,
}

/// The planner's result.
#[derive(Debug, Clone)]
pub struct Assembled {
    pub steps: Vec<Step>,
    pub estimated_tokens: usize,
    pub turns: Vec<TurnExplain>,
    pub stats: AssembleStats,
    /// Turn ids to summarize in the background.
    pub summarize: Vec<String>,
    /// Turn ids folded for the budget (to remember for the next request).
    pub folded: Vec<String>,
    pub frontier: crate::clean::frontier::Frontier,
}

/// How a turn is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Render {
    Cleaned,
    Summary,
    Stub,
}

struct TurnPlan {
    span: TurnSpan,
    /// Cleaned steps of this turn (sources inside the span).
    steps: Vec<Step>,
    render: Render,
    truncated: bool,
    protected: bool,
    /// Of another topic or sub-topic than the current one (folded first under pressure).
    other_topic: bool,
    reason: String,
    tokens_before: usize,
    tokens: usize,
}

/// The reason of a turn folded by an earlier request for the budget.
const STICKY_REASON: &str = "folded for the budget earlier (sticky)";
/// The reason of a turn folded by a manual compaction.
const COMPACTED_REASON: &str = "folded by a manual compaction";
pub(super) const SHORT_ASK_CHARS: usize = 100;
pub(super) const SUMMARY_ASK_TOKENS: usize = 200;

/// Plans what the model sees.
/// `relevance`: per turn, lexical similarity to the upcoming prompt (empty without one); asked
/// only when turns have to fold for the budget (the least related fold first).
pub fn assemble(
    h: &History,
    budget: usize,
    cfg: &Config,
    ctx: &Context,
    relevance: &dyn Fn() -> Vec<f64>,
) -> Assembled {
    let messages = h.messages;
    let (preamble, spans) = h.split();
    let n = spans.len();
    // Pinned turns are sent exactly as the host has them: not folded and not cleaned.
    let mut pinned_ranges: Vec<std::ops::Range<usize>> = Vec::new();
    for (t, s) in spans.iter().enumerate() {
        if ctx.turn_ids.get(t).is_some_and(|id| ctx.pinned.contains(id)) {
            pinned_ranges.push(s.range.clone());
        }
    }
    let cleaned = cleaner::clean_keeping(h, &cfg.clean(), ctx.history_complete, &pinned_ranges);
    // Labels and ids are borrowed from the context: they are asked for many times per turn.
    let label = |t: usize| topic_label(ctx, t);
    let id = |t: usize| turn_id(ctx, spans, t);
    // Folded by an earlier request or by a manual compaction: it stays folded.
    let sticky = |t: usize| {
        let id = id(t);
        ctx.folded.contains(&*id) || ctx.compacted.contains(&*id)
    };

    // Distribute the cleaner's steps over the preamble and the turns.
    let mut pre_steps = Vec::new();
    let mut per_turn: Vec<Vec<Step>> = Vec::with_capacity(n);
    for _ in 0..n {
        per_turn.push(Vec::new());
    }
    let mut t = 0;
    for s in cleaned.steps {
        let src = s.source.unwrap_or(0);
        if src < preamble.end {
            pre_steps.push(s);
            continue;
        }
        while t + 1 < n && src >= spans[t + 1].range.start {
            t += 1;
        }
        per_turn[t].push(s);
    }

    let protected_from = n.saturating_sub(cfg.preserve_recent_messages.max(1));
    let current_topic = n.checked_sub(1).and_then(|l| ctx.topic_of.get(l)).copied();
    let current_sub = n
        .checked_sub(1)
        .and_then(|l| ctx.subtopic_of.get(l))
        .and_then(Option::as_deref);
    let live_turn = spans.iter().position(|s| s.range.contains(&cleaned.frontier.index));

    let mut plans: Vec<TurnPlan> = Vec::with_capacity(n);
    for (t, (span, steps)) in spans.iter().zip(per_turn).enumerate() {
        let tokens_before = h.tokens_of(span.range.clone());
        let pinned = ctx.pinned.contains(&*id(t));
        let protected = t >= protected_from || live_turn.is_some_and(|l| t >= l) || pinned;
        let mut plan = TurnPlan {
            span: span.clone(),
            steps,
            render: Render::Cleaned,
            truncated: false,
            protected,
            other_topic: false,
            reason: String::new(),
            tokens_before,
            tokens: 0,
        };
        if protected {
            plan.reason = if pinned {
                "pinned".into()
            } else {
                "recent turn (protected)".into()
            };
        } else {
            let topic = ctx.topic_of.get(t).copied();
            let relevant = topic.is_some_and(|k| ctx.relevant_topics.contains(&k));
            let sub = ctx.subtopic_of.get(t).and_then(Option::as_deref);
            if topic.is_some() && topic != current_topic && !relevant {
                plan.other_topic = true;
                plan.reason = format!("other topic: {}", label(t));
            } else if !relevant && comparable_subtopics(current_sub, sub) && sub != current_sub {
                plan.other_topic = true;
                plan.reason = format!("other sub-topic: {}", sub.unwrap_or(""));
            }
            if sticky(t) {
                // Folded for the budget by an earlier request, or by a manual compaction: it
                // stays folded, so the prompt prefix does not change back and forth (a summary
                // replaces its stub once one exists).
                plan.render = if ctx.summaries.contains_key(&*id(t)) {
                    Render::Summary
                } else {
                    Render::Stub
                };
                plan.reason = match ctx.compacted.contains(&*id(t)) {
                    true => COMPACTED_REASON.into(),
                    false => STICKY_REASON.into(),
                };
            } else if plan.other_topic {
                if cfg.fold_other_topics {
                    plan.render = Render::Stub;
                } else {
                    plan.reason.push_str(" (kept while the budget allows)");
                }
            } else {
                plan.reason = if relevant && topic != current_topic {
                    format!("the prompt or the latest turns refer to topic {}", label(t))
                } else {
                    "current topic".into()
                };
            }
        }
        plans.push(plan);
    }

    // Phase 3: fit the budget.
    let pre_tokens = steps_tokens(h, &pre_steps);
    let mut summarize = Vec::new();
    // In turn order: a stub's cost depends on whether the turn before it is a stub too.
    for t in 0..n {
        plans[t].tokens = cost(h, &plans, t, ctx, &label, &id(t));
        if plans[t].render == Render::Summary && plans[t].tokens >= steps_tokens(h, &plans[t].steps) {
            plans[t].render = Render::Stub;
            plans[t].tokens = cost(h, &plans, t, ctx, &label, &id(t));
        }
    }
    // The reasons a turn has when it is not folded for the budget.
    let reasons: Vec<String> = plans.iter().map(|p| p.reason.clone()).collect();
    // Turns that are not folded in this request: their folded form is not smaller.
    let mut keep_whole = vec![false; n];
    // Folded for the budget by this request.
    let mut folded_now = vec![false; n];
    for t in unfold_larger(h, &mut plans, &reasons, ctx, &label, &id) {
        keep_whole[t] = true;
    }
    let total = |plans: &[TurnPlan]| pre_tokens + plans.iter().map(|p| p.tokens).sum::<usize>();
    let threshold = (budget as f64 * cfg.summarize_threshold) as usize;
    // Turns folded by an earlier request count at their cleaned cost: that request decided
    // about truncation before it folded them, and this one decides the same way (sticky).
    let mut unfolded = pre_tokens;
    for (t, p) in plans.iter().enumerate() {
        unfolded += match sticky(t) && !p.protected {
            true => steps_tokens(h, &p.steps),
            false => p.tokens,
        };
    }
    if unfolded > threshold {
        for p in plans.iter_mut() {
            if p.protected || p.render != Render::Cleaned {
                continue;
            }
            let mut any = false;
            for s in p.steps.iter_mut() {
                let m = s.resolve(messages);
                if message::kind(m) == Kind::ToolResult {
                    if let Some(cut) = truncate::tool_result(m, cfg.tool_result_truncate_chars) {
                        *s = Step::replace(s.source.unwrap_or(0), cut);
                        any = true;
                    }
                }
            }
            if any {
                p.truncated = true;
                p.tokens = steps_tokens(h, &p.steps);
            }
        }
    }
    // Queue the largest unsummarized turns for a background summary.
    if total(&plans) > budget {
        let mut by_size: Vec<usize> = Vec::new();
        for (t, p) in plans.iter().enumerate() {
            if !p.protected && p.render != Render::Stub && !ctx.summaries.contains_key(&*id(t)) {
                by_size.push(t);
            }
        }
        // Largest first; equal sizes stay in turn order.
        by_size.sort_by(|&a, &b| plans[b].tokens.cmp(&plans[a].tokens));
        for &t in by_size.iter().take(cfg.max_compactions_per_cycle) {
            summarize.push(id(t).into_owned());
        }
    }
    // Fold oldest first (turns the prompt refers to last) until the request fits; the
    // estimate of stub runs is close but not exact, so check the rendered result and fold
    // further with a tighter target if needed.
    // The order is worked out only when something has to fold (it asks each turn's
    // similarity to the prompt).
    let order_of = |plans: &[TurnPlan]| -> Vec<usize> {
        let relevance = relevance();
        let mut order: Vec<usize> = Vec::new();
        // (relevant, same topic, related) compared in that order, packed into one number.
        let mut rank: Vec<u64> = Vec::with_capacity(n);
        for (t, p) in plans.iter().enumerate() {
            if !p.protected {
                order.push(t);
            }
            let relevant = ctx.topic_of.get(t).is_some_and(|k| ctx.relevant_topics.contains(k));
            let related = (relevance.get(t).copied().unwrap_or(0.0) * 1000.0) as u32;
            rank.push(u64::from(relevant) << 33 | u64::from(!p.other_topic) << 32 | u64::from(related));
        }
        order.sort_by_key(|&t| rank[t]);
        order
    };
    let mut order: Option<Vec<usize>> = None;
    let mut target = budget;
    let mut rendered;
    let mut drop_system = false;
    loop {
        // A running total: summing all turns per folded turn is quadratic in the turns.
        let mut sum = total(&plans);
        if sum > target && order.is_none() {
            order = Some(order_of(&plans));
        }
        for pass in [Render::Summary, Render::Stub] {
            for &t in order.as_deref().unwrap_or(&[]) {
                if sum <= target {
                    break;
                }
                let can = !keep_whole[t]
                    && match pass {
                        // A summary only when it is smaller than what the turn costs now.
                        Render::Summary => {
                            plans[t].render == Render::Cleaned
                                && ctx.summaries.get(&*id(t)).is_some_and(|sum| {
                                    let steps = summary_steps(h, &plans[t], sum);
                                    steps_tokens(h, &steps) < plans[t].tokens
                                })
                        }
                        _ => plans[t].render != Render::Stub,
                    };
                if !can {
                    continue;
                }
                plans[t].render = pass;
                plans[t].reason = if pass == Render::Summary {
                    "over budget: summarized".into()
                } else {
                    "over budget: folded to a stub".into()
                };
                let next_stub = t + 1 < n && plans[t + 1].render == Render::Stub;
                let before = plans[t].tokens + if next_stub { plans[t + 1].tokens } else { 0 };
                plans[t].tokens = cost(h, &plans, t, ctx, &label, &id(t));
                if next_stub {
                    plans[t + 1].tokens = cost(h, &plans, t + 1, ctx, &label, &id(t + 1));
                }
                sum = sum - before + plans[t].tokens + if next_stub { plans[t + 1].tokens } else { 0 };
                folded_now[t] = true;
            }
        }
        // A run of stubs (or a summary) that is not smaller than its turns is not sent.
        let unfolded = unfold_larger(h, &mut plans, &reasons, ctx, &label, &id);
        if !unfolded.is_empty() {
            for t in unfolded {
                keep_whole[t] = true;
                folded_now[t] = false;
            }
            sum = total(&plans);
        }
        debug_assert_eq!(sum, total(&plans));
        let collapse = sum > target;
        drop_system = drop_system || (collapse && !cfg.preserve_system_messages);
        rendered = render(h, &plans, &pre_steps, drop_system, false, ctx, &label, &id);
        if rendered.estimated > budget {
            // One stub per topic does not fit: adjacent stubs of different topics share one.
            let merged = render(h, &plans, &pre_steps, drop_system, true, ctx, &label, &id);
            if merged.estimated < rendered.estimated {
                rendered = merged;
            }
        }
        if rendered.estimated <= budget || target == 0 {
            break;
        }
        // Everything that could fold has folded: a tighter target changes nothing.
        let order = order.get_or_insert_with(|| order_of(&plans));
        if collapse || order.iter().all(|&t| plans[t].render == Render::Stub) {
            break;
        }
        target = target.saturating_sub(rendered.estimated - budget + 16);
    }
    // Folded for the budget: by this request or an earlier one (sticky).
    let mut folded: Vec<String> = plans
        .iter()
        .enumerate()
        .filter(|(t, p)| {
            !p.protected
                && matches!(p.render, Render::Summary | Render::Stub)
                && (folded_now[*t] || ctx.folded.contains(&*id(*t)))
        })
        .map(|(t, _)| id(t).into_owned())
        .collect();
    folded.sort_unstable();
    folded.dedup();
    let Rendered {
        steps,
        explains,
        mut stats,
        estimated,
    } = rendered;
    stats.budget = budget;
    stats.turns = n;
    let mut cs = cleaned.stats;
    cs.messages_after = steps.len();
    cs.tokens_after = estimated;
    stats.clean = cs;
    stats.over_budget = estimated > budget;
    Assembled {
        steps,
        estimated_tokens: estimated,
        turns: explains,
        stats,
        summarize,
        folded,
        frontier: cleaned.frontier,
    }
}

/// Sub-topic labels are compared only when both exist and come from the same labeller (the
/// LLM's, or the lexical heuristic's `lex:` labels).
fn comparable_subtopics(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.starts_with("lex:") == b.starts_with("lex:"),
        _ => false,
    }
}

/// The topic label of turn `t` (`""` without topics).
fn topic_label(ctx: &Context, t: usize) -> &str {
    ctx.topic_of
        .get(t)
        .and_then(|&k| ctx.topic_labels.get(k))
        .map_or("", String::as_str)
}

/// The id of turn `t`: the context's, else the content hash of its key.
fn turn_id<'a>(ctx: &'a Context, spans: &[TurnSpan], t: usize) -> Cow<'a, str> {
    match ctx.turn_ids.get(t) {
        Some(id) => Cow::Borrowed(id),
        None => Cow::Owned(turns::hash_id(spans[t].key)),
    }
}
