//! Pruning strategies for the `context_prune` tool: which old turns to take out of the
//! requests, chosen by one of three strategies over the message list.
//!
//! * `fifo`: oldest first, until the request fits `targetTokens` (or `maxTurns` are pruned);
//! * `sliding-window`: keep the `keepMessages` most recent messages; everything that lies
//!   wholly before the window is pruned;
//! * `importance`: lowest score first, until the target is met. A unit's score is
//!   role weight × tool presence × content length × recency (see [`importance`]).
//!
//! The unit of pruning is a whole turn (a user prompt and what follows it) — or several
//! consecutive turns when a tool call of one is answered in the next (Anthropic messages can
//! carry results next to new user text) — so calls and results are always pruned together.
//! Never pruned: the preamble, the protected tail (the last `protectRecentTurns` turns, at
//! least one, and the live turn), pinned turns ([`super::pins`], the rule the planner honors
//! too) and `exclude`d turns. System messages inside a pruned turn stay when
//! `preserveSystemMessages` is on. The result is checked by the validity gate; a unit
//! whose removal the gate refuses is skipped and counted.
//!
//! Its request and result are defined here (their TypeScript is in [`crate::wire::prune`]).
//! Pure: the caller applies the result (the plugin folds the pruned turns, so they stay
//! recoverable).

use crate::clean::frontier;
use crate::clean::gate;
use crate::error::PruneError;
use crate::fold::pins::{pinned, Pins};
use crate::hash::{HashMap, HashSet};
use crate::model::message::{self, Kind};
use crate::model::steps::Step;
use crate::model::tokens;
use crate::transcript::history::HistoryCache;
use crate::transcript::turns;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::ops::Range;

/// How to choose what to prune.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Oldest first.
    Fifo,
    /// Keep the N most recent messages.
    SlidingWindow,
    /// Least important first.
    Importance,
}

/// A prune request.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneRequest {
    pub messages: Vec<Value>,
    pub strategy: Strategy,
    /// `sliding-window`: how many of the most recent messages to keep.
    #[serde(default)]
    pub keep_messages: Option<usize>,
    /// `fifo` / `importance`: prune until the request costs at most this many tokens.
    #[serde(default)]
    pub target_tokens: Option<usize>,
    /// Prune at most this many turns.
    #[serde(default)]
    pub max_turns: Option<usize>,
    /// The last N turns are never pruned (at least one); 5 when missing.
    #[serde(default = "five")]
    pub protect_recent_turns: usize,
    /// True when missing.
    #[serde(default = "yes")]
    pub preserve_system_messages: bool,
    #[serde(default)]
    pub pins: Pins,
    /// Turn ids by the hex content key of their user message (from the session index);
    /// turns not listed get content-hash ids.
    #[serde(default)]
    pub ids_by_key: HashMap<String, String>,
    /// What each turn costs in the request as it is sent now (e.g. after cleaning), by id;
    /// its raw estimate otherwise.
    #[serde(default)]
    pub turn_tokens: HashMap<String, usize>,
    /// Turns not to consider (e.g. already folded).
    #[serde(default)]
    pub exclude: Vec<String>,
}

fn five() -> usize {
    5
}

fn yes() -> bool {
    true
}

/// One pruned unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrunedUnit {
    /// Its turn ids (one, or more when a tool exchange spans turns).
    pub turn_ids: Vec<String>,
    /// Message positions `[start, end)`.
    pub range: (usize, usize),
    pub tokens: usize,
    /// The importance score (`importance` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// Turns that could not be pruned, by reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub protected: usize,
    pub pinned: usize,
    pub excluded: usize,
    /// Units whose removal the validity gate refused.
    pub gate: usize,
}

/// A prune result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneResult {
    pub strategy: Strategy,
    pub pruned: Vec<PrunedUnit>,
    /// All pruned turn ids, oldest first.
    pub turn_ids: Vec<String>,
    /// Pruned message positions, ascending.
    pub messages: Vec<usize>,
    /// The request without the pruned messages, as a plan over the input.
    pub steps: Vec<Step>,
    pub messages_before: usize,
    pub messages_after: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    /// Whether the target (`targetTokens` / `keepMessages`) was reached.
    pub target_met: bool,
    pub skipped: Skipped,
}

