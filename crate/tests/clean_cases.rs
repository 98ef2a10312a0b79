//! What a user of the cleaner notices, case by case: the seed's frontier, each operation and
//! its counter, each option switched off, the provider rules the cleaner must keep, and how
//! the messages it does not touch come out.
//!
//! Every case goes through [`run`], which also checks that the *ungated* proposal passes the
//! validity gate, that the gated entry point returns the same plan, and that everything from
//! the frontier on is byte-identical to the input.

use contextfold::clean::clean_messages;
use contextfold::clean::cleaner::{self, CleanStats};
use contextfold::clean::gate;
use contextfold::config::CleanConfig;
use contextfold::model::message::{self, Kind};
use contextfold::model::steps::{self, Step};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Message builders (OpenClaw format unless named otherwise)
// ---------------------------------------------------------------------------------------------

const TS: u64 = 1_767_225_600_123;

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": TS})
}

fn asst_by(provider: &str, parts: Vec<Value>) -> Value {
    let calls = parts.iter().any(|p| p["type"] == "toolCall");
    json!({
        "role": "assistant",
        "content": parts,
        "api": if provider == "anthropic" { "anthropic-messages" } else { "openai-completions" },
        "provider": provider,
        "model": "model-x",
        "usage": {"input": 1200, "output": 85, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1285,
                  "cost": {"input": 0.0012, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0, "total": 0.0015}},
        "stopReason": if calls { "toolUse" } else { "stop" },
        "timestamp": TS,
        "__openclaw": {"runId": "run-1"}
    })
}

/// An assistant message from DeepSeek (a provider that needs reasoning on tool-call messages).
fn asst(parts: Vec<Value>) -> Value {
    asst_by("deepseek", parts)
}

fn think(t: &str) -> Value {
    json!({"type": "thinking", "thinking": t, "thinkingSignature": format!("sig-{t}")})
}

fn redacted(payload: &str) -> Value {
    json!({"type": "thinking", "thinking": "", "thinkingSignature": payload, "redacted": true})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn call(id: &str) -> Value {
    json!({"type": "toolCall", "id": id, "name": "read", "arguments": {"path": format!("/tmp/{id}.txt"), "limit": 200}})
}

fn result(id: &str, out: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "read",
           "content": [{"type": "text", "text": out}], "isError": false, "timestamp": TS})
}

fn custom(kind: &str) -> Value {
    json!({"role": "custom", "customType": kind, "content": "nested", "display": false,
           "excludeFromContext": true, "timestamp": TS})
}

fn off(f: impl FnOnce(&mut CleanConfig)) -> CleanConfig {
    let mut c = CleanConfig::default();
    f(&mut c);
    c
}

/// `msg` without the content parts for which `drop` is true (what a cleaned copy should be).
fn without_parts(msg: &Value, drop: impl Fn(&Value) -> bool) -> Value {
    let mut m = msg.clone();
    m["content"].as_array_mut().unwrap().retain(|p| !drop(p));
    m
}

fn is_thinking(p: &Value) -> bool {
    matches!(p["type"].as_str(), Some("thinking" | "redacted_thinking"))
}

fn is_call(p: &Value) -> bool {
    matches!(p["type"].as_str(), Some("toolCall" | "tool_use"))
}

// ---------------------------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------------------------

struct Run {
    out: Vec<Value>,
    steps: Vec<Step>,
    stats: CleanStats,
}

fn dump(ms: &[Value]) -> String {
    ms.iter().map(|m| format!("  {m}\n")).collect()
}

/// Cleans `input`, checking the invariants every case shares.
fn run(input: &[Value], cfg: &CleanConfig) -> Run {
    let proposal = cleaner::clean(input, cfg);
    if let Err(refusal) = gate::check(input, &proposal.steps, proposal.frontier.loop_start) {
        panic!(
            "the gate refuses the cleaner's own proposal: {refusal}\ninput:\n{}output:\n{}",
            dump(input),
            dump(&steps::apply(&proposal.steps, input))
        );
    }
    let gated = clean_messages(input, cfg);
    assert_eq!(gated.fallback, None);
    assert_eq!(gated.steps, proposal.steps);
    assert_eq!(gated.stats, proposal.stats);
    let out = steps::apply(&gated.steps, input);
    assert_tail_identical(input, &gated.steps, proposal.frontier.index);
    assert_eq!(gated.stats.messages_before, input.len());
    assert_eq!(gated.stats.messages_after, out.len());
    // Cleaning the output again changes nothing.
    let again = clean_messages(&out, cfg);
    assert!(
        !again.stats.changed(),
        "second run changed {:?}\noutput:\n{}",
        again.stats,
        dump(&out)
    );
    assert_eq!(again.steps, steps::identity(out.len()));
    Run {
        out,
        steps: gated.steps,
        stats: gated.stats,
    }
}

