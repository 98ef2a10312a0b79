//! The live session: delta requests and what a caller that keeps replacements is sent.

use super::*;
use crate::model::steps::Step;
use serde_json::json;

/// Turns large enough that a stub is smaller than each of them.
fn history(turns: usize) -> Vec<Value> {
    (0..turns)
        .flat_map(|t| {
            [
                json!({"role": "user", "content": format!("question {t} about parsers")}),
                json!({"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "let me think"},
                    {"type": "text", "text": format!("answer {t}: {}", "the parser reads the tokens one by one. ".repeat(6))}
                ]}),
            ]
        })
        .collect()
}

#[test]
fn delta_requests_plan_what_a_full_request_plans() {
    let all = history(6);
    let full = |msgs: &[Value]| {
        let mut s = Session::new(Config::default());
        let r = s.assemble(&AssembleRequest {
            messages: msgs.to_vec(),
            prompt: Some("next".into()),
            budget: Some(50_000),
            recovery_tool: None,
        });
        serde_json::to_value(&r.steps).unwrap()
    };
    let delta = |s: &mut Session, keep: usize, append: &[Value]| {
        let r = s
            .assemble_delta(DeltaRequest {
                keep,
                append: append.to_vec(),
                prompt: Some("next".into()),
                budget: Some(50_000),
                reuse: false,
                recovery_tool: None,
            })
            .unwrap();
        serde_json::to_value(&r.steps).unwrap()
    };
    let mut s = Session::new(Config::default());
    assert_eq!(delta(&mut s, 0, &all[..6]), full(&all[..6]));
    assert_eq!(delta(&mut s, 6, &all[6..]), full(&all));
    assert_eq!(s.history_len(), all.len());
    // A shorter history that shares a prefix.
    assert_eq!(delta(&mut s, 4, &[]), full(&all[..4]));
    let err = s
        .assemble_delta(DeltaRequest {
            keep: 5,
            append: vec![],
            prompt: None,
            budget: None,
            reuse: false,
            recovery_tool: None,
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: keep: 5 is more than the 4 messages kept from the previous request"
    );
    assert_eq!(s.history_len(), 4, "a refused request leaves the kept history alone");
}

#[test]
fn replacements_are_sent_once_to_a_caller_that_keeps_them() {
    let all = history(6);
    assert_eq!(all.len(), 12);
    let mut s = Session::new(Config::default());
    let mut ask = |keep: usize, append: &[Value]| {
        s.assemble_delta(DeltaRequest {
            keep,
            append: append.to_vec(),
            prompt: Some("next".into()),
            budget: Some(50_000),
            reuse: true,
            recovery_tool: None,
        })
        .unwrap()
        .steps
    };
    // Earlier answers lose their thinking and string prompts become parts: each copy is
    // sent once, then referred to.
    let first = ask(0, &all[..8]);
    let sources = |steps: &[Step], reuse: bool| -> Vec<usize> {
        steps
            .iter()
            .filter(|s| s.reuse == Some(reuse))
            .filter_map(|s| s.source)
            .collect()
    };
    assert_eq!(sources(&first, false), (0..8).collect::<Vec<_>>());
    assert!(first.iter().all(|s| s.message.is_some()));
    let second = ask(8, &all[8..]);
    assert_eq!(sources(&second, true), (0..8).collect::<Vec<_>>());
    assert!(second
        .iter()
        .filter(|s| s.reuse == Some(true))
        .all(|s| s.message.is_none()));
    assert_eq!(sources(&second, false), (8..12).collect::<Vec<_>>());
    // A history cut before them forgets what was sent from there on.
    let third = ask(4, &all[4..]);
    assert_eq!(sources(&third, true), vec![0, 1, 2, 3]);
    assert_eq!(sources(&third, false), (4..12).collect::<Vec<_>>());
}

#[test]
fn turn_explanations_are_sent_once_to_a_caller_that_keeps_them() {
    let all = history(6);
    let mut s = Session::new(Config::default());
    let mut ask = |keep: usize, append: &[Value], budget: usize| {
        let r = s
            .assemble_delta(DeltaRequest {
                keep,
                append: append.to_vec(),
                prompt: Some("next".into()),
                budget: Some(budget),
                reuse: true,
                recovery_tool: None,
            })
            .unwrap();
        let v: Value = serde_json::from_str(&r.to_json()).unwrap();
        (r.turns, v["turns"].as_array().unwrap().clone())
    };
    // Each explanation equal to the one at its position in the previous response is `0`;
    // the others (changed or new) are sent whole.
    let check = |prev: &[planner::TurnExplain], turns: &[planner::TurnExplain], sent: &[Value]| {
        assert_eq!(turns.len(), sent.len());
        for (i, t) in turns.iter().enumerate() {
            // The flag aside (it is set on the response's copy).
            let plain = |t: &planner::TurnExplain| planner::TurnExplain {
                repeated: false,
                ..t.clone()
            };
            let same = prev.get(i).map(plain) == Some(plain(t));
            if same {
                assert_eq!(sent[i], json!(0), "turn {i}");
            } else {
                assert_eq!(sent[i]["id"], json!(t.id), "turn {i}");
                assert_eq!(sent[i]["tokensAfter"], json!(t.tokens_after), "turn {i}");
            }
        }
        sent.iter().filter(|t| **t == json!(0)).count()
    };
    let (t1, sent) = ask(0, &all[..8], 50_000);
    assert_eq!(check(&[], &t1, &sent), 0);
    let (t2, sent) = ask(8, &all[8..], 50_000);
    assert!(check(&t1, &t2, &sent) >= 2, "{sent:?}");
    let (t3, sent) = ask(12, &[], 50_000);
    assert_eq!(check(&t2, &t3, &sent), 6);
    // A budget that folds old turns changes their explanations: those are sent again.
    let (t4, sent) = ask(12, &[], 60);
    assert!(t4.iter().any(|t| t.decision == planner::Decision::Stubbed), "{t4:?}");
    assert!(check(&t3, &t4, &sent) < 6);
    // A caller that starts over gets every explanation.
    let (_, sent) = ask(0, &all, 60);
    assert!(sent.iter().all(|t| t.is_object()));
}

/// Three subjects of four turns each, as transcript entries.
fn three_subjects() -> Vec<Entry> {
    let turns = [
        (
            "how long should sourdough bread rise",
            "the sourdough dough rises overnight in a cool kitchen",
        ),
        (
            "which rye flour suits sourdough bread",
            "a whole rye flour gives the sourdough bread a dark crumb",
        ),
        (
            "at what oven temperature does the bread bake",
            "bake the sourdough bread at 240 degrees with steam",
        ),
        (
            "why is my sourdough crust pale",
            "a pale crust means the bread baked too cool or too short",
        ),
        (
            "when does the ferry leave for the island",
            "the island ferry leaves the harbour at nine every morning",
        ),
        (
            "where are ferry tickets sold at the harbour",
            "ferry tickets are sold at the pier kiosk by the harbour",
        ),
        (
            "can bicycles go on the island ferry",
            "bicycles ride on the ferry deck for a small fare",
        ),
        (
            "how rough is the ferry crossing in winter",
            "the winter crossing to the island is rough, the ferry rolls",
        ),
        (
            "why does postgres ignore my index",
            "the postgres planner ignores an index when statistics are stale",
        ),
        (
            "how do I refresh postgres planner statistics",
            "run analyze so the postgres planner sees fresh statistics",
        ),
        (
            "does work_mem change the postgres query plan",
            "a larger work_mem lets the postgres planner choose a hash join",
        ),
        (
            "how do I read a postgres explain plan",
            "explain analyze shows the postgres planner's estimated and actual rows",
        ),
    ];
    let messages: Vec<Value> = turns
        .iter()
        .flat_map(|(q, a)| {
            [
                json!({"role": "user", "content": q}),
                json!({"role": "assistant", "content": a}),
            ]
        })
        .collect();
    synthetic_entries(&messages)
}

#[test]
fn the_sub_topic_label_of_one_turn_is_its_entry_among_all_labels() {
    let mut s = Session::new(Config::default());
    s.rebuild(&three_subjects());
    let all = s.heuristic_subtopics();
    let ids: Vec<String> = s.index().turns.iter().map(|t| t.id.clone()).collect();
    assert_eq!(ids.len(), 12);
    let labels: HashSet<&str> = all.values().filter_map(Value::as_str).collect();
    assert!(labels.len() >= 3, "each subject has its own label: {labels:?}");
    for id in &ids {
        let one = s.heuristic_subtopic(id);
        assert_eq!(one.as_deref(), all.get(id).and_then(Value::as_str), "turn {id}");
        assert!(one.is_some_and(|l| l.starts_with("lex:")));
    }
    assert_eq!(s.heuristic_subtopic("no such turn"), None);
}

#[test]
fn recent_turn_ids_are_the_newest_turns_oldest_first() {
    let mut s = Session::new(Config::default());
    s.rebuild(&three_subjects());
    let ids: Vec<String> = s.index().turns.iter().map(|t| t.id.clone()).collect();
    assert_eq!(s.recent_turn_ids(3), ids[9..].to_vec());
    assert_eq!(s.recent_turn_ids(50), ids);
}

#[test]
fn topics_follow_the_turns_appended_after_they_were_asked_for() {
    let entries = three_subjects();
    let mut fresh = Session::new(Config::default());
    fresh.rebuild(&entries);
    let mut s = Session::new(Config::default());
    s.rebuild(&entries[..8]);
    let (early, _) = s.topics();
    s.append(&entries[8..]);
    let (topics, of) = s.topics();
    assert_eq!((topics.clone(), of), fresh.topics());
    assert!(topics.len() > early.len(), "{early:?} -> {topics:?}");
    let last = &fresh.index().turns[11].id.clone();
    assert_eq!(s.heuristic_subtopic(last), fresh.heuristic_subtopic(last));
}
