//! The engine's options, their defaults and their validation.
//!
//! `openclaw.plugin.json`'s `configSchema` mirrors this struct key for key (a test in
//! `tests/` checks that they agree); unknown keys are rejected, never silently ignored.

use crate::error::Error;
use crate::read::{boolean, f64_of, invalid_type, usize_of, Bad, Parsed};
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    fn default_json_is_the_serialized_default() {
        assert_eq!(serde_json::to_string(&Config::default()).unwrap(), DEFAULT_JSON);
    }

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

    /// The derived impls `Config` and `Mode` had; the hand-written reader must agree with them.
    mod derived {
        use serde::Deserialize;

        #[derive(Debug, Clone, Copy, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub enum Mode {
            Clean,
            Fold,
        }

        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase", default, deny_unknown_fields)]
        pub struct Config {
            pub mode: Mode,
            pub clean_thinking: bool,
            pub clear_reasoning_content: bool,
            pub drop_tool_results: bool,
            pub drop_tool_call_messages: bool,
            pub keep_recent_turns: usize,
            pub max_tokens: usize,
            pub summarize_threshold: f64,
            pub preserve_system_messages: bool,
            pub preserve_recent_messages: usize,
            pub embedding_similarity_threshold: f64,
            pub min_turns_per_topic: usize,
            pub tool_result_truncate_chars: usize,
            pub max_compactions_per_cycle: usize,
            pub prompt_relevance_threshold: f64,
            pub fold_other_topics: bool,
        }

        impl Default for Config {
            fn default() -> Self {
                let c = super::Config::default();
                Config {
                    mode: Mode::Fold,
                    clean_thinking: c.clean_thinking,
                    clear_reasoning_content: c.clear_reasoning_content,
                    drop_tool_results: c.drop_tool_results,
                    drop_tool_call_messages: c.drop_tool_call_messages,
                    keep_recent_turns: c.keep_recent_turns,
                    max_tokens: c.max_tokens,
                    summarize_threshold: c.summarize_threshold,
                    preserve_system_messages: c.preserve_system_messages,
                    preserve_recent_messages: c.preserve_recent_messages,
                    embedding_similarity_threshold: c.embedding_similarity_threshold,
                    min_turns_per_topic: c.min_turns_per_topic,
                    tool_result_truncate_chars: c.tool_result_truncate_chars,
                    max_compactions_per_cycle: c.max_compactions_per_cycle,
                    prompt_relevance_threshold: c.prompt_relevance_threshold,
                    fold_other_topics: c.fold_other_topics,
                }
            }
        }
    }

    /// `KEYS` and `Config::set` cover every field: a config with no default value reads back
    /// as itself.
    #[test]
    fn every_field_is_read() {
        let defaults = serde_json::to_value(Config::default()).unwrap();
        assert_eq!(
            defaults.as_object().unwrap().keys().collect::<Vec<_>>(),
            KEYS.iter().collect::<Vec<_>>()
        );
        let c = Config {
            mode: Mode::Clean,
            clean_thinking: false,
            clear_reasoning_content: false,
            drop_tool_results: false,
            drop_tool_call_messages: false,
            keep_recent_turns: 7,
            max_tokens: 5000,
            summarize_threshold: 0.5,
            preserve_system_messages: false,
            preserve_recent_messages: 9,
            embedding_similarity_threshold: 0.25,
            min_turns_per_topic: 4,
            tool_result_truncate_chars: 999,
            max_compactions_per_cycle: 11,
            prompt_relevance_threshold: 0.75,
            fold_other_topics: true,
        };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(Config::from_value(v.clone()).unwrap(), c);
        let values: Vec<Value> = v.as_object().unwrap().values().cloned().collect();
        assert_eq!(Config::from_value(Value::Array(values)).unwrap(), c);
    }

    #[test]
    fn hand_written_reader_matches_the_derived_one() {
        let odd = [
            json!(null),
            json!("x"),
            json!("clean"),
            json!("fold"),
            json!(""),
            json!(-1),
            json!(0),
            json!(3),
            json!(1.5),
            json!(-2.5),
            json!(5_000_000_000u64),
            json!(u64::MAX),
            json!(i64::MIN),
            json!([]),
            json!([1]),
            json!({}),
            json!({"clean": null}),
            json!({"fold": null}),
            json!({"fold": 1}),
            json!({"other": null}),
            json!({"clean": null, "fold": null}),
            json!(true),
            json!(false),
        ];
        let full = serde_json::to_value(Config::default()).unwrap();
        let mut inputs: Vec<Value> = odd.to_vec();
        for (k, _) in full.as_object().unwrap() {
            for o in &odd {
                inputs.push(json!({ k: o }));
                let mut all = full.clone();
                all[k] = o.clone();
                inputs.push(all);
            }
        }
        // several bad keys: the first in the object's order is reported
        inputs.push(json!({"maxTokens": "a", "mode": 1, "nope": 2}));
        inputs.push(json!({"nope": 2, "maxTokens": "a"}));
        inputs.push(json!({"mode": "fold", "unknownKey": true}));
        // the array form: values in the order of the fields
        let values: Vec<Value> = full.as_object().unwrap().values().cloned().collect();
        for n in 0..=values.len() + 1 {
            let mut items: Vec<Value> = values.iter().take(n).cloned().collect();
            items.resize(n, json!(7));
            inputs.push(Value::Array(items.clone()));
            if n > 0 {
                items[n - 1] = json!("x");
                inputs.push(Value::Array(items));
            }
        }
        for v in inputs {
            let ours = Config::from_value(v.clone()).map(|c| format!("{c:?}"));
            let theirs = serde_json::from_value::<derived::Config>(v.clone()).map(|c| format!("{c:?}"));
            match (ours, theirs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{v}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{v}"),
                (a, b) => panic!("{v}: ours {a:?}, derived {b:?}"),
            }
        }
    }
}

