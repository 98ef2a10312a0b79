//! The conversation as turns: where each turn starts and ends, the session index of entries,
//! and what is known of the messages being planned. Never decides what a turn loses.

pub mod branch;
pub mod entry;
pub mod history;
pub mod index;
pub mod turns;
