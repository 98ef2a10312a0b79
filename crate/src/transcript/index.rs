//! The session index: the transcript's active branch as turns.
//!
//! Built from transcript entries (JSONL lines or the host's transcript events: every entry
//! has an `id` and a `parentId`; `message` entries carry an `AgentMessage`). The active branch
//! is the parent chain from the newest entry. Each turn records its entry ids, the byte ranges
//! of JSONL sources, token counts by role and part type, tool names, previews and timestamps;
//! its id is the entry id of its user message.
//!
//! Incremental: [`SessionIndex::append`] consumes new entries in O(new entries) while they
//! continue the branch; anything else (a branch switch, an unknown parent, a shrink that the
//! reader reports) asks for a rebuild from all entries. `compaction` entries are honored:
//! turns before the kept entry are marked as compacted (the host no longer sends them).
//! The index is a serializable value; JS persists it.

use crate::hash::{HashMap, HashSet};
use crate::model::message::{self, Kind};
use crate::transcript::branch::{active_branch, BranchEnd};
use crate::transcript::entry::Entry;
use crate::transcript::turns::{self, TokenBreakdown};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Bumped whenever the serialized shape changes; older files are rebuilt.
pub const INDEX_VERSION: u32 = 1;

/// Characters of user / assistant text kept per turn for topic detection.
const TOPIC_TEXT_CHARS: usize = 1500;
const PREVIEW_CHARS: usize = 120;

/// Where a message of a turn lives in the transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryRef {
    pub id: String,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<(u64, u64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

/// One indexed turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// Entry id of the turn's user message (stable across requests and restarts).
    pub id: String,
    /// Content key of the user message (hex), to recognise the turn in `assemble` input.
    pub key: String,
    pub entries: Vec<EntryRef>,
    pub tokens: TokenBreakdown,
    pub tools: Vec<String>,
    pub user_preview: String,
    pub assistant_preview: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Value>,
    /// The host folded this turn into a compaction summary and no longer sends it.
    #[serde(default)]
    pub compacted: bool,
    /// User and assistant text (shortened) and tool names, for topic detection.
    pub topic_assistant: String,
    pub topic_user: String,
}

/// Why an update needs all entries again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Rewrite {
    /// A new entry's parent is not the current tip: the host switched branches.
    BranchSwitch,
    /// A new entry's parent is unknown.
    UnknownParent,
}

/// The index of one session's active branch. Persisted by the JS layer as its JSON, and read
/// back leniently (unknown keys ignored; [`INDEX_VERSION`] tells a file of another build).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIndex {
    pub version: u32,
    /// Id of the newest entry on the active branch.
    pub tip: Option<String>,
    /// Entries consumed on the active branch.
    pub entries: usize,
    /// Entries before the first user prompt (e.g. compaction summaries, custom messages).
    pub preamble: Vec<EntryRef>,
    pub turns: Vec<TurnRecord>,
    /// The latest compaction on the branch: the first entry the host still sends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_kept_entry_id: Option<String>,
    /// Entries skipped (no id, duplicate id, or cut off by a parent cycle).
    pub skipped: usize,
    /// Whether the last significant message was a user prompt (turn grouping state).
    #[serde(default)]
    pub(crate) prev_user: bool,
}

impl SessionIndex {
    pub fn new() -> SessionIndex {
        SessionIndex {
            version: INDEX_VERSION,
            ..Default::default()
        }
    }

    /// Builds the index from all entries, following the parent chain from the newest one.
    pub fn build(entries: &[Entry]) -> SessionIndex {
        let mut idx = SessionIndex::new();
        let branch = active_branch(entries);
        idx.skipped = branch.unnamed_or_repeated + usize::from(branch.end == BranchEnd::Cycle);
        for &at in &branch.positions {
            idx.push(&entries[at]);
        }
        idx.mark_compacted();
        idx
    }

