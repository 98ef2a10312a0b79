//! Property tests of the cleaner over generated sessions in the three shapes it reads
//! (OpenClaw, OpenAI chat, Anthropic messages) and every config combination.
//!
//! Sessions mix what real transcripts hold: string, part and image prompts; thinking with
//! signatures (sometimes redacted); blank text; parallel tool calls whose results come out of
//! order, with errors and images, or never (an interrupted loop); ids reused across calls;
//! custom and summary messages; answers that become empty once cleaned; and histories that
//! end in the middle of a tool loop.
//!
//! For each input and config, with the history open (it may end in the live turn) or
//! complete (the upcoming prompt is passed separately, as OpenClaw's `assemble` does):
//! (a) the validity gate accepts the *ungated* cleaner's proposal (the cleaner must not rely on
//!     the gate to hide its bugs);
//! (b) cleaning is deterministic;
//! (c) cleaning the output again changes nothing;
//! (d) everything from the frontier on is byte-identical, and the live tool loop is kept whole;
//! (e) the token estimate never grows;
//! (f) no user prompt is lost or added.

use contextfold::clean::cleaner;
use contextfold::clean::gate;
use contextfold::clean::{clean_history, clean_messages};
use contextfold::config::CleanConfig;
use contextfold::model::message::{self, Kind};
use contextfold::model::steps::{self, Step};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Session specs: what happens, independent of the wire shape
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Prompt {
    Str,
    Parts,
    WithImage,
}

#[derive(Debug, Clone, Copy)]
enum Outcome {
    Ok,
    Error,
    Image,
    Missing,
    /// A result whose id no call ever used.
    Orphan,
}

#[derive(Debug, Clone, Copy)]
enum Thinking {
    None,
    Plain,
    Redacted,
    Both,
}

#[derive(Debug, Clone, Copy)]
enum Text {
    None,
    Some,
    Blank,
}

#[derive(Debug, Clone)]
struct Call {
    outcome: Outcome,
    /// Use an id already used by another call of the session.
    reuse: bool,
}

#[derive(Debug, Clone)]
struct Answer {
    thinking: Thinking,
    text: Text,
    calls: Vec<Call>,
    provider: usize,
    /// Results come back in reverse order.
    reversed: bool,
    /// A custom message sits between the calls and their results (OpenClaw nested tools).
    custom_between: bool,
    /// Anthropic: the results share their user message with new user text.
    mixed: bool,
    /// The results come only after the next assistant message (Claude Code writes one
    /// message per content block).
    delayed: bool,
}

#[derive(Debug, Clone)]
struct Turn {
    prompt: Prompt,
    answers: Vec<Answer>,
    custom_before: bool,
    /// A second user message right after the prompt (OpenClaw's runtime-context carrier).
    carrier: bool,
}

#[derive(Debug, Clone)]
struct Session {
    /// 0: nothing, 1: a compaction summary (OpenClaw) / system prompt, 2: a bash execution.
    preface: u8,
    turns: Vec<Turn>,
    /// A last user prompt after the turns.
    trailing_prompt: bool,
}

const PROVIDERS: [&str; 5] = ["deepseek", "anthropic", "", "openai", "kimi"];

fn prompt() -> impl Strategy<Value = Prompt> {
    prop_oneof![4 => Just(Prompt::Str), 2 => Just(Prompt::Parts), 1 => Just(Prompt::WithImage)]
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        6 => Just(Outcome::Ok),
        1 => Just(Outcome::Error),
        1 => Just(Outcome::Image),
        1 => Just(Outcome::Missing),
        1 => Just(Outcome::Orphan),
    ]
}

fn thinking() -> impl Strategy<Value = Thinking> {
    prop_oneof![
        2 => Just(Thinking::None),
        4 => Just(Thinking::Plain),
        1 => Just(Thinking::Redacted),
        1 => Just(Thinking::Both),
    ]
}

fn text() -> impl Strategy<Value = Text> {
    prop_oneof![3 => Just(Text::None), 4 => Just(Text::Some), 1 => Just(Text::Blank)]
}

fn call() -> impl Strategy<Value = Call> {
    (outcome(), prop::bool::weighted(0.2)).prop_map(|(outcome, reuse)| Call { outcome, reuse })
}