/// A candidate: consecutive turns pruned together.
#[derive(Debug, Clone)]
struct Unit {
    ids: Vec<String>,
    range: Range<usize>,
    tokens: usize,
    turns: usize,
    /// Its first turn.
    first: usize,
    score: f64,
}

/// Importance of a run of messages; lower is pruned first.
///
/// * role weight: token-weighted mean of user 1.0, system 1.0, assistant 0.8, other 0.6,
///   tool result 0.4 (finished tool output is the most reproducible part);
/// * tool presence: × 0.7 when the run carries tool calls;
/// * content length: × 1 / (1 + log2(1 + tokens / 256)) (large runs free the most);
/// * recency: × 0.2 + 0.8 × position, position in (0, 1], newest = 1.
pub fn importance(messages: &[Value], tokens: usize, position: f64) -> f64 {
    let mut weighted = 0.0;
    let mut total = 0usize;
    let mut calls = false;
    for m in messages {
        let n = tokens::message(m);
        let w = match message::kind(m) {
            Kind::User | Kind::System => 1.0,
            Kind::Assistant => 0.8,
            Kind::ToolResult => 0.4,
            Kind::Other => 0.6,
        };
        weighted += w * n as f64;
        total += n;
        calls |= !message::tool_calls(m).is_empty();
    }
    let role = if total == 0 { 1.0 } else { weighted / total as f64 };
    let tool = if calls { 0.7 } else { 1.0 };
    let length = 1.0 / (1.0 + (1.0 + tokens as f64 / 256.0).log2());
    let recency = 0.2 + 0.8 * position.clamp(0.0, 1.0);
    role * tool * length * recency
}

