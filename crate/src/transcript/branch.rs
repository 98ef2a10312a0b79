//! The active branch of a transcript: the parent chain from the newest entry with an id, oldest
//! first (the host's rule). A repeated id names its newest occurrence; a parent cycle or an
//! unknown parent ends the chain. One rule for the session index and for every JS reader
//! (through the boundary); it never reads what the entries carry.

use crate::hash::{HashMap, HashSet};
use crate::transcript::entry::Entry;
use serde::Serialize;

/// How the chain ended, walking from the newest entry towards the oldest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum BranchEnd {
    /// At an entry without a parent (or no entry had an id).
    Root,
    /// At an entry whose parent is already on the chain: the chain starts after the cycle.
    Cycle,
    /// At an entry whose parent is not in the transcript.
    UnknownParent,
}

/// The active branch: positions of its entries in the input, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Branch {
    pub positions: Vec<usize>,
    pub end: BranchEnd,
    /// Entries without an id and earlier occurrences of a repeated id.
    #[serde(skip)]
    pub unnamed_or_repeated: usize,
}

/// The active branch of `entries` (in transcript order).
pub fn active_branch(entries: &[Entry]) -> Branch {
    let mut by_id: HashMap<&str, usize> = HashMap::default();
    let mut unnamed_or_repeated = 0;
    for (i, e) in entries.iter().enumerate() {
        match e.id.as_deref() {
            Some(id) if by_id.insert(id, i).is_none() => {}
            _ => unnamed_or_repeated += 1,
        }
    }
    let mut branch = Branch {
        positions: Vec::new(),
        end: BranchEnd::Root,
        unnamed_or_repeated,
    };
    let Some(mut cur) = entries.iter().rposition(|e| e.id.is_some()) else {
        return branch;
    };
    let mut seen = HashSet::default();
    loop {
        if !seen.insert(entries[cur].id.as_deref().unwrap_or("")) {
            branch.end = BranchEnd::Cycle;
            break;
        }
        branch.positions.push(cur);
        match entries[cur].parent_id.as_deref() {
            None => break,
            Some(p) => match by_id.get(p) {
                Some(&at) => cur = at,
                None => {
                    branch.end = BranchEnd::UnknownParent;
                    break;
                }
            },
        }
    }
    branch.positions.reverse();
    branch
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(spec: &[(Option<&str>, Option<&str>)]) -> Vec<Entry> {
        spec.iter()
            .map(|&(id, parent)| Entry {
                id: id.map(str::to_string),
                parent_id: parent.map(str::to_string),
                ..Entry::default()
            })
            .collect()
    }

    #[test]
    fn the_chain_from_the_newest_entry_leaves_abandoned_branches_out() {
        // a <- b <- c, and b <- d (a retry of c): d is the newest, so c is off the branch
        let l = links(&[
            (Some("a"), None),
            (Some("b"), Some("a")),
            (Some("c"), Some("b")),
            (Some("d"), Some("b")),
        ]);
        let b = active_branch(&l);
        assert_eq!(b.positions, vec![0, 1, 3]);
        assert_eq!(b.end, BranchEnd::Root);
    }

    #[test]
    fn a_repeated_id_is_its_newest_occurrence_and_entries_without_id_are_skipped() {
        let l = links(&[
            (Some("a"), None),
            (Some("b"), Some("a")),
            (None, Some("b")),
            (Some("b"), Some("a")),
            (Some("c"), Some("b")),
        ]);
        let b = active_branch(&l);
        assert_eq!(b.positions, vec![0, 3, 4]);
        assert_eq!(b.unnamed_or_repeated, 2);
    }

    #[test]
    fn cycles_and_unknown_parents_end_the_chain() {
        let cycle = links(&[(Some("a"), Some("c")), (Some("b"), Some("a")), (Some("c"), Some("b"))]);
        let b = active_branch(&cycle);
        assert_eq!(b.positions, vec![0, 1, 2]);
        assert_eq!(b.end, BranchEnd::Cycle);
        let orphan = links(&[(Some("a"), None), (Some("b"), Some("x")), (Some("c"), Some("b"))]);
        let b = active_branch(&orphan);
        assert_eq!(b.positions, vec![1, 2]);
        assert_eq!(b.end, BranchEnd::UnknownParent);
        assert_eq!(active_branch(&[]).positions, Vec::<usize>::new());
    }
}
