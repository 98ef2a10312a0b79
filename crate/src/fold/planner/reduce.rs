//! Fitting the budget: over the high-water mark, turns are reduced, least worth keeping first
//! (see [`super::priority`]), until the request is down to the low-water mark. The steps, each
//! tried on every turn before the next step starts:
//! 1. huge tool results cut to head and tail;
//! 2. tool results replaced by one-line placeholders (protected turns too: protection is from
//!    folding; they are worth more, so they come late);
//! 3. unprotected turns folded to their summary (when one exists and is smaller);
//! 4. unprotected turns folded to stubs;
//! 5. protected turns folded (oldest first), only while the request is over the budget itself.
//!
//! The newest turn, a live tool loop and pinned turns are never reduced; with the prompt
//! apart, the history's last turn may lose its tool results but never folds. It renders the
//! result and folds further when the rendered request is still over the budget (a stub run's
//! cost is estimated while folding).

use super::cost::{cost, reach_tokens, recost, steps_tokens};
use super::render::{render, Rendered};
use super::smaller::unfold_larger;
use super::stubs::summary_steps;
use super::{summary_of, Context, Render, TurnPlan};
use crate::config::Config;
use crate::fold::{mask, truncate};
use crate::model::message;
use crate::model::steps::Step;
use crate::transcript::history::History;
use std::borrow::Cow;

/// What a reduction step does to a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    Truncate,
    Mask,
    Summary,
    Stub,
}

/// Brings the plans within the budget (see the module docs) and renders them.
#[allow(clippy::too_many_arguments)]
pub(super) fn fit<'a>(
    h: &History,
    plans: &mut [TurnPlan],
    pre_steps: &[Step],
    order: &[usize],
    budget: usize,
    cfg: &Config,
    ctx: &Context,
    label: &dyn Fn(usize) -> &'a str,
    id: &dyn Fn(usize) -> Cow<'a, str>,
) -> Rendered {
    let n = plans.len();
    let pre_tokens = steps_tokens(h, pre_steps);
    // In turn order: a stub's cost depends on whether the turn before it is a stub too.
    for t in 0..n {
        plans[t].tokens = cost(h, plans, t, ctx, label, &id(t));
        if plans[t].render == Render::Summary && plans[t].tokens >= steps_tokens(h, &plans[t].steps) {
            plans[t].render = Render::Stub;
            plans[t].tokens = cost(h, plans, t, ctx, label, &id(t));
        }
    }
    // The reasons a turn has when it is not reduced.
    let reasons: Vec<String> = plans.iter().map(|p| p.reason.clone()).collect();
    // Turns whose folded form is not smaller: they are not folded in this request.
    let mut keep_whole = vec![false; n];
    for t in unfold_larger(h, plans, &reasons, ctx, label, id) {
        keep_whole[t] = true;
    }
    let total = |plans: &[TurnPlan]| pre_tokens + plans.iter().map(|p| p.tokens).sum::<usize>();
    let high = (budget as f64 * cfg.summarize_threshold) as usize;
    let mut target = (budget as f64 * cfg.low_water()) as usize;
    let mut drop_system = false;
    let mut reduce = total(plans) > high;
    loop {
        if reduce {
            let unprotected: Vec<usize> = order.iter().copied().filter(|&t| !plans[t].protected).collect();
            // The history's last turn never folds (with the prompt apart it may lose its
            // tool results; otherwise it is fixed).
            let protected: Vec<usize> = (0..n.saturating_sub(1))
                .filter(|&t| plans[t].protected && order.contains(&t))
                .collect();
            for (turns, cut, goal) in [
                (order, Cut::Truncate, target),
                (order, Cut::Mask, target),
                (&unprotected[..], Cut::Summary, target),
                (&unprotected[..], Cut::Stub, target),
                (&protected[..], Cut::Summary, target.max(budget)),
                (&protected[..], Cut::Stub, target.max(budget)),
            ] {
                apply(h, plans, turns, cut, goal, pre_tokens, &keep_whole, cfg, ctx, label, id);
            }
            // A run of stubs (or a summary) that is not smaller than its turns is not sent.
            for t in unfold_larger(h, plans, &reasons, ctx, label, id) {
                keep_whole[t] = true;
            }
            refill(h, plans, order, &reasons, target, pre_tokens, ctx, label, id);
        }
        let collapse = total(plans) > budget;
        drop_system = drop_system || (collapse && !cfg.preserve_system_messages);
        let rendered = render(h, plans, pre_steps, drop_system, ctx, label, id);
        let foldable = order
            .iter()
            .any(|&t| !keep_whole[t] && !matches!(plans[t].render, Render::Stub | Render::Frozen(_)));
        if rendered.estimated <= budget || collapse || !foldable || target == 0 {
            return rendered;
        }
        // The estimate of stub runs is close but not exact: fold further with a tighter target.
        target = target.min(budget).saturating_sub(rendered.estimated - budget + 16);
        reduce = true;
    }
}

