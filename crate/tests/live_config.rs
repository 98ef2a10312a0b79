//! A live session whose options change between two requests with the same history plans
//! what a fresh one-shot assemble with the new options plans: nothing it keeps from the
//! earlier requests (per-message facts, the cleaner's copies, the gate's verdicts, the
//! replacements the caller holds, topics) outlives the options it was made for.
//!
//! Every option of the engine's config is changed in turn (the list comes from the config
//! itself: a new option fails here until it is given a value below), in a context where the
//! change shows in this history, and the test checks that the result did change.

use contextfold::config::Config;
use contextfold::session::{assemble_once, synthetic_entries, Session};
use contextfold::transcript::entry::Entry;
use contextfold::wire::assemble::{AssembleOnceRequest, DeltaRequest};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::rc::Rc;

const BREAD: [&str; 9] = [
    "sourdough",
    "starter",
    "flour",
    "dough",
    "oven",
    "crust",
    "levain",
    "hydration",
    "proof",
];
const RUST: [&str; 9] = [
    "borrow",
    "checker",
    "lifetime",
    "rust",
    "compile",
    "mutable",
    "reference",
    "trait",
    "generic",
];
const PROMPT: &str = "one more question about the borrow checker and a mutable reference lifetime";
/// A budget (as `maxTokens`) over `summarizeThreshold` × budget with the huge tool result
/// whole, and within it once the result is cut.
const TIGHT: usize = 24_000;

