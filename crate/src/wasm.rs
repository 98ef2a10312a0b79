//! The wasm boundary: the only module that knows wasm-bindgen.
//!
//! Coarse and stateless calls: one JSON document in, one JSON document out. Errors arrive in
//! JS as `Error`s with the core's message; a panic (a bug) is printed by the panic hook and
//! surfaces as a `RuntimeError`, after which the JS layer re-creates the instance.

use wasm_bindgen::prelude::*;

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

/// The cleaner's default options, as JSON (the manifest schema mirrors them).
#[wasm_bindgen(js_name = defaultConfig)]
pub fn default_config() -> Result<String, JsError> {
    serde_json::to_string(&crate::config::CleanConfig::default()).map_err(|e| JsError::new(&e.to_string()))
}
