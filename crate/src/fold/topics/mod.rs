//! Where the topics of a conversation change, and what each topic is called.
//!
//! This is layer 1 of topic segmentation: a local, zero-cost TF-IDF comparison of neighbouring
//! turns. It decides boundaries, labels, and how clearly a text (the upcoming prompt) refers to
//! some turns; it never reads files, never calls a model and never takes a label from host
//! metadata (the `Conversation info (untrusted metadata)` blocks and timestamp envelopes that
//! hosts prepend to user messages are stripped first, see [`strip_host_metadata`]).
//!
//! * this file: the [`Segmenter`] and its turns: terms interned to ids, term frequencies, and
//!   the tf-idf weights every decision reads;
//! * [`segments`]: where topics start (similarity of neighbouring windows) and how short
//!   topics merge into a neighbour;
//! * [`labels`]: which terms name a topic;
//! * [`query`]: how similar a text is to a range of turns (prompt relevance).
//!
//! # How it works
//!
//! * **Terms.** Each turn's user text, assistant text and tool names are tokenized by
//!   [`crate::text::terms`] (lowercase words, stopwords dropped, CJK character n-grams). Tool
//!   names become terms prefixed with `tool:`. Terms are interned to `u32` ids once, for the
//!   whole session.
//! * **Incremental.** [`Segmenter::push`] tokenizes only the new turn, stores it as a sorted
//!   sparse `(id, tf)` vector and updates the document frequencies in place; its cost is
//!   proportional to the turn. Term frequency is sublinear, `1 + ln(c)`, where `c` counts a
//!   user occurrence [`USER_WEIGHT`] times.
//! * **Weights at query time.** Inverse document frequency changes as turns arrive, so it is
//!   applied lazily: `idf = ln((1 + N) / (1 + df)) + 1` over the `N` turns pushed so far. Every
//!   query recomputes over all turns in `O(total nonzeros)`.
//! * **Boundaries, minimum length, labels:** see [`segments`] and [`labels`].
//!
//! # Quality and cost
//!
//! `examples/topics_eval.rs` measures boundaries on real chats (LoCoMo conversations
//! interleaved session by session; a boundary counts within ±1 turn of a conversation switch).
//! At the defaults F1 is 0.58 (precision 0.43, recall 0.91; chance precision 0.24); the best
//! thresholds are 0.03–0.04 (F1 0.62–0.64). Casual chat drifts inside a session, so many
//! "false" boundaries are real sub-topic changes. Pushing 10,000 turns of 500 words and
//! segmenting them takes about 0.4 s of CPU in release mode (tests/topics.rs has the timing).

mod labels;
mod query;
mod segments;
#[cfg(test)]
mod tests;

use crate::hash::HashMap;
use crate::model::hostmeta::strip_host_metadata;
use crate::text::terms::{fold_case, for_each_term, MAX_TERM_BYTES};
use serde::Serialize;

pub use query::Query;

/// Default of [`TopicConfig::similarity_threshold`] (from the original design).
pub const DEFAULT_SIMILARITY_THRESHOLD: f64 = 0.05;
/// Default of [`TopicConfig::min_turns`].
pub const DEFAULT_MIN_TURNS: usize = 2;
/// Default of [`TopicConfig::window`].
pub const DEFAULT_WINDOW: usize = 2;

/// How many times a user occurrence of a term counts (assistant text and tools count once):
/// what the user asks about says more about the topic than the length of the answer.
pub const USER_WEIGHT: f32 = 2.0;
/// Prefix of tool-name terms, so a tool called `search` is not the word "search".
pub const TOOL_PREFIX: &str = "tool:";
/// At most this many terms per topic in [`Topic::terms`].
pub const MAX_TOPIC_TERMS: usize = 5;

const ASSISTANT_WEIGHT: f32 = 1.0;
const TOOL_WEIGHT: f32 = 1.0;

