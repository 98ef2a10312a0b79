//! Rendering: the steps of a plan from the turn plans (one stub for a run of stubbed turns; a
//! frozen turn as it was sent), with each turn's explanation; phase 4 (content as
//! parts). It never changes what a turn became.

use super::cost::steps_tokens;
use super::stubs::{stub_run, summary_steps};
use super::{summary_of, Context, Decision, Render, TurnExplain, TurnPlan};
use crate::model::message::{self, Kind};
use crate::model::steps::Step;
use crate::transcript::history::History;
use serde_json::Value;
use std::borrow::Cow;
use std::rc::Rc;

pub(super) struct Rendered {
    pub(super) steps: Vec<Step>,
    /// Per turn: the steps it was rendered as (a stub run's on its first turn).
    pub(super) turn_steps: Vec<std::ops::Range<usize>>,
    pub(super) explains: Vec<TurnExplain>,
    pub(super) estimated: usize,
}

/// Builds the steps from the turn plans: adjacent stubbed turns share one stub (naming up to
/// three of their topics); `drop_system` leaves out system messages of the preamble.
pub(super) fn render<'a>(
    h: &History,
    plans: &[TurnPlan],
    pre_steps: &[Step],
    drop_system: bool,
    ctx: &Context,
    label: &dyn Fn(usize) -> &'a str,
    id: &dyn Fn(usize) -> Cow<'a, str>,
) -> Rendered {
    let n = plans.len();
    let mut steps: Vec<Step> = pre_steps
        .iter()
        .filter(|s| !(drop_system && message::kind(s.resolve(h.messages)) == Kind::System))
        .cloned()
        .collect();
    let mut explains = Vec::with_capacity(n);
    let mut turn_steps = Vec::with_capacity(n);
    let mut t = 0;
    while t < n {
        if plans[t].render == Render::Stub {
            let mut end = t + 1;
            while end < n && plans[end].render == Render::Stub {
                end += 1;
            }
            let ids: Vec<String> = (t..end).map(|k| id(k).into_owned()).collect();
            let mut labels: Vec<&str> = Vec::new();
            for k in t..end {
                let l = label(k);
                if !l.is_empty() && !labels.contains(&l) {
                    labels.push(l);
                }
            }
            let run_label = match labels.len() {
                0 => String::new(),
                1 => labels[0].to_string(),
                k => format!("{k} topics: {}", labels[..k.min(3)].join("; ")),
            };
            let run_tokens = plans[t..end].iter().map(|p| p.tokens_before).sum();
            let (mut run_steps, after) = stub_run(h, &plans[t..end], &run_label, &ids, run_tokens, ctx.recovery);
            normalize_content(h, &mut run_steps);
            // The run's tokens are the first turn's (the others add nothing).
            for (k, p) in plans[t..end].iter().enumerate() {
                let tokens = if k == 0 { after } else { 0 };
                explains.push(explain(&ids[k], label(t + k), Decision::Stubbed, p, tokens));
                let end = steps.len() + run_steps.len();
                turn_steps.push(if k == 0 { steps.len()..end } else { end..end });
            }
            steps.extend(run_steps);
            t = end;
            continue;
        }
        let p = &plans[t];
        let (decision, mut rendered) = match p.render {
            Render::Summary => {
                let s = summary_steps(h, p, summary_of(p, ctx, &id(t)).unwrap_or_default());
                (Decision::Summarized, s)
            }
            Render::Frozen(d) => (d, p.frozen.clone().unwrap_or_default()),
            Render::Stub | Render::Cleaned => {
                let changed = p.steps.iter().any(|s| s.message.is_some()) || p.steps.len() != p.span.range.len();
                let d = if p.masked {
                    Decision::Masked
                } else if p.truncated {
                    Decision::Truncated
                } else if changed {
                    Decision::Cleaned
                } else {
                    Decision::Kept
                };
                (d, p.steps.clone())
            }
        };
        normalize_content(h, &mut rendered);
        let after = steps_tokens(h, &rendered);
        explains.push(explain(&id(t), label(t), decision, p, after));
        turn_steps.push(steps.len()..steps.len() + rendered.len());
        steps.extend(rendered);
        t += 1;
    }
    // The preamble's content as parts too.
    normalize_content(h, &mut steps);
    let estimated = steps_tokens(h, &steps);
    Rendered {
        steps,
        turn_steps,
        explains,
        estimated,
    }
}

/// Phase 4: every user, assistant and tool-result message carries an array of parts.
pub(crate) fn normalize_content(h: &History, steps: &mut [Step]) {
    for s in steps.iter_mut() {
        let m = s.resolve(h.messages);
        if !matches!(message::field(m, "content"), Some(Value::String(_)))
            || !matches!(message::kind(m), Kind::User | Kind::Assistant | Kind::ToolResult)
        {
            continue;
        }
        // An input message's copy is made once in a live session (and can be reused).
        let out = match (&s.message, s.source) {
            (None, Some(i)) => Rc::clone(&h.with_parts(i).message),
            _ => Rc::new(message::with_parts(m)),
        };
        *s = Step {
            source: s.source,
            message: Some(out),
            reuse: None,
            recall: false,
        };
    }
}

pub(super) fn explain(id: &str, topic: &str, decision: Decision, p: &TurnPlan, after: usize) -> TurnExplain {
    TurnExplain {
        id: id.to_string(),
        topic: topic.to_string(),
        decision,
        reason: p.reason.clone(),
        tokens_before: p.tokens_before,
        tokens_after: after,
        protected: p.protected,
        range: (p.span.range.start, p.span.range.end),
        repeated: false,
    }
}
