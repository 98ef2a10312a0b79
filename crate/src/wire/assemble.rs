//! The assemble calls: the one-shot request (CLI, playground), a live session's requests, the
//! result, and the live session's compact form of it.

use crate::config::Config;
use crate::fold::pins::Pins;
use crate::fold::planner::{AssembleStats, TurnExplain};
use crate::hash::HashMap;
use crate::model::steps::Step;
use crate::transcript::entry::Entry;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// A stateless assemble over a whole transcript (`assembleOnce`: CLI and playground): the index
/// is built from `entries` (from `messages` when missing), the caches are loaded, `messages`
/// are planned.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssembleOnceRequest {
    pub messages: Vec<Value>,
    #[serde(default)]
    pub entries: Option<Vec<Entry>>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub budget: Option<usize>,
    /// The defaults when missing or `null`.
    #[serde(default)]
    pub config: Option<Config>,
    #[serde(default)]
    pub summaries: HashMap<String, String>,
    #[serde(default)]
    pub folded: Vec<String>,
    #[serde(default)]
    pub pins: Pins,
    /// Whether this request offers the model the recovery tool (stubs name it only then);
    /// offered when absent.
    #[serde(default)]
    pub recovery_tool: Option<bool>,
}

/// An assemble request to a live session, with the whole history (Rust callers).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssembleRequest {
    pub messages: Vec<Value>,
    #[serde(default)]
    pub prompt: Option<String>,
    /// The host's token budget; `maxTokens` when absent.
    #[serde(default)]
    pub budget: Option<usize>,
    /// Whether this request offers the model the recovery tool (stubs name it only then);
    /// offered when absent.
    #[serde(default)]
    pub recovery_tool: Option<bool>,
}

/// An assemble request to a live session that reuses the previous request's messages
/// (`Session.assembleDelta`; see [`crate::session::Session::assemble_delta`]).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeltaRequest {
    /// How many messages of the previous request's history start this one.
    pub keep: usize,
    /// The messages after them.
    #[serde(default)]
    pub append: Vec<Value>,
    #[serde(default)]
    pub prompt: Option<String>,
    /// The host's token budget; `maxTokens` when absent.
    #[serde(default)]
    pub budget: Option<usize>,
    /// The caller keeps the replacement messages of earlier responses: a step whose
    /// replacement was sent before says `"reuse": true` instead of carrying it again, and a
    /// replacement sent for the first time says `"reuse": false` (keep it). It keeps the turn
    /// explanations too: one equal to the explanation at the same position in the previous
    /// response is marked `repeated`. The result is then written in its compact form
    /// ([`CompactResult`]).
    #[serde(default)]
    pub reuse: bool,
    /// Whether this request offers the model the recovery tool (stubs name it only then);
    /// offered when absent.
    #[serde(default)]
    pub recovery_tool: Option<bool>,
}

/// An assemble result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssembleResult {
    pub steps: Vec<Step>,
    pub estimated_tokens: usize,
    pub turns: Vec<TurnExplain>,
    pub stats: AssembleStats,
    pub summarize: Vec<String>,
    pub folded: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// Turns this plan folded that no earlier plan of the session had folded (what a caller
    /// that keeps the sticky decisions records; written instead of `folded` in the compact
    /// form, which a live session sends on every request).
    #[serde(skip)]
    pub newly_folded: Vec<String>,
    /// For a caller that keeps replacements (see [`DeltaRequest::reuse`]): the result is
    /// written as a [`CompactResult`] (see [`AssembleResult::to_json`]). Rust callers see the
    /// steps themselves.
    #[serde(skip)]
    pub compact: bool,
}

impl AssembleResult {
    /// The result as JSON: compactly for a caller that keeps replacements.
    pub fn to_json(&self) -> String {
        match self.compact {
            true => super::to_json(&CompactResult::of(self)),
            false => super::to_json(self),
        }
    }
}

/// [`AssembleResult`] for a caller that keeps what it was sent before: the same fields, with
/// the steps and the turn explanations in their compact forms.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactResult<'a> {
    steps: Vec<CompactStep<'a>>,
    estimated_tokens: usize,
    turns: Vec<CompactTurn<'a>>,
    stats: &'a AssembleStats,
    summarize: &'a [String],
    newly_folded: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    fallback: Option<&'a str>,
}