/// Options of the [`Segmenter`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopicConfig {
    /// A topic starts where the cosine between the windows before and after a turn is below
    /// this value (default 0.05).
    pub similarity_threshold: f64,
    /// No topic except the last (live) one is shorter than this many turns (default 2; 0 is
    /// treated as 1).
    pub min_turns: usize,
    /// Turns on each side of a candidate boundary that are compared (default 2; 0 is treated
    /// as 1).
    pub window: usize,
}

impl Default for TopicConfig {
    fn default() -> Self {
        TopicConfig {
            similarity_threshold: DEFAULT_SIMILARITY_THRESHOLD,
            min_turns: DEFAULT_MIN_TURNS,
            window: DEFAULT_WINDOW,
        }
    }
}

/// The text of one turn (a user → assistant round trip) as the segmenter sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct TurnText<'a> {
    /// The user's message text (host metadata is stripped by the segmenter).
    pub user: &'a str,
    /// The assistant's reply text.
    pub assistant: &'a str,
    /// Names of the tools called during the turn (repeats count).
    pub tools: &'a [String],
}

impl<'a> TurnText<'a> {
    /// A turn without tool calls.
    pub fn new(user: &'a str, assistant: &'a str) -> Self {
        TurnText {
            user,
            assistant,
            tools: &[],
        }
    }
}

/// One topic: a run of consecutive turns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Topic {
    /// 0-based, in order of appearance.
    pub id: usize,
    /// Ordinal of the first turn.
    pub first_turn: usize,
    /// Ordinal of the last turn (inclusive).
    pub last_turn: usize,
    /// Two or three of the best words joined by `" / "`, e.g. `"ledger / cents / tests"`;
    /// `"turns a-b"` when the topic has no terms at all.
    pub label: String,
    /// The topic's most distinctive terms, best first, at most [`MAX_TOPIC_TERMS`]. Tool terms
    /// keep their `tool:` prefix.
    pub terms: Vec<String>,
}

/// Incremental topic segmenter over the turns of one session.
///
/// ```
/// use contextfold::fold::topics::{Segmenter, TopicConfig, TurnText};
/// let mut s = Segmenter::new(TopicConfig::default());
/// s.push(TurnText::new("Will it rain in Paris tomorrow?", "The forecast says rain and wind."));
/// s.push(TurnText::new("How cold with the rain and wind?", "About 8 degrees, rain all day."));
/// s.push(TurnText::new("Why does rustc say borrowed value does not live long enough?", "The borrow outlives the value."));
/// s.push(TurnText::new("Fix the borrow checker lifetime error in rustc", "Clone the value or extend its lifetime."));
/// let topics = s.topics();
/// assert_eq!(topics.len(), 2);
/// assert_eq!(topics[1].first_turn, 2);
/// ```
#[derive(Debug, Clone)]
pub struct Segmenter {
    cfg: TopicConfig,
    vocab: Vocab,
    /// `offsets[t]..offsets[t + 1]` are turn `t`'s entries in `ids` / `tf`.
    offsets: Vec<usize>,
    /// Term ids of every turn, sorted within a turn.
    ids: Vec<u32>,
    /// Sublinear term frequency, parallel to `ids`.
    tf: Vec<f32>,
}

impl Default for Segmenter {
    fn default() -> Self {
        Segmenter::new(TopicConfig::default())
    }
}

impl Segmenter {
    /// An empty segmenter.
    pub fn new(cfg: TopicConfig) -> Self {
        Segmenter {
            cfg,
            vocab: Vocab::default(),
            offsets: vec![0],
            ids: Vec::new(),
            tf: Vec::new(),
        }
    }

    /// The options in use.
    pub fn config(&self) -> TopicConfig {
        self.cfg
    }

    /// Changes the options; the next query uses them (nothing is recomputed now).
    pub fn set_config(&mut self, cfg: TopicConfig) {
        self.cfg = cfg;
    }