/// Everything from the frontier on is kept as is, in order, and serializes byte-identically.
fn assert_tail_identical(input: &[Value], plan: &[Step], frontier: usize) {
    if input.is_empty() {
        return;
    }
    let pos = plan
        .iter()
        .position(|s| s.source == Some(frontier))
        .unwrap_or_else(|| panic!("frontier {frontier} missing from the plan"));
    let tail = &plan[pos..];
    assert_eq!(
        tail.len(),
        input.len() - frontier,
        "messages after the frontier were dropped"
    );
    for (k, s) in tail.iter().enumerate() {
        assert_eq!(s.source, Some(frontier + k));
        assert!(
            s.message.is_none(),
            "message {} at/after the frontier was replaced",
            frontier + k
        );
    }
    let out = steps::apply(plan, input);
    assert_eq!(
        serde_json::to_string(&out[pos..]).unwrap(),
        serde_json::to_string(&input[frontier..]).unwrap()
    );
}

fn roles(ms: &[Value]) -> Vec<&str> {
    ms.iter().map(message::role).collect()
}

/// Adjacent user prompts or adjacent assistant messages (other roles are not turns).
fn same_role_runs(ms: &[Value]) -> usize {
    let kinds: Vec<Kind> = ms
        .iter()
        .map(message::kind)
        .filter(|k| matches!(k, Kind::User | Kind::Assistant | Kind::ToolResult))
        .collect();
    kinds
        .windows(2)
        .filter(|w| w[0] == w[1] && matches!(w[0], Kind::User | Kind::Assistant))
        .count()
}

fn total_thinking(ms: &[Value]) -> usize {
    ms.iter()
        .filter_map(message::parts)
        .flatten()
        .filter(|p| is_thinking(p))
        .count()
}

// ---------------------------------------------------------------------------------------------
// The seed's frontier
// ---------------------------------------------------------------------------------------------

#[test]
fn frontier_when_history_ends_with_user() {
    let input = vec![
        user("list the files"),
        asst(vec![think("I should run ls"), call("c1")]),
        result("c1", "a.txt b.txt"),
        asst(vec![think("two files"), text("a.txt and b.txt")]),
        user("thanks, now delete b.txt"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.frontier, 4);
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            without_parts(&input[3], is_thinking),
            input[4].clone()
        ]
    );
    assert_eq!(r.stats.cleaned_think, 2);
    assert_eq!(r.stats.drop_tool, 1);
    assert_eq!(r.stats.drop_asst_tc, 1);
    assert!(r.stats.tokens_after < r.stats.tokens_before);
}

#[test]
fn frontier_when_history_ends_with_assistant() {
    let input = vec![
        user("hi"),
        asst(vec![think("greet"), text("hello")]),
        user("read /tmp/c2.txt"),
        asst(vec![think("use read"), call("c2")]),
        result("c2", "contents"),
        asst(vec![think("summarize"), text("it says: contents")]),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.frontier, 5);
    // Before the frontier, even the current turn's finished exchange is cleaned; the frontier
    // answer keeps its thinking.
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            without_parts(&input[1], is_thinking),
            input[2].clone(),
            input[5].clone()
        ]
    );
    assert_eq!(
        (r.stats.cleaned_think, r.stats.drop_tool, r.stats.drop_asst_tc),
        (2, 1, 1)
    );
}

