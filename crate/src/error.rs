//! Typed errors. Bad input is an `Err` with a message a person can act on, never a panic;
//! `wasm.rs` is the one place that turns these into JS errors.

/// Everything the core can refuse.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request document is not valid JSON or not of the expected shape.
    #[error("invalid input: {0}")]
    Input(String),
    /// A configuration key is unknown or a value is out of range.
    #[error("invalid config: {0}")]
    Config(String),
}

impl From<crate::read::Bad> for Error {
    fn from(e: crate::read::Bad) -> Self {
        Error::Input(e.to_string())
    }
}