    /// Appends new entries that continue the active branch. On a rewrite nothing is changed
    /// and the caller must [`build`](Self::build) from all entries.
    pub fn append(&mut self, entries: &[Entry]) -> Result<usize, Rewrite> {
        let mut tip = self.tip.clone();
        let mut seen: HashSet<&str> = HashSet::default();
        for e in entries.iter().filter(|e| e.id.is_some()) {
            let parent = e.parent_id.as_deref();
            if parent != tip.as_deref() {
                let known = parent.is_some_and(|p| seen.contains(p) || self.contains(p));
                return Err(if known {
                    Rewrite::BranchSwitch
                } else {
                    Rewrite::UnknownParent
                });
            }
            tip = e.id.clone();
            seen.insert(e.id.as_deref().unwrap_or(""));
        }
        let before = self.turns.len();
        for e in entries {
            if e.id.is_some() {
                self.push(e);
            } else {
                self.skipped += 1;
            }
        }
        self.mark_compacted();
        Ok(self.turns.len() - before)
    }

    fn contains(&self, id: &str) -> bool {
        self.preamble.iter().any(|r| r.id == id) || self.turns.iter().any(|t| t.entries.iter().any(|r| r.id == id))
    }

    /// Consumes one entry of the active branch.
    fn push(&mut self, e: &Entry) {
        let Some(id) = e.id.clone() else { return };
        self.tip = Some(id.clone());
        self.entries += 1;
        if e.kind == "compaction" {
            self.first_kept_entry_id = e.first_kept_entry_id.clone();
            return;
        }
        let Some(msg) = e.message.as_ref().filter(|_| e.kind == "message" || e.kind.is_empty()) else {
            return;
        };
        let kind = message::kind(msg);
        let r = EntryRef {
            id: id.clone(),
            role: message::role(msg).to_string(),
            range: e.range,
            seq: e.seq,
        };
        let opens = kind == Kind::User && !self.prev_user;
        if matches!(kind, Kind::User | Kind::Assistant | Kind::ToolResult) {
            self.prev_user = kind == Kind::User;
        }
        if opens {
            let visible = turns::visible_text(msg);
            let text = crate::model::hostmeta::strip_host_metadata(&visible);
            self.turns.push(TurnRecord {
                id,
                key: format!("{:016x}", turns::key_of(msg)),
                entries: Vec::new(),
                tokens: TokenBreakdown::default(),
                tools: Vec::new(),
                user_preview: turns::preview(&text, PREVIEW_CHARS),
                assistant_preview: String::new(),
                started_at: msg.get("timestamp").cloned(),
                ended_at: None,
                compacted: false,
                topic_assistant: String::new(),
                topic_user: take_chars(&text, TOPIC_TEXT_CHARS),
            });
        }
        let Some(t) = self.turns.last_mut() else {
            self.preamble.push(r);
            return;
        };
        t.entries.push(r);
        t.tokens.add(msg);
        t.ended_at = msg.get("timestamp").cloned().or(t.ended_at.take());
        for c in message::tool_calls(msg) {
            if !c.name.is_empty() && !t.tools.contains(&c.name) {
                t.tools.push(c.name);
            }
        }
        if kind == Kind::Assistant {
            let text = turns::visible_text(msg);
            if !text.trim().is_empty() {
                t.assistant_preview = turns::preview(&text, PREVIEW_CHARS);
                if t.topic_assistant.chars().count() < TOPIC_TEXT_CHARS {
                    t.topic_assistant.push_str(&take_chars(&text, TOPIC_TEXT_CHARS));
                    t.topic_assistant.push('\n');
                }
            }
        }
    }

    /// Marks turns before the latest compaction's kept entry.
    fn mark_compacted(&mut self) {
        let Some(kept) = self.first_kept_entry_id.as_deref() else {
            return;
        };
        let Some(pos) = self.turns.iter().position(|t| t.entries.iter().any(|r| r.id == kept)) else {
            return;
        };
        for t in &mut self.turns[..pos] {
            t.compacted = true;
        }
    }

