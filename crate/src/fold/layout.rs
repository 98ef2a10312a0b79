//! What a live session's last request sent, turn by turn: the [`Layout`] a plan leaves behind
//! and the next requests append to, so that the front of the request stays the same between
//! plans (the provider's prompt cache reads it instead of billing it again).
//!
//! A layout holds every turn of the request that made it except the newest (which may still
//! grow inside a tool loop): how it was sent (its form and its steps, a stub run's steps on
//! the run's first turn), its explanation, and the recall blocks sent so far, each after the
//! turns that preceded it. It decides nothing: the planner makes layouts
//! ([`crate::fold::planner`]), and [`crate::fold::append`] extends them.

use crate::clean::cleaner::CleanStats;
use crate::config::Config;
use crate::fold::planner::{Decision, TurnExplain};
use crate::fold::summary::Recovery;
use crate::model::steps::Step;
use crate::transcript::history::History;
use std::ops::Range;

/// One turn as it was sent.
#[derive(Debug, Clone)]
pub struct Laid {
    /// The content key of the turn's first message.
    pub key: u64,
    /// Its messages in the history.
    pub range: Range<usize>,
    /// Its steps (a stub run's steps are on the run's first turn; the others have none).
    pub steps: Vec<Step>,
    pub explain: TurnExplain,
}

impl Laid {
    /// Folded to a stub or a summary (it stays so until the layout is dropped).
    pub fn folded(&self) -> bool {
        matches!(self.explain.decision, Decision::Stubbed | Decision::Summarized)
    }
}

/// Folded turns sent again in full just before the prompt.
#[derive(Debug, Clone)]
pub struct Recall {
    /// Turns of the request it was made for (it is sent after them).
    pub after: usize,
    /// The recalled turns (positions in the history's turns).
    pub turns: Vec<usize>,
    pub steps: Vec<Step>,
}

/// What the last request sent.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The preamble's messages and steps.
    pub preamble: Range<usize>,
    pub pre_steps: Vec<Step>,
    /// Every turn but the newest of the request that made it, and the ones appended since.
    pub turns: Vec<Laid>,
    /// The newest turn as it was sent (it is laid out once a newer turn follows it unchanged).
    pub tail: Option<Laid>,
    /// What the cleaner removed from the laid-out turns, and from the newest one.
    pub clean: CleanStats,
    pub tail_clean: CleanStats,
    pub recalls: Vec<Recall>,
    /// The estimated tokens of the preamble, the laid-out turns and the recall blocks.
    pub tokens: usize,
    /// What it was planned with: another config or recovery route plans again.
    pub config: Config,
    pub recovery: Recovery,
    /// Turns sent whole, in the order the plan would fold them next (turn positions): the ones
    /// worth a summary before the next plan.
    pub fold_next: Vec<usize>,
    /// The history changed inside it ([`Layout::cut`]): the next request is planned anew, with
    /// what it still lays out.
    pub cut: bool,
    /// With `foldOtherTopics`: where the topic current at the plan starts (an index turn
    /// ordinal). The session plans anew when the conversation has moved to another topic, so
    /// that the turns of the one it left fold.
    pub topic: Option<usize>,
}

impl Layout {
    /// Messages of the history it lays out.
    pub fn covered(&self) -> usize {
        self.turns.last().map_or(self.preamble.end, |t| t.range.end)
    }

    /// Whether it lays out the start of `h`: the same preamble and, turn by turn, the same
    /// first messages and lengths (the turns after it are new).
    pub fn starts(&self, h: &History) -> bool {
        let (preamble, spans) = h.split();
        *preamble == self.preamble
            && spans.len() >= self.turns.len()
            && self
                .turns
                .iter()
                .zip(spans)
                .all(|(l, s)| l.key == s.key && l.range == s.range)
    }

    /// Forgets what it lays out from message `keep` on (the history changed there): the newest
    /// turn when it reaches it; when a laid-out turn does, the turns and recall blocks from
    /// there on, and the next request plans anew.
    pub fn cut(&mut self, keep: usize) {
        if self.tail.as_ref().is_some_and(|t| keep < t.range.end) {
            self.tail = None;
        }
        if keep >= self.covered() {
            return;
        }
        // A stub run's steps (on its first turn) reach to its last turn.
        let reaches = |t: &Laid| t.range.end > keep || t.steps.iter().any(|s| s.source.is_some_and(|i| i >= keep));
        let first = self.turns.iter().position(reaches).unwrap_or(self.turns.len());
        self.turns.truncate(first);
        let n = self.turns.len();
        self.recalls.retain(|r| r.after <= n && r.turns.iter().all(|&t| t < n));
        self.cut = true;
    }

    /// Whether turn `t` was recalled by one of its recall blocks.
    pub fn recalled(&self, t: usize) -> bool {
        self.recalls.iter().any(|r| r.turns.contains(&t))
    }

    /// The steps of the laid-out turns with the recall blocks in place, then `tail` (the
    /// steps of the turns after them) and the recall blocks made after those.
    pub fn steps_with(&self, tail: &[Step]) -> Vec<Step> {
        let mut out = self.pre_steps.clone();
        for (t, l) in self.turns.iter().enumerate() {
            out.extend(l.steps.iter().cloned());
            for r in self.recalls.iter().filter(|r| r.after == t + 1) {
                out.extend(r.steps.iter().cloned());
            }
        }
        out.extend(tail.iter().cloned());
        for r in self.recalls.iter().filter(|r| r.after > self.turns.len()) {
            out.extend(r.steps.iter().cloned());
        }
        out
    }
}
