//! The core's calls as the boundary makes them: a request as JSON text in, the result as JSON
//! text out. Each reads its request ([`crate::wire::parse`]), runs the layer that decides, and
//! writes the result ([`crate::wire::to_json`]); none decides anything itself.

use crate::clean::clean_history;
use crate::error::{InputError, PruneError};
use crate::fold::{pins, prune, summary};
use crate::model::tokens;
use crate::session;
use crate::transcript::{branch, entry::Entry};
use crate::wire::{self, clean::CleanRequest, clean::SummarizeRequest};
use serde_json::Value;

/// [`clean_history`] over a JSON [`CleanRequest`]; the result as JSON.
pub fn clean_json(input: &str) -> Result<String, InputError> {
    let req: CleanRequest = wire::parse("request", input)?;
    let cfg = req.config.unwrap_or_default();
    Ok(wire::to_json(&clean_history(
        &req.messages,
        &cfg.clean(),
        req.history_complete,
    )))
}

/// A one-shot assemble ([`session::assemble_once`]) over a JSON
/// [`wire::assemble::AssembleOnceRequest`]; the result as JSON.
pub fn assemble_json(input: &str) -> Result<String, InputError> {
    Ok(session::assemble_once(wire::parse("request", input)?).to_json())
}

/// A deterministic summary of one turn, from a JSON [`SummarizeRequest`].
pub fn summarize_json(input: &str) -> Result<String, InputError> {
    let req: SummarizeRequest = wire::parse("request", input)?;
    Ok(summary::extractive(&summary::SummaryInput {
        turn_id: &req.turn_id,
        messages: &req.messages,
        max_tokens: req.max_tokens,
    }))
}

/// Estimated tokens of a JSON message array.
pub fn estimate_json(input: &str) -> Result<usize, InputError> {
    let messages: Vec<Value> = wire::parse("messages", input)?;
    Ok(tokens::messages(&messages))
}

/// [`prune::prune`] over a JSON [`wire::prune::PruneRequest`]; the result as JSON.
pub fn prune_json(input: &str) -> Result<String, PruneError> {
    Ok(wire::to_json(&prune::prune(&wire::parse("request", input)?)?))
}

/// The active branch ([`branch::active_branch`]) of a JSON array of transcript [`Entry`]s (only
/// `id` and `parentId` are read); the result as JSON.
pub fn active_branch_json(input: &str) -> Result<String, InputError> {
    let entries: Vec<Entry> = wire::parse("entries", input)?;
    Ok(wire::to_json(&branch::active_branch(&entries)))
}

/// [`pins::pinned_turns`] over a JSON [`pins::PinnedTurnsRequest`]; the ids as JSON.
pub fn pinned_turns_json(input: &str) -> Result<String, InputError> {
    Ok(wire::to_json(&pins::pinned_turns(&wire::parse("request", input)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What a person calling the boundary with a wrong request reads.
    #[test]
    fn bad_requests_name_the_field() {
        let m = json!([{"role": "user", "content": "hi"}]);
        for (call, input, message) in [
            (
                clean_json as fn(&str) -> Result<String, InputError>,
                json!({"messages": 3}),
                "invalid request: messages: invalid type: integer `3`, expected a sequence",
            ),
            (
                clean_json,
                json!({"messages": m, "config": {"maxTokens": "many"}}),
                "invalid request: config.maxTokens: invalid type: string \"many\", expected usize",
            ),
            (
                clean_json,
                json!({"messages": m, "config": {"keepRecentTurn": 1}}),
                "invalid request: config: unknown field `keepRecentTurn`, expected one of",
            ),
            (
                clean_json,
                json!({"message": m}),
                "invalid request: unknown field `message`, expected one of `messages`, `config`, `historyComplete`",
            ),
            (
                assemble_json,
                json!({"messages": m, "entries": [{"id": 5}]}),
                "invalid request: entries[0].id: invalid type: integer `5`, expected a string",
            ),
            (
                assemble_json,
                json!({"messages": m, "budget": -1}),
                "invalid request: budget: invalid value: integer `-1`, expected usize",
            ),
            (
                assemble_json,
                json!({"messages": m, "pins": {"tools": "read"}}),
                "invalid request: pins.tools: invalid type: string \"read\", expected a sequence",
            ),
            (
                summarize_json,
                json!({"messages": m}),
                "invalid request: missing field `turnId`",
            ),
        ] {
            let e = call(&input.to_string()).unwrap_err().to_string();
            assert!(e.starts_with(message), "{input}: {e}");
        }
        let e = prune_json(&json!({"messages": m, "strategy": "lru"}).to_string()).unwrap_err();
        assert!(e.to_string().starts_with("invalid request: strategy: unknown variant `lru`, expected one of `fifo`, `sliding-window`, `importance`"), "{e}");
        let e = prune_json(&json!({"messages": m, "strategy": "fifo"}).to_string()).unwrap_err();
        assert!(
            e.to_string().starts_with("invalid request: fifo needs targetTokens"),
            "{e}"
        );
        let e = estimate_json("[1, {").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid messages: [1]: EOF while parsing an object at line 1 column 5"
        );
    }

    #[test]
    fn a_missing_config_is_the_default_one() {
        let m = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "a"}]}, {"role": "user", "content": "b"}]);
        let with = |config: Value| clean_json(&json!({"messages": m, "config": config}).to_string()).unwrap();
        let default = clean_json(&json!({"messages": m}).to_string()).unwrap();
        assert!(default.contains("\"cleanedThink\":1"), "{default}");
        assert_eq!(with(Value::Null), default);
        assert_eq!(with(json!({})), default);
        assert_ne!(with(json!({"cleanThinking": false})), default);
    }
}
