//! What is known of the messages of the history being planned.
//!
//! The planner's stages (cleaner, turn split, costs, folding, rendering, the validity gate)
//! ask the same questions of the same messages: the kind of each, its token estimate, its
//! tool calls and results, the content key of a turn's first message, the pairing of calls
//! and results, the cleaner's copy of a message. A [`HistoryCache`] holds the answers, by
//! position in the history: a live session owns one and keeps it for the messages its next
//! request keeps ([`HistoryCache::truncate`], then [`HistoryCache::extend`]); a one-shot
//! request builds one ([`HistoryCache::of`]). The stages read it through a [`History`]: the
//! messages and their cache side by side, passed down by reference.
//!
//! Every value held is a function of its key and of nothing else:
//! * a message's facts ([`Shape`], token estimate, content key) and its copy with content as
//!   parts: of the message;
//! * the cleaner's copy: of the message and the [`StripOptions`] it was made with, which are
//!   all that [`strip::strip`] reads (a copy made with other options is made again);
//! * the validity gate's verdict on a kept copy: of the copy and the message it replaces;
//! * the turn split and the pairing: of the messages.
//!
//! It decides nothing and never sees the config.

use crate::model::message::{self, Kind};
use crate::model::pairing::{Pairer, Pairing};
use crate::model::steps::Step;
use crate::model::strip::{self, StripCounts, StripOptions};
use crate::model::tokens;
use crate::transcript::turns::{self, TurnSpan};
use serde_json::Value;
use std::cell::{Cell, OnceCell, RefCell};
use std::ops::Range;
use std::rc::Rc;

/// What the pairing and the validity gate's standalone rules need of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub kind: Kind,
    /// An assistant message that is empty or has a blank text part (PROVIDERS.md rule 10).
    pub blank: bool,
    /// The ids of the tool calls it issues, in order.
    pub calls: Vec<String>,
    /// The call ids its results answer, in order.
    pub results: Vec<String>,
}

impl Shape {
    pub fn of(m: &Value) -> Shape {
        let kind = message::kind(m);
        Shape {
            kind,
            blank: kind == Kind::Assistant && (message::is_empty_assistant(m) || message::has_blank_text(m)),
            calls: message::call_ids(m),
            results: message::result_ids(m),
        }
    }
}

/// A replacement of a history message that the cache keeps (the cleaner's copy, the copy
/// with content as parts), with what is known of it. Plan steps share its message.
#[derive(Debug)]
pub struct Replacement {
    pub message: Rc<Value>,
    pub tokens: usize,
    shape: OnceCell<Shape>,
    /// It passed the validity gate's comparison with the message it replaces (outside the
    /// live tool loop, where the comparison depends on the two alone).
    checked: Cell<bool>,
}

impl Replacement {
    fn new(m: Value) -> Replacement {
        Replacement {
            tokens: tokens::message(&m),
            message: Rc::new(m),
            shape: OnceCell::new(),
            checked: Cell::new(false),
        }
    }

    pub fn shape(&self) -> &Shape {
        self.shape.get_or_init(|| Shape::of(&self.message))
    }

    /// Whether [`Replacement::set_checked`] was called.
    pub fn checked(&self) -> bool {
        self.checked.get()
    }

    /// Records that the gate's comparison with the replaced message passed.
    pub fn set_checked(&self) {
        self.checked.set(true);
    }
}

/// The cleaner's copy of a message.
#[derive(Debug)]
pub struct Cleaned {
    /// The copy; `None` when nothing is removed.
    pub copy: Option<Rc<Replacement>>,
    pub counts: StripCounts,
}

/// What is known of one message.
#[derive(Debug)]
struct Known {
    shape: Shape,
    tokens: usize,
    /// The content key ([`turns::key_of`]), asked of the first message of each turn.
    key: OnceCell<u64>,
    /// The cleaner's copy and the options it was made with.
    cleaned: RefCell<Option<(StripOptions, Rc<Cleaned>)>>,
    /// The copy with string content as an array of parts.
    with_parts: OnceCell<Rc<Replacement>>,
}

