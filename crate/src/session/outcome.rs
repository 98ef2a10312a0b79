//! What a request's result is when the plan is not simply sent: the cleaner alone (mode
//! `clean`), and the gated fold plan, which falls back to the cleaned messages when the
//! validity gate refuses it. It never plans.

use crate::config::Config;
use crate::fold::layout::Layout;
use crate::fold::planner::{self, Assembled};
use crate::transcript::history::History;
use crate::wire::assemble::AssembleResult;

/// The cleaner alone (mode `clean`): no folding, no budget enforcement.
pub(super) fn clean_only(h: &History, config: &Config, budget: usize, complete: bool) -> AssembleResult {
    let r = crate::clean::clean_in(h, &config.clean(), complete);
    let stats = planner::AssembleStats {
        budget,
        turns: h.split().1.len(),
        over_budget: r.stats.tokens_after > budget,
        clean: r.stats.clone(),
        ..Default::default()
    };
    AssembleResult {
        estimated_tokens: r.stats.tokens_after,
        steps: r.steps,
        turns: Vec::new(),
        stats,
        summarize: Vec::new(),
        folded: Vec::new(),
        fallback: r.fallback,
        newly_folded: Vec::new(),
        compact: false,
    }
}

/// Gates a fold plan; on refusal falls back to the cleaner alone (itself gated). The plan's
/// layout comes back when the plan is sent.
pub(super) fn gate_result(
    h: &History,
    a: Assembled,
    config: &Config,
    budget: usize,
    complete: bool,
) -> (AssembleResult, Option<Layout>) {
    match crate::clean::gate::check_history(h, &a.steps, a.frontier.loop_start) {
        Ok(()) => (
            AssembleResult {
                steps: a.steps,
                estimated_tokens: a.estimated_tokens,
                turns: a.turns,
                stats: a.stats,
                summarize: a.summarize,
                folded: a.folded,
                fallback: None,
                newly_folded: Vec::new(),
                compact: false,
            },
            Some(a.layout),
        ),
        Err(refusal) => {
            let mut r = clean_only(h, config, budget, complete);
            let why = format!("validity gate refused the folded output ({refusal}); sent the cleaned messages");
            r.fallback = Some(match r.fallback {
                Some(f) => format!("{why}; {f}"),
                None => why,
            });
            (r, None)
        }
    }
}
