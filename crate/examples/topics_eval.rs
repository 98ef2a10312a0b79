//! Boundary quality of the topic segmenter on real conversations (LoCoMo).
//!
//! LoCoMo conversations are long chats between two people, split into dated sessions. A
//! "multitopic" stream interleaves two or three conversations session by session (session 1
//! of A, session 1 of B, session 2 of A, ...), so every switch between conversations is a true
//! topic boundary. All 10 pairs and all 10 triples of the 5 conversations are evaluated. A
//! predicted boundary counts as correct within ±1 turn of a true switch.
//!
//! A turn is one dialog pair (first speaker's line as `user`, the reply as `assistant`) or,
//! with `--lines`, one line. Speaker names are not part of the text.
//!
//! A second, harder check uses tau-bench airline trajectories (when the file is present): one
//! stream of 25 customer-service tasks, one trajectory each, back to back. Every task is about
//! flights and reservations, so a switch is a change of customer and request, not of domain.
//! A turn there is a user message with the assistant's text and tool calls up to the next user
//! message (tool results are not part of a turn's text).
//!
//! ```text
//! cargo run --release -p contextfold --example topics_eval -- [path/to/locomo.json] [--lines]
//! ```

use contextfold::fold::topics::{Segmenter, TopicConfig, TurnText};
use serde_json::Value;
use std::time::Instant;

const DEFAULT_DATA: &str = "/work/shared/data/locomo/locomo-dev.json";
const TAU_BENCH: &str = "/work/shared/data/taubench/gpt-4o-airline-dev.json";

/// Turns of a tau-bench trajectory: `(user, assistant text, tool names)`.
type AgentTurns = Vec<(String, String, Vec<String>)>;