/// Chooses what to prune.
pub fn prune(req: &PruneRequest) -> Result<PruneResult, PruneError> {
    let messages = &req.messages;
    let needs = match req.strategy {
        Strategy::SlidingWindow if req.keep_messages.is_none() => {
            Some("sliding-window needs keepMessages (how many recent messages to keep)")
        }
        Strategy::Fifo if req.target_tokens.is_none() && req.max_turns.is_none() => {
            Some("fifo needs targetTokens (a token target) or maxTurns (how many turns to prune)")
        }
        Strategy::Importance if req.target_tokens.is_none() && req.max_turns.is_none() => {
            Some("importance needs targetTokens (a token target) or maxTurns (how many turns to prune)")
        }
        _ => None,
    };
    if let Some(why) = needs {
        return Err(PruneError::Needs(why));
    }
    // What is known of the messages, for the selection and every gate check of it.
    let cache = HistoryCache::of(messages);
    let h = cache.view(messages);
    let (preamble, spans) = h.split();
    let pairing = h.pairing();
    let fr = frontier::find(messages, &pairing);
    let n = spans.len();
    let id_of = |k: usize| -> String {
        let hex = format!("{:016x}", spans[k].key);
        req.ids_by_key
            .get(&hex)
            .cloned()
            .unwrap_or_else(|| turns::hash_id(spans[k].key))
    };
    let ids: Vec<String> = (0..n).map(id_of).collect();
    let cost = |k: usize| -> usize {
        req.turn_tokens
            .get(&ids[k])
            .copied()
            .unwrap_or_else(|| h.tokens_of(spans[k].range.clone()))
    };
    let costs: Vec<usize> = (0..n).map(cost).collect();
    let pre_tokens = h.tokens_of(preamble.clone());
    let tokens_before = pre_tokens + costs.iter().sum::<usize>();

    // Which turns may go.
    let protected_from = n.saturating_sub(req.protect_recent_turns.max(1));
    let live_turn = spans
        .iter()
        .position(|s| s.range.contains(&fr.index) || fr.loop_start.is_some_and(|l| s.range.contains(&l)));
    let exclude: HashSet<&str> = req.exclude.iter().map(String::as_str).collect();
    let mut skipped = Skipped::default();
    let mut blocked = vec![false; n];
    for k in 0..n {
        if k >= protected_from || live_turn.is_some_and(|l| k >= l) {
            skipped.protected += 1;
            blocked[k] = true;
        } else if pinned(&req.pins, &ids[k], &messages[spans[k].range.clone()]) {
            skipped.pinned += 1;
            blocked[k] = true;
        } else if exclude.contains(ids[k].as_str()) {
            skipped.excluded += 1;
            blocked[k] = true;
        }
    }

    // Units: turns linked by a call answered in a later turn go together.
    let turn_of = |i: usize| spans.iter().position(|s| s.range.contains(&i));
    let mut link = vec![false; n]; // link[k]: turn k continues turn k-1's unit
    for (i, answers) in pairing.answer_of.iter().enumerate() {
        let Some(a) = turn_of(i) else { continue };
        for (r, _) in answers.iter().flatten() {
            if let Some(b) = turn_of(*r) {
                for l in link.iter_mut().take(b + 1).skip(a + 1) {
                    *l = true;
                }
            }
        }
    }
    let mut units: Vec<Unit> = Vec::new();
    let mut k = 0;
    while k < n {
        let mut end = k + 1;
        while end < n && link[end] {
            end += 1;
        }
        if (k..end).all(|t| !blocked[t]) {
            let range = spans[k].range.start..spans[end - 1].range.end;
            units.push(Unit {
                ids: ids[k..end].to_vec(),
                range,
                tokens: costs[k..end].iter().sum(),
                turns: end - k,
                first: k,
                score: 0.0,
            });
        } else {
            // a blocked turn keeps its linked neighbours too
            skipped.protected += blocked[k..end].iter().filter(|b| !**b).count();
        }
        k = end;
    }

    // Candidate order.
    let mut order: Vec<usize> = (0..units.len()).collect();
    // `sliding-window`: units ending after this are not candidates.
    let mut window_start = usize::MAX;
    match req.strategy {
        Strategy::Fifo => {}
        Strategy::SlidingWindow => {
            window_start = messages.len().saturating_sub(req.keep_messages.unwrap_or(0));
        }
        Strategy::Importance => {
            let count = n.max(1) as f64;
            for u in units.iter_mut() {
                let position = (u.first + 1) as f64 / count;
                u.score = importance(&messages[u.range.clone()], u.tokens, position);
            }
            order.sort_by(|&a, &b| units[a].score.total_cmp(&units[b].score).then(a.cmp(&b)));
        }
    }

    // Select until the target is met; check the result with the gate.
    let select = |gated: bool, skipped_gate: &mut usize| -> Vec<usize> {
        let mut chosen: Vec<usize> = Vec::new();
        let mut total = tokens_before;
        let mut turns_pruned = 0;
        for &u in &order {
            if req.strategy != Strategy::SlidingWindow && req.target_tokens.is_some_and(|t| total <= t) {
                break;
            }
            if units[u].range.end > window_start || req.max_turns.is_some_and(|m| turns_pruned + units[u].turns > m) {
                continue;
            }
            chosen.push(u);
            if gated
                && gate::check_history(
                    &h,
                    &plan(messages, &units, &chosen, req.preserve_system_messages),
                    fr.loop_start,
                )
                .is_err()
            {
                chosen.pop();
                *skipped_gate += 1;
                continue;
            }
            total -= units[u].tokens;
            turns_pruned += units[u].turns;
        }
        chosen
    };
    let mut gate_skips = 0;
    let mut chosen = select(false, &mut gate_skips);
    let mut steps = plan(messages, &units, &chosen, req.preserve_system_messages);
    if gate::check_history(&h, &steps, fr.loop_start).is_err() {
        chosen = select(true, &mut gate_skips);
        steps = plan(messages, &units, &chosen, req.preserve_system_messages);
        if gate::check_history(&h, &steps, fr.loop_start).is_err() {
            // cannot happen (each addition was checked), but never return an invalid plan
            gate_skips += chosen.len();
            chosen.clear();
            steps = plan(messages, &units, &[], false);
        }
    }
    skipped.gate = gate_skips;
    chosen.sort_by_key(|&u| units[u].range.start);

    let mut kept = vec![false; messages.len()];
    for s in &steps {
        if let Some(i) = s.source {
            kept[i] = true;
        }
    }
    let pruned_msgs: Vec<usize> = (0..messages.len()).filter(|&i| !kept[i]).collect();
    // One loop for the units, their ids and the tokens they free.
    let mut pruned = Vec::with_capacity(chosen.len());
    let mut turn_ids = Vec::new();
    let mut tokens_after = tokens_before;
    for &u in &chosen {
        let x = &units[u];
        turn_ids.extend_from_slice(&x.ids);
        tokens_after -= x.tokens;
        pruned.push(PrunedUnit {
            turn_ids: x.ids.clone(),
            range: (x.range.start, x.range.end),
            tokens: x.tokens,
            score: (req.strategy == Strategy::Importance).then_some(x.score),
        });
    }
    let target_met = match req.strategy {
        Strategy::SlidingWindow => units
            .iter()
            .enumerate()
            .all(|(u, x)| x.range.end > window_start || chosen.contains(&u)),
        _ => req.target_tokens.map_or(true, |t| tokens_after <= t),
    };
    Ok(PruneResult {
        strategy: req.strategy,
        turn_ids,
        pruned,
        messages_before: messages.len(),
        messages_after: steps.len(),
        messages: pruned_msgs,
        steps,
        tokens_before,
        tokens_after,
        target_met,
        skipped,
    })
}