/// Applies `cut` to `turns` in order until the request is down to `goal`.
#[allow(clippy::too_many_arguments)]
fn apply<'a>(
    h: &History,
    plans: &mut [TurnPlan],
    turns: &[usize],
    cut: Cut,
    goal: usize,
    pre_tokens: usize,
    keep_whole: &[bool],
    cfg: &Config,
    ctx: &Context,
    label: &dyn Fn(usize) -> &'a str,
    id: &dyn Fn(usize) -> Cow<'a, str>,
) {
    // A running total: summing all turns per reduced turn is quadratic in the turns.
    let mut sum = pre_tokens + plans.iter().map(|p| p.tokens).sum::<usize>();
    for &t in turns {
        if sum <= goal {
            return;
        }
        let before = reach_tokens(plans, t);
        let changed = match cut {
            Cut::Truncate => plans[t].render == Render::Cleaned && truncate_results(h, &mut plans[t], cfg),
            Cut::Mask => plans[t].render == Render::Cleaned && mask_results(h, &mut plans[t], &id(t), ctx),
            Cut::Summary => {
                let tid = id(t);
                if !keep_whole[t] && plans[t].render == Render::Cleaned {
                    plans[t].make_summary(h, ctx, &tid);
                }
                let smaller = !keep_whole[t]
                    && plans[t].render == Render::Cleaned
                    && summary_of(&plans[t], ctx, &tid)
                        .is_some_and(|sum| steps_tokens(h, &summary_steps(h, &plans[t], sum)) < plans[t].tokens);
                if smaller {
                    plans[t].render = Render::Summary;
                    plans[t].reason = "over budget: summarized".into();
                }
                smaller
            }
            Cut::Stub => {
                let can = !keep_whole[t] && matches!(plans[t].render, Render::Cleaned | Render::Summary);
                if can {
                    plans[t].render = Render::Stub;
                    plans[t].reason = "over budget: folded to a stub".into();
                }
                can
            }
        };
        if !changed {
            continue;
        }
        // The turns after a new stub may now continue its run.
        recost(h, plans, t, ctx, label, id);
        sum = sum + reach_tokens(plans, t) - before;
    }
}

/// Folding stops once the request is down to `goal`, often below it (a large turn folded
/// last): the turns worth most that this plan folded come back while they still fit, as they
/// were before they folded (their tool results cut or masked).
#[allow(clippy::too_many_arguments)]
fn refill<'a>(
    h: &History,
    plans: &mut [TurnPlan],
    order: &[usize],
    reasons: &[String],
    goal: usize,
    pre_tokens: usize,
    ctx: &Context,
    label: &dyn Fn(usize) -> &'a str,
    id: &dyn Fn(usize) -> Cow<'a, str>,
) {
    let mut sum = pre_tokens + plans.iter().map(|p| p.tokens).sum::<usize>();
    let folded_here =
        |p: &TurnPlan| !(p.earlier || p.by_topic || p.protected) && matches!(p.render, Render::Stub | Render::Summary);
    let candidates: Vec<usize> = order
        .iter()
        .rev()
        .copied()
        .filter(|&t| folded_here(&plans[t]))
        .take(REFILL_TRIES)
        .collect();
    for t in candidates {
        let before = reach_tokens(plans, t);
        let (render, reason) = (
            plans[t].render,
            std::mem::replace(&mut plans[t].reason, reasons[t].clone()),
        );
        plans[t].render = Render::Cleaned;
        recost(h, plans, t, ctx, label, id);
        let after = reach_tokens(plans, t);
        if sum + after - before <= goal {
            sum = sum + after - before;
            if plans[t].masked {
                plans[t].reason = "over budget: tool results masked".into();
            }
            continue;
        }
        plans[t].render = render;
        plans[t].reason = reason;
        recost(h, plans, t, ctx, label, id);
    }
}

/// How many of the folded turns worth most [`refill`] tries to bring back (turns it kept
/// whole are not counted).
const REFILL_TRIES: usize = 32;

/// Cuts the turn's huge tool results to head and tail; whether any was cut.
fn truncate_results(h: &History, p: &mut TurnPlan, cfg: &Config) -> bool {
    let mut any = false;
    for s in p.steps.iter_mut() {
        let Some(src) = s.source.filter(|&i| !h.shape(i).results.is_empty()) else {
            continue;
        };
        if let Some(cut) = truncate::tool_result(s.resolve(h.messages), cfg.tool_result_truncate_chars) {
            *s = Step::replace(src, cut);
            any = true;
        }
    }
    if any {
        p.truncated = true;
        p.reason = format!("{}; tool results cut to head and tail", p.reason);
    }
    any
}

/// Replaces the turn's tool results by placeholders; whether any was replaced.
fn mask_results(h: &History, p: &mut TurnPlan, turn_id: &str, ctx: &Context) -> bool {
    let pairing = h.pairing();
    let mut any = false;
    for s in p.steps.iter_mut() {
        let Some(src) = s.source.filter(|&i| !h.shape(i).results.is_empty()) else {
            continue;
        };
        let names: Vec<String> = pairing.call_of[src]
            .iter()
            .map(|c| match c {
                Some((a, slot)) => message::tool_calls(&h.messages[*a])
                    .into_iter()
                    .nth(*slot)
                    .map_or_else(String::new, |c| c.name),
                None => String::new(),
            })
            .collect();
        if let Some(m) = mask::mask(&h.messages[src], &names, turn_id, ctx.recovery) {
            *s = Step::replace(src, m);
            any = true;
        }
    }
    if any {
        p.masked = true;
        p.reason = "over budget: tool results masked".into();
    }
    any
}
