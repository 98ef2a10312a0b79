//! Whether a folded turn is smaller than the turn: a run of stubbed turns shares one line, so
//! it is worth it when that line costs less than its turns do cleaned; otherwise its turns are
//! sent cleaned (or as their summary, where that is smaller). It never folds a turn.

use super::cost::{cost, steps_tokens};
use super::{Context, Render, TurnPlan};
use crate::transcript::history::History;
use std::borrow::Cow;

/// Added to the reason of a turn sent cleaned because folding it would not make it smaller.
pub(super) const NOT_SMALLER: &str = "; kept whole: a stub or summary would not be smaller";

/// Unfolds every run of stubs whose line costs at least the cleaned turns it stands for, and
/// every summary that costs at least its cleaned turn. `reasons[t]` is the reason turn `t`
/// gets back. Costs are kept up to date; returns the turns unfolded.
pub(super) fn unfold_larger<'a>(
    h: &History,
    plans: &mut [TurnPlan],
    reasons: &[String],
    ctx: &Context,
    label: &dyn Fn(usize) -> &'a str,
    id: &dyn Fn(usize) -> Cow<'a, str>,
) -> Vec<usize> {
    let n = plans.len();
    let mut unfolded = Vec::new();
    let mut t = 0;
    while t < n {
        let end = match plans[t].render {
            Render::Stub => (t..n).find(|&k| plans[k].render != Render::Stub).unwrap_or(n),
            Render::Summary => t + 1,
            Render::Cleaned | Render::Frozen(_) => {
                t += 1;
                continue;
            }
        };
        let folded: usize = plans[t..end].iter().map(|p| p.tokens).sum();
        let cleaned: usize = plans[t..end].iter().map(|p| steps_tokens(h, &p.steps)).sum();
        if folded >= cleaned {
            for k in t..end {
                let p = &mut plans[k];
                p.render = Render::Cleaned;
                p.tokens = steps_tokens(h, &p.steps);
                p.reason = format!("{}{NOT_SMALLER}", reasons[k]);
                unfolded.push(k);
            }
            // The turn after the run no longer continues it.
            if end < n && plans[end].render == Render::Stub {
                plans[end].tokens = cost(h, plans, end, ctx, label, &id(end));
            }
        }
        t = end;
    }
    unfolded
}
