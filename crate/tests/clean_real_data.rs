//! The cleaner over real transcripts written by other people (see `shared/data/README.md`):
//! a Claude Code session (Anthropic shape, one message per content block, thinking with
//! signatures) and tau-bench airline trajectories (OpenAI chat shape, reused call ids).
//!
//! Every prefix of every transcript is cleaned, as the engine would see it before each
//! request, under several configs; the ungated proposal must pass the validity gate, be
//! deterministic and idempotent, and keep the frontier and what follows byte-identical.
//!
//! The data is found through `CONTEXTFOLD_DATA` or at `<workspace>/../shared/data`; when it is
//! absent the tests fail and say where they looked.

use contextfold::clean::clean_messages;
use contextfold::clean::cleaner;
use contextfold::clean::gate;
use contextfold::config::CleanConfig;
use contextfold::model::steps;
use serde_json::Value;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    let dir = match std::env::var_os("CONTEXTFOLD_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"),
    };
    assert!(
        dir.is_dir(),
        "no data directory at {} (set CONTEXTFOLD_DATA to the shared data folder)",
        dir.display()
    );
    dir
}

/// The text of a data file, or a failure that names it.
fn read_data(relative: &str) -> String {
    let path = data_dir().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The configs every full transcript is cleaned with; every prefix gets the first two.
fn configs() -> Vec<CleanConfig> {
    let d = CleanConfig::default();
    vec![
        d.clone(),
        CleanConfig {
            keep_recent_turns: 1,
            ..d.clone()
        },
        CleanConfig {
            drop_tool_call_messages: false,
            ..d.clone()
        },
        CleanConfig {
            drop_tool_results: false,
            ..d.clone()
        },
        CleanConfig {
            clean_thinking: false,
            clear_reasoning_content: false,
            ..d
        },
    ]
}

/// Checks one input; returns (tokens before, tokens after) under `cfg`.
fn check(name: &str, input: &[Value], cfg: &CleanConfig) -> (usize, usize) {
    let proposal = cleaner::clean(input, cfg);
    if let Err(refusal) = gate::check(input, &proposal.steps, proposal.frontier.loop_start) {
        panic!(
            "{name} ({} messages, {cfg:?}): the gate refuses the cleaner's proposal: {refusal}",
            input.len()
        );
    }
    // The gated run cleans again: same plan, same counts.
    let first = clean_messages(input, cfg);
    assert_eq!(first.fallback, None, "{name}");
    assert_eq!(first.steps, proposal.steps, "{name}: not deterministic");
    assert_eq!(first.stats, proposal.stats, "{name}: not deterministic");
    let output = steps::apply(&first.steps, input);
    let again = clean_messages(&output, cfg);
    assert!(
        !again.stats.changed(),
        "{name} ({cfg:?}): second run changed {:?}",
        again.stats
    );
    assert_eq!(again.steps, steps::identity(output.len()), "{name}");
    let f = proposal.frontier.index;
    if f < input.len() {
        let pos = first
            .steps
            .iter()
            .position(|s| s.source == Some(f))
            .expect("frontier kept");
        assert_eq!(
            serde_json::to_string(&output[pos..]).unwrap(),
            serde_json::to_string(&input[f..]).unwrap(),
            "{name}: the frontier tail changed"
        );
    }
    assert!(first.stats.tokens_after <= first.stats.tokens_before, "{name}");
    (first.stats.tokens_before, first.stats.tokens_after)
}

/// Cleans every prefix of `messages`; prints the savings on the whole transcript.
fn check_prefixes(name: &str, messages: &[Value]) {
    for cfg in configs() {
        for n in 0..=messages.len() {
            check(name, &messages[..n], &cfg);
        }
    }
    let (before, after) = check(name, messages, &CleanConfig::default());
    println!("{name}: {} messages, {before} -> {after} tokens", messages.len());
}

#[test]
fn claude_code_transcripts() {
    let dir = data_dir().join("claude-code");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    files.sort();
    assert!(!files.is_empty(), "no Claude Code transcripts under {}", dir.display());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let messages: Vec<Value> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|line| matches!(line["type"].as_str(), Some("user" | "assistant")))
            .filter_map(|line| line.get("message").filter(|m| m.is_object()).cloned())
            .collect();
        assert!(!messages.is_empty(), "{}", path.display());
        check_prefixes(&path.file_name().unwrap().to_string_lossy(), &messages);
    }
}

#[test]
fn claude_code_main_transcript_is_cleaned() {
    let text = read_data("claude-code/sample_main_transcript.jsonl");
    let messages: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|line| matches!(line["type"].as_str(), Some("user" | "assistant")))
        .filter_map(|line| line.get("message").cloned())
        .collect();
    // Cut right after the last answer before the compaction: a completed multi-tool session.
    let last_answer = messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .expect("an assistant message");
    let mut input = messages[..=last_answer].to_vec();
    input.push(serde_json::json!({"role": "user", "content": "thanks"}));
    let r = clean_messages(&input, &CleanConfig::default());
    assert_eq!(r.fallback, None);
    assert!(r.stats.cleaned_think > 0 && r.stats.drop_tool > 0, "{:?}", r.stats);
    assert!(r.stats.tokens_after < r.stats.tokens_before);
    // The first four turns (one tool call each) come out as prompt + answer text only. (In
    // the last turn, dropping the exchange would put two separate answers' text blocks next
    // to each other: Claude Code writes one line per content block, so the cleaner keeps it.)
    let out = steps::apply(&r.steps, &input);
    let fifth_prompt = out
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "user" && m["content"].is_string())
        .nth(4)
        .map(|(i, _)| i)
        .expect("five prompts");
    let early = serde_json::to_string(&out[..fifth_prompt]).unwrap();
    assert!(
        !early.contains("\"tool_use\"") && !early.contains("\"tool_result\""),
        "{early}"
    );
    assert!(!early.contains("\"thinking\""), "{early}");
    assert_eq!(fifth_prompt, 8);
}

/// The tau-bench trajectories.
fn taubench() -> Vec<Value> {
    let items: Vec<Value> = serde_json::from_str(&read_data("taubench/gpt-4o-airline-dev.json")).unwrap();
    assert!(!items.is_empty());
    items
}

/// Every request point of every trajectory (the history up to each user prompt or tool
/// result) under `cfg`.
fn taubench_request_points(cfg: &CleanConfig) {
    let items = taubench();
    for (k, item) in items.iter().enumerate() {
        let traj = item["traj"].as_array().expect("traj is a message list");
        let name = format!("tau-bench #{k} (task {})", item["task_id"]);
        for n in 1..traj.len() {
            if traj[n]["role"] == "assistant" {
                check(&name, &traj[..n], cfg);
            }
        }
    }
}

#[test]
fn taubench_request_points_default() {
    taubench_request_points(&configs()[0]);
}

#[test]
fn taubench_request_points_keep_recent() {
    taubench_request_points(&configs()[1]);
}

#[test]
fn taubench_whole_trajectories() {
    let items = taubench();
    let (mut before, mut after) = (0, 0);
    for (k, item) in items.iter().enumerate() {
        let traj = item["traj"].as_array().expect("traj is a message list");
        let name = format!("tau-bench #{k} (task {})", item["task_id"]);
        for cfg in configs() {
            check(&name, traj, &cfg);
        }
        let (b, a) = check(&name, traj, &CleanConfig::default());
        before += b;
        after += a;
    }
    assert!(after < before);
    println!("tau-bench: {} trajectories, {before} -> {after} tokens", items.len());
}
