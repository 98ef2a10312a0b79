//! One session's live state: the index, the topic segmenter, and what the JS layer told us
//! (summaries, sub-topic labels, sticky fold decisions, pins). The JS layer keeps one per
//! session per process and persists the parts that must survive a restart; everything here
//! is rebuilt from the transcript when those files are missing.
//!
//! A live session also keeps the history of its last delta request, what is known of its
//! messages ([`HistoryCache`]) and the replacements its caller holds, position by position:
//! the next request keeps them for the messages it keeps. A one-shot request builds what it
//! needs and keeps nothing.

mod once;
mod outcome;

use outcome::{clean_only, gate_result};

pub use once::{assemble_once, synthetic_entries};

use crate::config::{Config, Mode};
use crate::error::DeltaError;
use crate::fold::append::{self, Added};
use crate::fold::layout::Layout;
use crate::fold::pins::{self, Pins};
use crate::fold::planner::{self, Context};
use crate::fold::relevance::Corpus;
use crate::fold::summary::Recovery;
use crate::fold::topics::{Analysis, Segmenter, Topic, TopicConfig, TurnText};
use crate::hash::{HashMap, HashSet};
use crate::model::steps::Step;
use crate::transcript::entry::Entry;
use crate::transcript::history::{History, HistoryCache};
use crate::transcript::index::{SessionIndex, INDEX_VERSION};
use crate::transcript::turns;
use crate::wire::assemble::{AssembleRequest, AssembleResult, DeltaRequest};
use crate::wire::transcript::IndexUpdate;
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;

/// User prompts of the newest turns that, with the upcoming prompt, decide which earlier
/// topics the conversation refers to.
const RECENT_TURNS_FOR_RELEVANCE: usize = 2;

/// The session.
pub struct Session {
    config: Config,
    index: SessionIndex,
    segmenter: Segmenter,
    /// Turns of the index pushed into the segmenter.
    fed: usize,
    /// What the segmentations of the turns fed so far start from (topics and sub-topics).
    analysis: Option<Rc<Analysis>>,
    topics_cache: Option<(Vec<Topic>, Vec<usize>)>,
    /// Shared with the planning context of each request (not copied per request).
    summaries: Rc<HashMap<String, String>>,
    subtopics: HashMap<String, String>,
    folded: Rc<HashSet<String>>,
    /// Turns folded by a manual compaction (see [`Session::set_compacted`]).
    compacted: Rc<HashSet<String>>,
    /// Turn ids where a lexical topic boundary was judged "same topic" (LLM confirmation).
    merged: HashSet<String>,
    pins: Pins,
    /// The history of the last delta request (the next one may start with it).
    history: Vec<Value>,
    /// What is known of the messages of `history`.
    cache: HistoryCache,
    /// Per message of `history`: the replacement of it last sent to a caller that keeps
    /// replacements (see [`DeltaRequest::reuse`]), which that caller holds.
    held: Vec<Option<Rc<Value>>>,
    /// The turn explanations of the last response to a caller that keeps them.
    sent_turns: Vec<planner::TurnExplain>,
    /// What the last request sent: the next one appends to it (see [`crate::fold::append`]).
    layout: Option<Layout>,
    /// The turns of the last planned history as documents, for prompt relevance.
    corpus: Corpus,
    /// Index positions by turn key (the index writes it in hex), for the index turns
    /// `0..by_key.0` (kept as the index grows).
    by_key: (usize, HashMap<u64, usize>),
}