/// The plan without the chosen units' messages (system messages stay when preserved).
fn plan(messages: &[Value], units: &[Unit], chosen: &[usize], preserve_system: bool) -> Vec<Step> {
    let mut drop = vec![false; messages.len()];
    for &u in chosen {
        for i in units[u].range.clone() {
            drop[i] = !(preserve_system && message::kind(&messages[i]) == Kind::System);
        }
    }
    (0..messages.len()).filter(|&i| !drop[i]).map(Step::keep).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashMap;
    use serde_json::json;

    /// `n` turns: user, assistant calling a tool, its result, final answer (turn `k` has
    /// `k * 50` characters of tool output so sizes differ).
    fn session(n: usize) -> Vec<Value> {
        let mut m = Vec::new();
        for k in 0..n {
            let id = format!("c{k}");
            m.push(json!({"role":"user","content":format!("question {k} about topic {k}"),"timestamp":k}));
            m.push(json!({"role":"assistant","content":[{"type":"toolCall","id":id,"name":if k == 2 {"deploy"} else {"read"},"arguments":{}}]}));
            m.push(json!({"role":"toolResult","toolCallId":id,"toolName":"read","content":[{"type":"text","text":"x".repeat(50 * (k + 1))}],"isError":false}));
            m.push(json!({"role":"assistant","content":[{"type":"text","text":format!("answer {k}")}]}));
        }
        m
    }

    fn req(messages: Vec<Value>, strategy: Strategy) -> PruneRequest {
        PruneRequest {
            messages,
            strategy,
            keep_messages: None,
            target_tokens: None,
            max_turns: None,
            protect_recent_turns: 2,
            preserve_system_messages: true,
            pins: Pins::default(),
            ids_by_key: HashMap::default(),
            turn_tokens: HashMap::default(),
            exclude: Vec::new(),
        }
    }

    fn first_texts(r: &PruneResult, m: &[Value]) -> Vec<String> {
        r.pruned.iter().map(|p| turns::visible_text(&m[p.range.0])).collect()
    }

    #[test]
    fn fifo_prunes_oldest_whole_turns_until_the_target() {
        let m = session(6);
        let mut r = req(m.clone(), Strategy::Fifo);
        r.max_turns = Some(2);
        let out = prune(&r).unwrap();
        assert_eq!(
            first_texts(&out, &m),
            vec!["question 0 about topic 0", "question 1 about topic 1"]
        );
        assert_eq!(out.messages, (0..8).collect::<Vec<_>>());
        assert_eq!(out.messages_after, 16);
        assert!(gate::check(&m, &out.steps, None).is_ok());
        // a token target: prune just enough
        let mut r = req(m.clone(), Strategy::Fifo);
        let before = prune(&{
            let mut x = r.clone();
            x.max_turns = Some(0);
            x
        })
        .unwrap()
        .tokens_before;
        r.target_tokens = Some(before - 1);
        let out = prune(&r).unwrap();
        assert_eq!(out.pruned.len(), 1);
        assert!(out.target_met);
        assert!(out.tokens_after < before);
    }

    #[test]
    fn the_protected_tail_and_the_live_turn_are_never_pruned() {
        let m = session(4);
        let mut r = req(m.clone(), Strategy::Fifo);
        r.target_tokens = Some(0);
        let out = prune(&r).unwrap();
        assert_eq!(out.pruned.len(), 2, "two of four turns are protected");
        assert!(!out.target_met);
        assert_eq!(out.skipped.protected, 2);
        // an unfinished tool loop at the end is the live turn, even with protect 1
        let mut m = session(3);
        m.push(json!({"role":"user","content":"go","timestamp":99}));
        m.push(json!({"role":"assistant","content":[{"type":"toolCall","id":"z","name":"read","arguments":{}}]}));
        let mut r = req(m.clone(), Strategy::Fifo);
        r.protect_recent_turns = 0;
        r.target_tokens = Some(0);
        let out = prune(&r).unwrap();
        assert_eq!(out.pruned.len(), 3);
        assert!(out.messages.iter().all(|&i| i < 12));
    }

    #[test]
    fn pins_by_id_tool_and_pattern_are_respected() {
        let m = session(6);
        let mut r = req(m.clone(), Strategy::Fifo);
        r.target_tokens = Some(0);
        r.pins.tools = vec!["deploy".into()]; // turn 2
        r.pins.patterns = vec!["TOPIC 1".into()]; // turn 1, case-insensitive
        let key0 = format!("{:016x}", turns::key_of(&m[0]));
        r.ids_by_key.insert(key0, "entry-0".into());
        r.pins.turn_ids = vec!["entry-0".into()];
        let out = prune(&r).unwrap();
        assert_eq!(first_texts(&out, &m), vec!["question 3 about topic 3"]);
        assert_eq!(out.skipped.pinned, 3);
        assert_eq!(out.turn_ids.len(), 1);
        assert!(out.turn_ids[0].starts_with('h'), "unindexed turns get hash ids");
    }

    #[test]
    fn sliding_window_keeps_the_most_recent_messages() {
        let m = session(6);
        let mut r = req(m.clone(), Strategy::SlidingWindow);
        r.keep_messages = Some(10); // the window starts inside turn 3 (messages 14..24)
        let out = prune(&r).unwrap();
        assert_eq!(
            first_texts(&out, &m),
            vec![
                "question 0 about topic 0",
                "question 1 about topic 1",
                "question 2 about topic 2"
            ]
        );
        assert!(out.target_met);
        assert!(out.messages_after >= 10);
        let mut r = req(m, Strategy::SlidingWindow);
        r.keep_messages = None;
        assert!(prune(&r).unwrap_err().to_string().contains("keepMessages"));
    }

    #[test]
    fn importance_prunes_large_old_tool_heavy_turns_first() {
        let mut m = session(5);
        // turn 1 is a plain chat turn: more important per token than tool output
        m[4..8].clone_from_slice(&[
            json!({"role":"user","content":"question 1 about topic 1","timestamp":1}),
            json!({"role":"assistant","content":[{"type":"text","text":"answer 1"}]}),
            json!({"role":"user","content":"follow-up","timestamp":100}),
            json!({"role":"assistant","content":[{"type":"text","text":"ok"}]}),
        ]);
        let mut r = req(m.clone(), Strategy::Importance);
        r.max_turns = Some(1);
        let out = prune(&r).unwrap();
        assert_eq!(out.pruned.len(), 1);
        let s = out.pruned[0].score.unwrap();
        assert!(s > 0.0 && s < 1.0);
        assert_ne!(first_texts(&out, &m)[0], "question 1 about topic 1");
        // older beats newer when everything else is equal
        let a = importance(&m[0..4], 100, 0.2);
        let b = importance(&m[0..4], 100, 0.8);
        assert!(a < b);
        // tool output weighs less than user text; bigger weighs less
        assert!(importance(&m[2..3], 100, 0.5) < importance(&m[0..1], 100, 0.5));
        assert!(importance(&m[0..1], 10_000, 0.5) < importance(&m[0..1], 10, 0.5));
    }

    #[test]
    fn an_exchange_spanning_two_turns_goes_as_one_unit() {
        // Anthropic: the result rides in the next user message next to new text.
        let m = vec![
            json!({"role":"user","content":"run ls"}),
            json!({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}),
            json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"},{"type":"text","text":"and hidden?"}]}),
            json!({"role":"assistant","content":[{"type":"text","text":"only a.txt"}]}),
            json!({"role":"user","content":"next"}),
            json!({"role":"assistant","content":[{"type":"text","text":"sure"}]}),
            json!({"role":"user","content":"last"}),
            json!({"role":"assistant","content":[{"type":"text","text":"done"}]}),
        ];
        let mut r = req(m.clone(), Strategy::Fifo);
        r.protect_recent_turns = 1;
        r.max_turns = Some(1);
        let out = prune(&r).unwrap();
        // the linked pair (2 turns) does not fit maxTurns 1, so the next turn goes
        assert_eq!(out.messages, vec![4, 5]);
        r.max_turns = Some(2);
        let out = prune(&r).unwrap();
        assert_eq!(out.pruned[0].turn_ids.len(), 2);
        assert_eq!(out.messages, vec![0, 1, 2, 3]);
        assert!(gate::check(&m, &out.steps, None).is_ok());
    }

    #[test]
    fn system_messages_and_the_preamble_stay() {
        let mut m = vec![json!({"role":"compactionSummary","summary":"earlier"})];
        m.extend(session(4));
        m.insert(3, json!({"role":"system","content":"rule"}));
        let mut r = req(m.clone(), Strategy::Fifo);
        r.max_turns = Some(1);
        let out = prune(&r).unwrap();
        assert!(!out.messages.contains(&0));
        assert!(!out.messages.contains(&3));
        assert_eq!(out.messages, vec![1, 2, 4, 5]);
        r.preserve_system_messages = false;
        assert_eq!(prune(&r).unwrap().messages, vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn excluded_turns_and_turn_costs_are_honored() {
        let m = session(5);
        let key = |i: usize| format!("{:016x}", turns::key_of(&m[i]));
        let mut r = req(m.clone(), Strategy::Fifo);
        r.ids_by_key = [(key(0), "t0".to_string()), (key(4), "t1".to_string())]
            .into_iter()
            .collect();
        r.exclude = vec!["t0".into()];
        r.turn_tokens = [("t1".to_string(), 1000)].into_iter().collect();
        r.max_turns = Some(1);
        let out = prune(&r).unwrap();
        assert_eq!(out.turn_ids, vec!["t1"]);
        assert_eq!(out.pruned[0].tokens, 1000);
        assert_eq!(out.skipped.excluded, 1);
    }

    #[test]
    fn json_boundary_validates() {
        use crate::api::prune_json;
        let m = session(3);
        let ok =
            prune_json(&json!({"messages": m, "strategy": "fifo", "maxTurns": 1, "protectRecentTurns": 1}).to_string())
                .unwrap();
        let v: Value = serde_json::from_str(&ok).unwrap();
        assert_eq!(v["strategy"], "fifo");
        assert_eq!(v["turnIds"].as_array().unwrap().len(), 1);
        let e = prune_json(&json!({"messages": [], "strategy": "lru"}).to_string()).unwrap_err();
        assert!(e.to_string().contains("lru"), "{e}");
        let e = prune_json(&json!({"messages": [], "strategy": "fifo", "maxTurns": 1, "bogus": 1}).to_string())
            .unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
        assert!(prune_json(&json!({"messages": [], "strategy": "fifo"}).to_string()).is_err());
        // empty input is fine
        let v: Value = serde_json::from_str(
            &prune_json(&json!({"messages": [], "strategy": "importance", "targetTokens": 0}).to_string()).unwrap(),
        )
        .unwrap();
        assert_eq!(v["messagesAfter"], 0);
    }
}
