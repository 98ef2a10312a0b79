//! Transcript parsing and the session index: JSONL bytes → entries (the JS reader's rules) →
//! `SessionIndex::build`, and the same entries split in two → build + `append`.
//! Never panics; when the append is accepted and ids are unique it equals the full build;
//! the index survives its own serialization (it is persisted as JSON); a live session over
//! the entries answers topics and an assemble of the branch's messages.
#![no_main]

use contextfold::config::Config;
use contextfold::session::Session;
use contextfold::transcript::index::SessionIndex;
use contextfold::wire::assemble::AssembleRequest;
use contextfold_fuzz::entries_from_jsonl;
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

fuzz_target!(|data: &[u8]| {
    let Some((&split, body)) = data.split_first() else {
        return;
    };
    let entries = entries_from_jsonl(body);
    let full = SessionIndex::build(&entries);

    let text = serde_json::to_string(&full).expect("the index serializes");
    let back: SessionIndex = serde_json::from_str(&text).expect("the index deserializes");
    assert_eq!(back, full, "the index changes through its JSON form");

    let k = if entries.is_empty() {
        0
    } else {
        split as usize % (entries.len() + 1)
    };
    let mut inc = SessionIndex::build(&entries[..k]);
    let unique = entries
        .iter()
        .filter_map(|e| e.id.as_deref())
        .collect::<HashSet<_>>()
        .len()
        == entries.len();
    if inc.append(&entries[k..]).is_ok() && unique {
        assert_eq!(
            inc, full,
            "incremental index differs from the full build (split at {k})"
        );
    }

    let mut s = Session::new(Config::default());
    s.rebuild(&entries[..k]);
    let update = s.append(&entries[k..]);
    if update.rewrite.is_some() {
        s.rebuild(&entries);
    }
    let _ = s.topics();
    let ids: HashSet<&str> = s
        .index()
        .turns
        .iter()
        .flat_map(|t| t.entries.iter().map(|r| r.id.as_str()))
        .collect();
    let messages: Vec<_> = entries
        .iter()
        .filter(|e| e.id.as_deref().is_some_and(|id| ids.contains(id)))
        .filter_map(|e| e.message.clone())
        .collect();
    let prompt = (split & 1 == 1).then(|| "what about the parser?".to_string());
    let r = s.assemble(&AssembleRequest {
        messages: messages.clone(),
        prompt,
        budget: Some(256 + split as usize * 64),
        recovery_tool: None,
    });
    assert!(r.steps.iter().all(|st| st.source.is_none_or(|i| i < messages.len())));
});
