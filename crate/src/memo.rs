//! What is remembered about each message of the history being planned.
//!
//! The planner's stages (cleaner, turn split, costs, folding, rendering, the validity gate)
//! ask the same questions of the same input messages: its kind, its token estimate, its
//! content key. [`with`] answers each at most once per message for the duration of one
//! request, and a live session hands the answers to the next request for the messages it
//! keeps. Only messages inside the planned slice itself (by address) are remembered, and one
//! value derived from each (the cleaner's copy, see [`derived`]); other derived messages
//! (stubs, summaries) are computed every time.

use crate::pairing::{Pairer, Pairing};
use serde_json::Value;
use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

const UNKNOWN_TOKENS: u32 = u32::MAX;
const UNKNOWN_KIND: u8 = u8::MAX;

/// Kinds of values [`derived`] from a message.
const FAMILIES: usize = 3;
/// The cleaner's copy.
pub const CLEANED: usize = 0;
/// The copy with its string content as an array of parts.
pub const NORMALIZED: usize = 1;
/// What the validity gate's standalone rules need of the message (`gate::Shape`).
pub const SHAPE: usize = 2;

/// The remembered facts of one message.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    known: Known,
    /// Values derived from the message, one per family, with the variant each was derived for.
    derived: [Option<(u8, Rc<dyn Any>)>; FAMILIES],
    /// The first replacement of the message asked about (normally the cleaner's copy): held,
    /// so that no other value can take its address, with what is known of it.
    replacement: Option<Replacement>,
}

#[derive(Debug, Clone)]
struct Replacement {
    value: Rc<Value>,
    /// It passed the validity gate's comparison with the message.
    checked: bool,
    /// It was sent to a caller that keeps replacements.
    sent: bool,
    tokens: u32,
    /// A value derived from it (see [`replacement_derived`]).
    derived: Option<Rc<dyn Any>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    tokens: u32,
    kind: u8,
    /// Whether the message issues tool calls.
    calls: Option<bool>,
    key: Option<u64>,
}

impl Default for Known {
    fn default() -> Known {
        Known {
            tokens: UNKNOWN_TOKENS,
            kind: UNKNOWN_KIND,
            calls: None,
            key: None,
        }
    }
}

/// What is remembered of a history: per message, and its pairing (extended as it grows).
#[derive(Debug, Clone, Default)]
pub struct Cache {
    facts: Vec<Facts>,
    pairer: Option<Pairer>,
}

impl Cache {
    /// Forgets everything about messages from `len` on (the history was cut there).
    pub fn truncate(&mut self, len: usize) {
        self.facts.truncate(len);
        if self.pairer.as_ref().is_some_and(|p| p.len() > len) {
            self.pairer = None;
        }
    }
}

struct Memo {
    start: usize,
    len: usize,
    cache: Cache,
    /// The turn split of the whole slice, for this request only.
    split: Option<Split>,
}

impl Memo {
    /// Whether `messages` is the whole slice being planned.
    fn plans(&self, messages: &[Value]) -> bool {
        self.start == messages.as_ptr() as usize && self.len == messages.len()
    }
}

type Split = (std::ops::Range<usize>, Vec<crate::turns::TurnSpan>);

thread_local! {
    static MEMO: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// Puts the previous memo back when the planning ends, however it ends, and hands the facts
/// learnt to the caller's cache.
struct Guard<'a> {
    prev: Option<Memo>,
    out: &'a mut Cache,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let prev = self.prev.take();
        if let Some(memo) = MEMO.with(|m| m.replace(prev)) {
            *self.out = memo.cache;
        }
    }
}

