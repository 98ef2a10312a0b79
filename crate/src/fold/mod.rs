//! Folding: which turns are kept whole, summarized, stubbed or dropped to fit a budget, and
//! the summaries, topics and truncations that replace them. Never touches the live turn.

pub mod pins;
pub mod planner;
pub mod prune;
pub mod summary;
pub mod topics;
pub mod truncate;