#[test]
fn frontier_when_history_ends_with_tool_results_is_their_issuer() {
    let input = vec![
        user("hi"),
        asst(vec![think("greet"), text("hello")]),
        user("read two files"),
        asst(vec![think("both at once"), call("c2"), call("c3")]),
        result("c2", "two"),
        result("c3", "three"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.frontier, 3);
    assert_eq!(r.out[..2], [input[0].clone(), without_parts(&input[1], is_thinking)]);
    assert_eq!(r.out[2..], input[2..]);
}

#[test]
fn live_tool_loop_keeps_its_steps_and_their_thinking() {
    let input = vec![
        user("hi"),
        asst(vec![think("greet"), text("hello")]),
        user("fix the bug"),
        asst(vec![think("first look at the file"), call("c2")]),
        result("c2", "fn main() {}"),
        custom("openclaw.nested-tool.v1"),
        asst(vec![think("now run the tests"), call("c3")]),
        result("c3", "1 failed"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.frontier, 6);
    // Only the completed turn is cleaned; every step of the unfinished loop stays, thinking
    // included (PROVIDERS.md rule 8).
    assert_eq!(r.out[1], without_parts(&input[1], is_thinking));
    assert_eq!(r.out[2..], input[2..]);
    assert_eq!(r.stats.cleaned_think, 1);
    assert_eq!(r.stats.drop_tool, 0);
}

#[test]
fn live_loop_that_ends_with_an_unanswered_call_is_kept() {
    let input = vec![
        user("hi"),
        asst(vec![think("greet"), text("hello")]),
        user("fix the bug"),
        asst(vec![think("look first"), call("c2")]),
        result("c2", "fn main() {}"),
        asst(vec![think("now the tests"), call("c3")]),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.frontier, 5);
    assert_eq!(r.out[2..], input[2..]);
}

// ---------------------------------------------------------------------------------------------
// Each operation and its counter
// ---------------------------------------------------------------------------------------------

#[test]
fn thinking_blocks_of_every_kind_are_removed_and_counted() {
    let anthropic_answer = json!({
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "let me think", "signature": "EpcDCkYICxgCKkDw"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
            {"type": "text", "text": "42"}
        ]
    });
    let input = vec![
        user("q1"),
        asst(vec![think("plain"), redacted("opaque-bytes=="), text("a1")]),
        user("q2"),
        anthropic_answer.clone(),
        user("q3"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.cleaned_think, 4);
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            without_parts(&input[1], is_thinking),
            input[2].clone(),
            without_parts(&anthropic_answer, is_thinking),
            input[4].clone(),
        ]
    );
    assert_eq!((r.stats.drop_tool, r.stats.drop_asst_tc, r.stats.cleaned_rc), (0, 0, 0));
    assert!(r.stats.tokens_after < r.stats.tokens_before);
}

#[test]
fn reasoning_content_is_cleared_and_counted() {
    let input = vec![
        json!({"role": "system", "content": "be brief"}),
        json!({"role": "user", "content": "2+2?"}),
        json!({"role": "assistant", "content": "4", "reasoning_content": "two plus two is four"}),
        json!({"role": "user", "content": "3+3?"}),
        json!({"role": "assistant", "content": "6", "reasoning_content": null}),
        json!({"role": "user", "content": "and 4+4?"}),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.cleaned_rc, 1);
    assert_eq!(r.out[2], json!({"role": "assistant", "content": "4"}));
    // A null reasoning_content is nothing to clear: that message is kept as is.
    assert_eq!(r.steps[4], Step::keep(4));
    assert!(r.stats.tokens_after < r.stats.tokens_before);
}

#[test]
fn completed_tool_results_and_pure_call_messages_are_dropped_and_counted() {
    let input = vec![
        user("check both"),
        asst(vec![call("c1")]),
        result("c1", "one"),
        asst(vec![call("c2")]),
        result("c2", "two"),
        asst(vec![text("both fine")]),
        user("good"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.out, vec![input[0].clone(), input[5].clone(), input[6].clone()]);
    assert_eq!((r.stats.drop_tool, r.stats.drop_asst_tc), (2, 2));
    assert_eq!(r.steps, vec![Step::keep(0), Step::keep(5), Step::keep(6)]);
    assert!(r.stats.tokens_after < r.stats.tokens_before);
}

// ---------------------------------------------------------------------------------------------
// Each operation switched off
// ---------------------------------------------------------------------------------------------

fn thinking_session() -> Vec<Value> {
    vec![
        user("q1"),
        asst(vec![think("t1"), redacted("opaque"), text("a1")]),
        user("q2"),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "t2", "signature": "s2"},
            {"type": "redacted_thinking", "data": "d2"},
            {"type": "text", "text": "a2"}]}),
        user("q3"),
    ]
}

#[test]
fn clean_thinking_off_keeps_every_thinking_block() {
    let input = thinking_session();
    let r = run(&input, &off(|c| c.clean_thinking = false));
    assert_eq!(r.out, input);
    assert_eq!(r.steps, steps::identity(input.len()));
    assert!(!r.stats.changed());
    assert_eq!(r.stats.tokens_after, r.stats.tokens_before);
}

#[test]
fn clean_thinking_off_keeps_thinking_next_to_dropped_tool_calls() {
    // The mixed message loses its call; its thinking cannot be removed (option off) nor moved
    // into the answer (rule 7), so the exchange stays whole rather than losing the thinking.
    let input = vec![
        user("check"),
        asst(vec![think("plan"), text("Checking."), call("c1")]),
        result("c1", "ok"),
        asst(vec![think("done"), text("All good.")]),
        user("thanks"),
    ];
    let r = run(&input, &off(|c| c.clean_thinking = false));
    assert_eq!(total_thinking(&r.out), total_thinking(&input));
    assert_eq!(same_role_runs(&r.out), 0);
}

