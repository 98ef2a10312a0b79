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
        let cfg: CleanConfig = serde_json::from_value(v.clone()).map_err(|e| Error::Config(e.to_string()))?;
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

/// What the engine does before every request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// Clean completed turns only (no folding, no budget enforcement).
    Clean,
    /// Clean, then fold old turns (stubs, summaries, truncation) to fit the budget.
    Fold,
}

/// Every option the core honors. The plugin manifest's `configSchema` lists these plus the
/// few that only the JS layer uses (LLM, storage); unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Config {
    pub mode: Mode,
    // The cleaner (see [`CleanConfig`]).
    pub clean_thinking: bool,
    pub clear_reasoning_content: bool,
    pub drop_tool_results: bool,
    pub drop_tool_call_messages: bool,
    pub keep_recent_turns: usize,
    // Folding.
    /// Token budget when the host does not pass one.
    pub max_tokens: usize,
    /// Share of the budget above which truncation and summarization start.
    pub summarize_threshold: f64,
    /// Never fold system messages or the preamble (compaction summaries, custom messages).
    pub preserve_system_messages: bool,
    /// Number of most recent turns never folded.
    pub preserve_recent_messages: usize,
    /// Adjacent-turn similarity below which a topic boundary is placed.
    pub embedding_similarity_threshold: f64,
    /// Shortest topic, in turns.
    pub min_turns_per_topic: usize,
    /// Tool results longer than this (characters) are cut to head + tail under pressure.
    pub tool_result_truncate_chars: usize,
    /// Largest turns queued for a background summary per request.
    pub max_compactions_per_cycle: usize,
    /// Prompt-to-topic similarity above which a folded topic is brought back.
    pub prompt_relevance_threshold: f64,
    /// Stub turns of other topics even when the budget would fit them (`false`: keep them
    /// while the budget allows and fold them first when it does not).
    pub fold_other_topics: bool,
}

impl Default for Config {
    fn default() -> Self {
        let c = CleanConfig::default();
        Config {
            mode: Mode::Fold,
            clean_thinking: c.clean_thinking,
            clear_reasoning_content: c.clear_reasoning_content,
            drop_tool_results: c.drop_tool_results,
            drop_tool_call_messages: c.drop_tool_call_messages,
            keep_recent_turns: c.keep_recent_turns,
            max_tokens: 128_000,
            summarize_threshold: 0.8,
            preserve_system_messages: true,
            preserve_recent_messages: 5,
            embedding_similarity_threshold: 0.05,
            min_turns_per_topic: 2,
            tool_result_truncate_chars: 40_000,
            max_compactions_per_cycle: 3,
            prompt_relevance_threshold: 0.2,
            fold_other_topics: false,
        }
    }
}

impl Config {
    /// Parses and validates a config object (missing keys take their defaults).
    pub fn from_json(v: &serde_json::Value) -> Result<Config, Error> {
        if v.is_null() {
            return Ok(Config::default());
        }
        let cfg: Config = serde_json::from_value(v.clone()).map_err(|e| Error::Config(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<(), Error> {
        let bad = |k: &str, why: &str| Err(Error::Config(format!("{k} {why}")));
        if self.keep_recent_turns > 10_000 {
            return bad("keepRecentTurns", "must be at most 10000");
        }
        if self.max_tokens < 256 {
            return bad("maxTokens", "must be at least 256");
        }
        if !(self.summarize_threshold > 0.0 && self.summarize_threshold <= 1.0) {
            return bad("summarizeThreshold", "must be in (0, 1]");
        }
        if !(0.0..=1.0).contains(&self.embedding_similarity_threshold) {
            return bad("embeddingSimilarityThreshold", "must be in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.prompt_relevance_threshold) {
            return bad("promptRelevanceThreshold", "must be in [0, 1]");
        }
        if self.min_turns_per_topic == 0 {
            return bad("minTurnsPerTopic", "must be at least 1");
        }
        if self.tool_result_truncate_chars < 200 {
            return bad("toolResultTruncateChars", "must be at least 200");
        }
        if self.preserve_recent_messages > 10_000 || self.max_compactions_per_cycle > 100 {
            return bad("preserveRecentMessages/maxCompactionsPerCycle", "out of range");
        }
        Ok(())
    }

    /// The cleaner's part of the options.
    pub fn clean(&self) -> CleanConfig {
        CleanConfig {
            clean_thinking: self.clean_thinking,
            clear_reasoning_content: self.clear_reasoning_content,
            drop_tool_results: self.drop_tool_results,
            drop_tool_call_messages: self.drop_tool_call_messages,
            keep_recent_turns: self.keep_recent_turns,
        }
    }
}
