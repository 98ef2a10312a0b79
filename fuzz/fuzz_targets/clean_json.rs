//! The cleaner over arbitrary JSON: `[config byte][complete byte]<a JSON array of messages or
//! a request body with "messages">`. Whatever the messages hold, the ungated proposal passes
//! the validity gate, is deterministic, and is already clean (see `check_clean`); the JSON
//! entry point never panics.
#![no_main]

use contextfold_fuzz::{check_clean, clean_config};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (cfg, complete, body) = (data[0], data[1] & 1 == 1, &data[2..]);
    let _ = contextfold::api::clean_json(std::str::from_utf8(body).unwrap_or(""));
    let Ok(doc) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let messages = match doc {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(a)) => a,
            _ => return,
        },
        _ => return,
    };
    check_clean(&messages, &clean_config(cfg), complete);
});