#[test]
fn clear_reasoning_content_off_keeps_reasoning_content() {
    let input = vec![
        json!({"role": "user", "content": "2+2?"}),
        json!({"role": "assistant", "content": "4", "reasoning_content": "two plus two"}),
        json!({"role": "user", "content": "3+3?"}),
    ];
    let r = run(&input, &off(|c| c.clear_reasoning_content = false));
    assert_eq!(r.out, input);
    assert!(!r.stats.changed());
}

fn tool_session(provider: &str) -> Vec<Value> {
    vec![
        user("check"),
        asst_by(provider, vec![think("plan"), call("c1")]),
        result("c1", "one"),
        asst_by(provider, vec![think("more"), text("Also this."), call("c2")]),
        result("c2", "two"),
        asst_by(provider, vec![think("done"), text("All good.")]),
        user("thanks"),
    ]
}

#[test]
fn drop_tool_results_off_keeps_every_call_and_result() {
    let input = tool_session("deepseek");
    let r = run(&input, &off(|c| c.drop_tool_results = false));
    assert_eq!(r.stats.drop_tool, 0);
    assert_eq!(r.stats.drop_asst_tc, 0);
    assert_eq!(roles(&r.out), roles(&input));
    // Tool-call messages keep their thinking (DeepSeek needs it); the final answer loses it.
    assert_eq!(r.out[1..5], input[1..5]);
    assert_eq!(r.out[5], without_parts(&input[5], is_thinking));
    assert_eq!(r.stats.cleaned_think, 1);
}

#[test]
fn drop_tool_call_messages_off_keeps_pure_call_messages_with_their_results() {
    let input = tool_session("deepseek");
    let r = run(&input, &off(|c| c.drop_tool_call_messages = false));
    // The pure tool-call message and its result stay whole; the mixed message keeps its text
    // and loses its call, which is merged into the answer that follows.
    assert_eq!(r.out[..3], input[..3]);
    assert_eq!(r.stats.drop_asst_tc, 0);
    assert_eq!(r.stats.drop_tool, 1);
    assert_eq!(r.stats.dropped_calls, 1);
    assert!(
        r.out.iter().all(|m| m != &input[4]),
        "the mixed message's result must go"
    );
    assert_eq!(r.out.len(), 5);
    assert_eq!(r.out[3]["content"], json!([text("Also this."), text("All good.")]));
    assert_eq!(r.out[4], input[6]);
}

// ---------------------------------------------------------------------------------------------
// keepRecentTurns
// ---------------------------------------------------------------------------------------------

fn three_turns() -> Vec<Value> {
    let mut m = Vec::new();
    for t in 1..=3 {
        let id = format!("c{t}");
        m.push(user(&format!("q{t}")));
        m.push(asst(vec![think(&format!("plan {t}")), call(&id)]));
        m.push(result(&id, &format!("out {t}")));
        m.push(asst(vec![think(&format!("done {t}")), text(&format!("a{t}"))]));
    }
    m.push(user("q4"));
    m
}

#[test]
fn keep_recent_turns_leaves_the_last_turns_uncleaned() {
    let input = three_turns();
    let cleaned_turn = |t: usize| vec![input[4 * t].clone(), without_parts(&input[4 * t + 3], is_thinking)];

    let r0 = run(&input, &CleanConfig::default());
    let last = vec![input[12].clone()];
    assert_eq!(
        r0.out,
        [cleaned_turn(0), cleaned_turn(1), cleaned_turn(2), last].concat()
    );

    let r1 = run(&input, &off(|c| c.keep_recent_turns = 1));
    let mut want = [cleaned_turn(0), cleaned_turn(1)].concat();
    want.extend_from_slice(&input[8..]);
    assert_eq!(r1.out, want);

    let r2 = run(&input, &off(|c| c.keep_recent_turns = 2));
    let mut want = cleaned_turn(0);
    want.extend_from_slice(&input[4..]);
    assert_eq!(r2.out, want);

    let r9 = run(&input, &off(|c| c.keep_recent_turns = 9));
    assert_eq!(r9.out, input);
    assert!(!r9.stats.changed());
}

// ---------------------------------------------------------------------------------------------
// Tool exchanges
// ---------------------------------------------------------------------------------------------