impl Known {
    fn of(m: &Value) -> Known {
        Known {
            shape: Shape::of(m),
            tokens: tokens::message(m),
            key: OnceCell::new(),
            cleaned: RefCell::new(None),
            with_parts: OnceCell::new(),
        }
    }
}

/// What is known of the messages of a history, by position.
#[derive(Debug, Default)]
pub struct HistoryCache {
    known: Vec<Known>,
    /// The pairing of the known messages (all of them).
    pairer: Pairer,
    split: OnceCell<(Range<usize>, Vec<TurnSpan>)>,
}

impl HistoryCache {
    /// The cache of `messages`.
    pub fn of(messages: &[Value]) -> HistoryCache {
        let mut c = HistoryCache::default();
        c.extend(messages);
        c
    }

    /// Messages known.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// Forgets the messages from `len` on (the history was cut there).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.known.len() {
            return;
        }
        self.known.truncate(len);
        // A pairing cannot be cut (a later result may have answered an earlier call): the
        // known messages are paired again.
        self.pairer = Pairer::default();
        self.pair_known();
        self.split = OnceCell::new();
    }

    fn pair_known(&mut self) {
        for k in &self.known[self.pairer.len()..] {
            self.pairer.push_ids(&k.shape.calls, &k.shape.results);
        }
    }

    /// Learns the messages of `messages` after the ones known, which must be the first
    /// messages of `messages` (the history grew; see [`HistoryCache::truncate`]).
    pub fn extend(&mut self, messages: &[Value]) {
        if messages.len() <= self.known.len() {
            return;
        }
        for m in &messages[self.known.len()..] {
            self.known.push(Known::of(m));
        }
        self.pair_known();
        self.split = OnceCell::new();
    }

    /// `messages` with what is known of them: the messages this cache learnt.
    pub fn view<'a>(&'a self, messages: &'a [Value]) -> History<'a> {
        assert_eq!(
            self.known.len(),
            messages.len(),
            "a history cache read with messages it did not learn"
        );
        History { messages, cache: self }
    }
}

/// The messages of a request and what is known of them.
#[derive(Debug, Clone, Copy)]
pub struct History<'a> {
    pub messages: &'a [Value],
    cache: &'a HistoryCache,
}

impl<'a> History<'a> {
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    pub fn kind(&self, i: usize) -> Kind {
        self.cache.known[i].shape.kind
    }

