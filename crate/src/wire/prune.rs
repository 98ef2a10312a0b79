//! `prune`'s TypeScript (its request and result are [`crate::fold::prune`]'s types).

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
    use crate::fold::prune::PruneRequest;
    use crate::wire::typescript::{check, check_request};
    use serde_json::json;
    use serde_json::Value;

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
        let r = crate::api::prune_json(
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