/// What the engine does before every request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// Clean completed turns only (no folding, no budget enforcement).
    Clean,
    /// Clean, then fold old turns (stubs, summaries, truncation) to fit the budget.
    Fold,
}

/// `Config::default()` as JSON (what `serde_json::to_string` prints; the test
/// `default_json_is_the_serialized_default` checks it). The wasm core returns this text
/// rather than serializing the config, which would compile `Config`'s `Serialize` for it alone.
pub const DEFAULT_JSON: &str = concat!(
    r#"{"mode":"fold","cleanThinking":true,"clearReasoningContent":true,"dropToolResults":true,"#,
    r#""dropToolCallMessages":true,"keepRecentTurns":0,"maxTokens":128000,"summarizeThreshold":0.8,"#,
    r#""preserveSystemMessages":true,"preserveRecentMessages":5,"embeddingSimilarityThreshold":0.05,"#,
    r#""minTurnsPerTopic":2,"toolResultTruncateChars":40000,"maxCompactionsPerCycle":3,"#,
    r#""promptRelevanceThreshold":0.2,"foldOtherTopics":false}"#
);

/// Every option the core honors. The plugin manifest's `configSchema` lists these plus the
/// few that only the JS layer uses (LLM, storage); unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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

/// The keys of [`Config`], in the order of its fields.
const KEYS: [&str; 16] = [
    "mode",
    "cleanThinking",
    "clearReasoningContent",
    "dropToolResults",
    "dropToolCallMessages",
    "keepRecentTurns",
    "maxTokens",
    "summarizeThreshold",
    "preserveSystemMessages",
    "preserveRecentMessages",
    "embeddingSimilarityThreshold",
    "minTurnsPerTopic",
    "toolResultTruncateChars",
    "maxCompactionsPerCycle",
    "promptRelevanceThreshold",
    "foldOtherTopics",
];

/// A mode: its name, or (as serde reads enums) an object with the name as its one key and
/// `null` as its value.
fn mode(v: Value) -> Parsed<Mode> {
    let (name, value) = match v {
        Value::String(s) => (s, Value::Null),
        Value::Object(m) if m.len() == 1 => m.into_iter().next().unwrap_or_default(),
        Value::Object(_) => return Err(Bad::invalid_value("map", "map with a single key")),
        other => return Err(invalid_type(&other, "string or map")),
    };
    let mode = match name.as_str() {
        "clean" => Mode::Clean,
        "fold" => Mode::Fold,
        _ => return Err(Bad::unknown_variant(&name, &["clean", "fold"])),
    };
    match value {
        Value::Null => Ok(mode),
        other => Err(invalid_type(&other, "unit")),
    }
}