    pub fn shape(&self, i: usize) -> &'a Shape {
        &self.cache.known[i].shape
    }

    /// The token estimate of message `i`.
    pub fn tokens(&self, i: usize) -> usize {
        self.cache.known[i].tokens
    }

    /// The token estimate of the messages in `range`.
    pub fn tokens_of(&self, range: Range<usize>) -> usize {
        self.cache.known[range].iter().map(|k| k.tokens).sum()
    }

    /// The token estimate of the message a plan step stands for: known for the messages of
    /// the history and the replacements the cache keeps.
    pub fn step_tokens(&self, step: &Step) -> usize {
        match (&step.message, step.source) {
            (None, Some(i)) => self.tokens(i),
            (Some(m), Some(i)) => self.replacement(i, m).map_or_else(|| tokens::message(m), |r| r.tokens),
            _ => tokens::message(step.resolve(self.messages)),
        }
    }

    /// The content key of message `i` ([`turns::key_of`]).
    pub fn key(&self, i: usize) -> u64 {
        *self.cache.known[i].key.get_or_init(|| turns::key_of(&self.messages[i]))
    }

    /// Which result answers which call.
    pub fn pairing(&self) -> Rc<Pairing> {
        self.cache.pairer.pairing()
    }

    /// The preamble and the turns ([`turns::split`]).
    pub fn split(&self) -> &'a (Range<usize>, Vec<TurnSpan>) {
        let h = *self;
        self.cache
            .split
            .get_or_init(|| turns::split_by(h.len(), |i| h.kind(i), |i| h.key(i)))
    }

    /// The cleaner's copy of message `i` under `options` ([`strip::strip`]).
    pub fn cleaned(&self, i: usize, options: StripOptions) -> Rc<Cleaned> {
        let slot = &self.cache.known[i].cleaned;
        if let Some((made_with, c)) = slot.borrow().as_ref() {
            if *made_with == options {
                return Rc::clone(c);
            }
        }
        let s = strip::strip(&self.messages[i], options);
        let c = Rc::new(Cleaned {
            copy: s.out.map(|m| Rc::new(Replacement::new(m))),
            counts: s.counts,
        });
        *slot.borrow_mut() = Some((options, Rc::clone(&c)));
        c
    }

    /// Message `i` with its string content as an array of parts ([`message::with_parts`]).
    pub fn with_parts(&self, i: usize) -> Rc<Replacement> {
        let m = &self.messages[i];
        Rc::clone(
            self.cache.known[i]
                .with_parts
                .get_or_init(|| Rc::new(Replacement::new(message::with_parts(m)))),
        )
    }

    /// The kept replacement of message `i` that `m` is, if it is one (the very copy, not an
    /// equal one).
    pub fn replacement(&self, i: usize, m: &Rc<Value>) -> Option<Rc<Replacement>> {
        let known = self.cache.known.get(i)?;
        let is_m = |r: &&Rc<Replacement>| Rc::ptr_eq(&r.message, m);
        if let Some(r) = known.with_parts.get().filter(is_m) {
            return Some(Rc::clone(r));
        }
        let cleaned = known.cleaned.borrow();
        cleaned
            .as_ref()
            .and_then(|(_, c)| c.copy.as_ref())
            .filter(is_m)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(clean_thinking: bool, drop_calls: bool) -> StripOptions {
        StripOptions {
            clean_thinking,
            clear_reasoning_content: true,
            drop_calls,
        }
    }

    #[test]
    fn a_cleaned_copy_is_made_once_per_options() {
        let ms = vec![json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "t"}, {"type": "text", "text": "a"}]})];
        let cache = HistoryCache::of(&ms);
        let h = cache.view(&ms);
        let a = h.cleaned(0, opts(true, false));
        let b = h.cleaned(0, opts(true, false));
        assert!(Rc::ptr_eq(&a, &b));
        let copy = a.copy.clone().expect("thinking removed");
        assert_eq!(copy.tokens, tokens::message(&copy.message));
        assert!(h.replacement(0, &copy.message).is_some());
        // An equal value is not the kept copy.
        assert!(h.replacement(0, &Rc::new((*copy.message).clone())).is_none());
        // Other options: made again, and the earlier copy is no longer the kept one.
        let kept = h.cleaned(0, opts(false, false));
        assert!(kept.copy.is_none());
        assert!(h.replacement(0, &copy.message).is_none());
        let again = h.cleaned(0, opts(true, false));
        assert!(!Rc::ptr_eq(&again, &a));
        assert_eq!(again.copy.as_ref().map(|c| &c.message), Some(&copy.message));
    }

    #[test]
    fn a_history_that_is_cut_and_grows_is_known_again_from_the_cut() {
        let call = |id: &str| json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "t"}]});
        let result = |id: &str| json!({"role": "toolResult", "toolCallId": id, "content": []});
        let user = |s: &str| json!({"role": "user", "content": s});
        let first = vec![user("a"), call("x"), result("x"), user("b")];
        let mut cache = HistoryCache::of(&first);
        assert_eq!(cache.view(&first).split().1.len(), 2);
        // The host rewrote the end: the call is answered by another result now.
        let second = vec![user("a"), call("x"), user("c"), result("x"), user("d")];
        cache.truncate(2);
        cache.extend(&second);
        let h = cache.view(&second);
        let fresh = HistoryCache::of(&second);
        let f = fresh.view(&second);
        assert_eq!(h.split(), f.split());
        assert_eq!(h.pairing().answer_of, f.pairing().answer_of);
        assert_eq!(h.pairing().answer_of[1], vec![Some((3, 0))]);
        assert_eq!(
            (0..5).map(|i| h.tokens(i)).collect::<Vec<_>>(),
            (0..5).map(|i| f.tokens(i)).collect::<Vec<_>>()
        );
        assert_eq!(h.key(4), turns::key_of(&second[4]));
    }
}
