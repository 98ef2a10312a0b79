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
use crate::message::{self, Kind};
use crate::read::{boolean, list, narrow, pair, string, strings, u64_of, unsigned, usize_of, Fields, Parsed};
use crate::turns::{self, TokenBreakdown};
use serde::de::{Deserialize, Deserializer, Error as _};
use serde::Serialize;
use serde_json::Value;

/// Bumped whenever the serialized shape changes; older files are rebuilt.
pub const INDEX_VERSION: u32 = 1;

/// Characters of user / assistant text kept per turn for topic detection.
const TOPIC_TEXT_CHARS: usize = 1500;
const PREVIEW_CHARS: usize = 120;

/// One transcript entry as the JS reader hands it over (JSON keys in camelCase, `kind` as
/// `type`; every field may be missing).
#[derive(Debug, Clone, Default)]
pub struct Entry {
    pub id: Option<String>,
    pub parent_id: Option<String>,
    pub kind: String,
    pub message: Option<Value>,
    /// Byte range `[start, end)` of the line in a JSONL file.
    pub range: Option<(u64, u64)>,
    /// Row sequence number in the host's transcript store.
    pub seq: Option<u64>,
    /// For `compaction` entries: the first entry the host still sends.
    pub first_kept_entry_id: Option<String>,
}

/// Where a message of a turn lives in the transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryRef {
    pub id: String,
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<(u64, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

/// One indexed turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Value>,
    /// The host folded this turn into a compaction summary and no longer sends it.
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

/// The index of one session's active branch.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_kept_entry_id: Option<String>,
    /// Entries skipped (no id, duplicate id, or cut off by a parent cycle).
    pub skipped: usize,
    /// Whether the last significant message was a user prompt (turn grouping state).
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
        let branch = active_branch(entries, &mut idx.skipped);
        for e in branch {
            idx.push(e);
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
            let text = crate::hostmeta::strip_host_metadata(&visible);
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

/// The parent chain from the newest entry with an id, oldest first. Duplicate ids keep the
/// newest occurrence; a cycle or an unknown parent ends the chain.
fn active_branch<'a>(entries: &'a [Entry], skipped: &mut usize) -> Vec<&'a Entry> {
    // Positions rather than references: the map type is then one the crate already compiles
    // (`HashMap<&str, usize>`, session.rs), not a copy of hashbrown's code of its own.
    let mut by_id: HashMap<&str, usize> = HashMap::default();
    for (i, e) in entries.iter().enumerate() {
        match e.id.as_deref() {
            Some(id) => {
                if by_id.insert(id, i).is_some() {
                    *skipped += 1;
                }
            }
            None => *skipped += 1,
        }
    }
    let Some(mut cur) = entries.iter().rev().find(|e| e.id.is_some()) else {
        return Vec::new();
    };
    let mut chain = Vec::new();
    let mut seen = HashSet::default();
    loop {
        let id = cur.id.as_deref().unwrap_or("");
        if !seen.insert(id) {
            *skipped += 1;
            break;
        }
        chain.push(cur);
        match cur.parent_id.as_deref().and_then(|p| by_id.get(p)) {
            Some(&p) => cur = &entries[p],
            None => break,
        }
    }
    chain.reverse();
    chain
}

// ---------------------------------------------------------------------------------------------
// Deserialization
// ---------------------------------------------------------------------------------------------
//
// By hand, from a parsed JSON value: derived `Deserialize` impls are compiled once per input
// format, with a visitor per field type (over 20 KB of wasm for these types). What is accepted
// is what the derived impls accepted (missing `Option` fields are `None`, `null` is `None`,
// unknown fields are ignored), and a wrong type or a missing field gives the same message
// (the test `hand_written_deserialization_matches_the_derived_one` checks both). Differences,
// all on input nothing writes: an error points at the end of the object rather than at the
// value, a repeated key is not an error (the last one counts), and a struct cannot be given
// as an array of its fields.

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Entry::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

impl<'de> Deserialize<'de> for SessionIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SessionIndex::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

// Each reader fills a value made of empty fields in place, in a closure: a field that fails
// returns at once with nothing to drop, and the partly read value is dropped in one place
// (with `?` between the fields of a struct literal, every exit drops the fields read so far).

impl Entry {
    pub(crate) fn from_value(v: Value) -> Parsed<Entry> {
        let mut f = Fields::of(v, "struct Entry")?;
        let mut e = Entry::default();
        (|| -> Parsed<()> {
            opt_text(&mut f, "id", &mut e.id)?;
            opt_text(&mut f, "parentId", &mut e.parent_id)?;
            e.kind = f.or_default("type", string)?;
            opt_value(&mut f, "message", &mut e.message)?;
            e.range = f.opt("range", pair)?;
            e.seq = f.opt("seq", u64_of)?;
            opt_text(&mut f, "firstKeptEntryId", &mut e.first_kept_entry_id)?;
            Ok(())
        })()?;
        Ok(e)
    }
}

