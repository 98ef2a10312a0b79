//! A transcript entry as the JS reader hands it over: what the index is built from. It decides
//! nothing; the index ([`super::index`]) reads the branch and the turns out of entries.

use serde::Deserialize;
use serde_json::Value;

/// One transcript entry as the JS reader hands it over (JSONL lines or the host's transcript
/// events; `kind` is the JSON key `type`). Every field may be missing; unknown keys are
/// ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Entry {
    pub id: Option<String>,
    pub parent_id: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    pub message: Option<Value>,
    /// Byte range `[start, end)` of the line in a JSONL file.
    pub range: Option<(u64, u64)>,
    /// Row sequence number in the host's transcript store.
    pub seq: Option<u64>,
    /// For `compaction` entries: the first entry the host still sends.
    pub first_kept_entry_id: Option<String>,
}
