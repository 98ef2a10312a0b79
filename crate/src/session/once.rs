//! The one-shot path (CLI and playground): a whole transcript in, one assemble out, nothing
//! kept. It decides only the entries of a bare message list (content-hash ids).

use super::Session;
use crate::hash::HashSet;
use crate::transcript::entry::Entry;
use crate::transcript::turns;
use crate::wire::assemble::{AssembleOnceRequest, AssembleRequest, AssembleResult};
use serde_json::Value;

/// A stateless assemble over a whole transcript (CLI and playground): builds the index from
/// the request's entries (from its messages when it has none), loads the caches, plans the
/// messages.
pub fn assemble_once(req: AssembleOnceRequest) -> AssembleResult {
    let mut s = Session::new(req.config.unwrap_or_default());
    let entries = match req.entries {
        Some(e) => e,
        None => synthetic_entries(&req.messages),
    };
    s.rebuild(&entries);
    s.set_summaries(req.summaries);
    s.set_folded(req.folded);
    s.set_pins(req.pins);
    s.assemble(&AssembleRequest {
        messages: req.messages,
        prompt: req.prompt,
        budget: req.budget,
        recovery_tool: req.recovery_tool,
    })
}

/// Entries for a bare message list (no transcript): ids are content hashes.
pub fn synthetic_entries(messages: &[Value]) -> Vec<Entry> {
    let mut out = Vec::with_capacity(messages.len());
    let mut parent: Option<String> = None;
    // Ids given so far (a set: searching `out` for each message is quadratic).
    let mut taken: HashSet<String> = HashSet::with_capacity_and_hasher(messages.len(), Default::default());
    for (i, m) in messages.iter().enumerate() {
        let id = if crate::model::message::kind(m) == crate::model::message::Kind::User {
            turns::hash_id(turns::key_of(m))
        } else {
            format!("m{i}")
        };
        // Ids must be unique: suffix repeats.
        let id = if taken.contains(&id) { format!("{id}-{i}") } else { id };
        taken.insert(id.clone());
        out.push(Entry {
            id: Some(id.clone()),
            parent_id: parent.clone(),
            kind: "message".into(),
            message: Some(m.clone()),
            range: None,
            seq: None,
            first_kept_entry_id: None,
        });
        parent = Some(id);
    }
    out
}
