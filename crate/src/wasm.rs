//! The wasm boundary: the only module that knows wasm-bindgen.
//!
//! Coarse calls: one JSON document in, one JSON document out (the types are in
//! [`crate::wire`], and their TypeScript goes into the `.d.ts` from here). Errors arrive in JS
//! as `Error`s with the core's message ([`js_error`] is the one conversion); a panic (a bug) is
//! printed by the panic hook and surfaces as a `RuntimeError`, after which the JS layer
//! re-creates the instance.

use crate::config::Config;
use crate::error::ConfigError;
use crate::hash::HashMap;
use crate::wire::{self, to_json};
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_SHARED: &'static str = wire::TYPESCRIPT;
#[wasm_bindgen(typescript_custom_section)]
const TS_CONFIG: &'static str = crate::config::TYPESCRIPT;
#[wasm_bindgen(typescript_custom_section)]
const TS_CLEAN: &'static str = wire::clean::TYPESCRIPT;
#[wasm_bindgen(typescript_custom_section)]
const TS_ASSEMBLE: &'static str = wire::assemble::TYPESCRIPT;
#[wasm_bindgen(typescript_custom_section)]
const TS_TRANSCRIPT: &'static str = wire::transcript::TYPESCRIPT;
#[wasm_bindgen(typescript_custom_section)]
const TS_PRUNE: &'static str = wire::prune::TYPESCRIPT;
#[wasm_bindgen(typescript_custom_section)]
const TS_RULES: &'static str = wire::rules::TYPESCRIPT;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Every refusal of the core, as a JS `Error` with its message.
fn js_error(e: impl std::error::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// Reads a JSON argument (`what` names it in the error).
fn read<T: DeserializeOwned>(what: &'static str, text: &str) -> Result<T, JsError> {
    wire::parse(what, text).map_err(js_error)
}

/// Reads a config (`null`: the defaults).
fn config(text: &str) -> Result<Config, JsError> {
    let c: Option<Config> = wire::parse("config", text).map_err(|e| js_error(ConfigError(e)))?;
    Ok(c.unwrap_or_default())
}

/// Cleans the messages of a request; returns the plan.
#[wasm_bindgen(unchecked_return_type = "Json<CleanResult>")]
pub fn clean(#[wasm_bindgen(unchecked_param_type = "Json<CleanRequest>")] input: &str) -> Result<String, JsError> {
    crate::api::clean_json(input).map_err(js_error)
}

/// Estimated tokens of a JSON array of messages.
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(
    #[wasm_bindgen(unchecked_param_type = "Json<Message[]>")] messages: &str,
) -> Result<usize, JsError> {
    crate::api::estimate_json(messages).map_err(js_error)
}

/// The core's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The engine's default options (the manifest schema mirrors them).
#[wasm_bindgen(js_name = defaultConfig, unchecked_return_type = "Json<Required<Config>>")]
pub fn default_config() -> String {
    to_json(&Config::default())
}

/// A one-shot assemble over a whole transcript.
#[wasm_bindgen(js_name = assembleOnce, unchecked_return_type = "Json<AssembleResult>")]
pub fn assemble_once(
    #[wasm_bindgen(unchecked_param_type = "Json<AssembleOnceRequest>")] input: &str,
) -> Result<String, JsError> {
    crate::api::assemble_json(input).map_err(js_error)
}

/// A deterministic extractive summary of one turn (plain text).
#[wasm_bindgen]
pub fn summarize(
    #[wasm_bindgen(unchecked_param_type = "Json<SummarizeRequest>")] input: &str,
) -> Result<String, JsError> {
    crate::api::summarize_json(input).map_err(js_error)
}

/// Chooses old turns to prune (`fifo`, `sliding-window`, `importance`).
#[wasm_bindgen(unchecked_return_type = "Json<PruneResult>")]
pub fn prune(#[wasm_bindgen(unchecked_param_type = "Json<PruneRequest>")] input: &str) -> Result<String, JsError> {
    crate::api::prune_json(input).map_err(js_error)
}

/// The active branch of transcript entries (`{id, parentId}`): the host's rule, the one the
/// session index follows.
#[wasm_bindgen(js_name = activeBranch, unchecked_return_type = "Json<Branch>")]
pub fn active_branch(#[wasm_bindgen(unchecked_param_type = "Json<Entry[]>")] entries: &str) -> Result<String, JsError> {
    crate::api::active_branch_json(entries).map_err(js_error)
}

/// The ids of the turns that pins hold (the planner's and prune's rule).
#[wasm_bindgen(js_name = pinnedTurns, unchecked_return_type = "Json<string[]>")]
pub fn pinned_turns(
    #[wasm_bindgen(unchecked_param_type = "Json<PinnedTurnsRequest>")] input: &str,
) -> Result<String, JsError> {
    crate::api::pinned_turns_json(input).map_err(js_error)
}

/// A live session: index, topics and caches kept inside the wasm instance between requests.
#[wasm_bindgen]
pub struct Session(crate::session::Session);

#[wasm_bindgen]
impl Session {
    /// Creates a session with the engine config.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "Json<Config | null>")] config: &str) -> Result<Session, JsError> {
        Ok(Session(crate::session::Session::new(self::config(config)?)))
    }

    /// Replaces the config.
    pub fn configure(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<Config | null>")] config: &str,
    ) -> Result<(), JsError> {
        self.0.set_config(self::config(config)?);
        Ok(())
    }

    /// Loads a persisted index; false when its version is not this build's.
    #[wasm_bindgen(js_name = loadIndex)]
    pub fn load_index(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<SessionIndex>")] index: &str,
    ) -> Result<bool, JsError> {
        Ok(self.0.load_index(read("index", index)?))
    }

    /// The index (to persist, and for the CLI and tools).
    #[wasm_bindgen(js_name = indexJson, unchecked_return_type = "Json<SessionIndex>")]
    pub fn index_json(&self) -> String {
        to_json(self.0.index())
    }

    /// Rebuilds the index from all transcript entries.
    #[wasm_bindgen(unchecked_return_type = "Json<IndexUpdate>")]
    pub fn rebuild(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<Entry[]>")] entries: &str,
    ) -> Result<String, JsError> {
        let entries: Vec<crate::transcript::entry::Entry> = read("entries", entries)?;
        Ok(to_json(&self.0.rebuild(&entries)))
    }

    /// Appends new transcript entries; the result's `rewrite` asks for a rebuild.
    #[wasm_bindgen(unchecked_return_type = "Json<IndexUpdate>")]
    pub fn append(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<Entry[]>")] entries: &str,
    ) -> Result<String, JsError> {
        let entries: Vec<crate::transcript::entry::Entry> = read("entries", entries)?;
        Ok(to_json(&self.0.append(&entries)))
    }

    /// Plans a request whose history starts with the first `keep` messages of the previous
    /// one. With `reuse`, the result is a `DeltaResult`.
    #[wasm_bindgen(js_name = assembleDelta, unchecked_return_type = "Json<DeltaResult | AssembleResult>")]
    pub fn assemble_delta(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<DeltaRequest>")] request: &str,
    ) -> Result<String, JsError> {
        let r = self.0.assemble_delta(read("request", request)?).map_err(js_error)?;
        Ok(r.to_json())
    }

    /// Messages kept from the last delta request.
    #[wasm_bindgen(js_name = historyLength)]
    pub fn history_length(&self) -> usize {
        self.0.history_len()
    }

    /// Topics and the topic of each turn.
    #[wasm_bindgen(unchecked_return_type = "Json<Topics>")]
    pub fn topics(&mut self) -> String {
        let (topics, topic_of_turn) = self.0.topics();
        to_json(&wire::transcript::Topics {
            topics: &topics,
            topic_of_turn: &topic_of_turn,
        })
    }

    /// Adds summaries (`{turnId: text}`).
    #[wasm_bindgen(js_name = setSummaries)]
    pub fn set_summaries(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<Record<string, string>>")] summaries: &str,
    ) -> Result<(), JsError> {
        self.0
            .set_summaries(read::<HashMap<String, String>>("summaries", summaries)?);
        Ok(())
    }

    /// Adds sub-topic labels (`{turnId: label}`).
    #[wasm_bindgen(js_name = setSubtopics)]
    pub fn set_subtopics(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<Record<string, string>>")] labels: &str,
    ) -> Result<(), JsError> {
        self.0.set_subtopics(read::<HashMap<String, String>>("labels", labels)?);
        Ok(())
    }

    /// Replaces the sticky fold decisions (turn ids).
    #[wasm_bindgen(js_name = setFolded)]
    pub fn set_folded(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<string[]>")] ids: &str,
    ) -> Result<(), JsError> {
        self.0.set_folded(read::<Vec<String>>("turn ids", ids)?);
        Ok(())
    }

    /// The sticky fold decisions (turn ids, sorted), to persist.
    #[wasm_bindgen(js_name = foldedJson, unchecked_return_type = "Json<string[]>")]
    pub fn folded_json(&self) -> String {
        to_json(&self.0.folded())
    }

    /// Replaces the turns folded by a manual compaction (turn ids).
    #[wasm_bindgen(js_name = setCompacted)]
    pub fn set_compacted(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<string[]>")] ids: &str,
    ) -> Result<(), JsError> {
        self.0.set_compacted(read::<Vec<String>>("turn ids", ids)?);
        Ok(())
    }

    /// The turns folded by a manual compaction (turn ids, sorted), to persist.
    #[wasm_bindgen(js_name = compactedJson, unchecked_return_type = "Json<string[]>")]
    pub fn compacted_json(&self) -> String {
        to_json(&self.0.compacted())
    }

    /// Deterministic sub-topic labels of every turn (`{turnId: "lex:<label>"}`).
    #[wasm_bindgen(js_name = heuristicSubtopics, unchecked_return_type = "Json<Record<string, string>>")]
    pub fn heuristic_subtopics(&mut self) -> String {
        to_json(&self.0.heuristic_subtopics())
    }

    /// The deterministic sub-topic label of one turn (its entry in `heuristicSubtopics`).
    #[wasm_bindgen(js_name = heuristicSubtopic)]
    pub fn heuristic_subtopic(&mut self, turn_id: &str) -> Option<String> {
        self.0.heuristic_subtopic(turn_id)
    }

    /// The ids of the newest `n` turns not folded away by the host's compaction, oldest first.
    #[wasm_bindgen(js_name = recentTurnIds, unchecked_return_type = "Json<string[]>")]
    pub fn recent_turn_ids(&self, n: usize) -> String {
        to_json(&self.0.recent_turn_ids(n))
    }

    /// Replaces the boundaries judged "same topic" (ids of the turns opening them).
    #[wasm_bindgen(js_name = setMerged)]
    pub fn set_merged(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Json<string[]>")] ids: &str,
    ) -> Result<(), JsError> {
        self.0.set_merged(read::<Vec<String>>("turn ids", ids)?);
        Ok(())
    }

    /// Id of the newest indexed transcript entry.
    pub fn tip(&self) -> Option<String> {
        self.0.index().tip.clone()
    }

    /// Replaces the pins.
    #[wasm_bindgen(js_name = setPins)]
    pub fn set_pins(&mut self, #[wasm_bindgen(unchecked_param_type = "Json<Pins>")] pins: &str) -> Result<(), JsError> {
        self.0.set_pins(read("pins", pins)?);
        Ok(())
    }
}

/// Diagnostics for the fault tests of the JS layer: `"panic"` panics inside the core (the
/// instance is then unusable and the loader must replace it); anything else returns "ok".
#[wasm_bindgen(js_name = selfCheck)]
pub fn self_check(kind: &str) -> String {
    if kind == "panic" {
        panic!("contextfold self-check: deliberate panic");
    }
    "ok".to_string()
}