#[test]
fn mixed_text_and_call_message_keeps_its_text_and_loses_the_call() {
    let input = vec![
        user("look at a"),
        asst(vec![think("hm"), text("I'll look at it."), call("c1")]),
        result("c1", "aaa"),
        user("never mind"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            without_parts(&input[1], |p| is_thinking(p) || is_call(p)),
            input[3].clone()
        ]
    );
    assert_eq!(
        (r.stats.dropped_calls, r.stats.drop_tool, r.stats.cleaned_think),
        (1, 1, 1)
    );
    assert_eq!(r.stats.drop_asst_tc, 0);
}

#[test]
fn text_remnant_before_a_final_answer_is_merged_into_it() {
    let input = vec![
        user("check"),
        asst(vec![text("Checking."), call("c1")]),
        result("c1", "ok"),
        asst(vec![think("fine"), text("All good.")]),
        user("thanks"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(roles(&r.out), ["user", "assistant", "user"]);
    assert_eq!(same_role_runs(&r.out), 0);
    let mut want = without_parts(&input[3], is_thinking);
    want["content"] = json!([text("Checking."), text("All good.")]);
    assert_eq!(r.out[1], want);
    assert_eq!(r.stats.merged_text, 1);
}

#[test]
fn text_remnant_before_the_frontier_answer_does_not_make_two_assistant_messages() {
    let input = vec![
        user("check"),
        asst(vec![think("go"), text("Checking."), call("c1")]),
        result("c1", "ok"),
        asst(vec![think("fine"), text("All good.")]),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(same_role_runs(&r.out), 0);
    assert_eq!(r.out.last(), input.last());
    assert_eq!(r.out.len(), 2);
}

#[test]
fn parallel_batch_is_dropped_as_a_unit() {
    let input = vec![
        user("read three"),
        asst(vec![think("all at once"), call("a"), call("b"), call("c")]),
        custom("openclaw.nested-tool.v1"),
        result("c", "C"),
        result("a", "A"),
        result("b", "B"),
        asst(vec![text("read them")]),
        user("ok"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(
        r.out,
        vec![input[0].clone(), input[2].clone(), input[6].clone(), input[7].clone()]
    );
    assert_eq!((r.stats.drop_tool, r.stats.drop_asst_tc), (3, 1));
}

#[test]
fn parallel_batch_is_kept_as_a_unit() {
    let input = vec![
        user("read three"),
        asst_by("anthropic", vec![think("all at once"), call("a"), call("b"), call("c")]),
        result("a", "A"),
        result("b", "B"),
        result("c", "C"),
        asst(vec![text("read them")]),
        user("ok"),
    ];
    let r = run(&input, &off(|c| c.drop_tool_call_messages = false));
    assert_eq!(r.out.len(), input.len());
    assert_eq!(r.out[1], without_parts(&input[1], is_thinking));
    assert_eq!(r.out[2..], input[2..]);
}

#[test]
fn reused_call_ids_pair_positionally() {
    // tau-bench style: one id used for two different calls in the same session.
    let input = vec![
        user("q1"),
        asst(vec![call("dup")]),
        result("dup", "first"),
        asst(vec![text("a1")]),
        user("q2"),
        asst(vec![think("again"), call("dup")]),
        result("dup", "second"),
        asst(vec![text("a2")]),
        user("q3"),
    ];
    // The first exchange is cleaned, the second (a recent turn) is kept with its own result.
    let r = run(&input, &off(|c| c.keep_recent_turns = 1));
    assert_eq!(r.out[0], input[0]);
    assert_eq!(r.out[1], input[3]);
    assert_eq!(r.out[2..], input[4..]);
    assert_eq!((r.stats.drop_tool, r.stats.drop_asst_tc), (1, 1));

    // Live loop reusing an id from a finished turn: only the finished turn's pair goes.
    let live = vec![
        user("q1"),
        asst(vec![call("dup")]),
        result("dup", "first"),
        asst(vec![text("a1")]),
        user("q2"),
        asst(vec![call("dup")]),
        result("dup", "second"),
    ];
    let r = run(&live, &CleanConfig::default());
    assert_eq!(
        r.out,
        vec![
            live[0].clone(),
            live[3].clone(),
            live[4].clone(),
            live[5].clone(),
            live[6].clone()
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// OpenAI and Anthropic formats
// ---------------------------------------------------------------------------------------------

#[test]
fn openai_format_is_cleaned() {
    let input = vec![
        json!({"role": "system", "content": "You are an airline agent."}),
        json!({"role": "user", "content": "My id is mia_li_3668."}),
        json!({"role": "assistant", "content": null, "reasoning_content": "look the user up",
               "tool_calls": [{"id": "call_1", "type": "function",
                               "function": {"name": "get_user_details", "arguments": "{\"user_id\":\"mia_li_3668\"}"}}]}),
        json!({"role": "tool", "tool_call_id": "call_1", "name": "get_user_details", "content": "{\"name\":\"Mia\"}"}),
        json!({"role": "assistant", "content": "Hello Mia, how can I help?", "reasoning_content": "greet"}),
        json!({"role": "user", "content": "Book a flight."}),
        json!({"role": "assistant", "content": null,
               "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "search", "arguments": "{}"}},
                              {"id": "call_3", "type": "function", "function": {"name": "search", "arguments": "{\"d\":1}"}}]}),
        json!({"role": "tool", "tool_call_id": "call_2", "name": "search", "content": "[]"}),
        json!({"role": "tool", "tool_call_id": "call_3", "name": "search", "content": "[]"}),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.stats.frontier, 6);
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            input[1].clone(),
            json!({"role": "assistant", "content": "Hello Mia, how can I help?"}),
            input[5].clone(),
            input[6].clone(),
            input[7].clone(),
            input[8].clone(),
        ]
    );
    assert_eq!((r.stats.drop_tool, r.stats.drop_asst_tc, r.stats.cleaned_rc), (1, 1, 2));
}

#[test]
fn openai_tool_call_message_keeps_reasoning_content_while_it_keeps_calls() {
    // Rule 9 on raw OpenAI-style input: no provider field, so reasoning is presumed needed.
    let input = vec![
        json!({"role": "user", "content": "weather?"}),
        json!({"role": "assistant", "content": null, "reasoning_content": "call the tool",
               "tool_calls": [{"id": "w", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "w", "content": "sunny"}),
        json!({"role": "assistant", "content": "Sunny.", "reasoning_content": "easy"}),
        json!({"role": "user", "content": "thanks"}),
    ];
    let r = run(&input, &off(|c| c.drop_tool_results = false));
    assert_eq!(r.out[1], input[1]);
    assert_eq!(r.out[3], json!({"role": "assistant", "content": "Sunny."}));
    assert_eq!(r.stats.cleaned_rc, 1);
}

#[test]
fn anthropic_format_is_cleaned() {
    let input = vec![
        json!({"role": "user", "content": "run ls"}),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "use Bash", "signature": "EpcD"},
            {"type": "redacted_thinking", "data": "EmwK"},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]}),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "one file", "signature": "EqQB"},
            {"type": "text", "text": "There is a.txt."}]}),
        json!({"role": "user", "content": "thanks"}),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            without_parts(&input[3], is_thinking),
            input[4].clone()
        ]
    );
    assert_eq!(
        (r.stats.cleaned_think, r.stats.drop_tool, r.stats.drop_asst_tc),
        (3, 1, 1)
    );
}

