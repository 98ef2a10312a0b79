//! Positional pairing of tool calls with their results.
//!
//! Call ids are not unique in real sessions (the same id can be reused for two different
//! calls), so a result answers the *nearest preceding unanswered* call with its id, never a
//! global id → message lookup (PROVIDERS.md rule 4). The cleaner, the gate and the planner
//! all pair through this one function.

use crate::model::message;
use serde_json::Value;
use std::rc::Rc;

/// A (message index, slot) address: the slot is the call's position among the message's
/// tool calls, or the result's position among the message's results.
pub type Slot = (usize, usize);

/// The pairing of a message list.
#[derive(Debug, Clone, Default)]
pub struct Pairing {
    /// Per message, per call: the result answering it.
    pub answer_of: Vec<Vec<Option<Slot>>>,
    /// Per message, per result: the call it answers.
    pub call_of: Vec<Vec<Option<Slot>>>,
}

/// A pairing built one message at a time: a live session extends the pairing of its history
/// with the messages appended since the previous request.
#[derive(Debug, Clone, Default)]
pub struct Pairer {
    pairing: Rc<Pairing>,
    /// Calls not answered yet, oldest first, with their ids.
    open: Vec<(Slot, String)>,
}

impl Pairer {
    /// Messages paired so far.
    pub fn len(&self) -> usize {
        self.pairing.answer_of.len()
    }

    /// True before the first message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pairs the next message: its results answer the nearest preceding unanswered calls of
    /// the same ids.
    pub fn push(&mut self, msg: &Value) {
        self.push_ids(&message::call_ids(msg), &message::result_ids(msg));
    }

    /// [`Pairer::push`] of a message with these call ids and result ids.
    pub fn push_ids(&mut self, calls: &[String], ids: &[String]) {
        let p = Rc::make_mut(&mut self.pairing);
        let i = p.answer_of.len();
        p.answer_of.push(vec![None; calls.len()]);
        for (s, c) in calls.iter().enumerate() {
            self.open.push(((i, s), c.clone()));
        }
        // Any message may answer calls: tool-result messages, and Anthropic user messages
        // that carry `tool_result` blocks next to new text.
        let mut mine = vec![None; ids.len()];
        for (r, id) in ids.iter().enumerate() {
            if let Some(pos) = self.open.iter().rposition(|(_, cid)| cid == id) {
                let (call, _) = self.open.remove(pos);
                p.answer_of[call.0][call.1] = Some((i, r));
                mine[r] = Some(call);
            }
        }
        p.call_of.push(mine);
    }

    /// The pairing of the messages pushed so far.
    pub fn pairing(&self) -> Rc<Pairing> {
        self.pairing.clone()
    }
}

impl Pairing {
    /// Pairs every result with the nearest preceding unanswered call of the same id. The
    /// history of a live session is paired incrementally (see [`crate::transcript::history`]).
    pub fn of(messages: &[Value]) -> Rc<Pairing> {
        let mut p = Pairer::default();
        for m in messages {
            p.push(m);
        }
        p.pairing()
    }

    /// The assistant message index whose call result `i` answers (first paired slot).
    pub fn issuer_of(&self, i: usize) -> Option<usize> {
        self.call_of.get(i)?.iter().flatten().next().map(|s| s.0)
    }

    /// Messages holding results for the calls of assistant message `i`.
    pub fn results_of(&self, i: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .answer_of
            .get(i)
            .into_iter()
            .flatten()
            .flatten()
            .map(|&(m, _)| m)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// True when every call of assistant message `i` has a result.
    pub fn fully_answered(&self, i: usize) -> bool {
        self.answer_of
            .get(i)
            .map(|v| v.iter().all(Option::is_some))
            .unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reused_ids_pair_positionally() {
        let m = vec![
            json!({"role":"assistant","content":[{"type":"toolCall","id":"x","name":"a"}]}),
            json!({"role":"toolResult","toolCallId":"x"}),
            json!({"role":"user","content":"again"}),
            json!({"role":"assistant","content":[{"type":"toolCall","id":"x","name":"b"}]}),
            json!({"role":"toolResult","toolCallId":"x"}),
        ];
        let p = Pairing::of(&m);
        assert_eq!(p.issuer_of(1), Some(0));
        assert_eq!(p.issuer_of(4), Some(3));
        assert_eq!(p.results_of(3), vec![4]);
    }

    #[test]
    fn orphan_result_has_no_issuer() {
        let m = vec![json!({"role":"tool","tool_call_id":"nope"})];
        assert_eq!(Pairing::of(&m).issuer_of(0), None);
    }
}
