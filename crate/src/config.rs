//! The engine's options: each key's name, type, default and valid range, in one place.
//!
//! [`Config`] is read from the user's JSON by its serde derive (unknown keys are refused, never
//! silently ignored; a missing key takes its default; a value out of range is refused with the
//! key and the range). `defaultConfig()` at the boundary is `Config::default()` serialized.
//! `openclaw.plugin.json`'s `configSchema` lists these keys with the same defaults and ranges,
//! plus the few that only the JS layer uses (LLM, storage); a test below compares them.
//!
//! Adding a key: a field of [`Config`] (with its range, if any), its default in
//! `Config::default`, its line in [`TYPESCRIPT`], and its entry in the manifest.

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};

/// What the cleaner does to completed turns before the frontier (the cleaner's part of
/// [`Config`]).
#[derive(Debug, Clone, PartialEq)]
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
        Config::default().clean()
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

/// Every option the core honors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Config {
    pub mode: Mode,
    // The cleaner (see [`CleanConfig`]).
    pub clean_thinking: bool,
    pub clear_reasoning_content: bool,
    pub drop_tool_results: bool,
    pub drop_tool_call_messages: bool,
    #[serde(deserialize_with = "int::<_, 0, 10_000>")]
    pub keep_recent_turns: usize,
    // Folding.
    /// Token budget when the host does not pass one.
    #[serde(deserialize_with = "int::<_, 256, NO_MAX>")]
    pub max_tokens: usize,
    /// Share of the budget above which the request is planned again (the high-water mark):
    /// below it, a request only appends the turns added since the last plan.
    #[serde(deserialize_with = "share")]
    pub summarize_threshold: f64,
    /// Share of the budget a new plan folds down to (the low-water mark; at most
    /// `summarize_threshold`): the room between the two is what later turns append into.
    #[serde(deserialize_with = "share")]
    pub fold_target: f64,
    /// Never fold system messages or the preamble (compaction summaries, custom messages).
    pub preserve_system_messages: bool,
    /// Number of most recent turns never folded while they fit the budget (the newest turn is
    /// never folded).
    #[serde(deserialize_with = "int::<_, 0, 10_000>")]
    pub preserve_recent_messages: usize,
    /// Adjacent-turn similarity below which a topic boundary is placed.
    #[serde(deserialize_with = "fraction")]
    pub embedding_similarity_threshold: f64,
    /// Shortest topic, in turns.
    #[serde(deserialize_with = "int::<_, 1, 1000>")]
    pub min_turns_per_topic: usize,
    /// Tool results longer than this (characters) are cut to head + tail under pressure.
    #[serde(deserialize_with = "int::<_, 200, NO_MAX>")]
    pub tool_result_truncate_chars: usize,
    /// Largest turns queued for a background summary per request.
    #[serde(deserialize_with = "int::<_, 0, 100>")]
    pub max_compactions_per_cycle: usize,
    /// Prompt-to-topic similarity above which a folded topic is brought back.
    #[serde(deserialize_with = "fraction")]
    pub prompt_relevance_threshold: f64,
    /// Stub turns of other topics even when the budget would fit them (`false`: keep them
    /// while the budget allows and fold them first when it does not).
    pub fold_other_topics: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Fold,
            clean_thinking: true,
            clear_reasoning_content: true,
            drop_tool_results: true,
            drop_tool_call_messages: true,
            keep_recent_turns: 0,
            max_tokens: 128_000,
            summarize_threshold: 0.8,
            fold_target: 0.6,
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
    /// The cleaner's part of the options, as mode `clean` applies them.
    pub fn clean(&self) -> CleanConfig {
        CleanConfig {
            clean_thinking: self.clean_thinking,
            clear_reasoning_content: self.clear_reasoning_content,
            drop_tool_results: self.drop_tool_results,
            drop_tool_call_messages: self.drop_tool_call_messages,
            keep_recent_turns: self.keep_recent_turns,
        }
    }

    /// The cleaner's part of the options in mode `fold`: completed turns keep their tool calls
    /// and results (the budget decides what happens to them); thinking and `reasoning_content`
    /// go as in mode `clean`.
    pub fn fold_clean(&self) -> CleanConfig {
        CleanConfig {
            drop_tool_results: false,
            drop_tool_call_messages: false,
            ..self.clean()
        }
    }

    /// The budget share a new plan folds down to (`fold_target`, never above the high-water
    /// mark `summarize_threshold`).
    pub fn low_water(&self) -> f64 {
        self.fold_target.min(self.summarize_threshold)
    }
}