/// Runs `f` with the facts of `messages` computed at most once each, starting from `cache`
/// (what an earlier request learnt of the messages `messages` starts with; see
/// [`Cache::truncate`]), which holds everything learnt afterwards.
pub fn with<R>(messages: &[Value], cache: &mut Cache, f: impl FnOnce() -> R) -> R {
    cache.facts.resize(messages.len(), Facts::default());
    if cache.pairer.as_ref().is_some_and(|p| p.len() > messages.len()) {
        cache.pairer = None;
    }
    let memo = Memo {
        start: messages.as_ptr() as usize,
        len: messages.len(),
        cache: std::mem::take(cache),
        split: None,
    };
    let _guard = Guard {
        prev: MEMO.with(|m| m.replace(Some(memo))),
        out: cache,
    };
    f()
}

/// The slot of `m` in the current memo and what is known of it.
fn lookup(m: &Value) -> Option<(usize, Known)> {
    let addr = m as *const Value as usize;
    MEMO.with(|memo| {
        let memo = memo.borrow();
        let x = memo.as_ref()?;
        let size = std::mem::size_of::<Value>();
        if addr < x.start || addr >= x.start + x.len * size {
            return None;
        }
        let i = (addr - x.start) / size;
        Some((i, x.cache.facts[i].known))
    })
}

fn store(i: usize, update: &mut dyn FnMut(&mut Known)) {
    MEMO.with(|memo| {
        if let Some(x) = memo.borrow_mut().as_mut() {
            if let Some(f) = x.cache.facts.get_mut(i) {
                update(&mut f.known);
            }
        }
    });
}

/// A value of `family` derived from `m` for `variant` (for example the cleaner's copy of it
/// under one set of options): from the memo when it was derived for the same variant, else
/// `compute`d and remembered in place of any other variant of the family.
pub fn derived<T: Any>(m: &Value, family: usize, variant: u8, compute: impl FnOnce(&Value) -> T) -> Rc<T> {
    let Some((i, _)) = lookup(m) else {
        return Rc::new(compute(m));
    };
    if let Some(d) = derived_of(i, family, variant).and_then(|d| d.downcast::<T>().ok()) {
        return d;
    }
    let d = Rc::new(compute(m));
    remember_derived(i, family, variant, d.clone());
    d
}

/// The value of `family` remembered for message `i`, if derived for `variant`.
fn derived_of(i: usize, family: usize, variant: u8) -> Option<Rc<dyn Any>> {
    MEMO.with(|memo| {
        let memo = memo.borrow();
        match memo.as_ref()?.cache.facts.get(i)?.derived.get(family)?.as_ref()? {
            (v, d) if *v == variant => Some(d.clone()),
            _ => None,
        }
    })
}

fn remember_derived(i: usize, family: usize, variant: u8, any: Rc<dyn Any>) {
    MEMO.with(|memo| {
        if let Some(f) = memo.borrow_mut().as_mut().and_then(|x| x.cache.facts.get_mut(i)) {
            if let Some(slot) = f.derived.get_mut(family) {
                *slot = Some((variant, any));
            }
            // The replacement recorded was most likely derived from the previous value.
            if family != SHAPE {
                f.replacement = None;
            }
        }
    });
}

/// Runs `f` on the record of `replacement` of `m`: the slot of `m` is taken by the first
/// replacement asked about; `None` for any other (and for messages outside the slice).
fn with_replacement(m: &Value, replacement: &Rc<Value>, f: &mut dyn FnMut(&mut Replacement)) -> bool {
    let Some((i, _)) = lookup(m) else {
        return false;
    };
    MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let Some(slot) = memo
            .as_mut()
            .and_then(|x| x.cache.facts.get_mut(i))
            .map(|f| &mut f.replacement)
        else {
            return false;
        };
        let r = slot.get_or_insert_with(|| Replacement {
            value: replacement.clone(),
            checked: false,
            sent: false,
            tokens: UNKNOWN_TOKENS,
            derived: None,
        });
        let mine = Rc::ptr_eq(&r.value, replacement);
        if mine {
            f(r);
        }
        mine
    })
}

/// Whether `replacement` of `m` was recorded by [`set_checked`].
pub fn checked(m: &Value, replacement: &Rc<Value>) -> bool {
    let mut checked = false;
    with_replacement(m, replacement, &mut |r| checked = r.checked);
    checked
}

