//! Folding: which turns are kept whole, summarized, stubbed or dropped to fit a budget, and
//! the summaries, topics and truncations that replace them. Never touches the live turn.

pub mod append;
pub mod layout;
pub mod mask;
pub mod pins;
pub mod planner;
pub mod prune;
pub mod recall;
pub mod relevance;
pub mod summary;
pub mod topics;
pub mod truncate;