fn words(vocab: &[&str], n: usize, salt: usize) -> String {
    (0..n)
        .map(|i| vocab[(i * 5 + salt) % vocab.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

fn text(s: String) -> Value {
    json!({"type": "text", "text": s})
}

/// Twelve turns, six about bread and six about Rust, after a long system message: thinking,
/// OpenAI-style `reasoning_content`, tool exchanges (a call-only message, a mixed text and
/// call message), and an early turn that ends with a huge tool result (the cleaner keeps
/// that exchange: dropping it would leave two prompts adjacent).
fn history() -> Vec<Value> {
    // A system message long enough that at the smallest budget the request fits only without
    // it (what `preserveSystemMessages` is about).
    let rules = format!("You are a careful assistant. House rules: {}", words(&BREAD, 160, 0));
    let mut m = vec![json!({"role": "system", "content": rules})];
    for t in 0..12 {
        let vocab: &[&str] = if t < 6 { &BREAD } else { &RUST };
        let id = format!("call_{t}");
        m.push(json!({
            "role": "user",
            "content": [text(format!("question {t}: {}", words(vocab, 12, t)))],
            "timestamp": 1_000 + t,
        }));
        let answer = json!({
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": words(vocab, 20, t + 1)},
                text(format!("answer {t}: {}", words(vocab, 30, t + 2))),
            ],
        });
        let call = |with_text: bool| {
            let mut parts = vec![];
            if with_text {
                parts.push(text(format!("let me look: {}", words(vocab, 6, t))));
            }
            parts.push(
                json!({"type": "toolCall", "id": id, "name": "read", "arguments": {"path": format!("/notes/{t}.md")}}),
            );
            json!({"role": "assistant", "content": parts})
        };
        let result = |chars: usize| {
            let body = words(vocab, chars / 7, t + 3);
            json!({"role": "toolResult", "toolCallId": id, "toolName": "read",
                "content": [text(body)], "isError": false})
        };
        match t {
            2 => {
                m.push(call(false));
                m.push(result(100_000));
            }
            _ if t % 4 == 1 => {
                m.push(call(false));
                m.push(result(800));
                m.push(answer);
            }
            _ if t % 4 == 3 => {
                m.push(call(true));
                m.push(result(600));
                m.push(answer);
            }
            _ if t % 4 == 2 => m.push(json!({
                "role": "assistant",
                "content": format!("answer {t}: {}", words(vocab, 25, t)),
                "reasoning_content": words(vocab, 15, t + 4),
            })),
            _ => m.push(answer),
        }
    }
    m
}

/// The value an option changes to, and the options (besides the defaults) under which the
/// change shows in [`history`].
fn change(key: &str) -> (Value, Value) {
    match key {
        "mode" => (json!("clean"), json!({})),
        "cleanThinking" | "clearReasoningContent" => (json!(false), json!({})),
        // Mode clean's: in mode fold the budget decides about tool results.
        "dropToolResults" | "dropToolCallMessages" => (json!(false), json!({"mode": "clean"})),
        "keepRecentTurns" => (json!(2), json!({})),
        "maxTokens" => (json!(3_000), json!({})),
        "summarizeThreshold" => (json!(1.0), json!({"maxTokens": TIGHT})),
        "foldTarget" => (json!(0.3), json!({"maxTokens": TIGHT})),
        "toolResultTruncateChars" => (json!(1_000), json!({"maxTokens": TIGHT})),
        "preserveSystemMessages" => (json!(false), json!({"maxTokens": 256})),
        "preserveRecentMessages" => (json!(1), json!({})),
        "embeddingSimilarityThreshold" => (json!(0.0), json!({})),
        "minTurnsPerTopic" => (json!(7), json!({})),
        "maxCompactionsPerCycle" => (json!(1), json!({"maxTokens": 3_000})),
        "promptRelevanceThreshold" => (json!(0.0), json!({})),
        "foldOtherTopics" => (json!(true), json!({})),
        other => panic!("option `{other}`: give it a changed value here, and a context in which the change shows"),
    }
}

/// A caller that keeps the replacements the core sends (as the JS layer does) and expands
/// the steps that refer to them.
struct Caller {
    session: Session,
    history: Vec<Value>,
    held: HashMap<usize, Value>,
    sent: usize,
}

impl Caller {
    fn ask(&mut self, config: &Value) -> Value {
        self.session
            .set_config(serde_json::from_value::<Config>(config.clone()).expect("a valid config"));
        // Each request starts without sticky fold decisions (the fresh plan has none).
        self.session.set_folded(Vec::<String>::new());
        let append = self.history[self.sent..].to_vec();
        let mut r = self
            .session
            .assemble_delta(DeltaRequest {
                keep: self.sent,
                append,
                prompt: Some(PROMPT.into()),
                budget: None,
                reuse: true,
                recovery_tool: None,
            })
            .expect("a delta request");
        self.sent = self.history.len();
        for s in &mut r.steps {
            let Some(source) = s.source else { continue };
            match s.reuse.take() {
                Some(true) => {
                    let m = self.held.get(&source).expect("a replacement sent before");
                    s.message = Some(Rc::new(m.clone()));
                }
                Some(false) => {
                    let m = s.message.as_deref().expect("a replacement sent for the first time");
                    self.held.insert(source, m.clone());
                }
                None => {}
            }
        }
        serde_json::to_value(&r).expect("serializable")
    }
}

fn fresh(history: &[Value], entries: &[Entry], config: &Value) -> Value {
    let r = assemble_once(AssembleOnceRequest {
        messages: history.to_vec(),
        entries: Some(entries.to_vec()),
        prompt: Some(PROMPT.into()),
        budget: None,
        config: Some(serde_json::from_value(config.clone()).expect("a valid config")),
        summaries: Default::default(),
        folded: Vec::new(),
        pins: Default::default(),
        recovery_tool: None,
    });
    serde_json::to_value(&r).expect("serializable")
}

/// Where two plans first differ (a JSON path and the two values there), `None` when equal.
fn difference(a: &Value, b: &Value) -> Option<String> {
    let short = |v: &Value| {
        let t = v.to_string();
        match t.char_indices().nth(200) {
            Some((cut, _)) => format!("{}…", &t[..cut]),
            None => t,
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (p, q) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                difference(p, q).map(|d| format!(".{k}{d}"))
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| difference(p, q).map(|d| format!("[{i}]{d}"))),
        _ if a == b => None,
        _ => Some(format!(": {} vs {}", short(a), short(b))),
    }
}

/// Asserts that the live plan is the fresh one, naming where they differ.
fn same(live: &Value, fresh: &Value, what: &str) {
    if let Some(d) = difference(live, fresh) {
        panic!("{what}: the live plan differs from the fresh one at {d}");
    }
}

fn with(base: &Value, key: &str, value: &Value) -> Value {
    let mut m: Map<String, Value> = base.as_object().cloned().unwrap_or_default();
    m.insert(key.to_string(), value.clone());
    Value::Object(m)
}

#[test]
fn every_option_changed_on_a_live_session_plans_what_a_fresh_one_shot_plans() {
    let history = history();
    let entries = synthetic_entries(&history);
    let mut caller = Caller {
        session: Session::new(Config::default()),
        history: history.clone(),
        held: HashMap::new(),
        sent: 0,
    };
    caller.session.rebuild(&entries);
    let defaults = caller.ask(&json!({}));
    same(&defaults, &fresh(&history, &entries, &json!({})), "the defaults");

    let keys: Vec<String> = match serde_json::to_value(Config::default()).expect("serializable") {
        Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("the config serializes as an object, not {other}"),
    };
    assert!(keys.len() >= 16, "{keys:?}");
    for key in &keys {
        let (value, context) = change(key);
        let changed = with(&context, key, &value);
        // The context, the change, and the context again: the session goes back and forth
        // between the two on the same history.
        let before = caller.ask(&context);
        same(
            &before,
            &fresh(&history, &entries, &context),
            &format!("{key}: before the change"),
        );
        let after = caller.ask(&changed);
        same(&after, &fresh(&history, &entries, &changed), &format!("{key}: {value}"));
        assert!(
            difference(&after, &before).is_some(),
            "{key}: changing it to {value} changes nothing in this history"
        );
        let back = caller.ask(&context);
        same(&back, &before, &format!("{key}: back from {value}"));
    }
    // The history of the live session crossed once: every request after the first kept it.
    assert_eq!(caller.session.history_len(), history.len());
}

#[test]
fn the_history_exercises_what_the_options_are_about() {
    // What the test above relies on, checked on the plans themselves.
    let history = history();
    let entries = synthetic_entries(&history);
    let plan = |config: Value| fresh(&history, &entries, &config);
    let d = plan(json!({}));
    let turns = d["turns"].as_array().expect("turns");
    let topics: std::collections::BTreeSet<&str> = turns.iter().filter_map(|t| t["topic"].as_str()).collect();
    assert!(topics.len() >= 2, "two subjects, two topics: {topics:?}");
    assert!(d["stats"]["clean"]["cleanedThink"].as_u64() > Some(0), "{}", d["stats"]);
    assert!(d["stats"]["clean"]["cleanedRC"].as_u64() > Some(0), "{}", d["stats"]);
    let c = plan(json!({"mode": "clean"}));
    assert!(c["stats"]["clean"]["dropTool"].as_u64() > Some(0), "{}", c["stats"]);
    assert!(c["stats"]["clean"]["dropAsstTC"].as_u64() > Some(0), "{}", c["stats"]);
    let tight = plan(json!({"maxTokens": TIGHT}));
    assert_eq!(tight["stats"]["truncated"], json!(1), "{}", tight["stats"]);
    assert_eq!(tight["stats"]["stubbed"], json!(0), "{}", tight["stats"]);
    assert_eq!(tight["stats"]["masked"], json!(0), "{}", tight["stats"]);
    let lower = plan(json!({"maxTokens": TIGHT, "foldTarget": 0.3}));
    assert!(lower["stats"]["masked"].as_u64() > Some(0), "{}", lower["stats"]);
    let whole = plan(json!({"maxTokens": TIGHT, "summarizeThreshold": 1.0}));
    assert_eq!(whole["stats"]["truncated"], json!(0), "{}", whole["stats"]);
}
