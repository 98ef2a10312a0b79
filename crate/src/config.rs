//! The engine's options, their defaults and their validation.
//!
//! `openclaw.plugin.json`'s `configSchema` mirrors this struct key for key (a test in
//! `tests/` checks that they agree); unknown keys are rejected, never silently ignored.

use crate::error::Error;
use serde::{Deserialize, Serialize};

/// What the cleaner does to completed turns before the frontier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CleanConfig {
    /// Remove thinking blocks (`thinking`, `redacted_thinking`) from assistant messages.
    pub clean_thinking: bool,
    /// Clear the top-level `reasoning_content` field (raw OpenAI-compatible format).
    pub clear_reasoning_content: bool,
    /// Drop completed tool results (and the calls they answer).
    pub drop_tool_results: bool,
    /// Drop assistant messages that only carried tool calls.
    pub drop_tool_call_messages: bool,
    /// Leave this many completed turns before the frontier uncleaned.
    pub keep_recent_turns: usize,
}

impl Default for CleanConfig {
    fn default() -> Self {
        CleanConfig {
            clean_thinking: true,
            clear_reasoning_content: true,
            drop_tool_results: true,
            drop_tool_call_messages: true,
            keep_recent_turns: 0,
        }
    }
}

impl CleanConfig {
    /// Parses and validates a config object (missing keys take their defaults).
    pub fn from_json(v: &serde_json::Value) -> Result<CleanConfig, Error> {
        if v.is_null() {
            return Ok(CleanConfig::default());
        }
        let cfg: CleanConfig = serde_json::from_value(v.clone())
            .map_err(|e| Error::Config(e.to_string()))?;
        if cfg.keep_recent_turns > 10_000 {
            return Err(Error::Config(format!(
                "keepRecentTurns must be at most 10000, got {}",
                cfg.keep_recent_turns
            )));
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_unknown_keys() {
        assert_eq!(CleanConfig::from_json(&json!({})).unwrap(), CleanConfig::default());
        let c = CleanConfig::from_json(&json!({"keepRecentTurns": 2, "cleanThinking": false})).unwrap();
        assert_eq!(c.keep_recent_turns, 2);
        assert!(!c.clean_thinking);
        let e = CleanConfig::from_json(&json!({"keepRecent": 2})).unwrap_err();
        assert!(e.to_string().contains("keepRecent"), "{e}");
        assert!(CleanConfig::from_json(&json!({"keepRecentTurns": -1})).is_err());
    }
}