/// Records that `replacement` of `m` passed a check that depends only on the two.
pub fn set_checked(m: &Value, replacement: &Rc<Value>) {
    with_replacement(m, replacement, &mut |r| r.checked = true);
}

/// For the replacement of `m` the memo holds: whether it was sent before (and it is recorded
/// as sent now); `None` for any other replacement.
pub fn mark_sent(m: &Value, replacement: &Rc<Value>) -> Option<bool> {
    let mut sent = false;
    with_replacement(m, replacement, &mut |r| sent = std::mem::replace(&mut r.sent, true)).then_some(sent)
}

/// The token estimate of `replacement` of `m`, from the memo or `compute`.
pub fn replacement_tokens(m: &Value, replacement: &Rc<Value>, compute: impl FnOnce(&Value) -> usize) -> usize {
    let mut known = UNKNOWN_TOKENS;
    if !with_replacement(m, replacement, &mut |r| known = r.tokens) {
        return compute(replacement);
    }
    if known != UNKNOWN_TOKENS {
        return known as usize;
    }
    let n = compute(replacement);
    with_replacement(m, replacement, &mut |r| {
        r.tokens = n.min(UNKNOWN_TOKENS as usize - 1) as u32
    });
    n
}

/// A value derived from `replacement` of `m` (one type per program: the gate's shape), from
/// the memo or `compute`d.
pub fn replacement_derived<T: Any>(m: &Value, replacement: &Rc<Value>, compute: impl FnOnce(&Value) -> T) -> Rc<T> {
    let mut known = None;
    with_replacement(m, replacement, &mut |r| known = r.derived.clone());
    if let Some(d) = known.and_then(|d| d.downcast::<T>().ok()) {
        return d;
    }
    let d = Rc::new(compute(replacement));
    let any: Rc<dyn Any> = d.clone();
    with_replacement(m, replacement, &mut |r| r.derived = Some(any.clone()));
    d
}

/// The pairing of `messages` when they are the whole history being planned: extended from
/// the pairing of the part an earlier request had; `None` for any other slice.
pub fn pairing(messages: &[Value]) -> Option<Rc<Pairing>> {
    // Taken out while extending it: pairing asks the memo about each message.
    let mut pairer = MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let x = memo.as_mut().filter(|x| x.plans(messages))?;
        Some(x.cache.pairer.take().unwrap_or_default())
    })?;
    for m in &messages[pairer.len()..] {
        pairer.push(m);
    }
    let pairing = pairer.pairing();
    MEMO.with(|memo| {
        if let Some(x) = memo.borrow_mut().as_mut().filter(|x| x.plans(messages)) {
            x.cache.pairer = Some(pairer);
        }
    });
    Some(pairing)
}

/// The turn split of `messages` when they are the whole history being planned: computed once
/// per request; `compute`d for any other slice.
pub fn split(messages: &[Value], compute: impl FnOnce(&[Value]) -> Split) -> Split {
    let known = MEMO.with(|memo| {
        memo.borrow()
            .as_ref()
            .filter(|x| x.plans(messages))
            .and_then(|x| x.split.clone())
    });
    if let Some(s) = known {
        return s;
    }
    let s = compute(messages);
    MEMO.with(|memo| {
        if let Some(x) = memo.borrow_mut().as_mut().filter(|x| x.plans(messages)) {
            x.split = Some(s.clone());
        }
    });
    s
}

/// The token estimate of `m`, from the memo or `compute`.
pub fn tokens(m: &Value, compute: impl FnOnce(&Value) -> usize) -> usize {
    match lookup(m) {
        Some((_, f)) if f.tokens != UNKNOWN_TOKENS => f.tokens as usize,
        Some((i, _)) => {
            let n = compute(m);
            store(i, &mut |f| f.tokens = n.min(UNKNOWN_TOKENS as usize - 1) as u32);
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
            store(i, &mut |f| f.kind = k);
            k
        }
        None => compute(m),
    }
}