    /// Number of turns pushed.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether no turn has been pushed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of distinct terms seen so far.
    pub fn vocabulary_size(&self) -> usize {
        self.vocab.terms.len()
    }

    /// Adds a turn and returns its ordinal (0-based). Tokenizes only this turn and updates the
    /// document frequencies in place: the cost is proportional to the size of the turn.
    pub fn push(&mut self, turn: TurnText<'_>) -> usize {
        let ordinal = self.len();
        let vocab = &mut self.vocab;
        let mut tokens: Vec<(u32, f32)> = Vec::new();
        for (text, weight) in [(turn.user, USER_WEIGHT), (turn.assistant, ASSISTANT_WEIGHT)] {
            for_each_term(&strip_host_metadata(text), |term| {
                tokens.extend(vocab.intern(term).map(|id| (id, weight)));
            });
        }
        let tools = turn.tools.iter().map(|t| t.trim());
        for name in tools.filter(|n| !n.is_empty() && n.len() <= MAX_TERM_BYTES) {
            let term: String = TOOL_PREFIX.chars().chain(fold_case(name).chars()).collect();
            tokens.extend(vocab.intern(&term).map(|id| (id, TOOL_WEIGHT)));
        }
        // Each term once, in id order, with its weights summed (sums of 1s and 2s: exact in
        // any order).
        tokens.sort_unstable_by_key(|&(id, _)| id);
        for run in tokens.chunk_by(|a, b| a.0 == b.0) {
            let id = run[0].0;
            let count: f32 = run.iter().map(|&(_, w)| w).sum();
            self.ids.push(id);
            self.tf.push(1.0 + count.ln());
            let df = &mut self.vocab.df[id as usize];
            *df = df.saturating_add(1);
        }
        self.offsets.push(self.ids.len());
        ordinal
    }

    /// The segmentation of all turns pushed so far, labelled.
    pub fn topics(&self) -> Vec<Topic> {
        self.topics_and_turns().0
    }

    /// The topic id of every turn (the same segmentation as [`Segmenter::topics`], without
    /// the labels).
    pub fn topic_of_turns(&self) -> Vec<usize> {
        self.topics_and_turns().1
    }

    /// [`Segmenter::topics`] and [`Segmenter::topic_of_turns`] from one segmentation.
    pub fn topics_and_turns(&self) -> (Vec<Topic>, Vec<usize>) {
        self.topics_at(&self.analyse(), self.cfg.similarity_threshold)
    }

    /// The weights and similarities of all turns pushed so far: what every segmentation of
    /// them starts from, whatever its threshold. Valid until the next push or config change.
    pub fn analyse(&self) -> Analysis {
        let weights = self.weigh();
        let sims = self.similarities(&weights);
        Analysis { weights, sims }
    }

    /// The topics of `a` (from [`Segmenter::analyse`]) with boundaries below `threshold`, and
    /// the topic of every turn.
    pub fn topics_at(&self, a: &Analysis, threshold: f64) -> (Vec<Topic>, Vec<usize>) {
        let segments = self.segments_at(a, threshold);
        let of = segments
            .iter()
            .enumerate()
            .flat_map(|(id, &(first, last))| std::iter::repeat(id).take(last + 1 - first))
            .collect();
        (self.label(&a.weights, &segments), of)
    }

    /// The topic of [`Segmenter::topics_at`] that holds turn `turn`, labelled without
    /// labelling the others; `None` past the turns pushed.
    pub fn topic_of_turn_at(&self, a: &Analysis, threshold: f64, turn: usize) -> Option<Topic> {
        let segments = self.segments_at(a, threshold);
        let id = segments
            .iter()
            .position(|&(first, last)| (first..=last).contains(&turn))?;
        let mut topic = self.label(&a.weights, &segments[id..=id]).pop()?;
        topic.id = id;
        Some(topic)
    }