impl<'a> CompactResult<'a> {
    pub fn of(r: &'a AssembleResult) -> CompactResult<'a> {
        CompactResult {
            steps: r.steps.iter().map(CompactStep::of).collect(),
            estimated_tokens: r.estimated_tokens,
            turns: r
                .turns
                .iter()
                .map(|t| match t.repeated {
                    true => CompactTurn::Repeated,
                    false => CompactTurn::Explained(t),
                })
                .collect(),
            stats: &r.stats,
            summarize: &r.summarize,
            newly_folded: &r.newly_folded,
            fallback: r.fallback.as_deref(),
        }
    }
}

/// A step as a number where one says it all: input message `i` kept is `i`; the replacement
/// of message `i` sent before is `-i - 1`. Any other step is the step itself.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum CompactStep<'a> {
    Keep(usize),
    Sent(i64),
    Step(&'a Step),
}

impl<'a> CompactStep<'a> {
    fn of(s: &'a Step) -> CompactStep<'a> {
        match (s.source, &s.message, s.reuse) {
            (Some(i), None, None) => CompactStep::Keep(i),
            (Some(i), None, Some(true)) => CompactStep::Sent(-1 - i as i64),
            _ => CompactStep::Step(s),
        }
    }
}

/// A turn explanation, as `0` when it is the one at its position in the previous response.
#[derive(Debug)]
enum CompactTurn<'a> {
    Repeated,
    Explained(&'a TurnExplain),
}

impl Serialize for CompactTurn<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CompactTurn::Repeated => s.serialize_u8(0),
            CompactTurn::Explained(t) => t.serialize(s),
        }
    }
}

pub const TYPESCRIPT: &str = r#"
/** Turns that are never folded: by id, by a tool they call, or by a phrase in their text
 * (case-insensitive). Missing lists are empty. */
export interface Pins {
  turnIds?: string[];
  tools?: string[];
  patterns?: string[];
}

/** `assembleOnce`: a stateless assemble over a whole transcript. The index is built from
 * `entries` (from `messages` when missing); `summaries` and `folded` are the caches by turn id. */
export interface AssembleOnceRequest {
  messages: Message[];
  entries?: Entry[] | null;
  prompt?: string | null;
  /** The host's token budget; the config's `maxTokens` when missing. */
  budget?: number | null;
  config?: Config | null;
  summaries?: Record<string, string>;
  folded?: string[];
  pins?: Pins;
  /** Whether the model of this request is offered `context_engine_recover`: stubs name the
   * tool unless this is `false`. */
  recoveryTool?: boolean | null;
}

/** `Session.assembleDelta`: the history is the first `keep` messages of the previous request's
 * history, then `append`. With `reuse` the result is a `DeltaResult`. */
export interface DeltaRequest {
  keep: number;
  append?: Message[];
  prompt?: string | null;
  budget?: number | null;
  reuse?: boolean;
  /** As in `AssembleOnceRequest`. */
  recoveryTool?: boolean | null;
}

/** `masked`: tool results replaced by one-line placeholders; `recalled`: folded, and sent again
 * in full in a recall block before the prompt. */
export type Decision = "kept" | "cleaned" | "truncated" | "masked" | "summarized" | "stubbed" | "recalled";

/** What happened to one turn, and why. */
export interface TurnExplain {
  id: string;
  topic: string;
  decision: Decision;
  reason: string;
  tokensBefore: number;
  tokensAfter: number;
  protected: boolean;
  /** The turn's message positions `[start, end)` in the input. */
  range: [number, number];
}

/** Totals of one assemble. */
export interface AssembleStats {
  budget: number;
  turns: number;
  kept: number;
  cleaned: number;
  truncated: number;
  masked: number;
  summarized: number;
  stubbed: number;
  recalled: number;
  /** Planned anew (not appended to the previous request of a live session). */
  replanned: boolean;
  clean: CleanStats;
  /** The newest turn alone (with what cannot fold) exceeds the budget. */
  overBudget: boolean;
}

/** An assemble's result: the plan, its estimated tokens, one explanation per turn, the turns
 * to summarize in the background, the turns folded for the budget (sticky), and why the plan
 * fell back to the cleaner alone, if it did. */
export interface AssembleResult {
  steps: Step[];
  estimatedTokens: number;
  turns: TurnExplain[];
  stats: AssembleStats;
  summarize: string[];
  folded: string[];
  fallback?: string;
}

/** `Session.assembleDelta`'s result with `reuse`: a step `i >= 0` keeps input message `i`,
 * `-i - 1` is the replacement of message `i` sent before; a turn `0` is the explanation at
 * its position in the previous response. `newlyFolded`: the turns this plan folded that no
 * earlier plan of the session had (the whole sticky set is `Session.foldedJson`). */
export interface DeltaResult {
  steps: (number | Step)[];
  estimatedTokens: number;
  turns: (0 | TurnExplain)[];
  stats: AssembleStats;
  summarize: string[];
  newlyFolded: string[];
  fallback?: string;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;
    use crate::wire::typescript::{check, check_request};
    use serde_json::json;
    use std::collections::BTreeSet;