fn answer() -> impl Strategy<Value = Answer> {
    (
        thinking(),
        text(),
        prop::collection::vec(call(), 0..=3),
        0..PROVIDERS.len() + 1,
        any::<bool>(),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(thinking, text, calls, provider, reversed, custom_between, mixed, delayed)| Answer {
                thinking,
                text,
                calls,
                provider,
                reversed,
                custom_between,
                mixed,
                delayed,
            },
        )
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        prompt(),
        prop::collection::vec(answer(), 0..=4),
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(prompt, answers, custom_before, carrier)| Turn {
            prompt,
            answers,
            custom_before,
            carrier,
        })
}

fn session() -> impl Strategy<Value = Session> {
    (0u8..3, prop::collection::vec(turn(), 0..=6), any::<bool>()).prop_map(|(preface, turns, trailing_prompt)| {
        Session {
            preface,
            turns,
            trailing_prompt,
        }
    })
}

fn config() -> impl Strategy<Value = CleanConfig> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), 0usize..4).prop_map(|(t, rc, dr, dm, k)| CleanConfig {
        clean_thinking: t,
        clear_reasoning_content: rc,
        drop_tool_results: dr,
        drop_tool_call_messages: dm,
        keep_recent_turns: k,
    })
}

/// Hands out call ids: fresh ones, or (when asked) one already used, by slot.
struct Ids {
    next: usize,
}

impl Ids {
    fn id(&mut self, c: &Call, slot: usize) -> String {
        if c.reuse {
            format!("reused_{slot}")
        } else {
            self.next += 1;
            format!("call_{}", self.next)
        }
    }
}

/// The results an answer gets, in the order they come back (orphans answer a made-up id).
fn results_order(a: &Answer, ids: Vec<(String, Outcome)>) -> Vec<(String, Outcome)> {
    let mut kept: Vec<_> = ids
        .into_iter()
        .filter(|(_, o)| !matches!(o, Outcome::Missing))
        .map(|(id, o)| {
            if matches!(o, Outcome::Orphan) {
                (format!("ghost_{id}"), o)
            } else {
                (id, o)
            }
        })
        .collect();
    if a.reversed {
        kept.reverse();
    }
    kept
}

/// Emits an answer's results now, or after the next assistant message when it is `delayed`.
fn emit(m: &mut Vec<Value>, pending: &mut Vec<Value>, a: &Answer, results: Vec<Value>) {
    if a.delayed {
        pending.extend(results);
    } else {
        m.extend(results);
    }
}

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

// ---------------------------------------------------------------------------------------------
// Rendering: OpenClaw
// ---------------------------------------------------------------------------------------------

