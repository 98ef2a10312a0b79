//! Cleaning: where the live turn starts, what completed turns lose, and whether an output is
//! still valid for providers. Never folds or drops whole turns.

pub mod cleaner;
pub mod frontier;
pub mod gate;
