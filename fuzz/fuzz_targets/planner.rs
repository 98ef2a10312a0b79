//! The planner (one-shot assemble) over structured sessions, budgets and options: the output
//! passes the validity gate, fits the budget unless the protected turns alone exceed it (then
//! every other turn is folded and the result says so), its token figure is the estimate of
//! what it sends, and it is deterministic.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use contextfold::clean::gate;
use contextfold::config::Config;
use contextfold::fold::pins::Pins;
use contextfold::fold::planner::Decision;
use contextfold::model::{steps, tokens};
use contextfold::session::assemble_once;
use contextfold::wire::assemble::{AssembleOnceRequest, AssembleResult};
use contextfold_fuzz::{live_from, steps_in_range, Session};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use std::collections::BTreeMap;

#[derive(Debug, Arbitrary)]
struct Options {
    clean_only: bool,
    budget: u16,
    use_budget: bool,
    preserve_recent: u8,
    threshold: u8,
    fold_other_topics: bool,
    truncate_chars: u16,
    keep_recent_turns: u8,
    clean_flags: u8,
    preserve_system: bool,
    prompt: Option<bool>,
    summaries: Vec<(u8, bool)>,
    folded: Vec<u8>,
    pins: Vec<u8>,
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(o) = Options::arbitrary(&mut u) else { return };
    let Ok(session) = Session::arbitrary(&mut u) else {
        return;
    };
    let messages = session.render(&mut u);
    // Budgets around what a session of up to 64 items costs, so folding is exercised.
    let max_tokens = 256 + o.budget as usize % 4096;
    let threshold = [0.1, 0.5, 0.8, 1.0][(o.threshold % 4) as usize];
    let config = json!({
        "mode": if o.clean_only { "clean" } else { "fold" },
        "maxTokens": max_tokens,
        "summarizeThreshold": threshold,
        "preserveRecentMessages": o.preserve_recent % 7,
        "foldOtherTopics": o.fold_other_topics,
        "toolResultTruncateChars": 200 + o.truncate_chars as usize,
        "keepRecentTurns": o.keep_recent_turns % 4,
        "cleanThinking": o.clean_flags & 1 != 0,
        "clearReasoningContent": o.clean_flags & 2 != 0,
        "dropToolResults": o.clean_flags & 4 != 0,
        "dropToolCallMessages": o.clean_flags & 8 != 0,
        "preserveSystemMessages": o.preserve_system,
    });
    let config: Config = serde_json::from_value(config).expect("a valid config");
    // Turn ids of a bare message list are content hashes: take them from a first run.
    let turn_ids = |r: &AssembleResult| r.turns.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
    let prompt = o.prompt.map(|p| {
        if p {
            "what about the parser?".to_string()
        } else {
            String::new()
        }
    });
    let budget = o.use_budget.then_some(max_tokens / 2 + 1);
    let shot = |summaries: BTreeMap<String, String>, folded: Vec<String>, pins: Pins| AssembleOnceRequest {
        messages: messages.clone(),
        entries: None,
        prompt: prompt.clone(),
        budget,
        config: Some(config.clone()),
        summaries: summaries.into_iter().collect(),
        folded,
        pins,
        recovery_tool: None,
    };
    let first = assemble_once(shot(BTreeMap::new(), vec![], Pins::default()));
    let ids = turn_ids(&first);
    let pick = |k: u8| (!ids.is_empty()).then(|| ids[k as usize % ids.len()].clone());
    let summaries: BTreeMap<String, String> = o
        .summaries
        .iter()
        .filter_map(|&(k, long)| {
            pick(k).map(|id| {
                (
                    id,
                    if long {
                        "summary ".repeat(200)
                    } else {
                        "short summary".into()
                    },
                )
            })
        })
        .collect();
    let folded: Vec<String> = o.folded.iter().filter_map(|&k| pick(k)).collect();
    let pins = Pins {
        turn_ids: o.pins.iter().filter_map(|&k| pick(k)).collect(),
        ..Pins::default()
    };

    let r = assemble_once(shot(summaries.clone(), folded.clone(), pins.clone()));
    let complete = prompt.is_some();
    assert!(
        steps_in_range(&r.steps, messages.len()),
        "a step points outside the input"
    );
    if let Err(refusal) = gate::check(&messages, &r.steps, live_from(&messages, complete)) {
        panic!("the planner's output fails the gate ({refusal})");
    }
    let budget = budget.unwrap_or(max_tokens);
    assert_eq!(r.stats.budget, budget);
    assert!(
        r.estimated_tokens <= budget || r.stats.over_budget,
        "{} tokens over a budget of {budget} without overBudget",
        r.estimated_tokens
    );
    // Over the budget only when the protected turns alone exceed it: every other turn is
    // folded to a stub (fold mode, no gate fallback).
    if r.estimated_tokens > budget && !o.clean_only && r.fallback.is_none() {
        for t in r.turns.iter().filter(|t| !t.protected) {
            assert_eq!(
                t.decision,
                Decision::Stubbed,
                "over the budget ({} > {budget}) with turn {} not folded ({})",
                r.estimated_tokens,
                t.id,
                t.reason
            );
        }
    }
    let out = steps::apply(&r.steps, &messages);
    assert_eq!(
        r.estimated_tokens,
        tokens::messages(&out),
        "the token figure is not the estimate of the output"
    );
    let again = assemble_once(shot(summaries, folded, pins));
    assert_eq!(
        serde_json::to_string(&r).ok(),
        serde_json::to_string(&again).ok(),
        "assemble is not deterministic"
    );
});
