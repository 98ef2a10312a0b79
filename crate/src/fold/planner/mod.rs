//! The budgeted plan: what the model sees when folding is on, decided in one step for many
//! requests.
//!
//! A live session plans rarely: between plans a request only appends the turns added since
//! ([`crate::fold::append`]), so the front of the request stays what the provider cached.
//! A plan is made when there is nothing to append to (the first request, another history,
//! config or budget) or when appending would cross the high-water mark
//! (`summarizeThreshold` × budget). Then, per turn (a user prompt and what follows it):
//!
//! * Turns folded by an earlier plan stay exactly as they were sent (a stub or summary never
//!   changes); a folded turn the upcoming prompt refers to comes back in a recall block just
//!   before the prompt ([`recall`](crate::fold::recall)), not in place.
//! * Completed turns are cleaned (thinking goes; tool calls and results stay, see
//!   [`Config::fold_clean`]). Pinned turns are sent exactly as the host has them.
//! * If the request is over the high-water mark, it is brought down to the low-water mark
//!   (`foldTarget` × budget) in one step, least worth keeping first (see [`priority`]): huge
//!   tool results are cut to head and tail, then tool results are replaced by one-line
//!   placeholders, then unprotected turns fold (to their summary when one exists and is
//!   smaller, else to a stub; adjacent stubs share one line). The budget is a hard limit: if
//!   the protected recent turns alone exceed it, the oldest of them fold too; only the newest
//!   turn (and a live tool loop) is never touched, and only it can leave the request over the
//!   budget (then the result says so).
//! * Content is normalized to arrays of parts.
//!
//! A stub or summary is used only when it is smaller than what the turn costs otherwise.
//! Stubs and summaries live *inside* the turn they replace (the user message keeps a short
//! form of the ask, the turn's last assistant message carries the stub or summary text), so
//! roles still alternate and no tool call or result is orphaned.

mod cost;
mod priority;
mod reduce;
mod render;
mod smaller;
mod stubs;

use render::Rendered;

pub(crate) use render::normalize_content;

use crate::clean::cleaner;
use crate::config::Config;
use crate::fold::append;
use crate::fold::layout::{Laid, Layout, Recall};
use crate::fold::recall;
use crate::fold::relevance::Relevance;
use crate::fold::summary::{self, Recovery, SummaryInput};
use crate::hash::{HashMap, HashSet};
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
    /// Its tool results were replaced by one-line placeholders.
    Masked,
    Summarized,
    Stubbed,
    /// Folded, and sent again in full in a recall block before the prompt.
    Recalled,
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
    pub masked: usize,
    pub summarized: usize,
    pub stubbed: usize,
    /// Folded turns sent again in recall blocks.
    pub recalled: usize,
    /// This request was planned anew (not appended to the previous one).
    pub replanned: bool,
    /// Messages and tokens before and after, and the cleaner's counts.
    pub clean: cleaner::CleanStats,
    /// The newest turn alone (with the preamble and what cannot fold) exceeds the budget.
    pub over_budget: bool,
}

impl AssembleStats {
    /// Counts a turn's decision.
    pub(crate) fn count(&mut self, d: Decision) {
        match d {
            Decision::Kept => self.kept += 1,
            Decision::Cleaned => self.cleaned += 1,
            Decision::Truncated => self.truncated += 1,
            Decision::Masked => self.masked += 1,
            Decision::Summarized => self.summarized += 1,
            Decision::Stubbed => self.stubbed += 1,
            Decision::Recalled => self.recalled += 1,
        }
    }
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
    /// Per turn: how much it has to do with the upcoming prompt; empty without a prompt.
    pub relevance: Relevance,
    /// Summaries by turn id.
    pub summaries: Rc<HashMap<String, String>>,
    /// Turns folded by earlier plans (sticky).
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
    /// Turn ids to summarize in the background (the next plan's first candidates to fold).
    pub summarize: Vec<String>,
    /// Turn ids folded by this plan or earlier ones (to remember for the next request).
    pub folded: Vec<String>,
    pub frontier: crate::clean::frontier::Frontier,
    /// What this request sends, for the next requests to append to.
    pub layout: Layout,
}

/// How a turn is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Render {
    /// Its (cleaned, possibly cut or masked) steps.
    Cleaned,
    Summary,
    Stub,
    /// As an earlier request sent it (its steps are those).
    Frozen(Decision),
}

