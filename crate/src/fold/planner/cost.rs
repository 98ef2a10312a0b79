//! Costs: what a turn costs as it would be rendered, and what a plan costs. It never
//! decides what a turn becomes.

use super::stubs::{stub_run, summary_steps};
use super::{summary_of, Context, Render, TurnPlan};
use crate::model::steps::Step;
use crate::transcript::history::History;

/// The tokens of `steps`.
pub(super) fn steps_tokens(h: &History, steps: &[Step]) -> usize {
    steps.iter().map(|s| h.step_tokens(s)).sum()
}

/// Extra tokens a turn adds to a stub run it continues (its id in the run's range).
pub(super) const STUB_CONTINUATION_TOKENS: usize = 3;

/// Tokens of turn `t` as it would be rendered. A stub that continues the previous turn's
/// stub run costs only its share of the run's id range; a run head is
/// costed as a run of one (a slight over-estimate, so the budget holds).
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
            if t > 0 && plans[t - 1].render == Render::Stub {
                return STUB_CONTINUATION_TOKENS;
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
