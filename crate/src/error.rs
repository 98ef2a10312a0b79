//! Typed errors, one per kind of refusal. Bad input is an `Err` with a message a person can act
//! on (what was wrong, where, and what was expected), never a panic; `wasm.rs` is the one place
//! that turns these into JS errors.
//!
//! Which call returns which: every call that reads a JSON document can return an
//! [`InputError`] (the engine config inside a request included: its path starts with
//! `config`); a live session's config is a [`ConfigError`]; its delta request can also be
//! refused with [`DeltaError::Keep`], and a prune request with [`PruneError::Needs`].

/// A JSON document that is not valid JSON, or not of the shape the call reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what}: {}{message}", at(path))]
pub struct InputError {
    /// What the document is: `request`, `config`, `index`, `entries`, ...
    pub what: &'static str,
    /// Where in it the error is, e.g. `messages[3].content` (empty: the document itself).
    pub path: String,
    /// serde_json's message: what was found and what was expected.
    pub message: String,
}

/// `path: ` before the message, nothing for the document itself.
fn at(path: &str) -> String {
    match path {
        "" => String::new(),
        p => format!("{p}: "),
    }
}

/// A live session's config (`new Session(config)`, `configure`) with an option that is
/// unknown, of the wrong type or out of its range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct ConfigError(#[from] pub InputError);

/// A live session's delta request (`Session.assembleDelta`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeltaError {
    #[error(transparent)]
    Input(#[from] InputError),
    /// The request keeps more messages than the session has from the previous one.
    #[error("invalid request: keep: {keep} is more than the {kept} messages kept from the previous request")]
    Keep { keep: usize, kept: usize },
}

/// A prune request (`prune`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PruneError {
    #[error(transparent)]
    Input(#[from] InputError),
    /// The strategy needs an option the request does not give.
    #[error("invalid request: {0}")]
    Needs(&'static str),
}