struct TurnPlan {
    span: TurnSpan,
    /// Steps of this turn (sources inside the span): cleaned, then possibly cut or masked.
    steps: Vec<Step>,
    /// The steps an earlier request sent it as, when it stays so (`Render::Frozen`).
    frozen: Option<Vec<Step>>,
    render: Render,
    truncated: bool,
    masked: bool,
    protected: bool,
    /// Never reduced: the newest turn, a live tool loop, a pinned turn.
    fixed: bool,
    /// Of another topic or sub-topic than the current one (folded first under pressure).
    other_topic: bool,
    /// Folded by an earlier plan (it may come back in a recall block).
    earlier: bool,
    /// Folded for being of another topic (`foldOtherTopics`), not for the budget: it is
    /// decided anew by every plan, so it is not remembered as folded.
    by_topic: bool,
    reason: String,
    tokens_before: usize,
    tokens: usize,
    /// The turn's extractive summary, made by this plan when the turn folds and the session
    /// has no summary of it yet (see [`summary_of`]).
    made_summary: Option<String>,
}

impl TurnPlan {
    /// Makes the extractive summary of a turn that folds when the session has none of it yet
    /// and the turn is large enough for one: what the background step would make, the same
    /// for the same turn, so a turn folded to it folds to it again.
    fn make_summary(&mut self, h: &History, ctx: &Context, turn_id: &str) {
        if self.made_summary.is_some()
            || self.tokens_before < SUMMARY_WORTH_TOKENS
            || ctx.summaries.contains_key(turn_id)
        {
            return;
        }
        self.made_summary = Some(summary::extractive(&SummaryInput {
            turn_id,
            messages: &h.messages[self.span.range.clone()],
            max_tokens: SUMMARY_TOKENS,
        }));
    }
}

/// The reason of a turn folded by an earlier plan.
const STICKY_REASON: &str = "folded earlier (sticky)";
/// The reason of a turn folded by a manual compaction.
const COMPACTED_REASON: &str = "folded by a manual compaction";
pub(super) const SHORT_ASK_CHARS: usize = 100;
pub(super) const SUMMARY_ASK_TOKENS: usize = 200;
/// A turn worth a summary costs at least this much as it is sent (the extractive summary is
/// up to [`SUMMARY_TOKENS`]).
pub(crate) const SUMMARY_WORTH_TOKENS: usize = 160;
/// The longest extractive summary a plan makes of a turn it folds.
pub(crate) const SUMMARY_TOKENS: usize = 120;

/// The summary turn `t` folds to: the session's (the LLM's or the background step's) when it
/// has one, else the extractive one this plan made.
fn summary_of<'a>(p: &'a TurnPlan, ctx: &'a Context, id: &str) -> Option<&'a str> {
    ctx.summaries.get(id).map(String::as_str).or(p.made_summary.as_deref())
}

