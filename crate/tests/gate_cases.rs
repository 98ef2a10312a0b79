//! The validity gate on plans the cleaner once produced: each of these broke a provider rule
//! and the gate let it through.

use contextfold::clean::gate;
use contextfold::model::steps::{self, Step};
use serde_json::{json, Value};

fn anthropic_with_mixed_result() -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "run ls"}),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Running it."},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"},
            {"type": "text", "text": "also show hidden files"}]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Only a.txt."}]}),
    ]
}

#[test]
fn a_call_answered_next_to_new_user_text_is_answered() {
    // Rule 1: the result sits in the very user message that follows the call, so the input
    // has no unanswered call, and a plan may not "trade" it for a really unanswered one.
    let mut m = anthropic_with_mixed_result();
    assert_eq!(gate::check(&m, &steps::identity(m.len()), None), Ok(()));
    m[3]["content"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {}}));
    m.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}]}));
    m.push(json!({"role": "user", "content": "thanks"}));
    let mut text_only = m[1].clone();
    text_only["content"].as_array_mut().unwrap().pop();
    let mut prompt_only = m[2].clone();
    prompt_only["content"].as_array_mut().unwrap().remove(0);
    // toolu_1's call and result go together (fine); toolu_2's result goes alone (not fine).
    let plan = vec![
        Step::keep(0),
        Step::replace(1, text_only),
        Step::replace(2, prompt_only),
        Step::keep(3),
        Step::keep(5),
    ];
    assert_eq!(gate::check(&m, &plan, None).unwrap_err().rule, 1);
}

#[test]
fn a_tool_result_block_left_next_to_user_text_without_its_call_is_refused() {
    // Rule 2: the call went, its result block stayed ("unexpected tool_use_id").
    let m = anthropic_with_mixed_result();
    let mut text_only = m[1].clone();
    text_only["content"].as_array_mut().unwrap().pop();
    let plan = vec![Step::keep(0), Step::replace(1, text_only), Step::keep(2), Step::keep(3)];
    assert_eq!(gate::check(&m, &plan, None).unwrap_err().rule, 2);
}

#[test]
fn dropping_a_thinking_step_of_the_live_loop_is_refused() {
    // Rule 8: the loop's first step (with its thinking) dropped, the second kept.
    let m = vec![
        json!({"role": "user", "content": "fix it"}),
        json!({"role": "assistant", "provider": "anthropic", "content": [
            {"type": "thinking", "thinking": "look first", "thinkingSignature": "s1"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]}),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [], "isError": false}),
        json!({"role": "assistant", "provider": "anthropic", "content": [
            {"type": "toolCall", "id": "c2", "name": "test", "arguments": {}}]}),
        json!({"role": "toolResult", "toolCallId": "c2", "toolName": "test", "content": [], "isError": false}),
    ];
    let plan = vec![Step::keep(0), Step::keep(3), Step::keep(4)];
    assert_eq!(gate::check(&m, &plan, Some(1)).unwrap_err().rule, 8);
    // Outside a live loop the same cut is fine.
    assert_eq!(gate::check(&m, &plan, None), Ok(()));
}
