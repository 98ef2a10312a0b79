//! Where the live turn starts: the frontier.
//!
//! Scanning backwards from the end (messages of other roles are skipped):
//! * history ends with a `user` message → that message is the frontier;
//! * ends with an `assistant` message → that assistant is the frontier;
//! * ends with a tool result → the assistant that issued its call is the frontier
//!   (the nearest preceding assistant when the result is an orphan).
//!
//! Everything at or after the frontier is left untouched by every stage of the engine.

use crate::model::message::{self, Kind};
use crate::model::pairing::Pairing;
use serde_json::Value;

/// The frontier of a message list and the start of the live tool loop, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frontier {
    /// Index of the frontier message; `0` when there is nothing to anchor on.
    pub index: usize,
    /// When the history ends inside an unfinished tool loop: the index of the first
    /// message after the user message that started it. The cleaner leaves `loop_start..`
    /// whole, and no stage may drop or edit its thinking (PROVIDERS.md rule 8).
    pub loop_start: Option<usize>,
}

/// The frontier of a history that is complete: the host passes the upcoming user prompt
/// separately (OpenClaw's `assemble`), so every message given is part of a finished turn and
/// the frontier sits after the last one.
pub fn after_end(messages: &[Value]) -> Frontier {
    Frontier {
        index: messages.len(),
        loop_start: None,
    }
}

/// Computes the frontier.
pub fn find(messages: &[Value], pairing: &Pairing) -> Frontier {
    let mut i = messages.len();
    while i > 0 {
        i -= 1;
        match message::kind(&messages[i]) {
            Kind::User => {
                return Frontier {
                    index: i,
                    loop_start: None,
                }
            }
            Kind::Assistant => {
                let in_loop = !message::tool_calls(&messages[i]).is_empty();
                return Frontier {
                    index: i,
                    loop_start: in_loop.then(|| loop_start(messages, i)),
                };
            }
            Kind::ToolResult => {
                let issuer = pairing.issuer_of(i).or_else(|| last_of(messages, i, Kind::Assistant));
                return match issuer {
                    Some(a) => Frontier {
                        index: a,
                        loop_start: Some(loop_start(messages, a)),
                    },
                    None => Frontier {
                        index: 0,
                        loop_start: None,
                    },
                };
            }
            Kind::System | Kind::Other => continue,
        }
    }
    Frontier {
        index: 0,
        loop_start: None,
    }
}

/// The first message after the last user prompt before `i`.
fn loop_start(messages: &[Value], i: usize) -> usize {
    last_of(messages, i, Kind::User).map_or(0, |u| u + 1)
}

/// The last message of kind `k` before `i`.
fn last_of(messages: &[Value], i: usize, k: Kind) -> Option<usize> {
    let mut j = i;
    while j > 0 {
        j -= 1;
        if message::kind(&messages[j]) == k {
            return Some(j);
        }
    }
    None
}

/// Index of the `k`-th user prompt counting backwards from (and excluding) `frontier`;
/// `frontier` itself when `k == 0`. Messages before it may be cleaned.
pub fn keep_recent_turns(messages: &[Value], frontier: usize, k: usize) -> usize {
    if k == 0 {
        return frontier;
    }
    let mut seen = 0;
    for j in (0..frontier).rev() {
        if message::kind(&messages[j]) == Kind::User {
            seen += 1;
            if seen == k {
                return j;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(m: &[Value]) -> Frontier {
        find(m, &Pairing::of(m))
    }

    #[test]
    fn seed_cases() {
        let user = json!({"role":"user","content":"q"});
        let asst = json!({"role":"assistant","content":[{"type":"text","text":"a"}]});
        let call = json!({"role":"assistant","content":[{"type":"toolCall","id":"c","name":"t"}]});
        let res = json!({"role":"toolResult","toolCallId":"c","content":[]});
        // ends with user
        assert_eq!(f(&[user.clone(), asst.clone(), user.clone()]).index, 2);
        // ends with assistant
        assert_eq!(f(&[user.clone(), asst.clone()]).index, 1);
        // ends with tool result → its issuing assistant
        let m = [user.clone(), asst.clone(), user.clone(), call.clone(), res.clone()];
        assert_eq!(
            f(&m),
            Frontier {
                index: 3,
                loop_start: Some(3)
            }
        );
        // empty / only custom messages → nothing to clean
        assert_eq!(f(&[]).index, 0);
        assert_eq!(f(&[json!({"role":"custom"})]).index, 0);
    }

    #[test]
    fn trailing_custom_messages_are_skipped() {
        let m = [
            json!({"role":"user","content":"q"}),
            json!({"role":"assistant","content":[{"type":"text","text":"a"}]}),
            json!({"role":"custom","customType":"x"}),
        ];
        assert_eq!(f(&m).index, 1);
    }

    #[test]
    fn keep_recent_counts_user_prompts() {
        let u = json!({"role":"user","content":"q"});
        let a = json!({"role":"assistant","content":"a"});
        let m = [u.clone(), a.clone(), u.clone(), a.clone(), u.clone()];
        assert_eq!(keep_recent_turns(&m, 4, 0), 4);
        assert_eq!(keep_recent_turns(&m, 4, 1), 2);
        assert_eq!(keep_recent_turns(&m, 4, 2), 0);
        assert_eq!(keep_recent_turns(&m, 4, 9), 0);
    }
}