impl SessionIndex {
    pub(crate) fn from_value(v: Value) -> Parsed<SessionIndex> {
        let mut f = Fields::of(v, "struct SessionIndex")?;
        let mut x = SessionIndex::default();
        (|| -> Parsed<()> {
            x.version = f.req("version", |v| narrow(unsigned(&v, "u32")?, "u32"))?;
            opt_text(&mut f, "tip", &mut x.tip)?;
            x.entries = f.req("entries", usize_of)?;
            x.preamble = f.req("preamble", entry_refs)?;
            x.turns = f.req("turns", |v| list(v, turn_record))?;
            opt_text(&mut f, "firstKeptEntryId", &mut x.first_kept_entry_id)?;
            x.skipped = f.req("skipped", usize_of)?;
            x.prev_user = f.or_default("prevUser", boolean)?;
            Ok(())
        })()?;
        Ok(x)
    }
}

/// A string field that must be present, read into `out` (one copy of the code for all of
/// them).
#[inline(never)]
fn req_text(f: &mut Fields, key: &'static str, out: &mut String) -> Parsed<()> {
    *out = f.req(key, string)?;
    Ok(())
}

/// An optional string field, read into `out`.
#[inline(never)]
fn opt_text(f: &mut Fields, key: &'static str, out: &mut Option<String>) -> Parsed<()> {
    *out = f.opt(key, string)?;
    Ok(())
}

/// An optional field of any JSON value, read into `out`.
#[inline(never)]
fn opt_value(f: &mut Fields, key: &'static str, out: &mut Option<Value>) -> Parsed<()> {
    *out = f.opt(key, Ok)?;
    Ok(())
}

fn entry_refs(v: Value) -> Parsed<Vec<EntryRef>> {
    list(v, entry_ref)
}

fn entry_ref(v: Value) -> Parsed<EntryRef> {
    let mut f = Fields::of(v, "struct EntryRef")?;
    let mut r = EntryRef::default();
    (|| -> Parsed<()> {
        req_text(&mut f, "id", &mut r.id)?;
        req_text(&mut f, "role", &mut r.role)?;
        r.range = f.opt("range", pair)?;
        r.seq = f.opt("seq", u64_of)?;
        Ok(())
    })()?;
    Ok(r)
}

fn turn_record(v: Value) -> Parsed<TurnRecord> {
    let mut f = Fields::of(v, "struct TurnRecord")?;
    let mut t = TurnRecord::default();
    (|| -> Parsed<()> {
        req_text(&mut f, "id", &mut t.id)?;
        req_text(&mut f, "key", &mut t.key)?;
        t.entries = f.req("entries", entry_refs)?;
        t.tokens = f.req("tokens", token_breakdown)?;
        t.tools = f.req("tools", strings)?;
        req_text(&mut f, "userPreview", &mut t.user_preview)?;
        req_text(&mut f, "assistantPreview", &mut t.assistant_preview)?;
        opt_value(&mut f, "startedAt", &mut t.started_at)?;
        opt_value(&mut f, "endedAt", &mut t.ended_at)?;
        t.compacted = f.or_default("compacted", boolean)?;
        req_text(&mut f, "topicAssistant", &mut t.topic_assistant)?;
        req_text(&mut f, "topicUser", &mut t.topic_user)?;
        Ok(())
    })()?;
    Ok(t)
}