fn openclaw(s: &Session) -> Vec<Value> {
    let mut m = Vec::new();
    let mut ids = Ids { next: 0 };
    let mut ts: u64 = 1_767_225_600_000;
    let mut tick = || {
        ts += 1000;
        ts
    };
    match s.preface {
        1 => m.push(
            json!({"role": "compactionSummary", "summary": "earlier work", "tokensBefore": 48213,
                            "timestamp": tick(), "firstKeptEntryId": "e17"}),
        ),
        2 => m.push(
            json!({"role": "bashExecution", "command": "ls", "output": "a.txt", "exitCode": 0,
                            "cancelled": false, "truncated": false, "timestamp": tick()}),
        ),
        _ => {}
    }
    let prompt_msg = |p: Prompt, n: usize, ts: u64| -> Value {
        let t = format!("question {n}: 请检查 the build");
        let content = match p {
            Prompt::Str => json!(t),
            Prompt::Parts => json!([{"type": "text", "text": t}]),
            Prompt::WithImage => {
                json!([{"type": "text", "text": t}, {"type": "image", "data": PNG, "mimeType": "image/png"}])
            }
        };
        json!({"role": "user", "content": content, "timestamp": ts, "__openclaw": {"senderIsOwner": true}})
    };
    for (n, t) in s.turns.iter().enumerate() {
        let mut pending: Vec<Value> = Vec::new();
        if t.custom_before {
            m.push(json!({"role": "custom", "customType": "note", "content": "remember", "display": true, "timestamp": tick()}));
        }
        m.push(prompt_msg(t.prompt, n, tick()));
        if t.carrier {
            m.push(
                json!({"role": "user", "content": "[runtime context] cwd=/work", "timestamp": tick(),
                          "runtimeContextCarrier": true}),
            );
        }
        for (k, a) in t.answers.iter().enumerate() {
            let mut parts = Vec::new();
            if matches!(a.thinking, Thinking::Plain | Thinking::Both) {
                parts.push(
                    json!({"type": "thinking", "thinking": format!("thinking {n}.{k} ").repeat(8),
                                  "thinkingSignature": format!("sig{n}{k}==")}),
                );
            }
            if matches!(a.thinking, Thinking::Redacted | Thinking::Both) {
                parts.push(json!({"type": "thinking", "thinking": "", "thinkingSignature": format!("opaque{n}{k}"), "redacted": true}));
            }
            match a.text {
                Text::Some => parts.push(json!({"type": "text", "text": format!("answer {n}.{k}")})),
                Text::Blank => parts.push(json!({"type": "text", "text": " \n"})),
                Text::None => {}
            }
            let mut calls = Vec::new();
            for (slot, c) in a.calls.iter().enumerate() {
                let id = ids.id(c, slot);
                parts.push(json!({"type": "toolCall", "id": id, "name": "exec",
                                  "arguments": {"command": format!("cat f{n}{k}{slot}"), "timeout": 30}}));
                calls.push((id, c.outcome));
            }
            let mut msg = json!({"role": "assistant", "content": parts, "api": "openai-completions",
                "provider": PROVIDERS.get(a.provider).copied().unwrap_or("deepseek"), "model": "m",
                "usage": {"input": 100, "output": 20, "totalTokens": 120, "cost": {"total": 0.0001}},
                "stopReason": if calls.is_empty() { "stop" } else { "toolUse" }, "timestamp": tick()});
            if a.provider == PROVIDERS.len() {
                msg.as_object_mut().unwrap().remove("provider");
            }
            m.push(msg);
            m.append(&mut pending);
            if a.custom_between {
                m.push(
                    json!({"role": "custom", "customType": "openclaw.nested-tool.v1", "content": "inner",
                              "display": false, "excludeFromContext": true, "timestamp": tick()}),
                );
            }
            let mut results = Vec::new();
            for (id, o) in results_order(a, calls) {
                let content = match o {
                    Outcome::Image => {
                        json!([{"type": "text", "text": "screenshot"}, {"type": "image", "data": PNG, "mimeType": "image/png"}])
                    }
                    Outcome::Error => json!([{"type": "text", "text": "command failed: exit 1"}]),
                    _ => json!([{"type": "text", "text": format!("output of {id} ").repeat(20)}]),
                };
                results.push(json!({"role": "toolResult", "toolCallId": id, "toolName": "exec", "content": content,
                                    "details": {"exitCode": 1}, "isError": matches!(o, Outcome::Error), "timestamp": tick()}));
            }
            emit(&mut m, &mut pending, a, results);
        }
        m.append(&mut pending);
    }
    if s.trailing_prompt {
        m.push(prompt_msg(Prompt::Str, 99, tick()));
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Rendering: OpenAI chat
// ---------------------------------------------------------------------------------------------

fn openai(s: &Session) -> Vec<Value> {
    let mut m = Vec::new();
    let mut ids = Ids { next: 0 };
    if s.preface == 1 {
        m.push(json!({"role": "system", "content": "You are an airline agent."}));
    }
    for (n, t) in s.turns.iter().enumerate() {
        let mut pending: Vec<Value> = Vec::new();
        m.push(json!({"role": "user", "content": format!("question {n}")}));
        if t.carrier {
            m.push(json!({"role": "user", "content": "context: today is Monday"}));
        }
        for (k, a) in t.answers.iter().enumerate() {
            let mut msg = json!({"role": "assistant"});
            let o = msg.as_object_mut().unwrap();
            o.insert(
                "content".into(),
                match a.text {
                    Text::Some => json!(format!("answer {n}.{k}")),
                    Text::Blank => json!(""),
                    Text::None => Value::Null,
                },
            );
            if !matches!(a.thinking, Thinking::None) {
                o.insert(
                    "reasoning_content".into(),
                    json!(format!("reasoning {n}.{k} ").repeat(8)),
                );
            }
            let mut calls = Vec::new();
            let mut tc = Vec::new();
            for (slot, c) in a.calls.iter().enumerate() {
                let id = ids.id(c, slot);
                tc.push(json!({"id": id, "type": "function",
                               "function": {"name": "get_reservation", "arguments": format!("{{\"id\":\"R{n}{k}{slot}\"}}")}}));
                calls.push((id, c.outcome));
            }
            if !tc.is_empty() {
                o.insert("tool_calls".into(), Value::Array(tc));
            }
            m.push(msg);
            m.append(&mut pending);
            let results = results_order(a, calls)
                .into_iter()
                .map(|(id, _)| {
                    json!({"role": "tool", "tool_call_id": id, "name": "get_reservation",
                           "content": format!("{{\"reservation\":\"{id}\",\"flights\":[1,2,3]}}")})
                })
                .collect();
            emit(&mut m, &mut pending, a, results);
        }
        m.append(&mut pending);
    }
    if s.trailing_prompt {
        m.push(json!({"role": "user", "content": "thanks"}));
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Rendering: Anthropic messages
// ---------------------------------------------------------------------------------------------

fn anthropic(s: &Session) -> Vec<Value> {
    let mut m = Vec::new();
    let mut ids = Ids { next: 0 };
    for (n, t) in s.turns.iter().enumerate() {
        let mut pending: Vec<Value> = Vec::new();
        let q = format!("question {n}");
        m.push(match t.prompt {
            Prompt::Str => json!({"role": "user", "content": q}),
            Prompt::Parts => json!({"role": "user", "content": [{"type": "text", "text": q}]}),
            Prompt::WithImage => json!({"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                {"type": "text", "text": q}]}),
        });
        for (k, a) in t.answers.iter().enumerate() {
            let mut parts = Vec::new();
            if matches!(a.thinking, Thinking::Plain | Thinking::Both) {
                parts.push(json!({"type": "thinking", "thinking": format!("thinking {n}.{k} ").repeat(8), "signature": format!("Ep{n}{k}")}));
            }
            if matches!(a.thinking, Thinking::Redacted | Thinking::Both) {
                parts.push(json!({"type": "redacted_thinking", "data": format!("Em{n}{k}")}));
            }
            match a.text {
                Text::Some => parts.push(json!({"type": "text", "text": format!("answer {n}.{k}")})),
                Text::Blank => parts.push(json!({"type": "text", "text": ""})),
                Text::None => {}
            }
            let mut calls = Vec::new();
            for (slot, c) in a.calls.iter().enumerate() {
                let id = ids.id(c, slot);
                parts.push(json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": format!("ls {n}{k}{slot}")}}));
                calls.push((id, c.outcome));
            }
            m.push(json!({"role": "assistant", "content": parts}));
            m.append(&mut pending);
            let mut blocks: Vec<Value> = results_order(a, calls)
                .into_iter()
                .map(|(id, o)| match o {
                    Outcome::Image => json!({"type": "tool_result", "tool_use_id": id, "content": [
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}),
                    Outcome::Error => json!({"type": "tool_result", "tool_use_id": id, "content": "exit 1", "is_error": true}),
                    _ => json!({"type": "tool_result", "tool_use_id": id, "content": format!("listing {id} ").repeat(20)}),
                })
                .collect();
            if !blocks.is_empty() {
                if a.mixed {
                    blocks.push(json!({"type": "text", "text": "also check the logs"}));
                }
                emit(
                    &mut m,
                    &mut pending,
                    a,
                    vec![json!({"role": "user", "content": blocks})],
                );
            }
        }
        m.append(&mut pending);
    }
    if s.trailing_prompt {
        m.push(json!({"role": "user", "content": "thanks"}));
    }
    m
}

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

fn dump(ms: &[Value]) -> String {
    ms.iter().map(|m| format!("  {m}\n")).collect()
}

fn user_prompts(ms: &[Value]) -> usize {
    ms.iter().filter(|m| message::kind(m) == Kind::User).count()
}

/// The properties, for an open history (`complete` false: the last message may be the live
/// turn) or a complete one (the upcoming prompt is passed separately, as in `assemble`).
fn check_all(input: &[Value], cfg: &CleanConfig, complete: bool) -> Result<(), TestCaseError> {
    let gated = |m: &[Value]| {
        if complete {
            clean_history(m, cfg, true)
        } else {
            clean_messages(m, cfg)
        }
    };
    // (a) the ungated proposal is valid.
    let proposal = cleaner::clean_history(input, cfg, complete);
    let output = steps::apply(&proposal.steps, input);
    if let Err(refusal) = gate::check(input, &proposal.steps, proposal.frontier.loop_start) {
        return Err(TestCaseError::fail(format!(
            "gate refused the cleaner's proposal: {refusal}\nconfig: {cfg:?}\ninput:\n{}output:\n{}",
            dump(input),
            dump(&output)
        )));
    }

    // (b) deterministic, and the gated entry point agrees with the proposal.
    let first = gated(input);
    let second = gated(input);
    prop_assert_eq!(
        serde_json::to_string(&first).unwrap(),
        serde_json::to_string(&second).unwrap()
    );
    prop_assert!(first.fallback.is_none());
    prop_assert_eq!(&first.steps, &proposal.steps);
    prop_assert_eq!(first.stats.messages_after, output.len());

    // (c) idempotent.
    let again = gated(&output);
    prop_assert!(
        !again.stats.changed() && again.steps == steps::identity(output.len()),
        "second run changed {:?}\nconfig: {:?}\ninput:\n{}output:\n{}",
        again.stats,
        cfg,
        dump(input),
        dump(&output)
    );

    // (d) the frontier and everything after it are kept, byte-identical; so is the live loop.
    let f = proposal.frontier.index;
    if f < input.len() {
        let pos = proposal.steps.iter().position(|s| s.source == Some(f));
        prop_assert!(pos.is_some(), "frontier {} dropped", f);
        let pos = pos.unwrap();
        prop_assert_eq!(proposal.steps.len() - pos, input.len() - f);
        prop_assert_eq!(
            serde_json::to_string(&output[pos..]).unwrap(),
            serde_json::to_string(&input[f..]).unwrap()
        );
    }
    if let Some(l) = proposal.frontier.loop_start {
        for i in l..input.len() {
            prop_assert!(
                proposal.steps.contains(&Step::keep(i)),
                "live-loop message {} not kept as is",
                i
            );
        }
    }

    // (e) never more tokens.
    prop_assert!(first.stats.tokens_after <= first.stats.tokens_before);
    prop_assert_eq!(first.stats.tokens_after < first.stats.tokens_before, output != input);

    // (f) user prompts are neither lost nor added.
    prop_assert_eq!(user_prompts(&output), user_prompts(input));

    // Every replaced message keeps its source's fields other than the ones the cleaner edits.
    for s in &proposal.steps {
        if let (Some(i), Some(m)) = (s.source, &s.message) {
            let (src, out) = (input[i].as_object().unwrap(), m.as_object().unwrap());
            let kept: Vec<&String> = src.keys().filter(|k| out.contains_key(*k)).collect();
            let outs: Vec<&String> = out.keys().collect();
            prop_assert_eq!(kept, outs, "message {} lost its key order", i);
        }
    }
    Ok(())
}

/// 512 cases per property; `PROPTEST_CASES` overrides it for longer hunts.
fn cases() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn openclaw_sessions(s in session(), cfg in config()) {
        check_all(&openclaw(&s), &cfg, false)?;
    }

    #[test]
    fn openai_sessions(s in session(), cfg in config()) {
        check_all(&openai(&s), &cfg, false)?;
    }

    #[test]
    fn anthropic_sessions(s in session(), cfg in config()) {
        check_all(&anthropic(&s), &cfg, false)?;
    }

    /// Histories whose upcoming prompt is passed separately, in any of the three shapes.
    #[test]
    fn complete_histories(s in session(), cfg in config(), shape in 0usize..3) {
        let input = [openclaw, openai, anthropic][shape](&s);
        check_all(&input, &cfg, true)?;
    }

    /// With every operation off, nothing changes.
    #[test]
    fn all_off_is_identity(s in session(), k in 0usize..3) {
        let cfg = CleanConfig {
            clean_thinking: false,
            clear_reasoning_content: false,
            drop_tool_results: false,
            drop_tool_call_messages: false,
            keep_recent_turns: k,
        };
        for input in [openclaw(&s), openai(&s), anthropic(&s)] {
            let r = clean_messages(&input, &cfg);
            prop_assert!(!r.stats.changed());
            prop_assert_eq!(r.steps, steps::identity(input.len()));
        }
    }
}
