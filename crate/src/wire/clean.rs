//! `clean`, `estimateTokens` and `summarize`: their requests (the clean result is
//! [`crate::clean::CleanResult`]), and the TypeScript of both.

use crate::config::Config;
use serde::Deserialize;
use serde_json::Value;

/// A `clean` request: the messages and the engine's config (the cleaner uses its part).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CleanRequest {
    pub messages: Vec<Value>,
    /// The defaults when missing or `null`.
    #[serde(default)]
    pub config: Option<Config>,
    /// The upcoming prompt is not part of `messages`: every message belongs to a finished turn.
    #[serde(default)]
    pub history_complete: bool,
}

/// A `summarize` request: one turn's messages.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SummarizeRequest {
    pub turn_id: String,
    pub messages: Vec<Value>,
    /// The summary's length; 120 when missing.
    #[serde(default = "summary_tokens")]
    pub max_tokens: usize,
}

fn summary_tokens() -> usize {
    120
}

pub const TYPESCRIPT: &str = r#"
/** `clean`: the messages and the engine's config (the defaults when missing). */
export interface CleanRequest {
  messages: Message[];
  config?: Config | null;
  /** The upcoming prompt is not part of `messages`: every message belongs to a finished turn. */
  historyComplete?: boolean;
}

/** One output position: keep input message `source`, use `message` in its place, or (no
 * `source`) insert `message`. */
export interface Step {
  source?: number;
  message?: Message;
  /** Live sessions only: `false` when this replacement is sent for the first time (keep it). */
  reuse?: boolean;
}

/** What the cleaner did. */
export interface CleanStats {
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Top-level `reasoning_content` fields cleared. */
  cleanedRC: number;
  /** Thinking blocks removed. */
  cleanedThink: number;
  /** Completed tool results dropped. */
  dropTool: number;
  /** Assistant messages dropped because they only carried tool calls. */
  dropAsstTC: number;
  droppedCalls: number;
  droppedEmpty: number;
  mergedText: number;
  /** Index of the frontier message (where the live turn starts). */
  frontier: number;
}

/** `clean`'s result: the plan, the counts, and why the input was returned unchanged, if it was. */
export interface CleanResult {
  steps: Step[];
  stats: CleanStats;
  fallback?: string;
}

/** `summarize`: one turn's messages; the summary is about `maxTokens` long (120 when missing). */
export interface SummarizeRequest {
  turnId: string;
  messages: Message[];
  maxTokens?: number;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::typescript::{check, check_request};
    use serde_json::json;

    #[test]
    fn the_typescript_is_what_is_read_and_written() {
        check_request::<CleanRequest>("CleanRequest");
        check_request::<SummarizeRequest>("SummarizeRequest");
        let messages = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "hello"}]},
            {"role": "user", "content": "read a.txt"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "AAA"}]},
            {"role": "assistant", "content": "all As"},
            {"role": "user", "content": "thanks"}
        ]);
        let r = crate::api::clean_json(&json!({"messages": messages}).to_string()).unwrap();
        let r: Value = serde_json::from_str(&r).unwrap();
        check("CleanResult", &r);
        check("CleanStats", &r["stats"]);
        for s in r["steps"].as_array().unwrap() {
            check("Step", s);
        }
        assert!(r["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s.get("message").is_some()));
    }
}