/// Every count may be missing (0). Read in a loop: one exit on error rather than one per
/// count.
fn token_breakdown(v: Value) -> Parsed<TokenBreakdown> {
    let mut f = Fields::of(v, "struct TokenBreakdown")?;
    let mut t = TokenBreakdown::default();
    let counts: [(&str, &mut usize); 9] = [
        ("total", &mut t.total),
        ("user", &mut t.user),
        ("assistant", &mut t.assistant),
        ("toolResult", &mut t.tool_result),
        ("other", &mut t.other),
        ("text", &mut t.text),
        ("thinking", &mut t.thinking),
        ("toolCall", &mut t.tool_call),
        ("image", &mut t.image),
    ];
    for (k, n) in counts {
        *n = f.or_default(k, usize_of)?;
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::testing::{arrays_as_structs, message, mutations};
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

    /// The derived impls these types had; the hand-written ones must agree with them.
    #[allow(dead_code)]
    mod derived {
        use serde::Deserialize;
        use serde_json::Value;

        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct Entry {
            pub id: Option<String>,
            #[serde(default)]
            pub parent_id: Option<String>,
            #[serde(default, rename = "type")]
            pub kind: String,
            #[serde(default)]
            pub message: Option<Value>,
            #[serde(default)]
            pub range: Option<(u64, u64)>,
            #[serde(default)]
            pub seq: Option<u64>,
            #[serde(default)]
            pub first_kept_entry_id: Option<String>,
        }

        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct EntryRef {
            pub id: String,
            pub role: String,
            #[serde(default)]
            pub range: Option<(u64, u64)>,
            #[serde(default)]
            pub seq: Option<u64>,
        }

        #[derive(Debug, Default, Deserialize)]
        #[serde(rename_all = "camelCase", default)]
        pub struct TokenBreakdown {
            pub total: usize,
            pub user: usize,
            pub assistant: usize,
            pub tool_result: usize,
            pub other: usize,
            pub text: usize,
            pub thinking: usize,
            pub tool_call: usize,
            pub image: usize,
        }

        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct TurnRecord {
            pub id: String,
            pub key: String,
            pub entries: Vec<EntryRef>,
            pub tokens: TokenBreakdown,
            pub tools: Vec<String>,
            pub user_preview: String,
            pub assistant_preview: String,
            #[serde(default)]
            pub started_at: Option<Value>,
            #[serde(default)]
            pub ended_at: Option<Value>,
            #[serde(default)]
            pub compacted: bool,
            pub topic_assistant: String,
            pub topic_user: String,
        }

        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct SessionIndex {
            pub version: u32,
            pub tip: Option<String>,
            pub entries: usize,
            pub preamble: Vec<EntryRef>,
            pub turns: Vec<TurnRecord>,
            #[serde(default)]
            pub first_kept_entry_id: Option<String>,
            pub skipped: usize,
            #[serde(default)]
            pub prev_user: bool,
        }
    }

    #[test]
    fn hand_written_deserialization_matches_the_derived_one() {
        let mut all = session();
        all.push(
            serde_json::from_value(
                json!({"id":"k","parentId":"e","type":"compaction","firstKeptEntryId":"e","range":[3,9],"seq":4}),
            )
            .unwrap(),
        );
        let idx = SessionIndex::build(&all);
        let index = serde_json::to_value(&idx).unwrap();
        let back: SessionIndex = serde_json::from_str(&index.to_string()).unwrap();
        assert_eq!(back, idx);
        let mut cases = 0;
        for m in mutations(&index) {
            let text = m.to_string();
            let ours = serde_json::from_str::<SessionIndex>(&text);
            let theirs = serde_json::from_str::<derived::SessionIndex>(&text);
            if arrays_as_structs(&ours) {
                continue;
            }
            match (ours, theirs) {
                (Ok(a), Ok(b)) => assert_eq!(
                    format!(
                        "{:?}",
                        (
                            a.version,
                            a.tip,
                            a.turns.len(),
                            a.prev_user,
                            a.turns.first().map(|t| (
                                t.tokens.total,
                                t.entries.len(),
                                t.started_at.clone(),
                                t.compacted
                            ))
                        )
                    ),
                    format!(
                        "{:?}",
                        (
                            b.version,
                            b.tip,
                            b.turns.len(),
                            b.prev_user,
                            b.turns.first().map(|t| (
                                t.tokens.total,
                                t.entries.len(),
                                t.started_at.clone(),
                                t.compacted
                            ))
                        )
                    ),
                    "{text}"
                ),
                (Err(a), Err(b)) => assert_eq!(message(a), message(b), "{text}"),
                (a, b) => panic!("{text}: ours {:?}, derived {:?}", a.map(|_| ()), b.map(|_| ())),
            }
            cases += 1;
        }
        let entry = json!({"id":"k","parentId":"e","type":"compaction","message":{"role":"user"},"range":[3,9],"seq":4,"firstKeptEntryId":"e"});
        for m in mutations(&entry) {
            let text = m.to_string();
            let ours = serde_json::from_str::<Entry>(&text);
            let theirs = serde_json::from_str::<derived::Entry>(&text);
            if arrays_as_structs(&ours) {
                continue;
            }
            match (ours, theirs) {
                (Ok(a), Ok(b)) => assert_eq!(
                    format!(
                        "{:?}",
                        (
                            a.id,
                            a.parent_id,
                            a.kind,
                            a.message,
                            a.range,
                            a.seq,
                            a.first_kept_entry_id
                        )
                    ),
                    format!(
                        "{:?}",
                        (
                            b.id,
                            b.parent_id,
                            b.kind,
                            b.message,
                            b.range,
                            b.seq,
                            b.first_kept_entry_id
                        )
                    ),
                    "{text}"
                ),
                (Err(a), Err(b)) => assert_eq!(message(a), message(b), "{text}"),
                (a, b) => panic!("{text}: ours {:?}, derived {:?}", a.map(|_| ()), b.map(|_| ())),
            }
            cases += 1;
        }
        assert!(cases > 500, "{cases}");
    }
}
