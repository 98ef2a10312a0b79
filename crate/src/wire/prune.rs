//! `prune`: its request and result (see [`crate::fold::prune`] for what the strategies do).

use crate::hash::HashMap;
use crate::model::steps::Step;
use crate::wire::assemble::Pins;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How to choose what to prune.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Oldest first.
    Fifo,
    /// Keep the N most recent messages.
    SlidingWindow,
    /// Least important first.
    Importance,
}

/// A prune request.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneRequest {
    pub messages: Vec<Value>,
    pub strategy: Strategy,
    /// `sliding-window`: how many of the most recent messages to keep.
    #[serde(default)]
    pub keep_messages: Option<usize>,
    /// `fifo` / `importance`: prune until the request costs at most this many tokens.
    #[serde(default)]
    pub target_tokens: Option<usize>,
    /// Prune at most this many turns.
    #[serde(default)]
    pub max_turns: Option<usize>,
    /// The last N turns are never pruned (at least one); 5 when missing.
    #[serde(default = "five")]
    pub protect_recent_turns: usize,
    /// True when missing.
    #[serde(default = "yes")]
    pub preserve_system_messages: bool,
    #[serde(default)]
    pub pins: Pins,
    /// Turn ids by the hex content key of their user message (from the session index);
    /// turns not listed get content-hash ids.
    #[serde(default)]
    pub ids_by_key: HashMap<String, String>,
    /// What each turn costs in the request as it is sent now (e.g. after cleaning), by id;
    /// its raw estimate otherwise.
    #[serde(default)]
    pub turn_tokens: HashMap<String, usize>,
    /// Turns not to consider (e.g. already folded).
    #[serde(default)]
    pub exclude: Vec<String>,
}

fn five() -> usize {
    5
}

fn yes() -> bool {
    true
}

/// One pruned unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrunedUnit {
    /// Its turn ids (one, or more when a tool exchange spans turns).
    pub turn_ids: Vec<String>,
    /// Message positions `[start, end)`.
    pub range: (usize, usize),
    pub tokens: usize,
    /// The importance score (`importance` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// Turns that could not be pruned, by reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub protected: usize,
    pub pinned: usize,
    pub excluded: usize,
    /// Units whose removal the validity gate refused.
    pub gate: usize,
}

/// A prune result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneResult {
    pub strategy: Strategy,
    pub pruned: Vec<PrunedUnit>,
    /// All pruned turn ids, oldest first.
    pub turn_ids: Vec<String>,
    /// Pruned message positions, ascending.
    pub messages: Vec<usize>,
    /// The request without the pruned messages, as a plan over the input.
    pub steps: Vec<Step>,
    pub messages_before: usize,
    pub messages_after: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    /// Whether the target (`targetTokens` / `keepMessages`) was reached.
    pub target_met: bool,
    pub skipped: Skipped,
}

pub const TYPESCRIPT: &str = r#"
export type Strategy = "fifo" | "sliding-window" | "importance";

/** `prune`: which old turns to take out of the requests. `fifo` and `importance` need
 * `targetTokens` or `maxTurns`; `sliding-window` needs `keepMessages`. */
export interface PruneRequest {
  messages: Message[];
  strategy: Strategy;
  keepMessages?: number | null;
  targetTokens?: number | null;
  maxTurns?: number | null;
  /** The last N turns are never pruned (at least one); 5 when missing. */
  protectRecentTurns?: number;
  /** True when missing. */
  preserveSystemMessages?: boolean;
  pins?: Pins;
  /** Turn ids by the hex content key of their user message (from the session index). */
  idsByKey?: Record<string, string>;
  /** What each turn costs in the request as it is sent now, by id. */
  turnTokens?: Record<string, number>;
  /** Turns not to consider (e.g. already folded). */
  exclude?: string[];
}

/** One pruned unit: consecutive turns pruned together. */
export interface PrunedUnit {
  turnIds: string[];
  /** Message positions `[start, end)`. */
  range: [number, number];
  tokens: number;
  /** `importance` only. */
  score?: number;
}

/** Turns that could not be pruned, by reason. */
export interface Skipped {
  protected: number;
  pinned: number;
  excluded: number;
  /** Units whose removal the validity gate refused. */
  gate: number;
}

/** `prune`'s result. */
export interface PruneResult {
  strategy: Strategy;
  pruned: PrunedUnit[];
  turnIds: string[];
  /** Pruned message positions, ascending. */
  messages: number[];
  /** The request without the pruned messages, as a plan over the input. */
  steps: Step[];
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  targetMet: boolean;
  skipped: Skipped;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::typescript::{check, check_request};
    use serde_json::json;

    #[test]
    fn the_typescript_is_what_is_read_and_written() {
        check_request::<PruneRequest>("PruneRequest");
        let messages: Vec<Value> = (0..4)
            .flat_map(|k| {
                [
                    json!({"role": "user", "content": format!("question {k}")}),
                    json!({"role": "assistant", "content": format!("answer {k}")}),
                ]
            })
            .collect();
        let r = crate::prune_json(
            &json!({"messages": messages, "strategy": "importance", "maxTurns": 2, "protectRecentTurns": 1})
                .to_string(),
        )
        .unwrap();
        let r: Value = serde_json::from_str(&r).unwrap();
        check("PruneResult", &r);
        check("Skipped", &r["skipped"]);
        assert_eq!(r["pruned"].as_array().unwrap().len(), 2);
        for u in r["pruned"].as_array().unwrap() {
            check("PrunedUnit", u);
        }
    }
}
