//! A live session's transcript documents: what an index update did and the topics, and the
//! TypeScript of the entries the JS reader hands over ([`crate::transcript::entry::Entry`]) and
//! of the index.

use crate::fold::topics::Topic;
use crate::transcript::index::Rewrite;
use serde::Serialize;

/// What an index update (`rebuild`, `append`) did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexUpdate {
    pub turns: usize,
    pub new_turns: usize,
    /// Set when the new entries did not continue the branch: call `rebuild` with all entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
}

/// `Session.topics()`'s result: the topics, and the topic of each turn.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Topics<'a> {
    pub topics: &'a [Topic],
    pub topic_of_turn: &'a [usize],
}

pub const TYPESCRIPT: &str = r#"
/** One transcript entry: a JSONL line or a host transcript event. */
export interface Entry {
  id?: string | null;
  parentId?: string | null;
  /** `message`, `compaction`, ... */
  type?: string;
  message?: Message | null;
  /** Byte range `[start, end)` of the line in a JSONL file. */
  range?: [number, number] | null;
  /** Row sequence number in the host's transcript store. */
  seq?: number | null;
  /** For `compaction` entries: the first entry the host still sends. */
  firstKeptEntryId?: string | null;
}

/** Where a message of a turn lives in the transcript. */
export interface EntryRef {
  id: string;
  role: string;
  range?: [number, number];
  seq?: number;
}

/** Token counts of a turn by role and by part type. */
export interface TokenBreakdown {
  total: number;
  user: number;
  assistant: number;
  toolResult: number;
  other: number;
  text: number;
  thinking: number;
  toolCall: number;
  image: number;
}

/** One indexed turn; its id is the transcript entry id of its user message. */
export interface TurnRecord {
  id: string;
  /** Content key of the user message (hex). */
  key: string;
  entries: EntryRef[];
  tokens: TokenBreakdown;
  tools: string[];
  userPreview: string;
  assistantPreview: string;
  startedAt?: unknown;
  endedAt?: unknown;
  /** The host folded this turn into a compaction summary and no longer sends it. */
  compacted: boolean;
  topicAssistant: string;
  topicUser: string;
}

/** The index of one session's active branch (persist it as is; `loadIndex` takes it back). */
export interface SessionIndex {
  version: number;
  /** Id of the newest entry on the active branch. */
  tip: string | null;
  entries: number;
  /** Entries before the first user prompt. */
  preamble: EntryRef[];
  turns: TurnRecord[];
  firstKeptEntryId?: string;
  /** Entries skipped (no id, duplicate id, or cut off by a parent cycle). */
  skipped: number;
  prevUser: boolean;
}

/** Why an index update needs all entries again. */
export type Rewrite = "branchSwitch" | "unknownParent";

/** What `rebuild` or `append` did; with `rewrite`, call `rebuild` with all entries. */
export interface IndexUpdate {
  turns: number;
  newTurns: number;
  rewrite?: Rewrite;
}

/** One topic: a run of consecutive turns (ordinals, `lastTurn` inclusive). */
export interface Topic {
  id: number;
  firstTurn: number;
  lastTurn: number;
  label: string;
  terms: string[];
}

/** `Session.topics()`: the topics and the topic of each turn. */
export interface Topics {
  topics: Topic[];
  topicOfTurn: number[];
}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::session::Session;
    use crate::transcript::entry::Entry;
    use crate::wire::{to_json, typescript::check};
    use serde_json::Value;

    fn sample() -> Vec<Entry> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/multitopic.jsonl");
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn the_typescript_is_what_is_read_and_written() {
        let entries = sample();
        assert!(entries.len() > 10);
        let mut s = Session::new(Config::default());
        let half = entries.len() / 2;
        check(
            "IndexUpdate",
            &serde_json::to_value(s.rebuild(&entries[..half])).unwrap(),
        );
        check(
            "IndexUpdate",
            &serde_json::to_value(s.append(&entries[half..])).unwrap(),
        );
        let rewrite = s.append(&entries[..1]);
        assert!(rewrite.rewrite.is_some());
        check("IndexUpdate", &serde_json::to_value(rewrite).unwrap());
        let mut index = s.index().clone();
        index.turns[0].entries[0].range = Some((1, 2));
        index.turns[0].entries[0].seq = Some(3);
        index.first_kept_entry_id = Some("x".into());
        let index = serde_json::to_value(&index).unwrap();
        check("SessionIndex", &index);
        check("EntryRef", &index["turns"][0]["entries"][0]);
        for t in index["turns"].as_array().unwrap() {
            check("TurnRecord", t);
            check("TokenBreakdown", &t["tokens"]);
        }
        let (topics, of) = s.topics();
        let v: Value = serde_json::from_str(&to_json(&Topics {
            topics: &topics,
            topic_of_turn: &of,
        }))
        .unwrap();
        check("Topics", &v);
        check("Topic", &v["topics"][0]);
        // Entries as the JS reader writes them.
        check(
            "Entry",
            &serde_json::json!({"id": "a", "parentId": null, "type": "compaction", "message": {"role": "user"},
                "range": [0, 9], "seq": 1, "firstKeptEntryId": "b"}),
        );
    }

    #[test]
    fn the_index_reads_back_as_itself() {
        let mut index = crate::transcript::index::SessionIndex::build(&sample());
        index.turns[0].started_at = Some(serde_json::json!("2026-11-02T09:00:28.000Z"));
        index.turns[0].entries[0].range = Some((3, 4));
        index.first_kept_entry_id = Some("x\"y".into());
        let back: crate::transcript::index::SessionIndex = crate::wire::parse("index", &to_json(&index)).unwrap();
        assert_eq!(back, index);
    }
}
