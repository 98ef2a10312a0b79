//! The native side of `bench/speed/run.mjs`: the same requests through the same core,
//! compiled for the host instead of wasm, for the native/wasm ratio.
//!
//! Reads one JSON file `{entries, messages, prompt, budget, reps, turns}`, and prints
//! `{"parse": [ms...], "rebuild": [ms...], "assemble": [ms...], "turn": [ms...]}`: parsing
//! the request text, a full index rebuild, `Session::assemble` of the whole history (the
//! core's work of the first request after a session opened), and, for each of `turns`
//! (`{entries, messages, prompt}`: one new turn each) after the first, the index update of the
//! previous turn plus `Session::assemble_delta` with the history grown by it (the core's work
//! per turn of a live session).
//!
//! ```text
//! cargo run --release -p contextfold --example speed -- request.json
//! ```

use contextfold::config::Config;
use contextfold::session::Session;
use contextfold::transcript::entry::Entry;
use contextfold::wire::assemble::{AssembleRequest, DeltaRequest};
use serde_json::Value;
use std::time::Instant;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: speed <request.json>");
    let text = std::fs::read_to_string(&path).expect("readable request file");
    let v: Value = serde_json::from_str(&text).expect("a JSON request");
    let reps = v["reps"].as_u64().unwrap_or(5) as usize;
    let entries: Vec<Entry> = serde_json::from_value(v["entries"].clone()).expect("entries");
    let request = serde_json::json!({ "messages": v["messages"], "prompt": v["prompt"], "budget": v["budget"] });
    let request_text = request.to_string();

    let (mut parse, mut rebuild, mut assemble, mut turn) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut session = Session::new(Config::default());
    for _ in 0..reps.min(3) {
        let t = Instant::now();
        session.rebuild(&entries);
        rebuild.push(ms(t));
    }
    for _ in 0..reps {
        let t = Instant::now();
        let req: AssembleRequest = serde_json::from_str(&request_text).expect("request");
        parse.push(ms(t));
        let t = Instant::now();
        let r = session.assemble(&req);
        assemble.push(ms(t));
        std::hint::black_box(r);
    }

    // A live session: one delta request per new turn, as the JS adapter sends them.
    let budget = v["budget"].as_u64().map(|b| b as usize);
    let history = v["messages"].as_array().cloned().unwrap_or_default();
    let mut session = Session::new(Config::default());
    session.rebuild(&entries);
    let first = DeltaRequest {
        keep: 0,
        append: history.clone(),
        prompt: v["prompt"].as_str().map(String::from),
        budget,
        reuse: true,
        recovery_tool: None,
    };
    std::hint::black_box(session.assemble_delta(first).expect("first request"));
    let mut kept = history.len();
    let turns: Vec<&Value> = v["turns"].as_array().into_iter().flatten().collect();
    for pair in turns.windows(2) {
        let (prev, next) = (pair[0], pair[1]);
        let start = Instant::now();
        let new_entries: Vec<Entry> = serde_json::from_value(prev["entries"].clone()).expect("turn entries");
        session.append(&new_entries);
        let req = DeltaRequest {
            keep: kept,
            append: prev["messages"].as_array().cloned().unwrap_or_default(),
            prompt: next["prompt"].as_str().map(String::from),
            budget,
            reuse: true,
            recovery_tool: None,
        };
        kept += req.append.len();
        std::hint::black_box(session.assemble_delta(req).expect("turn request"));
        turn.push(ms(start));
    }
    println!(
        "{}",
        serde_json::json!({ "parse": parse, "rebuild": rebuild, "assemble": assemble, "turn": turn })
    );
}
