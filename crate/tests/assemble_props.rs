//! Property tests of the budgeted assemble over generated multi-topic sessions (OpenClaw
//! shape: thinking, tool calls with small and huge results, four vocabularies as topics),
//! every budget from tiny to ample and the folding options:
//! (a) the validity gate accepts the plan (no fallback);
//! (b) the result never exceeds the budget unless the protected recent turns alone do, and
//!     then says so;
//! (c) the same input gives the same bytes;
//! (d) fold decisions are sticky: passing back the turns folded for the budget gives the same
//!     plan, and after one more turn those turns are still folded;
//! (e) pinned turns are sent exactly as the host has them.

use contextfold::session::assemble_once;
use contextfold::wire::assemble::AssembleOnceRequest;
use proptest::prelude::*;
use serde_json::{json, Value};

const TOPICS: [&[&str]; 4] = [
    &["weather", "rain", "forecast", "cloud", "storm", "wind", "humid"],
    &["sourdough", "starter", "flour", "dough", "oven", "crust", "levain"],
    &[
        "borrow",
        "checker",
        "lifetime",
        "rust",
        "compile",
        "mutable",
        "reference",
    ],
    &["invoice", "ledger", "cents", "budget", "tax", "payment", "account"],
];

#[derive(Debug, Clone)]
struct TurnSpec {
    topic: usize,
    words: usize,
    thinking: bool,
    tool: Option<usize>,
}

fn turn() -> impl Strategy<Value = TurnSpec> {
    (
        0usize..4,
        5usize..60,
        any::<bool>(),
        prop_oneof![Just(None), (50usize..3000).prop_map(Some), Just(Some(60_000))],
    )
        .prop_map(|(topic, words, thinking, tool)| TurnSpec {
            topic,
            words,
            thinking,
            tool,
        })
}

fn text(topic: usize, n: usize, salt: usize) -> String {
    (0..n)
        .map(|i| TOPICS[topic][(i * 7 + salt) % TOPICS[topic].len()])
        .collect::<Vec<_>>()
        .join(" ")
}

fn session(turns: &[TurnSpec]) -> Vec<Value> {
    let mut m = Vec::new();
    for (k, t) in turns.iter().enumerate() {
        let ts = 1_000 + k as u64 * 10;
        m.push(json!({"role": "user", "content": [{"type": "text", "text": format!("q{k}: {}", text(t.topic, t.words, k))}], "timestamp": ts}));
        let mut answer = Vec::new();
        if t.thinking {
            answer.push(
                json!({"type": "thinking", "thinking": format!("think {k}"), "thinkingSignature": format!("s{k}")}),
            );
        }
        if let Some(size) = t.tool {
            let id = format!("call_{k}");
            let mut first = answer.clone();
            first.push(
                json!({"type": "toolCall", "id": id, "name": "read", "arguments": {"path": format!("f{k}.txt")}}),
            );
            m.push(json!({"role": "assistant", "content": first, "provider": "anthropic", "stopReason": "toolUse", "timestamp": ts + 1}));
            m.push(json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "isError": false, "timestamp": ts + 2,
                "content": [{"type": "text", "text": text(t.topic, 1, k).repeat(size / 6 + 1)}]}));
            answer.clear();
        }
        answer.push(json!({"type": "text", "text": format!("a{k}: {}", text(t.topic, t.words, k + 3))}));
        m.push(json!({"role": "assistant", "content": answer, "provider": "anthropic", "stopReason": "stop", "timestamp": ts + 3}));
    }
    m
}

fn run(
    messages: &[Value],
    budget: usize,
    config: &Value,
    folded: &[String],
    pins: &[String],
    prompt: Option<&str>,
) -> Value {
    let req: AssembleOnceRequest = serde_json::from_value(json!({
        "messages": messages, "budget": budget, "config": config, "folded": folded,
        "pins": {"turnIds": pins}, "prompt": prompt,
    }))
    .unwrap();
    serde_json::to_value(assemble_once(req)).unwrap()
}

/// A folded turn sent whole because no folded form of it would be smaller (the rule that a
/// stub or summary replaces a turn only when smaller outranks stickiness), under a reason
/// that says so.
fn not_smaller(t: &Value) -> bool {
    matches!(t["decision"].as_str(), Some("kept" | "cleaned"))
        && t["reason"].as_str().unwrap().contains("would not be smaller")
}

fn folded_ids(r: &Value) -> Vec<String> {
    r["folded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn assemble_fits_is_valid_deterministic_and_sticky(
        turns in prop::collection::vec(turn(), 2..24),
        budget in 150usize..6000,
        keep in 0usize..4,
        fold_other in any::<bool>(),
        drop_tools in any::<bool>(),
        with_prompt in any::<bool>(),
        pin_first in any::<bool>(),
    ) {
        let messages = session(&turns);
        let config = json!({"preserveRecentMessages": keep, "foldOtherTopics": fold_other, "dropToolResults": drop_tools, "toolResultTruncateChars": 2000});
        let prompt = with_prompt.then_some("what about the sourdough starter and the oven?");
        let r = run(&messages, budget, &config, &[], &[], prompt);
        // (a)
        prop_assert!(r.get("fallback").is_none(), "fallback: {}", r["fallback"]);
        // (b)
        let est = r["estimatedTokens"].as_u64().unwrap() as usize;
        prop_assert!(est <= budget || r["stats"]["overBudget"] == json!(true), "{est} > {budget} without overBudget");
        // (c)
        prop_assert_eq!(&r, &run(&messages, budget, &config, &[], &[], prompt));
        // (d) sticky: the same request with the remembered decisions folds every turn folded
        // before (one may come back after the plan, in a recall block; one whose stub alone
        // would not be smaller than it is sent whole, and says so) ...
        let folded = folded_ids(&r);
        let again = run(&messages, budget, &config, &folded, &[], prompt);
        for t in again["turns"].as_array().unwrap() {
            if folded.iter().any(|id| t["id"] == json!(id)) {
                let d = t["decision"].as_str().unwrap();
                prop_assert!(matches!(d, "stubbed" | "summarized" | "recalled") || not_smaller(t), "turn {} was folded, now {d}", t["id"]);
            }
        }
        // ... and one more turn later, every turn folded for the budget is still folded.
        let mut longer_turns = turns.clone();
        longer_turns.push(TurnSpec { topic: 0, words: 10, thinking: false, tool: None });
        let longer = session(&longer_turns);
        let next = run(&longer, budget, &config, &folded, &[], prompt);
        for id in &folded {
            if let Some(t) = next["turns"].as_array().unwrap().iter().find(|t| t["id"] == json!(id)) {
                let d = t["decision"].as_str().unwrap();
                let protected = t["protected"] == json!(true);
                prop_assert!(protected || matches!(d, "stubbed" | "summarized" | "recalled") || not_smaller(t), "turn {id} was folded, now {d}");
            }
        }
        // (e) a pinned first turn arrives untouched
        if pin_first {
            let first_id = r["turns"][0]["id"].as_str().unwrap().to_string();
            let p = run(&messages, budget, &config, &[], std::slice::from_ref(&first_id), prompt);
            prop_assert!(p.get("fallback").is_none());
            let range = p["turns"][0]["range"].as_array().unwrap();
            let (a, b) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
            let kept: Vec<u64> = p["steps"].as_array().unwrap().iter()
                .filter(|s| s.get("message").is_none())
                .filter_map(|s| s["source"].as_u64()).collect();
            for i in a..b {
                prop_assert!(kept.contains(&i), "pinned message {i} was changed or dropped");
            }
        }
    }
}
