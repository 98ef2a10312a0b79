//! What is remembered about each message of the history being planned.
//!
//! The planner's stages (cleaner, turn split, costs, folding, rendering, the validity gate)
//! ask the same questions of the same input messages: its kind, its token estimate, its
//! content key. [`with`] answers each at most once per message for the duration of one
//! request, and a live session hands the answers to the next request for the messages it
//! keeps. Only messages inside the planned slice itself (by address) are remembered; derived
//! messages (cleaned copies, stubs) are computed every time.

use serde_json::Value;
use std::cell::RefCell;

const UNKNOWN_TOKENS: u32 = u32::MAX;
const UNKNOWN_KIND: u8 = u8::MAX;

/// The remembered facts of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    tokens: u32,
    kind: u8,
    /// Whether the message issues tool calls.
    calls: Option<bool>,
    key: Option<u64>,
}

impl Default for Facts {
    fn default() -> Facts {
        Facts {
            tokens: UNKNOWN_TOKENS,
            kind: UNKNOWN_KIND,
            calls: None,
            key: None,
        }
    }
}

struct Memo {
    start: usize,
    len: usize,
    facts: Vec<Facts>,
}

thread_local! {
    static MEMO: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// Puts the previous memo back when the planning ends, however it ends, and hands the facts
/// learnt to the caller's cache.
struct Guard<'a> {
    prev: Option<Memo>,
    out: &'a mut Vec<Facts>,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let prev = self.prev.take();
        if let Some(memo) = MEMO.with(|m| m.replace(prev)) {
            *self.out = memo.facts;
        }
    }
}

/// Runs `f` with the facts of `messages` computed at most once each, starting from `cache`
/// (`cache[i]` describes `messages[i]`; an empty or shorter cache is extended), which holds
/// everything learnt afterwards.
pub fn with<R>(messages: &[Value], cache: &mut Vec<Facts>, f: impl FnOnce() -> R) -> R {
    cache.resize(messages.len(), Facts::default());
    let memo = Memo {
        start: messages.as_ptr() as usize,
        len: messages.len(),
        facts: std::mem::take(cache),
    };
    let _guard = Guard {
        prev: MEMO.with(|m| m.replace(Some(memo))),
        out: cache,
    };
    f()
}

/// The slot of `m` in the current memo and what is known of it.
fn lookup(m: &Value) -> Option<(usize, Facts)> {
    let addr = m as *const Value as usize;
    MEMO.with(|memo| {
        let memo = memo.borrow();
        let x = memo.as_ref()?;
        let size = std::mem::size_of::<Value>();
        if addr < x.start || addr >= x.start + x.len * size {
            return None;
        }
        let i = (addr - x.start) / size;
        Some((i, x.facts[i]))
    })
}

fn store(i: usize, update: impl FnOnce(&mut Facts)) {
    MEMO.with(|memo| {
        if let Some(x) = memo.borrow_mut().as_mut() {
            if let Some(f) = x.facts.get_mut(i) {
                update(f);
            }
        }
    });
}

/// The token estimate of `m`, from the memo or `compute`.
pub fn tokens(m: &Value, compute: impl FnOnce(&Value) -> usize) -> usize {
    match lookup(m) {
        Some((_, f)) if f.tokens != UNKNOWN_TOKENS => f.tokens as usize,
        Some((i, _)) => {
            let n = compute(m);
            store(i, |f| f.tokens = n.min(UNKNOWN_TOKENS as usize - 1) as u32);
            n
        }
        None => compute(m),
    }
}

/// The kind code of `m` (any `u8` but 255), from the memo or `compute`.
pub fn kind(m: &Value, compute: impl FnOnce(&Value) -> u8) -> u8 {
    match lookup(m) {
        Some((_, f)) if f.kind != UNKNOWN_KIND => f.kind,
        Some((i, _)) => {
            let k = compute(m);
            store(i, |f| f.kind = k);
            k
        }
        None => compute(m),
    }
}

/// Whether `m` issues tool calls, from the memo or `compute`.
pub fn has_calls(m: &Value, compute: impl FnOnce(&Value) -> bool) -> bool {
    match lookup(m) {
        Some((_, Facts { calls: Some(c), .. })) => c,
        Some((i, _)) => {
            let c = compute(m);
            store(i, |f| f.calls = Some(c));
            c
        }
        None => compute(m),
    }
}

/// The content key of `m`, from the memo or `compute`.
pub fn key(m: &Value, compute: impl FnOnce(&Value) -> u64) -> u64 {
    match lookup(m) {
        Some((_, Facts { key: Some(k), .. })) => k,
        Some((i, _)) => {
            let k = compute(m);
            store(i, |f| f.key = Some(k));
            k
        }
        None => compute(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::cell::Cell;

    #[test]
    fn computes_once_per_message_and_hands_the_facts_on() {
        let ms = vec![json!({"a": 1}), json!({"b": 2})];
        let calls = Cell::new(0);
        let count = |_: &Value| {
            calls.set(calls.get() + 1);
            7
        };
        let mut cache = Vec::new();
        with(&ms, &mut cache, || {
            assert_eq!(tokens(&ms[0], count), 7);
            assert_eq!(tokens(&ms[0], count), 7);
            assert_eq!(tokens(&ms[1], count), 7);
        });
        assert_eq!(calls.get(), 2);
        // A later request over a moved copy of the same messages reuses what was learnt.
        let moved = ms.clone();
        with(&moved, &mut cache, || assert_eq!(tokens(&moved[1], count), 7));
        assert_eq!(calls.get(), 2);
        // Messages outside the planned slice are computed every time.
        let other = json!({"c": 3});
        with(&moved, &mut cache, || {
            tokens(&other, count);
            tokens(&other, count);
        });
        assert_eq!(calls.get(), 4);
    }

    #[test]
    fn kinds_and_keys_are_remembered_separately() {
        let ms = vec![json!({"a": 1})];
        let mut cache = Vec::new();
        with(&ms, &mut cache, || {
            assert_eq!(kind(&ms[0], |_| 3), 3);
            assert_eq!(kind(&ms[0], |_| 9), 3);
            assert_eq!(key(&ms[0], |_| 11), 11);
            assert_eq!(key(&ms[0], |_| 12), 11);
        });
        assert_eq!(cache[0].tokens, UNKNOWN_TOKENS);
        // Outside `with` nothing is remembered.
        assert_eq!(kind(&ms[0], |_| 5), 5);
    }
}
