//! The TypeScript of the rule calls JS makes instead of keeping a copy of a rule: the active
//! branch of transcript entries (`Entry`, of which it reads `id` and `parentId`) ([`crate::transcript::branch`]) and which turns pins hold
//! ([`crate::fold::pins`]). The types are defined where the rules are.

pub const TYPESCRIPT: &str = r#"
/** `activeBranch`'s result: positions of the branch's entries in the input, oldest first, and
 * how the chain ended walking back from the newest entry (`cycle`: the oldest entry's parent is
 * already on the branch; `unknownParent`: it is not in the transcript). */
export interface Branch {
  positions: number[];
  end: "root" | "cycle" | "unknownParent";
}

/** A turn as `pinnedTurns` reads it: every id it goes by (entry id first) and its messages. */
export interface PinTurn {
  ids: string[];
  messages?: Message[];
}

/** `pinnedTurns`: which of these turns the pins hold (the planner's and prune's rule). */
export interface PinnedTurnsRequest {
  pins: Pins;
  turns: PinTurn[];
}
"#;

#[cfg(test)]
mod tests {
    use crate::fold::pins::{PinTurn, PinnedTurnsRequest};
    use crate::wire::typescript::{check, check_request};
    use serde_json::{json, Value};

    #[test]
    fn the_typescript_is_what_is_read_and_written() {
        check_request::<PinnedTurnsRequest>("PinnedTurnsRequest");
        check_request::<PinTurn>("PinTurn");
        let links = json!([{"id": "a"}, {"id": "b", "parentId": "a", "type": "message"}, {"id": "c", "parentId": "x"}]);
        let r: Value = serde_json::from_str(&crate::api::active_branch_json(&links.to_string()).unwrap()).unwrap();
        check("Branch", &r);
        assert_eq!(r, json!({"positions": [2], "end": "unknownParent"}));
    }

    #[test]
    fn pins_hold_turns_by_any_id_tool_or_phrase_of_their_full_text() {
        let turn = |ids: &[&str], text: &str, tool: Option<&str>| {
            let mut messages = vec![json!({"role": "user", "content": text})];
            if let Some(name) = tool {
                messages.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": name, "arguments": {}}]}));
                messages.push(json!({"role": "toolResult", "toolCallId": "c1", "toolName": name, "content": [{"type": "text", "text": "ok"}]}));
            }
            json!({"ids": ids, "messages": messages})
        };
        // The phrase sits far past any preview: matched on the full text, case-insensitively.
        let long = format!("{} the Deploy Key rotation", "filler ".repeat(400));
        let req = json!({
            "pins": {"turnIds": ["h42"], "tools": ["deploy"], "patterns": ["deploy key"]},
            "turns": [
                turn(&["e1", "h41"], "plain question", None),
                turn(&["e2", "h42"], "pinned by its hash id", None),
                turn(&["e3", "h43"], "runs a tool", Some("deploy")),
                turn(&["e4", "h44"], &long, None),
            ],
        });
        let r = crate::api::pinned_turns_json(&req.to_string()).unwrap();
        assert_eq!(r, r#"["e2","e3","e4"]"#);
        let e = crate::api::pinned_turns_json(&json!({"pins": {}, "turns": [{"id": "e1"}]}).to_string()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("invalid request: turns[0]: unknown field `id`"),
            "{e}"
        );
    }
}