#[test]
fn anthropic_tool_result_next_to_user_text_goes_with_its_call() {
    // A user message may carry tool results *and* new text; when the call goes, its result
    // block must go too (an orphan tool_result is "unexpected tool_use_id"), the text stays.
    let input = vec![
        json!({"role": "user", "content": "run ls"}),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Running it."},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"},
            {"type": "text", "text": "also show hidden files"}]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Only a.txt."}]}),
        json!({"role": "user", "content": "thanks"}),
    ];
    let r = run(&input, &CleanConfig::default());
    let ids_called: Vec<String> = r.out.iter().flat_map(message::tool_calls).map(|c| c.id).collect();
    for m in &r.out {
        for p in message::parts(m).into_iter().flatten() {
            if p["type"] == "tool_result" {
                assert!(
                    ids_called.contains(&p["tool_use_id"].as_str().unwrap().to_string()),
                    "orphan {p}"
                );
            }
        }
    }
    assert_eq!(same_role_runs(&r.out), 0);
    assert!(r.out.iter().any(|m| m.to_string().contains("also show hidden files")));
}

// ---------------------------------------------------------------------------------------------
// Roles keep alternating
// ---------------------------------------------------------------------------------------------

#[test]
fn interrupted_turns_do_not_join_two_user_messages() {
    let cases = vec![
        // the tool ran, but the user spoke before any answer
        vec![
            user("q1"),
            asst(vec![think("go"), call("c1")]),
            result("c1", "partial"),
            user("stop, do something else"),
            asst(vec![text("ok")]),
            user("q3"),
        ],
        // the call never got a result
        vec![
            user("q1"),
            asst(vec![think("go"), call("c1")]),
            user("stop"),
            asst(vec![text("ok")]),
            user("q3"),
        ],
        // an aborted answer that only got to think
        vec![
            user("q1"),
            json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "thinkingSignature": "s"}],
                   "provider": "anthropic", "stopReason": "aborted", "timestamp": TS}),
            user("hello?"),
            asst(vec![text("here")]),
            user("q3"),
        ],
        // an answer that failed with nothing but blank text
        vec![
            user("q1"),
            asst(vec![think("x"), text("  ")]),
            custom("note"),
            user("hello?"),
            asst(vec![text("here")]),
            user("q3"),
        ],
    ];
    for input in cases {
        for cfg in [CleanConfig::default(), off(|c| c.drop_tool_call_messages = false)] {
            let r = run(&input, &cfg);
            assert_eq!(same_role_runs(&r.out), 0, "{}", dump(&r.out));
            assert_eq!(r.out.iter().filter(|m| message::kind(m) == Kind::User).count(), 3);
        }
    }
}