impl Session {
    pub fn new(config: Config) -> Session {
        let segmenter = Segmenter::new(topic_config(&config));
        Session {
            config,
            index: SessionIndex::new(),
            segmenter,
            fed: 0,
            analysis: None,
            topics_cache: None,
            summaries: Rc::default(),
            subtopics: HashMap::default(),
            folded: Rc::default(),
            compacted: Rc::default(),
            merged: HashSet::default(),
            pins: Pins::default(),
            history: Vec::new(),
            cache: HistoryCache::default(),
            held: Vec::new(),
            sent_turns: Vec::new(),
            layout: None,
            corpus: Corpus::default(),
            by_key: (0, HashMap::default()),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Changes the options; topic options re-segment from the kept turn texts.
    pub fn set_config(&mut self, config: Config) {
        let re_topic = topic_config(&config) != topic_config(&self.config);
        self.config = config;
        if re_topic {
            self.reset_segmenter();
        }
    }

    pub fn index(&self) -> &SessionIndex {
        &self.index
    }

    /// Replaces the index with a persisted one; `false` (and no change) when it is of
    /// another version.
    pub fn load_index(&mut self, index: SessionIndex) -> bool {
        if index.version != INDEX_VERSION {
            return false;
        }
        self.index = index;
        self.reset_segmenter();
        self.by_key = (0, HashMap::default());
        true
    }

    /// Rebuilds the index from all entries of the transcript.
    pub fn rebuild(&mut self, entries: &[Entry]) -> IndexUpdate {
        self.index = SessionIndex::build(entries);
        self.reset_segmenter();
        self.by_key = (0, HashMap::default());
        IndexUpdate {
            turns: self.index.turns.len(),
            new_turns: self.index.turns.len(),
            rewrite: None,
        }
    }

    /// Appends entries newer than the last ones seen.
    pub fn append(&mut self, entries: &[Entry]) -> IndexUpdate {
        match self.index.append(entries) {
            Ok(new_turns) => IndexUpdate {
                turns: self.index.turns.len(),
                new_turns,
                rewrite: None,
            },
            Err(r) => {
                self.by_key = (0, HashMap::default());
                IndexUpdate {
                    turns: self.index.turns.len(),
                    new_turns: 0,
                    rewrite: Some(r),
                }
            }
        }
    }

    fn reset_segmenter(&mut self) {
        self.segmenter = Segmenter::new(topic_config(&self.config));
        self.fed = 0;
        self.analysis = None;
        self.topics_cache = None;
    }

    /// Pushes indexed turns into the segmenter: every turn that a newer turn follows, and the
    /// newest once it has an answer.
    fn feed(&mut self) {
        let n = self.index.turns.len();
        while self.fed < n {
            let t = &self.index.turns[self.fed];
            let complete = self.fed + 1 < n || !t.topic_assistant.is_empty();
            if !complete {
                break;
            }
            self.segmenter.push(TurnText {
                user: &t.topic_user,
                assistant: &t.topic_assistant,
                tools: &t.tools,
            });
            self.fed += 1;
            self.analysis = None;
            self.topics_cache = None;
        }
    }

    /// Topics of the indexed turns, and the topic of each turn fed so far. Boundaries judged
    /// "same topic" (see [`Session::set_merged`]) are removed.
    pub fn topics(&mut self) -> (Vec<Topic>, Vec<usize>) {
        self.feed();
        if self.topics_cache.is_none() {
            let analysis = self.analysis();
            let (topics, of) = self
                .segmenter
                .topics_at(&analysis, self.segmenter.config().similarity_threshold);
            self.topics_cache = Some(merge_boundaries(topics, of, &self.index, &self.merged));
        }
        self.topics_cache.clone().unwrap_or_default()
    }

    /// Deterministic sub-topic labels (used when no LLM labels the turns): the segments of a
    /// finer lexical segmentation (three times the topic threshold) inside each topic, as
    /// `{turnId: "lex:<label>"}`, keys in ascending order (a repeated turn id: its last label).
    pub fn heuristic_subtopics(&mut self) -> serde_json::Map<String, Value> {
        let (fine_topics, fine_of) = self.finely(Segmenter::topics_at);
        // By id: a repeated id takes its last label.
        let labels: BTreeMap<&str, String> = fine_of
            .iter()
            .enumerate()
            .filter_map(|(i, &k)| {
                Some((
                    self.index.turns.get(i)?.id.as_str(),
                    subtopic_label(fine_topics.get(k)?),
                ))
            })
            .collect();
        labels
            .into_iter()
            .map(|(id, label)| (id.to_string(), Value::String(label)))
            .collect()
    }

    /// The deterministic sub-topic label of one turn (its entry in
    /// [`Session::heuristic_subtopics`]) without labelling the others: what the background
    /// step asks for after every turn.
    pub fn heuristic_subtopic(&mut self, turn_id: &str) -> Option<String> {
        let turn = self.index.turns.iter().rposition(|t| t.id == turn_id)?;
        self.finely(|s, a, threshold| s.topic_of_turn_at(a, threshold, turn))
            .as_ref()
            .map(subtopic_label)
    }

    /// `f` on the segmenter fed up to now, its analysis and the finer threshold of the
    /// sub-topics (three times the topics').
    fn finely<R>(&mut self, f: impl FnOnce(&Segmenter, &Analysis, f64) -> R) -> R {
        let analysis = self.analysis();
        let fine = (self.segmenter.config().similarity_threshold * 3.0).min(1.0);
        f(&self.segmenter, &analysis, fine)
    }

    /// The analysis of the turns fed so far (fed first), computed once per new turn.
    fn analysis(&mut self) -> Rc<Analysis> {
        self.feed();
        Rc::clone(self.analysis.get_or_insert_with(|| Rc::new(self.segmenter.analyse())))
    }

    /// The ids of the newest `n` turns not folded away by the host's compaction, oldest first.
    pub fn recent_turn_ids(&self, n: usize) -> Vec<String> {
        let mut ids: Vec<String> = self
            .index
            .turns
            .iter()
            .rev()
            .filter(|t| !t.compacted)
            .take(n)
            .map(|t| t.id.clone())
            .collect();
        ids.reverse();
        ids
    }

    /// Boundaries (by the id of the turn that opens a topic) that are not topic changes.
    pub fn set_merged(&mut self, ids: impl IntoIterator<Item = String>) {
        self.merged = ids.into_iter().collect();
        self.topics_cache = None;
    }

    pub fn set_summaries(&mut self, s: HashMap<String, String>) {
        Rc::make_mut(&mut self.summaries).extend(s);
    }

    pub fn summaries(&self) -> &HashMap<String, String> {
        &self.summaries
    }

    pub fn set_subtopics(&mut self, s: HashMap<String, String>) {
        self.subtopics.extend(s);
    }

    /// Replaces the turns folded by earlier plans; the next request is planned anew with them.
    pub fn set_folded(&mut self, f: impl IntoIterator<Item = String>) {
        self.folded = Rc::new(f.into_iter().collect());
        self.layout = None;
    }

    pub fn folded(&self) -> Vec<String> {
        let mut v: Vec<String> = self.folded.iter().cloned().collect();
        v.sort_unstable();
        v
    }

    /// Replaces the turns folded by a manual compaction (turn ids): they stay folded like the
    /// sticky ones, and their explanation says a compaction folded them.
    pub fn set_compacted(&mut self, ids: impl IntoIterator<Item = String>) {
        self.compacted = Rc::new(ids.into_iter().collect());
        self.layout = None;
    }

    /// The turns folded by a manual compaction (sorted), to persist.
    pub fn compacted(&self) -> Vec<String> {
        let mut v: Vec<String> = self.compacted.iter().cloned().collect();
        v.sort_unstable();
        v
    }

    /// Replaces the pins; the next request is planned anew (a pinned turn comes back whole).
    pub fn set_pins(&mut self, pins: Pins) {
        self.pins = pins;
        self.layout = None;
    }

    /// Plans the request. Fold decisions made for the budget are remembered (sticky).
    pub fn assemble(&mut self, req: &AssembleRequest) -> AssembleResult {
        let cache = HistoryCache::of(&req.messages);
        let recovery = Recovery::offered(req.recovery_tool);
        self.plan(
            &cache.view(&req.messages),
            req.prompt.as_deref(),
            req.budget,
            recovery,
            false,
        )
    }

    /// Plans a request whose history starts with the first `keep` messages of the previous
    /// delta request's history: only the messages after them cross the boundary. The history
    /// is kept for the next request.
    pub fn assemble_delta(&mut self, req: DeltaRequest) -> Result<AssembleResult, DeltaError> {
        if req.keep > self.history.len() {
            return Err(DeltaError::Keep {
                keep: req.keep,
                kept: self.history.len(),
            });
        }
        // Taken out while planning (the planner borrows them, and the session's other state
        // mutably); put back below.
        let mut history = std::mem::take(&mut self.history);
        let mut cache = std::mem::take(&mut self.cache);
        history.truncate(req.keep);
        cache.truncate(req.keep);
        // A message the last request laid out changed: what came before it stays as it was sent.
        if let Some(l) = self.layout.as_mut() {
            l.cut(req.keep);
        }
        self.held.truncate(req.keep);
        history.extend(req.append);
        cache.extend(&history);
        self.held.resize(history.len(), None);
        let h = cache.view(&history);
        let recovery = Recovery::offered(req.recovery_tool);
        let mut r = self.plan(&h, req.prompt.as_deref(), req.budget, recovery, req.reuse);
        if req.reuse {
            mark_reuse(&mut r.steps, &mut self.held);
            r.compact = true;
            // A caller that starts over (keeps no message) has kept no explanation either.
            if req.keep == 0 {
                self.sent_turns.clear();
            }
            self.sent_turns.truncate(r.turns.len());
            for (i, t) in r.turns.iter_mut().enumerate() {
                match self.sent_turns.get(i) {
                    Some(prev) if prev == t => t.repeated = true,
                    Some(_) => self.sent_turns[i] = t.clone(),
                    None => self.sent_turns.push(t.clone()),
                }
            }
        }
        self.history = history;
        self.cache = cache;
        Ok(r)
    }

    /// Messages kept from the last delta request.
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// Plans a request. `keeps_decisions`: the caller keeps the sticky fold decisions itself
    /// (a live session's JS side), so the result lists only the new ones, not all of them.
    fn plan(
        &mut self,
        h: &History,
        prompt: Option<&str>,
        budget: Option<usize>,
        recovery: Recovery,
        keeps_decisions: bool,
    ) -> AssembleResult {
        let budget = budget.filter(|b| *b > 0).unwrap_or(self.config.max_tokens);
        let complete = prompt.is_some();
        if self.config.mode == Mode::Clean {
            self.layout = None;
            return clean_only(h, &self.config, budget, complete);
        }
        if let Some(mut r) = self.append_to_last(h, prompt, budget, recovery) {
            // An appended request folds nothing new: its sticky set is the session's.
            if !keeps_decisions {
                r.folded = self.folded();
            }
            return r;
        }
        // Planned anew: the turns the previous request sent folded stay as they were sent.
        // Only under the same options: with others, what they folded is decided anew.
        let prev = self
            .layout
            .take()
            .filter(|l| l.config == self.config && l.recovery == recovery && l.starts(h));
        let mut ctx = self.context(h, prompt);
        ctx.recovery = recovery;
        if let Some(p) = prompt.filter(|p| !p.trim().is_empty()) {
            self.corpus.sync(h);
            ctx.relevance = self.corpus.relevance(p);
        }
        let a = planner::assemble(h, budget, &self.config, &ctx, prev.as_ref());
        // The context shares the set: let go of it first, so that it is not copied.
        drop(ctx);
        let newly: Vec<String> = a
            .folded
            .iter()
            .filter(|id| !self.folded.contains(*id))
            .cloned()
            .collect();
        if !newly.is_empty() {
            Rc::make_mut(&mut self.folded).extend(newly.iter().cloned());
        }
        let (mut r, layout) = gate_result(h, a, &self.config, budget, complete);
        r.newly_folded = newly;
        let topic = self.topic_switch_marker(h);
        self.layout = layout.map(|l| Layout { topic, ..l });
        r
    }

    /// With `foldOtherTopics`: where the topic of the history's newest turn starts (see
    /// [`Layout::topic`]); `None` without it.
    fn topic_switch_marker(&mut self, h: &History) -> Option<usize> {
        if !self.config.fold_other_topics {
            return None;
        }
        let (topics, topic_of) = self.topics();
        self.index_positions();
        let (_, spans) = h.split();
        // A turn not indexed yet belongs to the newest indexed turn's topic.
        let at = self
            .index_position(spans.last()?.key)
            .or(topic_of.len().checked_sub(1))?;
        topics.get(*topic_of.get(at)?).map(|t| t.first_turn)
    }

    /// The request appended to the previous one, when that lays out the start of this history
    /// with the same options and the result stays below the high-water mark.
    fn append_to_last(
        &mut self,
        h: &History,
        prompt: Option<&str>,
        budget: usize,
        recovery: Recovery,
    ) -> Option<AssembleResult> {
        self.index_positions();
        let laid_topic = self.layout.as_ref()?.topic;
        if self.topic_switch_marker(h) != laid_topic {
            // Another topic than at the plan: the turns of the one it left fold now.
            return None;
        }
        let layout = self.layout.as_ref()?;
        if layout.config != self.config || layout.recovery != recovery || !layout.starts(h) {
            return None;
        }
        let relevance = match prompt.filter(|p| !p.trim().is_empty()) {
            Some(p) => self.corpus.relevance(p),
            None => Default::default(),
        };
        // Taken out while the closures below borrow the session; put back whatever happens
        // (a refused append leaves it unchanged, for the plan that follows).
        let mut layout = self.layout.take()?;
        let (_, spans) = h.split();
        let id = |t: usize| self.id_of(spans[t].key);
        let pinned = |t: usize| pins::pinned(&self.pins, &id(t), &h.messages[spans[t].range.clone()]);
        let summarized = |i: &str| self.summaries.contains_key(i);
        let compacted = |i: &str| self.compacted.contains(i);
        let added = Added {
            id: &id,
            pinned: &pinned,
            relevance: &relevance,
            summarized: &summarized,
            compacted: &compacted,
            history_complete: prompt.is_some(),
        };
        let a = append::append(h, &mut layout, budget, &self.config, &added);
        self.layout = Some(layout);
        let a = a?;
        Some(AssembleResult {
            steps: a.steps,
            estimated_tokens: a.estimated_tokens,
            turns: a.turns,
            stats: a.stats,
            summarize: a.summarize,
            folded: Vec::new(),
            fallback: None,
            newly_folded: Vec::new(),
            compact: false,
        })
    }

    /// Brings the positions of index turns by key up to date with the index.
    fn index_positions(&mut self) {
        let (known, map) = &mut self.by_key;
        for (p, t) in self.index.turns.iter().enumerate().skip(*known) {
            if let Ok(key) = u64::from_str_radix(&t.key, 16) {
                map.insert(key, p);
            }
        }
        *known = self.index.turns.len();
    }

    /// The id of the turn with content key `key`: the index's, else its content hash.
    fn id_of(&self, key: u64) -> String {
        match self.index_position(key) {
            Some(p) => self.index.turns[p].id.clone(),
            None => turns::hash_id(key),
        }
    }

    /// The index position of the turn with content key `key` (after [`Self::index_positions`]).
    fn index_position(&self, key: u64) -> Option<usize> {
        self.by_key.1.get(&key).copied()
    }

    /// Everything the planner needs besides the messages.
    fn context(&mut self, h: &History, prompt: Option<&str>) -> Context {
        let (topics, topic_of_indexed) = self.topics();
        self.index_positions();
        let pos_by_id = self.positions();
        let (_, spans) = h.split();
        let mut ctx = Context::default();
        for t in &topics {
            ctx.topic_labels.push(t.label.clone());
        }
        let mut last_topic = 0usize;
        for span in spans {
            let id = self.id_of(span.key);
            let topic = pos_by_id
                .get(id.as_str())
                .and_then(|&p| topic_of_indexed.get(p))
                .copied()
                .unwrap_or(last_topic);
            last_topic = topic;
            ctx.subtopic_of.push(self.subtopics.get(&id).cloned());
            if self.pinned(&id, h.messages, span.range.clone()) {
                ctx.pinned.insert(id.clone());
            }
            ctx.turn_ids.push(id);
            ctx.topic_of.push(topic);
        }
        if topics.is_empty() {
            ctx.topic_of.clear();
        }
        // A topic is current when the upcoming prompt or the most recent turns refer to it:
        // a conversation that comes back to an earlier subject gets that subject back.
        let mut probe = String::new();
        if let Some(p) = prompt {
            probe.push_str(p);
            probe.push('\n');
        }
        for t in self.index.turns.iter().rev().take(RECENT_TURNS_FOR_RELEVANCE) {
            probe.push_str(&t.topic_user);
            probe.push('\n');
        }
        if !probe.trim().is_empty() {
            let query = self.segmenter.query(&probe);
            let sims = self
                .segmenter
                .similarity_to_each(&query, topics.iter().map(|t| t.first_turn..=t.last_turn));
            let relevant = sims.iter().map(|&sim| sim >= self.config.prompt_relevance_threshold);
            ctx.relevant_topics
                .extend(relevant.enumerate().filter(|&(_, r)| r).map(|(k, _)| k));
        }
        ctx.history_complete = prompt.is_some();
        ctx.summaries = Rc::clone(&self.summaries);
        ctx.folded = Rc::clone(&self.folded);
        ctx.compacted = Rc::clone(&self.compacted);
        ctx
    }

    /// Each indexed turn's position, by id.
    fn positions(&self) -> HashMap<&str, usize> {
        let mut out = HashMap::default();
        for (i, t) in self.index.turns.iter().enumerate() {
            out.insert(t.id.as_str(), i);
        }
        out
    }

    fn pinned(&self, id: &str, messages: &[Value], range: std::ops::Range<usize>) -> bool {
        pins::pinned(&self.pins, id, &messages[range])
    }
}

/// Merges each topic whose first turn is in `merged` into the topic before it (the earlier
/// topic keeps its label), renumbering topics in order.
fn merge_boundaries(
    topics: Vec<Topic>,
    of: Vec<usize>,
    index: &SessionIndex,
    merged: &HashSet<String>,
) -> (Vec<Topic>, Vec<usize>) {
    if merged.is_empty() || topics.is_empty() {
        return (topics, of);
    }
    let mut out: Vec<Topic> = Vec::with_capacity(topics.len());
    let mut remap = vec![0usize; topics.len()];
    for (k, t) in topics.into_iter().enumerate() {
        let opener = index.turns.get(t.first_turn).map(|r| r.id.as_str()).unwrap_or("");
        match out.last_mut() {
            Some(prev) if merged.contains(opener) => {
                prev.last_turn = t.last_turn;
                remap[k] = prev.id;
            }
            _ => {
                remap[k] = out.len();
                out.push(Topic { id: out.len(), ..t });
            }
        }
    }
    let mut of = of;
    for k in of.iter_mut() {
        *k = remap.get(*k).copied().unwrap_or(*k);
    }
    (out, of)
}

fn topic_config(c: &Config) -> TopicConfig {
    TopicConfig {
        similarity_threshold: c.embedding_similarity_threshold,
        min_turns: c.min_turns_per_topic,
        ..TopicConfig::default()
    }
}

/// Marks the replacements of a plan for a caller that keeps them: one the caller holds (the
/// last one sent for its source) is referred to (`reuse: true`, no message); any other is sent
/// and held (`reuse: false`). A request appended to the previous one sends the same
/// replacements again, so only the new ones cross. The steps no longer resolve to their
/// messages afterwards: this is the last thing done to a plan.
fn mark_reuse(steps: &mut [Step], held: &mut [Option<Rc<Value>>]) {
    for s in steps {
        let (Some(i), Some(m)) = (s.source, &s.message) else {
            continue;
        };
        let Some(slot) = held.get_mut(i) else { continue };
        if slot.as_ref().is_some_and(|x| Rc::ptr_eq(x, m)) {
            s.reuse = Some(true);
            s.message = None;
        } else {
            s.reuse = Some(false);
            *slot = Some(Rc::clone(m));
        }
    }
}

/// A deterministic sub-topic label as the session stores it.
fn subtopic_label(topic: &Topic) -> String {
    format!("lex:{}", topic.label)
}

#[cfg(test)]
mod tests;
