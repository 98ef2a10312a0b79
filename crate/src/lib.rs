//! contextfold's core: decides, before every model request, what the model sees.
//!
//! The core is pure and deterministic: it never does I/O and never sees JS. It receives
//! messages as JSON and returns a *plan* ([`steps::Step`]s over the input) plus counts; the JS
//! layer applies the plan to the host's own objects. `wasm.rs` is the only module that knows
//! about wasm-bindgen.
//!
//! Modules, each named after what it decides:
//! * [`message`]: what a message is, in OpenClaw, OpenAI or Anthropic shape;
//! * [`pairing`]: which result answers which tool call (positionally);
//! * [`frontier`]: where the live turn starts;
//! * [`clean`]: what completed turns lose (thinking, finished tool chatter);
//! * [`gate`]: whether an output is still valid for providers;
//! * [`tokens`]: how many tokens a message costs;
//! * [`config`]: the options and their defaults.

pub mod assemble;
pub mod clean;
pub mod config;
pub mod error;
pub mod frontier;
pub mod gate;
pub mod hostmeta;
pub mod index;
pub mod memo;
pub mod message;
pub mod pairing;
pub mod prune;
pub mod session;
pub mod steps;
pub mod summary;
pub mod tokens;
pub mod topics;
pub mod truncate;
pub mod turns;

#[cfg(target_arch = "wasm32")]
mod wasm;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::Error;

/// A `clean` request: the messages and the cleaner's options.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CleanRequest {
    pub messages: Vec<Value>,
    #[serde(default)]
    pub config: Value,
    /// The upcoming prompt is not part of `messages`: every message belongs to a finished turn.
    #[serde(default)]
    pub history_complete: bool,
}

/// A `clean` result: the plan, the counts, and why the input was returned unchanged, if it was.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanResult {
    pub steps: Vec<steps::Step>,
    pub stats: clean::CleanStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// Cleans the messages of a request and gates the result. A plan the gate refuses is
/// replaced by the identity plan, with the refusal as `fallback`.
pub fn clean_messages(messages: &[Value], config: &config::CleanConfig) -> CleanResult {
    clean_history(messages, config, false)
}

/// [`clean_messages`] for a history whose upcoming prompt is passed separately (`complete`):
/// the frontier is then after the last message.
pub fn clean_history(messages: &[Value], config: &config::CleanConfig, complete: bool) -> CleanResult {
    let cleaned = clean::clean_history(messages, config, complete);
    match gate::check(messages, &cleaned.steps, cleaned.frontier.loop_start) {
        Ok(()) => CleanResult {
            steps: cleaned.steps,
            stats: cleaned.stats,
            fallback: None,
        },
        Err(refusal) => {
            let tokens = tokens::messages(messages);
            let stats = clean::CleanStats {
                messages_before: messages.len(),
                messages_after: messages.len(),
                tokens_before: tokens,
                tokens_after: tokens,
                frontier: cleaned.stats.frontier,
                ..Default::default()
            };
            CleanResult {
                steps: steps::identity(messages.len()),
                stats,
                fallback: Some(format!("validity gate refused the cleaned output ({refusal})")),
            }
        }
    }
}

/// [`clean_messages`] over a JSON request document (`{"messages": [...], "config": {...}}`).
/// `config` is the engine's whole config (the cleaner uses its part).
pub fn clean_json(input: &str) -> Result<String, Error> {
    let req: CleanRequest = serde_json::from_str(input)?;
    let cfg = config::Config::from_json(&req.config)?;
    Ok(serde_json::to_string(&clean_history(
        &req.messages,
        &cfg.clean(),
        req.history_complete,
    ))?)
}

/// A one-shot assemble over a whole transcript (see [`session::OneShot`]).
pub fn assemble_json(input: &str) -> Result<String, Error> {
    let req: session::OneShot = serde_json::from_str(input)?;
    Ok(serde_json::to_string(&req.run()?)?)
}

/// A deterministic summary of one turn: `{"turnId", "messages", "maxTokens"}` → text.
pub fn summarize_json(input: &str) -> Result<String, Error> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Req {
        turn_id: String,
        messages: Vec<Value>,
        #[serde(default = "default_summary_tokens")]
        max_tokens: usize,
    }
    fn default_summary_tokens() -> usize {
        120
    }
    let r: Req = serde_json::from_str(input)?;
    Ok(summary::extractive(&summary::SummaryInput {
        turn_id: &r.turn_id,
        messages: &r.messages,
        max_tokens: r.max_tokens,
    }))
}

/// Estimated tokens of a JSON message array.
pub fn estimate_json(input: &str) -> Result<usize, Error> {
    let messages: Vec<Value> = serde_json::from_str(input)?;
    Ok(tokens::messages(&messages))
}
