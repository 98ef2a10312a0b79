//! What a message is: its role and parts in each host shape, which result answers which call,
//! what it costs in tokens, how a plan step refers to it. Never decides what to keep.

pub mod hostmeta;
pub mod message;
pub mod pairing;
pub mod steps;
pub mod strip;
pub mod tokens;
