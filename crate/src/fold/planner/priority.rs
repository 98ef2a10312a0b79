//! Which turns are worth keeping most: the order in which a plan reduces turns when it has to
//! (the least worth keeping first). A turn is worth more the more it has to do with the
//! upcoming prompt (its BM25 relevance, see [`crate::fold::relevance`]), when it belongs to
//! the current topic or one the prompt refers to, the newer it is, and when it is protected.
//! It never decides how far a turn is reduced.

use super::{Context, Render, TurnPlan};

/// Weight of the turn's relevance to the prompt (in [0, 1]). At 2 against 1, strict recall
/// on LoCoMo rose at every budget from 4k (agentic 8k 0.61 -> 0.69, multitopic 16k 0.85 ->
/// 0.87, chat 8k multi-hop 0.42 -> 0.44) and tau-bench survival did not move
/// (docs/benchmarks.md).
const RELEVANCE: f64 = 2.0;
/// Weight of belonging to the current topic or one the prompt refers to.
const TOPIC: f64 = 0.3;
/// Weight of recency: `1 / (1 + age / RECENCY_TURNS)`, `age` in turns from the newest.
const RECENCY: f64 = 0.5;
const RECENCY_TURNS: f64 = 10.0;
/// Protected recent turns are worth more (they never fold unless the budget itself is at
/// stake; this orders their tool results among the others').
const PROTECTED: f64 = 0.5;

/// The turns a plan may reduce (not fixed, not folded for good), least worth keeping first;
/// equal values keep turn order (older first).
pub(super) fn fold_order(plans: &[TurnPlan], ctx: &Context) -> Vec<usize> {
    let n = plans.len();
    let value = |t: usize| -> f64 {
        let p = &plans[t];
        let relevant_topic = ctx.topic_of.get(t).is_some_and(|k| ctx.relevant_topics.contains(k));
        let age = (n - 1 - t) as f64;
        RELEVANCE * ctx.relevance.of(t)
            + TOPIC * f64::from(u8::from(relevant_topic || !p.other_topic))
            + RECENCY / (1.0 + age / RECENCY_TURNS)
            + if p.protected { PROTECTED } else { 0.0 }
    };
    let mut order: Vec<(usize, f64)> = (0..n)
        .filter(|&t| !plans[t].fixed && !matches!(plans[t].render, Render::Frozen(_)))
        .map(|t| (t, value(t)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    order.into_iter().map(|(t, _)| t).collect()
}
