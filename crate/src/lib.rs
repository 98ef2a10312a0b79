//! contextfold's core: decides, before every model request, what the model sees.
//!
//! The core is pure and deterministic: it never does I/O and never sees JS. It receives
//! messages as JSON and returns a *plan* ([`model::steps::Step`]s over the input) plus counts; the JS
//! layer applies the plan to the host's own objects. `wasm.rs` is the only module that knows
//! about wasm-bindgen.
//!
//! Layers, bottom to top; each imports only the layers below it, never a higher one or another
//! module of its own layer (`tests/layers.rs` checks it):
//! * base: [`error`] (what the core refuses, and why), [`config`] (the options and their
//!   defaults), [`hash`] (the hash maps the crate uses);
//! * [`text`]: which characters are CJK, which words are stopwords, what the terms of a text
//!   are (words lowercased, CJK character n-grams);
//! * [`model`]: what a message is (roles, parts, host metadata, pairing of calls and results,
//!   tokens, plan steps);
//! * [`transcript`]: transcript entries, the session index, turns, what is known of the
//!   messages being planned;
//! * [`clean`]: where the live turn starts, what completed turns lose, the validity gate;
//! * [`fold`]: the planner (what each turn becomes within a budget), summaries, topics, pins,
//!   truncation, prune;
//! * [`wire`]: the boundary's requests and results (serde types and their TypeScript); the
//!   values inside them are the lower layers' (steps, counts, topics, entries, pins), and a
//!   call's own document is where the call is decided when that is below `wire` (prune's);
//! * [`session`]: a live session's state between requests, and the one-shot path;
//! * [`api`]: the calls over JSON text (request in, result out);
//! * `wasm`: the wasm-bindgen boundary (wasm32 only).

pub mod api;
pub mod clean;
pub mod config;
pub mod error;
pub mod fold;
pub mod hash;
pub mod model;
pub mod session;
pub mod text;
pub mod transcript;
pub mod wire;

#[cfg(target_arch = "wasm32")]
mod wasm;