/// Plans what the model sees. `prev`: the layout of the previous request when it lays out the
/// start of `h` (its folded turns stay as they were sent).
pub fn assemble(h: &History, budget: usize, cfg: &Config, ctx: &Context, prev: Option<&Layout>) -> Assembled {
    let (preamble, spans) = h.split();
    let n = spans.len();
    // Pinned turns are sent exactly as the host has them: not folded and not cleaned.
    let pinned_ranges: Vec<std::ops::Range<usize>> = spans
        .iter()
        .enumerate()
        .filter(|(t, _)| ctx.turn_ids.get(*t).is_some_and(|id| ctx.pinned.contains(id)))
        .map(|(_, s)| s.range.clone())
        .collect();
    let cleaned = cleaner::clean_keeping(h, &cfg.fold_clean(), ctx.history_complete, &pinned_ranges);
    let label = |t: usize| topic_label(ctx, t);
    let id = |t: usize| turn_id(ctx, spans, t);

    // Distribute the cleaner's steps over the preamble and the turns.
    let mut pre_steps = Vec::new();
    let mut per_turn: Vec<Vec<Step>> = (0..n).map(|_| Vec::new()).collect();
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
    let laid = prev.map_or(&[][..], |l| &l.turns[..]);

    let mut plans: Vec<TurnPlan> = Vec::with_capacity(n);
    for (t, (span, steps)) in spans.iter().zip(per_turn).enumerate() {
        let tid = id(t);
        let pinned = ctx.pinned.contains(&*tid);
        // With the prompt apart, the newest turn is the prompt's: the history's last turn is
        // complete and may lose its tool results when nothing else fits (it never folds).
        let newest = (t + 1 == n && !ctx.history_complete) || live_turn.is_some_and(|l| t >= l);
        let mut plan = TurnPlan {
            span: span.clone(),
            steps,
            frozen: None,
            render: Render::Cleaned,
            truncated: false,
            masked: false,
            protected: t >= protected_from || newest || pinned,
            fixed: newest || pinned,
            other_topic: false,
            earlier: false,
            by_topic: false,
            reason: String::new(),
            tokens_before: h.tokens_of(span.range.clone()),
            tokens: 0,
            made_summary: None,
        };
        if plan.fixed {
            plan.reason = if pinned { "pinned" } else { append::NEWEST }.into();
        } else if let Some(l) = laid
            .get(t)
            .filter(|l| l.explain.decision != Decision::Kept && l.explain.decision != Decision::Cleaned)
        {
            // Sent reduced by an earlier request: it stays as it was sent (a stub or summary
            // for good; cut or masked tool results may still fold further).
            match l.explain.decision {
                d @ (Decision::Stubbed | Decision::Summarized) => {
                    plan.frozen = Some(l.steps.clone());
                    plan.render = Render::Frozen(d);
                    plan.earlier = true;
                    plan.by_topic = !ctx.folded.contains(&*tid) && !ctx.compacted.contains(&*tid);
                }
                d => {
                    plan.steps = l.steps.clone();
                    plan.masked = d == Decision::Masked;
                    plan.truncated = d == Decision::Truncated;
                }
            }
            plan.reason = l.explain.reason.clone();
        } else if ctx.folded.contains(&*tid) || ctx.compacted.contains(&*tid) {
            // Folded by an earlier plan of this session (or a manual compaction): it stays
            // folded (a summary when one exists or the turn is large enough for one).
            plan.make_summary(h, ctx, &tid);
            plan.render = match summary_of(&plan, ctx, &tid) {
                Some(_) => Render::Summary,
                None => Render::Stub,
            };
            plan.earlier = true;
            plan.reason = match ctx.compacted.contains(&*tid) {
                true => COMPACTED_REASON.into(),
                false => STICKY_REASON.into(),
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
            if plan.other_topic && cfg.fold_other_topics && !plan.protected {
                plan.render = Render::Stub;
                plan.by_topic = true;
            } else if plan.other_topic {
                plan.reason.push_str(" (kept while the budget allows)");
            } else if plan.protected {
                plan.reason = "recent turn (protected)".into();
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
    yield_protection(h, &mut plans, (budget as f64 * cfg.low_water()) as usize / 2);

    // Fit the budget: one step down to the low-water mark when over the high-water mark.
    let order = priority::fold_order(&plans, ctx);
    let mut fitted = reduce::fit(h, &mut plans, &pre_steps, &order, budget, cfg, ctx, &label, &id);
    if fitted.estimated > budget && plans.iter().any(|p| p.frozen.is_some()) {
        // What earlier requests folded no longer fits as it was sent: it folds again, into as
        // few stubs as it takes (the budget is a hard limit).
        for p in plans.iter_mut().filter(|p| p.frozen.is_some()) {
            p.frozen = None;
            p.render = Render::Stub;
            p.by_topic = false;
        }
        let order = priority::fold_order(&plans, ctx);
        fitted = reduce::fit(h, &mut plans, &pre_steps, &order, budget, cfg, ctx, &label, &id);
    }

    // Folded turns the prompt refers to come back before the prompt (room permitting).
    let target = (budget as f64 * cfg.low_water()) as usize;
    // Only turns folded by earlier plans: this one folded the others for being worth less.
    // Not those a manual compaction folded: the person asked for them to be left out (the
    // recovery tool still has them).
    let folded_t: Vec<usize> = (0..n)
        .filter(|&t| plans[t].earlier && matches!(explains_of(&fitted, t), Decision::Summarized | Decision::Stubbed))
        .filter(|&t| !ctx.compacted.contains(&*id(t)))
        .collect();
    let room = target.saturating_sub(fitted.estimated);
    let block = match ctx.relevance.is_empty() {
        true => None,
        false => recall::choose(
            h,
            &folded_t,
            &ctx.relevance,
            &|t| id(t).into_owned(),
            &|t| recall::turn_steps(h, cfg, &spans[t], ctx.pinned.contains(&*id(t))),
            room,
        ),
    };

    let Rendered {
        mut steps,
        turn_steps,
        mut explains,
        estimated,
    } = fitted;
    let mut estimated = estimated;
    let mut stats;
    let mut recalls = Vec::new();
    // The layout keeps each turn as it sits in place; the explanations say which came back.
    let pre_end = turn_steps.first().map_or(steps.len(), |r| r.start);
    let pre_steps = steps[..pre_end].to_vec();
    let mut layout_turns = lay(&steps, &turn_steps, &explains, spans);
    let tail = layout_turns.pop();
    if let Some(b) = block {
        for &t in &b.turns {
            recall::mark(&mut explains[t]);
        }
        estimated += b.tokens;
        steps.extend(b.steps.iter().cloned());
        recalls.push(Recall {
            after: n,
            turns: b.turns,
            steps: b.steps,
        });
    }

    // Folded for the budget by this plan or an earlier one (sticky).
    let mut folded: Vec<String> = (0..n)
        .filter(|&t| {
            !plans[t].fixed
                && !plans[t].by_topic
                && matches!(
                    explains[t].decision,
                    Decision::Summarized | Decision::Stubbed | Decision::Recalled
                )
        })
        .map(|t| id(t).into_owned())
        .collect();
    folded.sort_unstable();
    folded.dedup();
    // Worth a summary before the next plan: the turns sent whole that it would fold first.
    let fold_next: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&t| plans[t].render == Render::Cleaned)
        .collect();
    let summarize = worth_summarizing(&fold_next, &plans, ctx, &id, cfg.max_compactions_per_cycle);

    stats = AssembleStats::default();
    for e in &explains {
        stats.count(e.decision);
    }
    stats.budget = budget;
    stats.turns = n;
    stats.replanned = true;
    let mut cs = cleaned.stats;
    // The newest turn's share of the cleaner's counts (it is laid out apart from the others).
    let tail_clean = spans
        .last()
        .and_then(|s| append::clean_window(h, s.range.clone(), cfg, ctx.history_complete, &pinned_ranges))
        .map(|(_, c, _)| c)
        .unwrap_or_default();
    let mut laid_clean = cs.clone();
    laid_clean.add_counts(&tail_clean, -1);
    cs.messages_after = steps.len();
    cs.tokens_after = estimated;
    stats.clean = cs;
    stats.over_budget = estimated > budget;
    let mut layout = Layout {
        preamble: preamble.clone(),
        pre_steps,
        turns: layout_turns,
        tail,
        clean: laid_clean,
        tail_clean,
        recalls,
        tokens: 0,
        config: cfg.clone(),
        recovery: ctx.recovery,
        fold_next,
        cut: false,
        topic: None,
    };
    layout.tokens = cost::steps_tokens(h, &layout.steps_with(&[]));
    Assembled {
        steps,
        estimated_tokens: estimated,
        turns: explains,
        stats,
        summarize,
        folded,
        frontier: cleaned.frontier,
        layout,
    }
}

/// Recent turns are protected while they fit in `room` (half the low-water mark), newest
/// first: beyond it, what the prompt refers to must have room too, and older recent turns are
/// weighed like the others.
fn yield_protection(h: &History, plans: &mut [TurnPlan], room: usize) {
    let mut used = 0;
    // The history's last turn keeps its protection (it is what the prompt answers).
    for (age, p) in plans.iter_mut().rev().enumerate() {
        if !p.protected {
            continue;
        }
        used += cost::steps_tokens(h, &p.steps);
        if used > room && !p.fixed && age > 0 {
            p.protected = false;
            if p.render == Render::Cleaned {
                p.reason = YIELDED_REASON.into();
            }
        }
    }
}

/// The reason of a recent turn whose protection yielded.
const YIELDED_REASON: &str = "recent turn (not protected: the recent turns take more than half of the fold target)";

/// The decision of turn `t` in a rendered plan.
fn explains_of(r: &Rendered, t: usize) -> Decision {
    r.explains[t].decision
}

/// The turns of a plan as laid out: each with the steps it was rendered as.
fn lay(
    steps: &[Step],
    turn_steps: &[std::ops::Range<usize>],
    explains: &[TurnExplain],
    spans: &[TurnSpan],
) -> Vec<Laid> {
    spans
        .iter()
        .zip(explains)
        .zip(turn_steps)
        .map(|((s, e), r)| Laid {
            key: s.key,
            range: s.range.clone(),
            steps: steps[r.clone()].to_vec(),
            explain: e.clone(),
        })
        .collect()
}

/// Up to `max` turns of `order` that have no summary yet and are large enough for one.
fn worth_summarizing<'a>(
    order: &[usize],
    plans: &[TurnPlan],
    ctx: &Context,
    id: &dyn Fn(usize) -> Cow<'a, str>,
    max: usize,
) -> Vec<String> {
    order
        .iter()
        .filter(|&&t| plans[t].tokens >= SUMMARY_WORTH_TOKENS)
        .map(|&t| id(t).into_owned())
        .filter(|i| !ctx.summaries.contains_key(i))
        .take(max)
        .collect()
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