    /// Turns whose messages the planner replaces (thinking goes, a string prompt becomes parts)
    /// and turns it keeps as they are.
    fn history(turns: usize) -> Vec<Value> {
        (0..turns)
            .flat_map(|t| match t % 2 {
                0 => [
                    json!({"role": "user", "content": format!("question {t} about parsers")}),
                    json!({"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "let me think"},
                        {"type": "text", "text": format!("answer {t}")}
                    ]}),
                ],
                _ => [
                    json!({"role": "user", "content": [{"type": "text", "text": format!("question {t} about lexers")}]}),
                    json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {t}")}]}),
                ],
            })
            .collect()
    }

    fn delta(keep: usize, append: &[Value], budget: usize) -> DeltaRequest {
        DeltaRequest {
            keep,
            append: append.to_vec(),
            prompt: Some("next".into()),
            budget: Some(budget),
            reuse: true,
            recovery_tool: None,
        }
    }

    #[test]
    fn the_typescript_is_what_is_read_and_written() {
        check_request::<AssembleOnceRequest>("AssembleOnceRequest");
        check_request::<DeltaRequest>("DeltaRequest");
        let all = history(6);
        let r = crate::api::assemble_json(&json!({"messages": all, "budget": 60, "prompt": "parsers"}).to_string());
        let r: Value = serde_json::from_str(&r.unwrap()).unwrap();
        check("AssembleResult", &r);
        check("AssembleStats", &r["stats"]);
        check("CleanStats", &r["stats"]["clean"]);
        for t in r["turns"].as_array().unwrap() {
            check("TurnExplain", t);
        }
        let mut s = Session::new(Config::default());
        s.assemble_delta(delta(0, &all, 50_000)).unwrap();
        let r: Value = serde_json::from_str(&s.assemble_delta(delta(12, &[], 50_000)).unwrap().to_json()).unwrap();
        check("DeltaResult", &r);
        assert!(r["turns"].as_array().unwrap().iter().all(|t| *t == json!(0)));
    }

    /// Decoded as the JS layer decodes it (js/core/core.js), the compact form is the plain one.
    #[test]
    fn the_compact_form_decodes_to_the_plain_one() {
        let all = history(6);
        let mut s = Session::new(Config::default());
        // The same requests, whole, to a session that answers plainly.
        let mut twin = Session::new(Config::default());
        let mut explained: Vec<Value> = Vec::new();
        let mut replaced: HashMap<i64, Value> = HashMap::default();
        let mut forms = (0, 0, 0);
        let mut sticky: BTreeSet<String> = BTreeSet::new();
        for (keep, append, budget) in [
            (0, &all[..8], 50_000),
            (8, &all[8..], 50_000),
            (12, &[][..], 60),
            (12, &[][..], 60),
        ] {
            let r = s.assemble_delta(delta(keep, append, budget)).unwrap();
            let history = &all[..keep + append.len()];
            let mut out: Value = serde_json::from_str(&r.to_json()).unwrap();
            for st in out["steps"].as_array_mut().unwrap() {
                *st = match st.as_i64() {
                    Some(n) if n >= 0 => {
                        forms.0 += 1;
                        json!({"source": n})
                    }
                    Some(n) => {
                        forms.1 += 1;
                        json!({"source": -n - 1, "message": replaced[&(-n - 1)]})
                    }
                    None => {
                        if st["reuse"] == json!(false) {
                            replaced.insert(st["source"].as_i64().unwrap(), st["message"].clone());
                        }
                        st.as_object_mut().unwrap().remove("reuse");
                        st.clone()
                    }
                };
            }
            for (i, t) in out["turns"].as_array_mut().unwrap().iter_mut().enumerate() {
                if *t == json!(0) {
                    forms.2 += 1;
                    *t = explained[i].clone();
                }
            }
            explained = out["turns"].as_array().unwrap().clone();
            // The compact form lists the turns folded anew; together they are the sticky set.
            let newly = out.as_object_mut().unwrap().remove("newlyFolded").unwrap();
            sticky.extend(
                newly
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|id| id.as_str().unwrap().to_string()),
            );
            let plain = twin.assemble(&AssembleRequest {
                messages: history.to_vec(),
                prompt: Some("next".into()),
                budget: Some(budget),
                recovery_tool: None,
            });
            assert!(!plain.compact);
            let mut plain = serde_json::from_str::<Value>(&plain.to_json()).unwrap();
            plain.as_object_mut().unwrap().remove("folded");
            assert_eq!(out, plain, "keep {keep}");
            assert_eq!(
                sticky,
                twin.folded().into_iter().collect::<BTreeSet<_>>(),
                "keep {keep}"
            );
        }
        assert!(forms.0 > 0 && forms.1 > 0 && forms.2 > 0, "{forms:?}");
        assert!(!sticky.is_empty(), "a plan folded turns");
    }
}
