//! What a folded turn becomes, as the model and the explanations show it: a summary or stub
//! never makes a turn larger than it is cleaned, a turn folded by a manual compaction says
//! so, and stubs promise the recovery tool only to a request that offers it.

use contextfold::config::Config;
use contextfold::fold::planner::{Decision, TurnExplain};
use contextfold::session::{assemble_once, synthetic_entries, Session};
use contextfold::wire::assemble::{AssembleOnceRequest, AssembleRequest, AssembleResult};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Six turns: the first is a two-word exchange, the others are long enough to fold.
fn history() -> Vec<Value> {
    let mut out = vec![
        json!({"role": "user", "content": "ok?"}),
        json!({"role": "assistant", "content": "Yes."}),
    ];
    for t in 1..6 {
        out.push(json!({"role": "user", "content": format!("question {t}: how does the parser handle nested brackets in the ledger import?")}));
        out.push(json!({"role": "assistant", "content": format!(
            "answer {t}: {}",
            "The parser keeps a stack of open brackets and reports the first one left open. ".repeat(8)
        )}));
    }
    out
}

fn once(
    messages: &[Value],
    budget: Option<usize>,
    summaries: HashMap<String, String>,
    folded: Vec<String>,
    recovery_tool: Option<bool>,
) -> AssembleResult {
    assemble_once(AssembleOnceRequest {
        messages: messages.to_vec(),
        entries: None,
        prompt: Some("and the importer?".into()),
        budget,
        config: Some(config()),
        summaries: summaries.into_iter().collect(),
        folded,
        pins: Default::default(),
        recovery_tool,
    })
}

/// Only the last turn is protected.
fn config() -> Config {
    serde_json::from_value(json!({"preserveRecentMessages": 1})).expect("a valid config")
}