#[test]
fn orphan_result_between_answers_does_not_join_two_assistant_messages() {
    let input = vec![
        user("q1"),
        asst(vec![text("a")]),
        result("ghost", "nobody asked"),
        asst(vec![text("b")]),
        user("q2"),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(same_role_runs(&r.out), 0, "{}", dump(&r.out));
}

#[test]
fn repairs_keep_only_what_is_needed_so_a_second_run_changes_nothing() {
    // Dropping everything droppable here joins three answers; the first repair (bringing
    // back the orphan result) is made unnecessary by the second (bringing back the call_1
    // exchange), and keeping both would let a second run drop the orphan after all.
    let call = |id: &str| json!({"id": id, "type": "function", "function": {"name": "get", "arguments": "{}"}});
    let input = vec![
        json!({"role": "user", "content": "q0"}),
        json!({"role": "assistant", "content": null}),
        json!({"role": "assistant", "content": "", "tool_calls": [call("call_1")]}),
        json!({"role": "assistant", "content": "answer", "tool_calls": [call("call_2")]}),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "r1"}),
        json!({"role": "tool", "tool_call_id": "ghost", "content": "nobody asked"}),
        json!({"role": "assistant", "content": "done"}),
        json!({"role": "user", "content": "q1"}),
        json!({"role": "assistant", "content": null}),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            input[1].clone(),
            input[2].clone(),
            json!({"role": "assistant", "content": "answer"}),
            input[4].clone(),
            input[6].clone(),
            input[7].clone(),
            input[8].clone(),
        ]
    );
}