/// Whether `m` issues tool calls, from the memo or `compute`.
pub fn has_calls(m: &Value, compute: impl FnOnce(&Value) -> bool) -> bool {
    match lookup(m) {
        Some((_, Known { calls: Some(c), .. })) => c,
        Some((i, _)) => {
            let c = compute(m);
            store(i, &mut |f| f.calls = Some(c));
            c
        }
        None => compute(m),
    }
}

/// The content key of `m`, from the memo or `compute`.
pub fn key(m: &Value, compute: impl FnOnce(&Value) -> u64) -> u64 {
    match lookup(m) {
        Some((_, Known { key: Some(k), .. })) => k,
        Some((i, _)) => {
            let k = compute(m);
            store(i, &mut |f| f.key = Some(k));
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
        let mut cache = Cache::default();
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
    fn a_derived_value_is_kept_per_variant() {
        let ms = vec![json!({"a": 1})];
        let mut cache = Cache::default();
        let calls = Cell::new(0);
        let derive = |m: &Value| {
            calls.set(calls.get() + 1);
            m.to_string()
        };
        with(&ms, &mut cache, || {
            let a = derived(&ms[0], CLEANED, 1, derive);
            let b = derived(&ms[0], CLEANED, 1, derive);
            assert!(Rc::ptr_eq(&a, &b));
            assert_eq!(calls.get(), 1);
            // Another variant replaces it.
            derived(&ms[0], CLEANED, 2, derive);
            derived(&ms[0], CLEANED, 1, derive);
            assert_eq!(calls.get(), 3);
            // Another family does not.
            derived(&ms[0], NORMALIZED, 1, derive);
            derived(&ms[0], CLEANED, 1, derive);
            assert_eq!(calls.get(), 4);
        });
        // Kept for the next request over the same messages.
        with(&ms, &mut cache, || derived(&ms[0], CLEANED, 1, derive));
        assert_eq!(calls.get(), 4);
    }

    #[test]
    fn a_check_is_remembered_for_the_same_replacement_only() {
        let ms = vec![json!({"a": 1})];
        let mut cache = Cache::default();
        let r = Rc::new(json!({"a": 2}));
        let same_text = Rc::new(json!({"a": 2}));
        with(&ms, &mut cache, || {
            assert!(!checked(&ms[0], &r));
            set_checked(&ms[0], &r);
            assert!(checked(&ms[0], &r));
            assert!(!checked(&ms[0], &same_text));
            assert_eq!(replacement_tokens(&ms[0], &r, |_| 5), 5);
            assert_eq!(replacement_tokens(&ms[0], &r, |_| 6), 5);
            assert_eq!(replacement_tokens(&ms[0], &same_text, |_| 6), 6);
            assert_eq!(*replacement_derived(&ms[0], &r, |_| 7u8), 7);
            assert_eq!(*replacement_derived(&ms[0], &r, |_| 8u8), 7);
            assert_eq!(*replacement_derived(&ms[0], &same_text, |_| 8u8), 8);
        });
        with(&ms, &mut cache, || {
            assert!(checked(&ms[0], &r));
            assert_eq!(*replacement_derived(&ms[0], &r, |_| 9u8), 7);
        });
        // Not for messages outside the planned slice.
        let other = json!({"a": 1});
        set_checked(&other, &r);
        assert!(!checked(&other, &r));
    }

    #[test]
    fn kinds_and_keys_are_remembered_separately() {
        let ms = vec![json!({"a": 1})];
        let mut cache = Cache::default();
        with(&ms, &mut cache, || {
            assert_eq!(kind(&ms[0], |_| 3), 3);
            assert_eq!(kind(&ms[0], |_| 9), 3);
            assert_eq!(key(&ms[0], |_| 11), 11);
            assert_eq!(key(&ms[0], |_| 12), 11);
        });
        assert_eq!(cache.facts[0].known.tokens, UNKNOWN_TOKENS);
        // Outside `with` nothing is remembered.
        assert_eq!(kind(&ms[0], |_| 5), 5);
    }
}