/// `Config` as JS sees it (the `.d.ts` of the wasm core).
pub const TYPESCRIPT: &str = r#"
/** The engine's options (every key optional: a missing key takes its default; see `defaultConfig()`). */
export interface Config {
  mode?: "fold" | "clean";
  cleanThinking?: boolean;
  clearReasoningContent?: boolean;
  dropToolResults?: boolean;
  dropToolCallMessages?: boolean;
  /** 0..=10000 */
  keepRecentTurns?: number;
  /** >= 256 */
  maxTokens?: number;
  /** (0, 1] */
  summarizeThreshold?: number;
  /** (0, 1] */
  foldTarget?: number;
  preserveSystemMessages?: boolean;
  /** 0..=10000 */
  preserveRecentMessages?: number;
  /** [0, 1] */
  embeddingSimilarityThreshold?: number;
  /** 1..=1000 */
  minTurnsPerTopic?: number;
  /** >= 200 */
  toolResultTruncateChars?: number;
  /** 0..=100 */
  maxCompactionsPerCycle?: number;
  /** [0, 1] */
  promptRelevanceThreshold?: number;
  foldOtherTopics?: boolean;
}
"#;

/// The upper bound of an integer option that has none.
const NO_MAX: usize = usize::MAX;

/// An integer option in `LO..=HI`.
fn int<'de, D: Deserializer<'de>, const LO: usize, const HI: usize>(d: D) -> Result<usize, D::Error> {
    let n = usize::deserialize(d)?;
    if (LO..=HI).contains(&n) {
        return Ok(n);
    }
    Err(D::Error::custom(match (LO, HI) {
        (_, NO_MAX) => format!("must be at least {LO}, got {n}"),
        (0, _) => format!("must be at most {HI}, got {n}"),
        _ => format!("must be in {LO}..={HI}, got {n}"),
    }))
}

/// A number in `[0, 1]`.
fn fraction<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let x = f64::deserialize(d)?;
    match (0.0..=1.0).contains(&x) {
        true => Ok(x),
        false => Err(D::Error::custom(format!("must be in [0, 1], got {x}"))),
    }
}