#[test]
fn repairs_are_minimal_whatever_order_they_were_made_in() {
    // The first message keeps its thinking (option off), so its exchange cannot go without
    // joining two answers; the later exchanges can go, except where that joins answers again.
    let input = vec![
        user("q0"),
        asst(vec![think("t"), text("First."), call("c1")]),
        result("c1", "one"),
        asst(vec![text(" \n"), call("c2")]),
        asst(vec![call("c3")]),
        result("c3", "three"),
        asst(vec![text("Done.")]),
        user("q1"),
    ];
    let r = run(&input, &off(|c| c.clean_thinking = false));
    assert_eq!(same_role_runs(&r.out), 0, "{}", dump(&r.out));
    assert_eq!(
        r.out,
        vec![
            input[0].clone(),
            input[1].clone(),
            input[2].clone(),
            input[6].clone(),
            input[7].clone()
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// What passes through
// ---------------------------------------------------------------------------------------------

#[test]
fn unchanged_and_unknown_messages_pass_through_byte_identical() {
    let answer = json!({
        "role": "assistant",
        "content": [
            think("cite"),
            {"type": "text", "text": "See [1].", "textSignature": "ts"},
            {"type": "citation", "ref": 1, "url": "https://example.org"}
        ],
        "api": "openai-completions", "provider": "deepseek", "model": "deepseek-chat",
        "responseId": "resp-9", "stopReason": "stop", "timestamp": TS,
        "__openclaw": {"runId": "run-7"}
    });
    let input = vec![
        json!({"role": "compactionSummary", "summary": "earlier: set up the repo", "tokensBefore": 48213,
               "timestamp": "2026-11-30T05:02:00Z", "firstKeptEntryId": "e17"}),
        json!({"role": "user", "content": [{"type": "text", "text": "q1"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}],
               "timestamp": TS, "__openclaw": {"senderIsOwner": true}, "idempotencyKey": "turn-1:user"}),
        answer.clone(),
        custom("openclaw.nested-tool.v1"),
        json!({"role": "bashExecution", "command": "ls", "output": "a.txt", "exitCode": 0, "cancelled": false,
               "truncated": false, "timestamp": TS}),
        json!({"role": "branchSummary", "summary": "tried another way", "fromId": "e3", "timestamp": TS}),
        json!({"role": "weird", "payload": [1, 2, 3]}),
        json!({"role": "user", "content": "q2", "timestamp": TS}),
    ];
    let r = run(&input, &CleanConfig::default());
    assert_eq!(r.steps.len(), input.len());
    for (i, s) in r.steps.iter().enumerate() {
        if i == 2 {
            assert_eq!(s.source, Some(2));
            assert_eq!(s.message.as_deref(), Some(&without_parts(&answer, is_thinking)));
        } else {
            assert_eq!(*s, Step::keep(i), "message {i} should be kept by reference");
        }
    }
    // The unknown part type survives in the cleaned message.
    assert_eq!(r.out[2]["content"][1]["type"], "citation");
}

#[test]
fn replaced_messages_keep_numbers_and_key_order() {
    let raw = r#"[
        {"role":"user","content":"q1","timestamp":1767225600123},
        {"role":"assistant","stopReason":"stop","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s"},{"type":"text","text":"a"}],"usage":{"input":12,"output":-1,"totalTokens":18446744073709551615,"cost":{"total":0.0015,"input":1e-7}},"timestamp":1767225600124,"provider":"deepseek","zeta":0,"alpha":1},
        {"role":"user","content":"q2","timestamp":1767225600125}
    ]"#;
    let input: Vec<Value> = serde_json::from_str(raw).unwrap();
    let r = run(&input, &CleanConfig::default());
    let replaced = r.steps[1].message.as_ref().expect("the answer is replaced");
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(replaced), keys(&input[1]));
    let want = without_parts(&input[1], is_thinking);
    assert_eq!(
        serde_json::to_string(replaced).unwrap(),
        serde_json::to_string(&want).unwrap()
    );
    let s = serde_json::to_string(replaced).unwrap();
    for lit in [
        "\"timestamp\":1767225600124",
        "\"output\":-1",
        "\"totalTokens\":18446744073709551615",
        "\"total\":0.0015",
    ] {
        assert!(s.contains(lit), "{lit} not in {s}");
    }
    assert!(s.find("\"zeta\"").unwrap() < s.find("\"alpha\"").unwrap());
}

// ---------------------------------------------------------------------------------------------
// Rule 9: reasoning on messages that keep tool calls
// ---------------------------------------------------------------------------------------------

#[test]
fn thinking_stays_on_kept_tool_calls_unless_the_provider_tolerates_its_loss() {
    let keep_results = off(|c| c.drop_tool_results = false);
    for (provider, keeps) in [("deepseek", true), ("kimi", true), ("", true), ("anthropic", false)] {
        let input = vec![
            user("check"),
            asst_by(provider, vec![think("plan"), call("c1")]),
            result("c1", "ok"),
            asst_by(provider, vec![think("done"), text("fine")]),
            user("thanks"),
        ];
        let r = run(&input, &keep_results);
        let want = if keeps {
            input[1].clone()
        } else {
            without_parts(&input[1], is_thinking)
        };
        assert_eq!(r.out[1], want, "provider {provider:?}");
        // The plain-text answer always loses it.
        assert_eq!(r.out[3], without_parts(&input[3], is_thinking), "provider {provider:?}");
    }
    // A message with no provider field at all is treated as unknown.
    let mut bare = asst(vec![think("plan"), call("c1")]);
    bare.as_object_mut().unwrap().remove("provider");
    bare.as_object_mut().unwrap().remove("api");
    let input = vec![
        user("check"),
        bare.clone(),
        result("c1", "ok"),
        asst(vec![text("fine")]),
        user("thanks"),
    ];
    assert_eq!(run(&input, &keep_results).out[1], bare);
}

// ---------------------------------------------------------------------------------------------
// Degenerate inputs
// ---------------------------------------------------------------------------------------------

#[test]
fn degenerate_inputs_are_left_alone() {
    let cases: Vec<Vec<Value>> = vec![
        vec![],
        vec![user("only")],
        vec![custom("x")],
        vec![asst(vec![think("alone"), text("hi")])],
        vec![result("ghost", "orphan")],
        vec![
            json!({"role": "system", "content": "s"}),
            json!("not an object"),
            json!(null),
        ],
    ];
    for input in cases {
        let r = run(&input, &CleanConfig::default());
        assert_eq!(r.out, input);
    }
}