/// The text of every message the plan sends.
fn sent_text(r: &AssembleResult, messages: &[Value]) -> String {
    r.steps
        .iter()
        .map(|s| match &s.message {
            Some(m) => m.to_string(),
            None => messages[s.source.expect("a kept step has a source")].to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn turn<'a>(r: &'a AssembleResult, id: &str) -> &'a TurnExplain {
    r.turns.iter().find(|t| t.id == id).expect("the turn is explained")
}

#[test]
fn a_summary_larger_than_the_turn_is_not_sent() {
    let messages = history();
    let plain = once(&messages, None, HashMap::new(), vec![], None);
    let small = plain.turns[0].clone();
    let large = plain.turns[1].clone();
    assert!(!small.protected && !large.protected, "{:?}", plain.turns);
    // Both turns were folded before and both have a summary: the small turn's summary is
    // larger than the turn, the large turn's is smaller.
    let summaries = HashMap::from([
        (
            small.id.clone(),
            format!(
                "[summary of turn {}] Asked: {}",
                small.id,
                "whether the ledger import is fine; ".repeat(6)
            ),
        ),
        (
            large.id.clone(),
            format!(
                "[summary of turn {}] Asked: nested brackets. Answer: a stack.",
                large.id
            ),
        ),
    ]);
    let r = once(
        &messages,
        None,
        summaries.clone(),
        vec![small.id.clone(), large.id.clone()],
        None,
    );
    let s = turn(&r, &small.id);
    assert_ne!(s.decision, Decision::Summarized, "{s:?}");
    assert!(
        s.tokens_after <= small.tokens_after,
        "the small turn grew: {s:?} (cleaned {small:?})"
    );
    assert!(
        !sent_text(&r, &messages).contains(&summaries[&small.id]),
        "the larger summary was sent"
    );
    let l = turn(&r, &large.id);
    assert_eq!(l.decision, Decision::Summarized, "{l:?}");
    assert!(l.tokens_after < large.tokens_after, "{l:?} (cleaned {large:?})");
    // No turn of the plan costs more than it does cleaned.
    for (t, cleaned) in r.turns.iter().zip(&plain.turns) {
        assert!(
            t.tokens_after <= cleaned.tokens_after,
            "{t:?} grew (cleaned {cleaned:?})"
        );
    }
}

#[test]
fn the_budget_does_not_stub_a_turn_smaller_than_its_stub() {
    // The two-word exchange and one long turn (protected): over the budget, but a stub of the
    // small turn would cost more than the turn.
    let messages = history()[..4].to_vec();
    let plain = once(&messages, None, HashMap::new(), vec![], None);
    let r = once(&messages, Some(50), HashMap::new(), vec![], None);
    let small = turn(&r, &plain.turns[0].id);
    assert_eq!(small.decision, plain.turns[0].decision, "{small:?}");
    assert_eq!(small.tokens_after, plain.turns[0].tokens_after, "{small:?}");
    assert!(
        small
            .reason
            .ends_with("kept whole: a stub or summary would not be smaller"),
        "{small:?}"
    );
    assert!(r.folded.is_empty(), "{:?}", r.folded);
    assert!(r.stats.over_budget, "the protected turn alone exceeds the budget");
    // Stubbed with the others of a run, the same turn costs the run one id: the run is used.
    let all = once(&history(), None, HashMap::new(), vec![], None);
    let r = once(&history(), Some(200), HashMap::new(), vec![], None);
    assert_eq!(
        turn(&r, &plain.turns[0].id).decision,
        Decision::Stubbed,
        "{:?}",
        r.turns
    );
    assert!(r.estimated_tokens < all.estimated_tokens);
}

#[test]
fn stubs_promise_the_recovery_tool_only_when_it_is_offered() {
    let messages = history();
    for (recovery_tool, names_tool) in [(None, true), (Some(true), true), (Some(false), false)] {
        let r = once(&messages, Some(200), HashMap::new(), vec![], recovery_tool);
        let text = sent_text(&r, &messages);
        assert!(text.contains("[folded"), "{recovery_tool:?}: nothing folded\n{text}");
        assert_eq!(
            text.contains("context_engine_recover"),
            names_tool,
            "{recovery_tool:?}\n{text}"
        );
        assert_eq!(
            text.contains("left out of this request"),
            !names_tool,
            "{recovery_tool:?}\n{text}"
        );
    }
}

#[test]
fn a_manual_compaction_has_its_own_reason() {
    let messages = history();
    let mut s = Session::new(config());
    s.rebuild(&synthetic_entries(&messages));
    let req = AssembleRequest {
        messages: messages.clone(),
        prompt: Some("and the importer?".into()),
        budget: None,
        recovery_tool: None,
    };
    let ids: Vec<String> = s.assemble(&req).turns.iter().map(|t| t.id.clone()).collect();
    let (compacted, sticky) = (ids[1].clone(), ids[2].clone());
    s.set_summaries(
        std::collections::HashMap::from([(
            compacted.clone(),
            format!("[summary of turn {compacted}] Asked: nested brackets. Answer: a stack."),
        )])
        .into_iter()
        .collect(),
    );
    s.set_folded([compacted.clone(), sticky.clone()]);
    s.set_compacted([compacted.clone()]);
    let r = s.assemble(&req);
    let c = turn(&r, &compacted);
    assert_eq!(c.reason, "folded by a manual compaction", "{c:?}");
    assert_eq!(c.decision, Decision::Summarized, "{c:?}");
    assert_eq!(turn(&r, &sticky).reason, "folded earlier (sticky)");
    assert_eq!(s.compacted(), vec![compacted.clone()]);
    // Folded by the compaction alone (not in the sticky set) is folded too.
    s.set_folded([]);
    let r = s.assemble(&req);
    assert_eq!(turn(&r, &compacted).reason, "folded by a manual compaction");
}

#[test]
fn a_long_run_of_stubs_leaves_the_room_to_kept_turns() {
    // 200 short exchanges (~30 tokens a turn): a plan folds most of them into one stub line
    // and keeps the others, up to the low-water mark (foldTarget × budget).
    let mut messages = Vec::new();
    for t in 0..200 {
        messages.push(json!({"role": "user", "content": format!("note {t}: the walk by the river was lovely today")}));
        messages.push(json!({"role": "assistant", "content": format!("Glad to hear it, note {t} is saved.")}));
    }
    let budget = 2_000;
    let low_water = (budget as f64 * 0.6) as usize;
    let r = once(&messages, Some(budget), HashMap::new(), vec![], None);
    let stubbed = r.turns.iter().filter(|t| t.decision == Decision::Stubbed).count();
    assert!(stubbed > 100, "{stubbed} turns stubbed");
    // One stub line stands for the run, however long: what it does not cost is kept.
    let text = sent_text(&r, &messages);
    assert_eq!(text.matches("[folded").count(), 1, "{text}");
    assert!(
        r.estimated_tokens <= low_water && r.estimated_tokens + 60 >= low_water,
        "{} tokens sent; the low-water mark is {low_water}",
        r.estimated_tokens
    );
}