    /// The segments (inclusive turn ranges) of `a` with boundaries below `threshold`.
    fn segments_at(&self, a: &Analysis, threshold: f64) -> Vec<(usize, usize)> {
        segments::segments(&a.sims, threshold, self.cfg.min_turns)
    }

    /// Similarity at every turn: entry `i` is the cosine between the window ending at turn
    /// `i - 1` and the window starting at turn `i`, under the current weights. Entry 0, and
    /// the entry of every turn without terms, is `1.0` (no topic can start there). The length
    /// is [`Segmenter::len`].
    pub fn adjacent_similarities(&self) -> Vec<f64> {
        self.similarities(&self.weigh())
    }

    /// Turn `t`'s entries: positions in `ids` / `tf`.
    fn entries(&self, t: usize) -> std::ops::Range<usize> {
        self.offsets[t]..self.offsets[t + 1]
    }

    /// Unit-normalized tf-idf weights of every entry under the current document frequencies,
    /// and the turns that have any term.
    fn weigh(&self) -> Weights {
        let idf = Idf::new(self.len());
        let idf: Vec<f32> = self.vocab.df.iter().map(|&df| idf.of(df) as f32).collect();
        let mut w: Vec<f32> = self
            .ids
            .iter()
            .zip(&self.tf)
            .map(|(&id, &tf)| tf * idf[id as usize])
            .collect();
        let mut nonempty = Vec::with_capacity(self.len());
        for t in 0..self.len() {
            let turn = &mut w[self.entries(t)];
            let norm: f64 = turn.iter().fold(0.0, |sum, &x| sum + x as f64 * x as f64);
            if norm > 0.0 {
                let inv = (1.0 / norm.sqrt()) as f32;
                turn.iter_mut().for_each(|x| *x *= inv);
                nonempty.push(t);
            }
        }
        Weights { w, nonempty }
    }
}

/// What a segmentation of the turns pushed so far starts from (see [`Segmenter::analyse`]).
#[derive(Debug, Clone)]
pub struct Analysis {
    weights: Weights,
    /// The similarity at every turn (see [`segments`]).
    sims: Vec<f64>,
}

/// The unit-normalized weights of one segmentation (see [`Segmenter::weigh`]).
#[derive(Debug, Clone)]
struct Weights {
    /// Unit-normalized weight of every entry, parallel to `Segmenter::ids`.
    w: Vec<f32>,
    /// Turns with at least one term, ascending.
    nonempty: Vec<usize>,
}

/// Smoothed inverse document frequency over `n` turns, `ln((1 + n) / (1 + df)) + 1`, for
/// every `df` from 0 to `n` (computed once per query: many terms share a `df`).
#[derive(Debug, Clone)]
struct Idf(Vec<f64>);

impl Idf {
    fn new(n: usize) -> Idf {
        Idf((0..=n)
            .map(|df| ((1.0 + n as f64) / (1.0 + df as f64)).ln() + 1.0)
            .collect())
    }

    /// The turns this was computed for.
    fn turns(&self) -> usize {
        self.0.len() - 1
    }

    fn of(&self, df: u32) -> f64 {
        self.0[df as usize]
    }
}

/// The terms seen so far, their ids and in how many turns each occurs.
#[derive(Debug, Clone, Default)]
struct Vocab {
    ids: HashMap<Box<str>, u32>,
    terms: Vec<Box<str>>,
    /// Number of turns containing each term.
    df: Vec<u32>,
}

impl Vocab {
    /// The id of `term`, added if new (`None` only if the vocabulary is full: 2^32 terms).
    fn intern(&mut self, term: &str) -> Option<u32> {
        if let Some(&id) = self.ids.get(term) {
            return Some(id);
        }
        let id = u32::try_from(self.terms.len()).ok()?;
        self.ids.insert(term.into(), id);
        self.terms.push(term.into());
        self.df.push(0);
        Some(id)
    }

    fn get(&self, term: &str) -> Option<u32> {
        self.ids.get(term).copied()
    }
}
