//! The wasm boundary: the only module that knows wasm-bindgen.
//!
//! Coarse and stateless calls: one JSON document in, one JSON document out. Errors arrive in
//! JS as `Error`s with the core's message; a panic (a bug) is printed by the panic hook and
//! surfaces as a `RuntimeError`, after which the JS layer re-creates the instance.

use crate::read::{self, Parsed};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// talc instead of std's dlmalloc: 6.5 KB smaller raw, 3 KB gzipped, at the same speed
/// (bench/size/README.md, fourth round). It frees and reuses memory like dlmalloc.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

fn to_js(e: crate::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// Cleans a request (`{"messages": [...], "config": {...}}`); returns the plan as JSON.
#[wasm_bindgen]
pub fn clean(input: &str) -> Result<String, JsError> {
    crate::clean_json(input).map_err(to_js)
}

/// Estimated tokens of a JSON array of messages.
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(messages: &str) -> Result<usize, JsError> {
    crate::estimate_json(messages).map_err(to_js)
}

/// The core's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The engine's default options, as JSON (the manifest schema mirrors them).
#[wasm_bindgen(js_name = defaultConfig)]
pub fn default_config() -> Result<String, JsError> {
    Ok(crate::config::DEFAULT_JSON.to_string())
}

/// A one-shot assemble over a whole transcript: `{messages, entries?, prompt?, budget?,
/// config?, summaries?, folded?, pins?}` → `{steps, estimatedTokens, turns, stats, ...}`.
#[wasm_bindgen(js_name = assembleOnce)]
pub fn assemble_once(input: &str) -> Result<String, JsError> {
    crate::assemble_json(input).map_err(to_js)
}

/// A deterministic extractive summary of one turn (`{turnId, messages, maxTokens?}`).
#[wasm_bindgen]
pub fn summarize(input: &str) -> Result<String, JsError> {
    crate::summarize_json(input).map_err(to_js)
}

fn invalid(e: crate::read::Bad) -> JsError {
    JsError::new(&format!("invalid input: {e}"))
}

/// Parses a JSON argument and reads it by hand (see [`crate::read`]).
fn parse<T>(s: &str, read: fn(Value) -> Parsed<T>) -> Result<T, JsError> {
    read(crate::json_in::parse(s).map_err(invalid)?).map_err(invalid)
}

/// A result as JSON ([`crate::json_out`]: what serde_json prints for its derived `Serialize`).
fn json(v: &dyn crate::json_out::Json) -> Result<String, JsError> {
    Ok(crate::json_out::to_string(v))
}

fn entries_of(v: Value) -> Parsed<Vec<crate::index::Entry>> {
    read::list(v, crate::index::Entry::from_value)
}

/// A live session: index, topics and caches kept inside the wasm instance between requests.
#[wasm_bindgen]
pub struct Session(crate::session::Session);

#[wasm_bindgen]
impl Session {
    /// Creates a session with the engine config (JSON object).
    #[wasm_bindgen(constructor)]
    pub fn new(config: &str) -> Result<Session, JsError> {
        let v: Value = parse(config, Ok)?;
        let cfg = crate::config::Config::from_json(&v).map_err(to_js)?;
        Ok(Session(crate::session::Session::new(cfg)))
    }

    /// Replaces the config.
    pub fn configure(&mut self, config: &str) -> Result<(), JsError> {
        let v: Value = parse(config, Ok)?;
        self.0.set_config(crate::config::Config::from_json(&v).map_err(to_js)?);
        Ok(())
    }

    /// Loads a persisted index; false when its version is not this build's.
    #[wasm_bindgen(js_name = loadIndex)]
    pub fn load_index(&mut self, index: &str) -> Result<bool, JsError> {
        Ok(self.0.load_index(parse(index, crate::index::SessionIndex::from_value)?))
    }

    /// The index as JSON (to persist, and for the CLI and tools).
    #[wasm_bindgen(js_name = indexJson)]
    pub fn index_json(&self) -> Result<String, JsError> {
        json(self.0.index())
    }

    /// Rebuilds the index from all transcript entries.
    pub fn rebuild(&mut self, entries: &str) -> Result<String, JsError> {
        let e = parse(entries, entries_of)?;
        json(&self.0.rebuild(&e))
    }

    /// Appends new transcript entries; the result's `rewrite` asks for a rebuild.
    pub fn append(&mut self, entries: &str) -> Result<String, JsError> {
        let e = parse(entries, entries_of)?;
        json(&self.0.append(&e))
    }

    /// Plans a request whose history starts with the first `keep` messages of the previous
    /// one: `{keep, append, prompt?, budget?}`.
    #[wasm_bindgen(js_name = assembleDelta)]
    pub fn assemble_delta(&mut self, request: &str) -> Result<String, JsError> {
        let r = parse(request, crate::session::DeltaRequest::from_value)?;
        json(&self.0.assemble_delta(r).map_err(to_js)?)
    }

    /// Messages kept from the last delta request.
    #[wasm_bindgen(js_name = historyLength)]
    pub fn history_length(&self) -> usize {
        self.0.history_len()
    }

    /// Topics and the topic of each turn.
    pub fn topics(&mut self) -> Result<String, JsError> {
        let (topics, of) = self.0.topics();
        Ok(crate::json_out::topics(&topics, &of))
    }

    /// Adds summaries (`{turnId: text}`).
    #[wasm_bindgen(js_name = setSummaries)]
    pub fn set_summaries(&mut self, summaries: &str) -> Result<(), JsError> {
        self.0.set_summaries(parse(summaries, |v| read::map(v, read::string))?);
        Ok(())
    }

    /// Adds sub-topic labels (`{turnId: label}`).
    #[wasm_bindgen(js_name = setSubtopics)]
    pub fn set_subtopics(&mut self, labels: &str) -> Result<(), JsError> {
        self.0.set_subtopics(parse(labels, |v| read::map(v, read::string))?);
        Ok(())
    }

    /// Replaces the sticky fold decisions (`[turnId]`).
    #[wasm_bindgen(js_name = setFolded)]
    pub fn set_folded(&mut self, ids: &str) -> Result<(), JsError> {
        let v = parse(ids, read::strings)?;
        self.0.set_folded(v);
        Ok(())
    }

    /// The sticky fold decisions (`[turnId]`), to persist.
    #[wasm_bindgen(js_name = foldedJson)]
    pub fn folded_json(&self) -> Result<String, JsError> {
        json(&self.0.folded())
    }

    /// Deterministic sub-topic labels of every turn (`{turnId: "lex:<label>"}`).
    #[wasm_bindgen(js_name = heuristicSubtopics)]
    pub fn heuristic_subtopics(&mut self) -> Result<String, JsError> {
        Ok(crate::tokens::json_text(&Value::Object(self.0.heuristic_subtopics())))
    }

    /// Replaces the boundaries judged "same topic" (`[turnId]` of the turns opening them).
    #[wasm_bindgen(js_name = setMerged)]
    pub fn set_merged(&mut self, ids: &str) -> Result<(), JsError> {
        let v = parse(ids, read::strings)?;
        self.0.set_merged(v);
        Ok(())
    }

    /// Id of the newest indexed transcript entry.
    pub fn tip(&self) -> Option<String> {
        self.0.index().tip.clone()
    }

    /// Replaces the pins (`{turnIds, tools, patterns}`).
    #[wasm_bindgen(js_name = setPins)]
    pub fn set_pins(&mut self, pins: &str) -> Result<(), JsError> {
        self.0.set_pins(parse(pins, read::pins)?);
        Ok(())
    }
}

/// Chooses old turns to prune (`fifo`, `sliding-window`, `importance`):
/// `{messages, strategy, keepMessages?, targetTokens?, maxTurns?, protectRecentTurns?,
/// preserveSystemMessages?, pins?, idsByKey?, turnTokens?, exclude?}` → `{pruned, turnIds,
/// messages, steps, tokensBefore, tokensAfter, targetMet, skipped, ...}`.
#[wasm_bindgen]
pub fn prune(input: &str) -> Result<String, JsError> {
    crate::prune::prune_json(input).map_err(to_js)
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