/// The trial-0 trajectory of every task, in task order.
fn load_tau_bench(path: &str) -> Option<Vec<AgentTurns>> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let mut runs: Vec<(u64, AgentTurns)> = Vec::new();
    for run in doc.as_array()? {
        if run["trial"].as_u64() != Some(0) {
            continue;
        }
        let mut turns: AgentTurns = Vec::new();
        for m in run["traj"].as_array()? {
            let text = m["content"].as_str().unwrap_or("").to_owned();
            match m["role"].as_str() {
                Some("user") => turns.push((text, String::new(), Vec::new())),
                Some("assistant") => {
                    if let Some(turn) = turns.last_mut() {
                        turn.1.push_str(&text);
                        turn.1.push('\n');
                        for call in m["tool_calls"].as_array().into_iter().flatten() {
                            if let Some(name) = call["function"]["name"].as_str() {
                                turn.2.push(name.to_owned());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        runs.push((run["task_id"].as_u64()?, turns));
    }
    runs.sort_by_key(|r| r.0);
    Some(runs.into_iter().map(|r| r.1).collect())
}

fn tau_bench_report(path: &str) {
    let Some(runs) = load_tau_bench(path) else {
        return;
    };
    let mut seg = Segmenter::new(TopicConfig::default());
    let mut switches = Vec::new();
    for run in &runs {
        if !seg.is_empty() {
            switches.push(seg.len());
        }
        for (user, assistant, tools) in run {
            seg.push(TurnText { user, assistant, tools });
        }
    }
    println!(
        "\ntau-bench airline: {} tasks back to back, {} turns, {} switches (min_turns = 2):\n",
        runs.len(),
        seg.len(),
        switches.len()
    );
    println!("| threshold | window 1 (P / R / F1) | window 2 (P / R / F1) | window 3 (P / R / F1) |");
    println!("|---|---|---|---|");
    for threshold in [0.02, 0.05, 0.1, 0.15] {
        let mut row = format!("| {threshold} |");
        for window in [1, 2, 3] {
            let mut s = seg.clone();
            s.set_config(TopicConfig {
                similarity_threshold: threshold,
                min_turns: 2,
                window,
            });
            let mut c = Counts::default();
            c.add(&boundaries(&s), &switches);
            row.push_str(&format!(
                " {:.2} / {:.2} / {:.2} ({} pred) |",
                c.precision(),
                c.recall(),
                c.f1(),
                c.predicted
            ));
        }
        println!("{row}");
    }
}

/// One conversation: its sessions, each a list of `(user, assistant)` turns.
type Conversation = Vec<Vec<(String, String)>>;

fn load(path: &str, lines: bool) -> Result<Vec<Conversation>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let items = doc.as_array().ok_or("expected a JSON array of samples")?;
    let mut out = Vec::new();
    for item in items {
        let conv = &item["conversation"];
        let mut sessions = Vec::new();
        for n in 1.. {
            let Some(dialog) = conv.get(format!("session_{n}")).and_then(Value::as_array) else {
                break;
            };
            let texts: Vec<String> = dialog
                .iter()
                .filter_map(|d| d["text"].as_str().map(str::to_owned))
                .collect();
            let turns: Vec<(String, String)> = if lines {
                texts.into_iter().map(|t| (t, String::new())).collect()
            } else {
                texts
                    .chunks(2)
                    .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
                    .collect()
            };
            if !turns.is_empty() {
                sessions.push(turns);
            }
        }
        out.push(sessions);
    }
    Ok(out)
}

/// A stream of turns and the indices where a new block starts, with whether the block
/// switches conversation.
struct Stream {
    name: String,
    turns: Vec<(String, String)>,
    /// Turn indices where the conversation changes (true boundaries).
    switches: Vec<usize>,
}

fn interleave(convs: &[Conversation], pick: &[usize]) -> Stream {
    let mut turns = Vec::new();
    let mut switches = Vec::new();
    let mut last: Option<usize> = None;
    let longest = pick.iter().map(|&c| convs[c].len()).max().unwrap_or(0);
    for s in 0..longest {
        for &c in pick {
            if let Some(session) = convs[c].get(s) {
                if last.is_some_and(|l| l != c) {
                    switches.push(turns.len());
                }
                last = Some(c);
                turns.extend(session.iter().cloned());
            }
        }
    }
    let name = pick.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("+");
    Stream { name, turns, switches }
}

fn single(convs: &[Conversation], c: usize) -> Stream {
    let mut turns = Vec::new();
    let mut switches = Vec::new();
    for session in &convs[c] {
        if !turns.is_empty() {
            switches.push(turns.len());
        }
        turns.extend(session.iter().cloned());
    }
    Stream {
        name: c.to_string(),
        turns,
        switches,
    }
}

#[derive(Default, Clone, Copy)]
struct Counts {
    predicted: usize,
    predicted_hit: usize,
    truth: usize,
    truth_hit: usize,
}

impl Counts {
    fn add(&mut self, predicted: &[usize], truth: &[usize]) {
        let near = |a: usize, b: usize| a.abs_diff(b) <= 1;
        self.predicted += predicted.len();
        self.predicted_hit += predicted.iter().filter(|&&p| truth.iter().any(|&t| near(p, t))).count();
        self.truth += truth.len();
        self.truth_hit += truth.iter().filter(|&&t| predicted.iter().any(|&p| near(p, t))).count();
    }
    fn precision(&self) -> f64 {
        ratio(self.predicted_hit, self.predicted)
    }
    fn recall(&self) -> f64 {
        ratio(self.truth_hit, self.truth)
    }
    fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn boundaries(s: &Segmenter) -> Vec<usize> {
    let per_turn = s.topic_of_turns();
    (1..per_turn.len())
        .filter(|&i| per_turn[i] != per_turn[i - 1])
        .collect()
}

fn build(stream: &Stream) -> Segmenter {
    let mut s = Segmenter::new(TopicConfig::default());
    for (u, a) in &stream.turns {
        s.push(TurnText::new(u, a));
    }
    s
}

fn evaluate(segs: &[(Segmenter, &Stream)], cfg: TopicConfig) -> Counts {
    let mut counts = Counts::default();
    for (seg, stream) in segs {
        let mut seg = seg.clone();
        seg.set_config(cfg);
        counts.add(&boundaries(&seg), &stream.switches);
    }
    counts
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lines = args.iter().any(|a| a == "--lines");
    let path = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or(DEFAULT_DATA, String::as_str);
    let convs = match load(path, lines) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let n = convs.len();
    let mut picks: Vec<Vec<usize>> = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            picks.push(vec![a, b]);
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                picks.push(vec![a, b, c]);
            }
        }
    }
    let streams: Vec<Stream> = picks.iter().map(|p| interleave(&convs, p)).collect();
    let turns: usize = streams.iter().map(|s| s.turns.len()).sum();
    let switches: usize = streams.iter().map(|s| s.switches.len()).sum();
    println!(
        "data: {path}; turn = {}; {} streams ({} pairs, {} triples), {turns} turns, {switches} true switches (mean block {:.1} turns)\n",
        if lines { "one line" } else { "one dialog pair" },
        streams.len(),
        picks.iter().filter(|p| p.len() == 2).count(),
        picks.iter().filter(|p| p.len() == 3).count(),
        turns as f64 / (switches + streams.len()) as f64,
    );

    // What a boundary at a random turn scores: the share of turns within ±1 of a switch.
    let near: usize = streams
        .iter()
        .map(|s| {
            (1..s.turns.len())
                .filter(|&i| s.switches.iter().any(|&t| t.abs_diff(i) <= 1))
                .count()
        })
        .sum();
    println!(
        "chance precision (a boundary at a random turn lands within ±1 of a switch): {:.2}\n",
        ratio(near, turns - streams.len())
    );

    let t0 = Instant::now();
    let segs: Vec<(Segmenter, &Stream)> = streams.iter().map(|s| (build(s), s)).collect();
    let push_time = t0.elapsed();
    let t1 = Instant::now();
    for (s, _) in &segs {
        let _ = s.topics();
    }
    let topics_time = t1.elapsed();
    println!(
        "time: push {:.1} µs/turn; topics() with labels {:.2} ms per stream (mean {:.0} turns)\n",
        push_time.as_secs_f64() * 1e6 / turns as f64,
        topics_time.as_secs_f64() * 1e3 / segs.len() as f64,
        turns as f64 / segs.len() as f64,
    );

    println!("Boundary precision / recall / F1 (±1 turn), min_turns = 2, micro-averaged over all streams:\n");
    println!("| threshold | window 1 (P / R / F1) | window 2 (P / R / F1) | window 3 (P / R / F1) |");
    println!("|---|---|---|---|");
    for threshold in [0.02, 0.05, 0.1, 0.15] {
        let mut row = format!("| {threshold} |");
        for window in [1, 2, 3] {
            let c = evaluate(
                &segs,
                TopicConfig {
                    similarity_threshold: threshold,
                    min_turns: 2,
                    window,
                },
            );
            row.push_str(&format!(
                " {:.2} / {:.2} / **{:.2}** ({} pred) |",
                c.precision(),
                c.recall(),
                c.f1(),
                c.predicted
            ));
        }
        println!("{row}");
    }

    println!("\nBest threshold per window and min_turns (sweep 0.00–0.40 in steps of 0.01):\n");
    println!("| window | min_turns | best threshold | P | R | F1 | F1 at 0.05 |");
    println!("|---|---|---|---|---|---|---|");
    for window in [1, 2, 3, 4] {
        for min_turns in [1, 2, 3] {
            let mut best = (0.0, Counts::default());
            for k in 0..=40 {
                let threshold = k as f64 / 100.0;
                let c = evaluate(
                    &segs,
                    TopicConfig {
                        similarity_threshold: threshold,
                        min_turns,
                        window,
                    },
                );
                if c.f1() > best.1.f1() {
                    best = (threshold, c);
                }
            }
            let at_default = evaluate(
                &segs,
                TopicConfig {
                    similarity_threshold: 0.05,
                    min_turns,
                    window,
                },
            );
            println!(
                "| {window} | {min_turns} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
                best.0,
                best.1.precision(),
                best.1.recall(),
                best.1.f1(),
                at_default.f1()
            );
        }
    }

    // Within one conversation, session changes are topic-ish but not ground truth.
    let singles: Vec<Stream> = (0..n).map(|c| single(&convs, c)).collect();
    let single_segs: Vec<(Segmenter, &Stream)> = singles.iter().map(|s| (build(s), s)).collect();
    println!("\nSingle conversations, session changes as (weak) truth, min_turns = 2:\n");
    println!("| threshold | window 2 (P / R / F1) | predicted | session changes |");
    println!("|---|---|---|---|");
    for threshold in [0.02, 0.05, 0.1, 0.15] {
        let c = evaluate(
            &single_segs,
            TopicConfig {
                similarity_threshold: threshold,
                min_turns: 2,
                window: 2,
            },
        );
        println!(
            "| {threshold} | {:.2} / {:.2} / {:.2} | {} | {} |",
            c.precision(),
            c.recall(),
            c.f1(),
            c.predicted,
            c.truth
        );
    }

    // What the labels look like on real text: the first stream at the default config.
    let (seg, stream) = &segs[0];
    println!(
        "\nLabels, stream {} at the default config (first 12 topics):\n",
        stream.name
    );
    for t in seg.topics().iter().take(12) {
        println!(
            "  turns {:>3}-{:>3}  {:<40} {:?}",
            t.first_turn, t.last_turn, t.label, t.terms
        );
    }
    println!(
        "  true switches: {:?}",
        &stream.switches[..stream.switches.len().min(12)]
    );

    tau_bench_report(TAU_BENCH);
}