/// A number in `(0, 1]`.
fn share<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let x = f64::deserialize(d)?;
    match x > 0.0 && x <= 1.0 {
        true => Ok(x),
        false => Err(D::Error::custom(format!("must be in (0, 1], got {x}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn read(v: Value) -> Result<Config, String> {
        crate::wire::parse::<Config>("config", &v.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn missing_keys_take_their_defaults() {
        assert_eq!(read(json!({})).unwrap(), Config::default());
        let c = read(json!({"keepRecentTurns": 2, "cleanThinking": false, "mode": "clean"})).unwrap();
        assert_eq!(c.keep_recent_turns, 2);
        assert!(!c.clean_thinking);
        assert_eq!(c.mode, Mode::Clean);
        assert_eq!(c.max_tokens, Config::default().max_tokens);
    }

    #[test]
    fn a_config_reads_back_as_itself() {
        let c = Config {
            mode: Mode::Clean,
            clean_thinking: false,
            clear_reasoning_content: false,
            drop_tool_results: false,
            drop_tool_call_messages: false,
            keep_recent_turns: 7,
            max_tokens: 5000,
            summarize_threshold: 0.5,
            fold_target: 0.4,
            preserve_system_messages: false,
            preserve_recent_messages: 9,
            embedding_similarity_threshold: 0.25,
            min_turns_per_topic: 4,
            tool_result_truncate_chars: 999,
            max_compactions_per_cycle: 11,
            prompt_relevance_threshold: 0.75,
            fold_other_topics: true,
        };
        assert_eq!(read(serde_json::to_value(&c).unwrap()).unwrap(), c);
    }

    #[test]
    fn bad_options_are_refused_with_their_key() {
        for (v, message) in [
            (
                json!({"keepRecent": 2}),
                "invalid config: unknown field `keepRecent`, expected one of `mode`, `cleanThinking`,",
            ),
            (
                json!({"keepRecentTurns": -1}),
                "invalid config: keepRecentTurns: invalid value: integer `-1`, expected usize",
            ),
            (
                json!({"keepRecentTurns": "two"}),
                "invalid config: keepRecentTurns: invalid type: string \"two\", expected usize",
            ),
            (
                json!({"maxTokens": 100}),
                "invalid config: maxTokens: must be at least 256, got 100",
            ),
            (
                json!({"keepRecentTurns": 10001}),
                "invalid config: keepRecentTurns: must be at most 10000, got 10001",
            ),
            (
                json!({"minTurnsPerTopic": 0}),
                "invalid config: minTurnsPerTopic: must be in 1..=1000, got 0",
            ),
            (
                json!({"summarizeThreshold": 0}),
                "invalid config: summarizeThreshold: must be in (0, 1], got 0",
            ),
            (
                json!({"promptRelevanceThreshold": 1.5}),
                "invalid config: promptRelevanceThreshold: must be in [0, 1], got 1.5",
            ),
            (
                json!({"mode": "shrink"}),
                "invalid config: mode: unknown variant `shrink`, expected `clean` or `fold`",
            ),
            (
                json!("fold"),
                "invalid config: invalid type: string \"fold\", expected struct Config",
            ),
        ] {
            let e = read(v.clone()).unwrap_err();
            assert!(e.starts_with(message), "{v}: {e}");
        }
    }

    /// The manifest's `configSchema` has every core key with the core's default, and its
    /// ranges are the ones the core enforces (the bound itself accepted, one step past it
    /// refused). Its other keys are the JS layer's (tests/js/wasm.test.mjs checks those).
    #[test]
    fn the_manifest_schema_agrees_with_the_config() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openclaw.plugin.json");
        let manifest: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let schema = &manifest["configSchema"];
        assert_eq!(schema["additionalProperties"], json!(false));
        let properties = schema["properties"].as_object().unwrap();
        let defaults = serde_json::to_value(Config::default()).unwrap();
        let defaults = defaults.as_object().unwrap();
        for (key, default) in defaults {
            let p = properties
                .get(key)
                .unwrap_or_else(|| panic!("core option {key} missing from the manifest"));
            assert_eq!(&p["default"], default, "default of {key}");
            let integer = p["type"] == "integer";
            let number = |x: f64| if integer { json!(x as i64) } else { json!(x) };
            let with = |x: f64| read(json!({ key: number(x) }));
            let step = if integer { 1.0 } else { 0.001 };
            for (bound, inside, outside) in [
                ("minimum", true, -step),
                ("maximum", true, step),
                ("exclusiveMinimum", false, 0.0),
            ] {
                let Some(b) = p[bound].as_f64() else { continue };
                if inside {
                    assert!(with(b).is_ok(), "{key} = {b} ({bound})");
                }
                assert!(
                    with(b + outside).is_err(),
                    "{key} = {} is past its {bound}",
                    b + outside
                );
            }
        }
        // Every range the core enforces is in the manifest.
        for key in defaults.keys() {
            let p = &properties[key];
            let bounded = ["minimum", "maximum", "exclusiveMinimum"]
                .iter()
                .any(|b| p.get(*b).is_some());
            let huge = if p["type"] == "integer" {
                json!(u64::MAX)
            } else {
                json!(-1.0)
            };
            if !bounded && matches!(p["type"].as_str(), Some("integer" | "number")) {
                assert!(
                    read(json!({ key: huge })).is_ok(),
                    "{key} has a range the manifest does not give"
                );
            }
        }
    }

    /// The `.d.ts` lists every key.
    #[test]
    fn the_typescript_interface_lists_every_key() {
        let defaults = serde_json::to_value(Config::default()).unwrap();
        let keys: Vec<&String> = defaults.as_object().unwrap().keys().collect();
        let fields = crate::wire::typescript::fields(TYPESCRIPT, "Config");
        assert_eq!(fields.iter().map(|(k, _)| k).collect::<Vec<_>>(), keys);
        assert!(fields.iter().all(|(_, required)| !required), "every key is optional");
    }
}
