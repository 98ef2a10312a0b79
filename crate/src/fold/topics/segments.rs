//! Where topics start: the similarity of the turns before and after each turn, the
//! boundaries below the threshold, and the merge of topics shorter than the minimum.
//!
//! * **Boundaries.** The similarity at turn `i` is the cosine between the centroid of up to
//!   `window` turns before `i` and the centroid of up to `window` turns from `i` (centroids of
//!   unit vectors, so long turns do not dominate). Turns without any term (emoji, "ok thanks",
//!   metadata only) are transparent: windows skip them, no topic starts at them, and their
//!   similarity is reported as `1.0`. A topic starts wherever the similarity is below
//!   `similarity_threshold`.
//! * **Minimum length.** A topic shorter than `min_turns` is merged into a neighbour, the
//!   shortest first: into the short one when only one neighbour is short (two short topics
//!   in a row are more likely one new subject, or a digression, than the tail of the topic
//!   before), else into the one it is more similar to (the side whose boundary has the higher
//!   similarity; ties go left). The **last** topic is exempt: it is the live one and may be short while it
//!   is still growing. A new subject therefore shows as a topic from its first turn, and is
//!   merged back if the conversation moves on again before it reaches `min_turns` turns.
//!
//! It decides turn ranges only; it never names a topic (see [`super::labels`]).

use super::{Segmenter, Weights};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

impl Segmenter {
    /// The similarity at every turn (see the module documentation); `1.0` where no topic can
    /// start.
    pub(super) fn similarities(&self, weights: &Weights) -> Vec<f64> {
        let mut sims = vec![1.0; self.len()];
        let window = self.cfg.window.max(1);
        let ne = &weights.nonempty;
        let mut acc = vec![0.0f32; self.vocab.terms.len()];
        for k in 1..ne.len() {
            let before = &ne[k.saturating_sub(window)..k];
            let after = &ne[k..k.saturating_add(window).min(ne.len())];
            sims[ne[k]] = self.window_cosine(before, after, weights, &mut acc);
        }
        sims
    }

    /// Cosine between the centroids of two sets of turns. `acc` is a dense scratch array of
    /// vocabulary size, all zeros on entry and on exit.
    fn window_cosine(&self, before: &[usize], after: &[usize], weights: &Weights, acc: &mut [f32]) -> f64 {
        let (before, after) = (self.weighted(before, weights), self.weighted(after, weights));
        add(acc, before.clone());
        let dot = after
            .clone()
            .fold(0.0f64, |dot, (id, w)| dot + acc[id] as f64 * w as f64);
        let before_sq = take_norm_sq(acc, before);
        add(acc, after.clone());
        let after_sq = take_norm_sq(acc, after);
        if before_sq <= 0.0 || after_sq <= 0.0 {
            return 0.0;
        }
        (dot / (before_sq.sqrt() * after_sq.sqrt())).clamp(0.0, 1.0)
    }

    /// The entries of `turns` in order, as `(term id, unit-normalized weight)`.
    fn weighted<'a>(
        &'a self,
        turns: &'a [usize],
        weights: &'a Weights,
    ) -> impl Iterator<Item = (usize, f32)> + Clone + 'a {
        turns
            .iter()
            .flat_map(move |&t| self.entries(t))
            .map(move |e| (self.ids[e] as usize, weights.w[e]))
    }
}

/// Adds the weights of `entries` to their terms' slots.
fn add(acc: &mut [f32], entries: impl Iterator<Item = (usize, f32)>) {
    entries.for_each(|(id, w)| acc[id] += w);
}

/// The squared norm of the centroid accumulated in `acc` from `entries`, each slot read once
/// and cleared (a term in several turns adds its square only on the first visit).
fn take_norm_sq(acc: &mut [f32], entries: impl Iterator<Item = (usize, f32)>) -> f64 {
    entries.fold(0.0f64, |sum, (id, _)| {
        let x = std::mem::take(&mut acc[id]) as f64;
        sum + x * x
    })
}

/// Topics as inclusive `(first, last)` turn ranges: a boundary wherever `sims` is below
/// `threshold`, then topics shorter than `min_turns` merged (see the module documentation).
pub(super) fn segments(sims: &[f64], threshold: f64, min_turns: usize) -> Vec<(usize, usize)> {
    let n = sims.len();
    if n == 0 {
        return Vec::new();
    }
    let min_turns = min_turns.max(1);
    let starts: Vec<usize> = (0..n).filter(|&i| i == 0 || sims[i] < threshold).collect();
    let m = starts.len();
    let mut len: Vec<usize> = (0..m)
        .map(|j| starts.get(j + 1).copied().unwrap_or(n) - starts[j])
        .collect();
    // The topics still there, as a doubly linked list over their first indices.
    let mut prev: Vec<Option<usize>> = (0..m).map(|j| j.checked_sub(1)).collect();
    let mut next: Vec<Option<usize>> = (0..m).map(|j| Some(j + 1).filter(|&q| q < m)).collect();
    let mut alive = vec![true; m];
    // Short topics that are not the last, shortest first, then earliest. A merge leaves
    // entries behind instead of removing them: an entry counts while it still describes its
    // topic (alive, not the last, the same length; lengths only grow).
    let mut short: BinaryHeap<Reverse<(usize, usize)>> = (0..m)
        .filter(|&j| next[j].is_some() && len[j] < min_turns)
        .map(|j| Reverse((len[j], j)))
        .collect();
    while let Some(Reverse((l, j))) = short.pop() {
        let Some(q) = next[j].filter(|_| alive[j] && len[j] == l) else {
            continue;
        };
        // Into a short neighbour when only one side is short (a new subject in the making),
        // else into the neighbour whose boundary is more similar; ties go left.
        let short_side = |k: Option<usize>| k.is_some_and(|k| len[k] < min_turns);
        let left = match (short_side(prev[j]), short_side(Some(q))) {
            (true, false) => true,
            (false, true) => false,
            _ => prev[j].is_some() && sims[starts[j]] >= sims[starts[q]],
        };
        let (keep, gone) = match (left, prev[j]) {
            (true, Some(p)) => (p, j),
            _ => (j, q),
        };
        len[keep] += len[gone];
        alive[gone] = false;
        next[keep] = next[gone];
        if let Some(after) = next[gone] {
            prev[after] = Some(keep);
            if len[keep] < min_turns {
                short.push(Reverse((len[keep], keep)));
            }
        }
    }
    (0..m)
        .filter(|&j| alive[j])
        .map(|j| (starts[j], starts[j] + len[j] - 1))
        .collect()
}
