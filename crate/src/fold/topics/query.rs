//! How clearly a text (the upcoming prompt, the latest user messages) refers to some turns:
//! the cosine between the text's tf-idf vector and the centroid of the turns'.
//!
//! It measures; it never decides what is relevant (the session compares the figure with
//! `promptRelevanceThreshold`) and never adds the text to the segmenter.

use super::{Idf, Segmenter, USER_WEIGHT};
use crate::model::hostmeta::strip_host_metadata;
use crate::text::terms::for_each_term;
use std::ops::RangeInclusive;

/// A text's weighted term vector under the weights of the turns pushed when it was made (see
/// [`Segmenter::query`]).
#[derive(Debug, Clone)]
pub struct Query {
    /// Known terms by id, ascending, with their tf-idf weight.
    terms: Vec<(u32, f64)>,
    /// The squared norm, terms the segmenter has not seen included.
    norm_sq: f64,
    idf: Idf,
}

impl Segmenter {
    /// Cosine between `text` (for example the upcoming prompt, weighted as user text) and the
    /// centroid of the given turns, under the current weights: how clearly the text refers to
    /// those turns. Turns past the end are ignored; `0.0` when either side has no terms.
    pub fn similarity_to_turns(&self, text: &str, turns: RangeInclusive<usize>) -> f64 {
        self.similarity(&self.query(text), turns)
    }

    /// The weighted term vector of `text` (host metadata stripped, every occurrence weighed as
    /// user text) under the current weights, for comparing one text with many turn ranges
    /// ([`Segmenter::similarity`]).
    pub fn query(&self, text: &str) -> Query {
        let idf = Idf::new(self.len());
        let mut known: Vec<u32> = Vec::new();
        let mut unseen: Vec<String> = Vec::new();
        for_each_term(&strip_host_metadata(text), |term| match self.vocab.get(term) {
            Some(id) => known.push(id),
            None => unseen.push(term.to_owned()),
        });
        known.sort_unstable();
        let terms: Vec<(u32, f64)> = known
            .chunk_by(|a, b| a == b)
            .map(|run| {
                let count = USER_WEIGHT * run.len() as f32;
                let df = self.vocab.df[run[0] as usize];
                (run[0], (1.0 + count.ln()) as f64 * idf.of(df))
            })
            .collect();
        // Unseen terms have no centroid weight, but they make the text less like any turn.
        unseen.sort_unstable();
        let unseen = unseen.chunk_by(|a, b| a == b).map(|run| {
            let count = run.len() as f64 * USER_WEIGHT as f64;
            (1.0 + count.ln()) * idf.of(0)
        });
        let norm_sq = terms.iter().map(|&(_, w)| w).chain(unseen).map(|w| w * w).sum();
        Query { terms, norm_sq, idf }
    }

    /// [`Segmenter::similarity_to_turns`] of a prepared query.
    pub fn similarity(&self, query: &Query, turns: RangeInclusive<usize>) -> f64 {
        self.similarity_to_each(query, [turns])[0]
    }

    /// [`Segmenter::similarity`] for each of `ranges`, in order (one scratch array for all).
    pub fn similarity_to_each(
        &self,
        query: &Query,
        ranges: impl IntoIterator<Item = RangeInclusive<usize>>,
    ) -> Vec<f64> {
        // The turns' weights as the segmenter has them now (a query made before later turns
        // were pushed keeps its own).
        let fresh;
        let idf = match query.idf.turns() == self.len() {
            true => &query.idf,
            false => {
                fresh = Idf::new(self.len());
                &fresh
            }
        };
        let mut acc = Vec::new();
        ranges
            .into_iter()
            .map(|turns| {
                let n = self.len();
                let (first, last) = (*turns.start(), *turns.end());
                if n == 0 || first > last || first >= n {
                    return 0.0;
                }
                let centroid = self.centroid(first..=last.min(n - 1), idf, &mut acc);
                cosine(query, &centroid)
            })
            .collect()
    }

    /// The centroid of the turns' unit vectors as `(id, weight)` in id order, summed per term
    /// in turn order. `acc` is a scratch array of vocabulary size (all zero between calls),
    /// needed only when there is more than one turn.
    fn centroid(&self, turns: RangeInclusive<usize>, idf: &Idf, acc: &mut Vec<f32>) -> Vec<(u32, f32)> {
        let weight = |e: usize| self.tf[e] as f64 * idf.of(self.vocab.df[self.ids[e] as usize]);
        let unit = |t: usize| {
            let norm = self
                .entries(t)
                .fold(0.0f64, |sum, e| sum + weight(e) * weight(e))
                .sqrt();
            // Each weight as an `f32` divided by the norm of the exact weights.
            self.entries(t)
                .map(move |e| (self.ids[e], (weight(e) as f32 as f64 / norm) as f32))
        };
        if turns.start() == turns.end() {
            // One turn's terms are already in id order, each term once.
            return unit(*turns.start()).collect();
        }
        acc.resize(self.vocab.terms.len(), 0.0);
        let mut touched: Vec<u32> = Vec::new();
        for (id, x) in turns.flat_map(unit) {
            let slot = &mut acc[id as usize];
            if *slot == 0.0 {
                touched.push(id);
            }
            *slot += x;
        }
        touched.sort_unstable();
        touched
            .into_iter()
            .map(|id| (id, std::mem::take(&mut acc[id as usize])))
            .collect()
    }
}

/// Cosine between a query and a centroid (both in id order), clamped to `0.0..=1.0`; `0.0`
/// when either has no weight.
fn cosine(query: &Query, centroid: &[(u32, f32)]) -> f64 {
    let centroid_sq: f64 = centroid.iter().map(|&(_, x)| x as f64 * x as f64).sum();
    if query.norm_sq <= 0.0 || centroid_sq <= 0.0 {
        return 0.0;
    }
    let mut rest = centroid;
    let mut dot = -0.0f64;
    for &(id, w) in &query.terms {
        let k = rest.partition_point(|&(c, _)| c < id);
        rest = &rest[k..];
        if let Some(&(_, x)) = rest.first().filter(|&&(c, _)| c == id) {
            dot += w * x as f64;
        }
    }
    (dot / (query.norm_sq.sqrt() * centroid_sq.sqrt())).clamp(0.0, 1.0)
}