impl<'de> Deserialize<'de> for Config {
    /// As [`Config::from_json`] without the validation.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Config::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

impl Config {
    /// Parses and validates a config object (missing keys take their defaults).
    pub fn from_json(v: &serde_json::Value) -> Result<Config, Error> {
        if v.is_null() {
            return Ok(Config::default());
        }
        let cfg = Config::from_value(v.clone()).map_err(|e| Error::Config(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads a config by hand, as the derived impl of `#[serde(rename_all = "camelCase",
    /// default, deny_unknown_fields)]` did (see [`crate::read`]): the keys in the object's
    /// order, the first bad one reported; missing keys keep their defaults. An array gives
    /// the values in the order of [`KEYS`]. Not validated.
    fn from_value(v: Value) -> Parsed<Config> {
        let mut cfg = Config::default();
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    match KEYS.iter().position(|&key| key == k) {
                        Some(i) => cfg.set(i, v)?,
                        None => return Err(Bad::unknown_field(&k, &KEYS)),
                    }
                }
            }
            Value::Array(items) => {
                let n = items.len();
                for (i, v) in items.into_iter().enumerate().take(KEYS.len()) {
                    cfg.set(i, v)?;
                }
                if n > KEYS.len() {
                    return Err(Bad::invalid_length(n, "fewer elements in array"));
                }
            }
            other => return Err(invalid_type(&other, "struct Config")),
        }
        Ok(cfg)
    }

    /// Sets the option `KEYS[key]`: one reader call per value type, then the field.
    fn set(&mut self, key: usize, v: Value) -> Parsed<()> {
        match key {
            0 => self.mode = mode(v)?,
            5 | 6 | 9 | 11 | 12 | 13 => {
                let n = usize_of(v)?;
                *match key {
                    5 => &mut self.keep_recent_turns,
                    6 => &mut self.max_tokens,
                    9 => &mut self.preserve_recent_messages,
                    11 => &mut self.min_turns_per_topic,
                    12 => &mut self.tool_result_truncate_chars,
                    _ => &mut self.max_compactions_per_cycle,
                } = n;
            }
            7 | 10 | 14 => {
                let x = f64_of(v)?;
                *match key {
                    7 => &mut self.summarize_threshold,
                    10 => &mut self.embedding_similarity_threshold,
                    _ => &mut self.prompt_relevance_threshold,
                } = x;
            }
            _ => {
                let b = boolean(v)?;
                *match key {
                    1 => &mut self.clean_thinking,
                    2 => &mut self.clear_reasoning_content,
                    3 => &mut self.drop_tool_results,
                    4 => &mut self.drop_tool_call_messages,
                    8 => &mut self.preserve_system_messages,
                    _ => &mut self.fold_other_topics,
                } = b;
            }
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), Error> {
        // Whole messages rather than `format!` (one call less of the formatting machinery).
        let why = if self.keep_recent_turns > 10_000 {
            "keepRecentTurns must be at most 10000"
        } else if self.max_tokens < 256 {
            "maxTokens must be at least 256"
        } else if !(self.summarize_threshold > 0.0 && self.summarize_threshold <= 1.0) {
            "summarizeThreshold must be in (0, 1]"
        } else if !(0.0..=1.0).contains(&self.embedding_similarity_threshold) {
            "embeddingSimilarityThreshold must be in [0, 1]"
        } else if !(0.0..=1.0).contains(&self.prompt_relevance_threshold) {
            "promptRelevanceThreshold must be in [0, 1]"
        } else if self.min_turns_per_topic == 0 {
            "minTurnsPerTopic must be at least 1"
        } else if self.tool_result_truncate_chars < 200 {
            "toolResultTruncateChars must be at least 200"
        } else if self.preserve_recent_messages > 10_000 || self.max_compactions_per_cycle > 100 {
            "preserveRecentMessages/maxCompactionsPerCycle out of range"
        } else {
            return Ok(());
        };
        Err(Error::Config(why.into()))
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