    /// The turn with this id (or content-hash id).
    pub fn turn(&self, id: &str) -> Option<&TurnRecord> {
        self.turns
            .iter()
            .find(|t| t.id == id || turns::hash_id(u64::from_str_radix(&t.key, 16).unwrap_or(0)) == id)
    }

    /// Map from the content-hash id of a turn's key ([`turns::hash_id`]) to the turn's
    /// position (the last turn with that key), for matching `assemble` input. Keyed by
    /// string: the map type is then one the crate already compiles, not a copy of
    /// hashbrown's code of its own.
    pub fn positions_by_key(&self) -> HashMap<String, usize> {
        let mut out = HashMap::default();
        for (i, t) in self.turns.iter().enumerate() {
            if let Ok(k) = u64::from_str_radix(&t.key, 16) {
                out.insert(turns::hash_id(k), i);
            }
        }
        out
    }
}

fn take_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(id: &str, parent: Option<&str>, msg: Value) -> Entry {
        serde_json::from_value(json!({"id": id, "parentId": parent, "type": "message", "message": msg})).unwrap()
    }

    fn session() -> Vec<Entry> {
        vec![
            entry("a", None, json!({"role":"user","content":"hello","timestamp":1})),
            entry(
                "b",
                Some("a"),
                json!({"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read"}]}),
            ),
            entry(
                "c",
                Some("b"),
                json!({"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"data"}]}),
            ),
            entry(
                "d",
                Some("c"),
                json!({"role":"assistant","content":[{"type":"text","text":"done"}]}),
            ),
            entry("e", Some("d"), json!({"role":"user","content":"next","timestamp":2})),
        ]
    }

    #[test]
    fn builds_turns_with_ids_tools_and_tokens() {
        let idx = SessionIndex::build(&session());
        assert_eq!(idx.turns.len(), 2);
        assert_eq!(idx.turns[0].id, "a");
        assert_eq!(idx.turns[0].entries.len(), 4);
        assert_eq!(idx.turns[0].tools, vec!["read"]);
        assert_eq!(idx.turns[0].assistant_preview, "done");
        assert!(idx.turns[0].tokens.tool_result > 0);
        assert_eq!(idx.tip.as_deref(), Some("e"));
    }

    #[test]
    fn incremental_equals_full_build() {
        let all = session();
        let mut idx = SessionIndex::build(&all[..2]);
        assert_eq!(idx.append(&all[2..]), Ok(1));
        assert_eq!(idx, SessionIndex::build(&all));
    }

    #[test]
    fn rewrites_are_detected() {
        let all = session();
        let mut idx = SessionIndex::build(&all);
        let fork = entry("x", Some("b"), json!({"role":"user","content":"other"}));
        assert_eq!(idx.append(&[fork]), Err(Rewrite::BranchSwitch));
        let lost = entry("y", Some("zzz"), json!({"role":"user","content":"other"}));
        assert_eq!(idx.append(&[lost]), Err(Rewrite::UnknownParent));
    }

    #[test]
    fn abandoned_branches_are_not_indexed() {
        let mut all = session();
        all.push(entry(
            "f",
            Some("d"),
            json!({"role":"user","content":"edited prompt","timestamp":3}),
        ));
        let idx = SessionIndex::build(&all);
        assert_eq!(idx.turns.len(), 2);
        assert_eq!(idx.turns[1].id, "f");
    }

    #[test]
    fn cycles_and_duplicates_do_not_hang() {
        let mut all = session();
        all[0].parent_id = Some("e".into());
        let idx = SessionIndex::build(&all);
        assert!(idx.turns.len() <= 2);
        assert!(idx.skipped >= 1);
    }

    #[test]
    fn compaction_marks_older_turns() {
        let mut all = session();
        all.push(
            serde_json::from_value(json!({"id":"k","parentId":"e","type":"compaction","firstKeptEntryId":"e"}))
                .unwrap(),
        );
        let idx = SessionIndex::build(&all);
        assert!(idx.turns[0].compacted);
        assert!(!idx.turns[1].compacted);
    }
}
