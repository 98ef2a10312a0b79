//! Costs: what a turn costs as it would be rendered, and what a plan costs. It never
//! decides what a turn becomes.

use super::stubs::{stub_run, summary_steps};
use super::{summary_of, Context, Render, TurnPlan};
use crate::model::steps::Step;
use crate::transcript::history::History;
use std::borrow::Cow;
use std::ops::Range;

/// The tokens of `steps`.
pub(super) fn steps_tokens(h: &History, steps: &[Step]) -> usize {
    steps.iter().map(|s| h.step_tokens(s)).sum()
}

/// Extra tokens the second and third turn of a stub run add to its line (their ids listed,
/// their topics named). From the fourth on the line shows the run's first and last ids and its
/// size, and names at most three topics, so a longer run costs no more.
pub(super) const STUB_CONTINUATION_TOKENS: usize = 3;
/// A stubbed turn's cost depends on this many turns before it ([`cost`]).
const STUB_LISTED: usize = 2;

/// Tokens of turn `t` as it would be rendered. A stub that continues the previous turn's
/// stub run costs only what it adds to the run's line ([`STUB_CONTINUATION_TOKENS`] for the
/// second and third turn of the run, nothing after); a run head is costed as a run of one (a
/// slight over-estimate, so the budget holds).
pub(super) fn cost<'a>(
    h: &History,
    plans: &[TurnPlan],
    t: usize,
    ctx: &Context,
    label: &dyn Fn(usize) -> &'a str,
    id: &str,
) -> usize {
    let p = &plans[t];
    let steps = match p.render {
        Render::Cleaned => return steps_tokens(h, &p.steps),
        Render::Frozen(_) => return steps_tokens(h, p.frozen.as_deref().unwrap_or_default()),
        Render::Summary => summary_steps(h, p, summary_of(p, ctx, id).unwrap_or_default()),
        Render::Stub => {
            // Costed as the continuation of any stub before it: one stub per topic when that
            // fits, else adjacent stubs share one (see the fold loop), so this holds.
            let before = plans[..t].iter().rev().take(STUB_LISTED + 1);
            match before.take_while(|q| q.render == Render::Stub).count() {
                0 => {}
                k if k <= STUB_LISTED => return STUB_CONTINUATION_TOKENS,
                _ => return 0,
            }
            stub_run(
                h,
                std::slice::from_ref(p),
                label(t),
                &[id.to_string()],
                p.tokens_before,
                ctx.recovery,
            )
            .0
        }
    };
    steps_tokens(h, &steps)
}

/// Turn `t` and the turns after it whose cost depends on what `t` becomes: a stub looks at
/// up to [`STUB_LISTED`] + 1 turns before it.
fn reach(plans: &[TurnPlan], t: usize) -> Range<usize> {
    t..plans.len().min(t + STUB_LISTED + 2)
}

/// The summed cost of the turns in [`reach`] of `t`.
pub(super) fn reach_tokens(plans: &[TurnPlan], t: usize) -> usize {
    plans[reach(plans, t)].iter().map(|p| p.tokens).sum()
}

/// Costs the turns in [`reach`] of `t` again (after a change of what `t` becomes); the sum of
/// [`reach_tokens`] changes accordingly.
pub(super) fn recost<'a>(
    h: &History,
    plans: &mut [TurnPlan],
    t: usize,
    ctx: &Context,
    label: &dyn Fn(usize) -> &'a str,
    id: &dyn Fn(usize) -> Cow<'a, str>,
) {
    for k in reach(plans, t) {
        plans[k].tokens = cost(h, plans, k, ctx, label, &id(k));
    }
}
