//! Which terms name a topic.
//!
//! A topic's terms are scored by their summed weight inside the topic minus what the same
//! number of turns carries on average elsewhere, so words common to the whole session do not
//! name any topic. The best five are [`Topic::terms`]; the label joins the best two or three
//! words with `" / "` (tool names only when fewer than two words qualify). Ties break on the
//! term's text, so output never depends on hash order.
//!
//! CJK terms are overlapping character n-grams, so one phrase gives several ("写小说" gives
//! "写小", "写小说" and "小说"): an n-gram inside a longer one that occurs about as often (at
//! least [`SAME_COUNT`] × its count) gives way to it, and of the n-grams left that overlap,
//! only the best is kept: the label names the phrase, not its fragments.
//!
//! It names the ranges it is given; it never moves a boundary (see [`super::segments`]).

use super::{Segmenter, Topic, Weights, MAX_TOPIC_TERMS, TOOL_PREFIX};
use crate::text::cjk::is_cjk_letter;

/// Terms a label is chosen from (the best [`MAX_TOPIC_TERMS`] are also the topic's terms).
const LABEL_CANDIDATES: usize = 4 * MAX_TOPIC_TERMS;

/// A longer CJK n-gram replaces one it contains when it occurs at least this share as often.
const SAME_COUNT: f64 = 0.8;

/// A candidate term of a topic: its score, its text and how often it occurs in the topic
/// (user occurrences counted [`super::USER_WEIGHT`] times).
type Candidate<'a> = (f64, &'a str, f64);

impl Segmenter {
    /// The topics of `segments` (inclusive turn ranges, in order), named.
    pub(super) fn label(&self, weights: &Weights, segments: &[(usize, usize)]) -> Vec<Topic> {
        let v = self.vocab.terms.len();
        let mut total = vec![0.0f64; v];
        for (&id, &w) in self.ids.iter().zip(&weights.w) {
            total[id as usize] += w as f64;
        }
        let all_nonempty = weights.nonempty.len();
        // Per term, its weight and its count inside the topic being named (all zero between
        // topics).
        let mut inside = vec![0.0f64; v];
        let mut count = vec![0.0f64; v];
        let mut touched: Vec<u32> = Vec::new();
        let mut topics = Vec::with_capacity(segments.len());
        for (id, &(first, last)) in segments.iter().enumerate() {
            touched.clear();
            let mut n_inside = 0usize;
            for t in first..=last {
                let entries = self.entries(t);
                n_inside += usize::from(!entries.is_empty());
                for e in entries {
                    let slot = &mut inside[self.ids[e] as usize];
                    if *slot == 0.0 {
                        touched.push(self.ids[e]);
                    }
                    *slot += weights.w[e] as f64;
                    // tf is 1 + ln(count).
                    count[self.ids[e] as usize] += (self.tf[e] as f64 - 1.0).exp();
                }
            }
            // Expected weight of a term in this many turns elsewhere: its mean outside × size.
            let n_outside = all_nonempty - n_inside;
            let mut scored: Vec<Candidate> = touched
                .iter()
                .filter_map(|&term| {
                    let here = std::mem::take(&mut inside[term as usize]);
                    let count = std::mem::take(&mut count[term as usize]);
                    let expected = match n_outside {
                        0 => 0.0,
                        _ => (total[term as usize] - here) / n_outside as f64 * n_inside as f64,
                    };
                    let score = here - expected;
                    (score > 1e-9).then(|| (score, &*self.vocab.terms[term as usize], count))
                })
                .collect();
            // Best first, ties by text.
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
            let mut scored = without_fragments(&scored);
            scored.truncate(LABEL_CANDIDATES);
            topics.push(Topic {
                id,
                first_turn: first,
                last_turn: last,
                label: make_label(&scored).unwrap_or_else(|| format!("turns {first}-{last}")),
                terms: scored
                    .iter()
                    .take(MAX_TOPIC_TERMS)
                    .map(|&(_, t)| t.to_owned())
                    .collect(),
            });
        }
        topics
    }
}

/// `scored` (best first) without the CJK n-grams that are pieces of a phrase: first those
/// inside a longer candidate that occurs about as often (at least [`SAME_COUNT`] × their
/// count), then those that overlap a better candidate (see the module documentation).
fn without_fragments<'a>(scored: &[Candidate<'a>]) -> Vec<(f64, &'a str)> {
    let inside_longer = |&(_, term, count): &Candidate| {
        scored.iter().any(|&(_, other, c)| {
            other.len() > term.len() && c >= SAME_COUNT * count && overlap(term, other) && other.contains(term)
        })
    };
    let mut kept: Vec<(f64, &str)> = Vec::with_capacity(scored.len());
    for c in scored.iter().filter(|c| !inside_longer(c)) {
        if !kept.iter().any(|&(_, k)| overlap(k, c.1)) {
            kept.push((c.0, c.1));
        }
    }
    kept
}

/// Whether two CJK terms share characters as parts of one phrase: one contains the other, or
/// one ends with what the other starts with.
fn overlap(a: &str, b: &str) -> bool {
    let cjk = |t: &str| t.chars().all(is_cjk_letter);
    let joins = |a: &str, b: &str| (1..a.len()).any(|k| a.is_char_boundary(k) && b.starts_with(&a[k..]));
    cjk(a) && cjk(b) && (a.contains(b) || b.contains(a) || joins(a, b) || joins(b, a))
}

/// The label from scored terms (best first): up to three words, the third only when it scores
/// at least a quarter of the first; tool names (without their prefix) only when fewer than two
/// words qualify.
fn make_label(scored: &[(f64, &str)]) -> Option<String> {
    let words: Vec<(f64, &str)> = scored
        .iter()
        .filter(|(_, t)| !t.starts_with(TOOL_PREFIX))
        .take(3)
        .copied()
        .collect();
    let mut parts: Vec<&str> = words
        .iter()
        .enumerate()
        .take_while(|&(k, &(score, _))| k < 2 || score >= words[0].0 * 0.25)
        .map(|(_, &(_, word))| word)
        .collect();
    if parts.len() < 2 {
        let tools = scored.iter().filter_map(|(_, t)| t.strip_prefix(TOOL_PREFIX));
        parts.extend(tools.take(2 - parts.len()));
    }
    (!parts.is_empty()).then(|| parts.join(" / "))
}
