//! contextfold's core: decides, before every model request, what the model sees.
//!
//! The core is pure and deterministic: it never does I/O and never sees JS. It receives
//! messages as JSON and returns a *plan* ([`steps::Step`]s over the input) plus counts; the JS
//! layer applies the plan to the host's own objects. `wasm.rs` is the only module that knows
//! about wasm-bindgen.
//!
//! Modules, each named after what it decides:
//! * [`message`]: what a message is, in OpenClaw, OpenAI or Anthropic shape;
//! * [`pairing`]: which result answers which tool call (positionally);
//! * [`frontier`]: where the live turn starts;
//! * [`clean`]: what completed turns lose (thinking, finished tool chatter);
//! * [`gate`]: whether an output is still valid for providers;
//! * [`tokens`]: how many tokens a message costs;
//! * [`history`]: what is known of the messages being planned (a live session keeps it);
//! * [`config`]: the options and their defaults.

pub mod assemble;
pub mod clean;
pub mod config;
pub mod error;
pub mod frontier;
pub mod gate;
pub mod hash;
pub mod history;
pub mod hostmeta;
pub mod index;
mod json_in;
mod json_out;
pub mod message;
pub mod pairing;
pub mod prune;
mod read;
pub mod session;
pub mod steps;
pub mod strip;
pub mod summary;
pub mod tokens;
pub mod topics;
pub mod truncate;
pub mod turns;

#[cfg(target_arch = "wasm32")]
mod wasm;

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::Serialize;
use serde_json::Value;

pub use error::Error;

/// A `clean` request: the messages and the cleaner's options.
#[derive(Debug)]
pub struct CleanRequest {
    pub messages: Vec<Value>,
    /// The engine's config (`null` when missing).
    pub config: Value,
    /// The upcoming prompt is not part of `messages`: every message belongs to a finished turn.
    pub history_complete: bool,
}

impl CleanRequest {
    /// Reads a request by hand (see [`read`]): `messages` required, `config` and
    /// `historyComplete` optional, no other key.
    pub(crate) fn from_value(v: Value) -> read::Parsed<CleanRequest> {
        let (mut messages, mut config, mut history_complete) = (None, Value::Null, false);
        read::object(
            v,
            "struct CleanRequest",
            &["messages", "config", "historyComplete"],
            1,
            true,
            &mut |k, v| {
                match k {
                    0 => messages = Some(read::array(v)?),
                    1 => config = v,
                    _ => history_complete = read::boolean(v)?,
                }
                Ok(())
            },
        )?;
        Ok(CleanRequest {
            messages: read::required(messages, "messages")?,
            config,
            history_complete,
        })
    }
}

impl<'de> Deserialize<'de> for CleanRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        CleanRequest::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// A `clean` result: the plan, the counts, and why the input was returned unchanged, if it was.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanResult {
    pub steps: Vec<steps::Step>,
    pub stats: clean::CleanStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// Cleans the messages of a request and gates the result. A plan the gate refuses is
/// replaced by the identity plan, with the refusal as `fallback`.
pub fn clean_messages(messages: &[Value], config: &config::CleanConfig) -> CleanResult {
    clean_history(messages, config, false)
}

/// [`clean_messages`] for a history whose upcoming prompt is passed separately (`complete`):
/// the frontier is then after the last message.
pub fn clean_history(messages: &[Value], config: &config::CleanConfig, complete: bool) -> CleanResult {
    clean_in(&history::HistoryCache::of(messages).view(messages), config, complete)
}

/// [`clean_history`] of a history whose facts are known (a live session's).
pub fn clean_in(h: &history::History, config: &config::CleanConfig, complete: bool) -> CleanResult {
    let messages = h.messages;
    let cleaned = clean::clean_keeping(h, config, complete, &[]);
    match gate::check_history(h, &cleaned.steps, cleaned.frontier.loop_start) {
        Ok(()) => CleanResult {
            steps: cleaned.steps,
            stats: cleaned.stats,
            fallback: None,
        },
        Err(refusal) => {
            let tokens = h.tokens_of(0..h.len());
            let stats = clean::CleanStats {
                messages_before: messages.len(),
                messages_after: messages.len(),
                tokens_before: tokens,
                tokens_after: tokens,
                frontier: cleaned.stats.frontier,
                ..Default::default()
            };
            CleanResult {
                steps: steps::identity(messages.len()),
                stats,
                fallback: Some(format!("validity gate refused the cleaned output ({refusal})")),
            }
        }
    }
}

/// [`clean_messages`] over a JSON request document (`{"messages": [...], "config": {...}}`).
/// `config` is the engine's whole config (the cleaner uses its part).
pub fn clean_json(input: &str) -> Result<String, Error> {
    let req = CleanRequest::from_value(json_in::parse(input)?)?;
    let cfg = config::Config::from_json(&req.config)?;
    Ok(json_out::to_string(&clean_history(
        &req.messages,
        &cfg.clean(),
        req.history_complete,
    )))
}

/// A one-shot assemble over a whole transcript (see [`session::OneShot`]).
pub fn assemble_json(input: &str) -> Result<String, Error> {
    Ok(json_out::to_string(&one_shot(json_in::parse(input)?)?.run()?))
}

/// Reads a one-shot request by hand (see [`read`]), as the derived impl of
/// [`session::OneShot`] does: `messages` required, the other keys optional, no unknown key.
fn one_shot(v: Value) -> read::Parsed<session::OneShot> {
    let mut messages = None;
    let mut r = session::OneShot {
        messages: Vec::new(),
        entries: None,
        prompt: None,
        budget: None,
        config: Value::Null,
        summaries: Default::default(),
        folded: Vec::new(),
        pins: Default::default(),
    };
    read::object(
        v,
        "struct OneShot",
        &[
            "messages",
            "entries",
            "prompt",
            "budget",
            "config",
            "summaries",
            "folded",
            "pins",
        ],
        1,
        true,
        &mut |k, v| {
            match k {
                0 => messages = Some(read::array(v)?),
                1 => r.entries = read::opt(v, |v| read::list(v, index::Entry::from_value))?,
                2 => r.prompt = read::opt(v, read::string)?,
                3 => r.budget = read::opt(v, read::usize_of)?,
                4 => r.config = v,
                5 => r.summaries = read::map(v, read::string)?,
                6 => r.folded = read::strings(v)?,
                _ => r.pins = read::pins(v)?,
            }
            Ok(())
        },
    )?;
    r.messages = read::required(messages, "messages")?;
    Ok(r)
}

/// A deterministic summary of one turn: `{"turnId", "messages", "maxTokens"}` → text
/// (`maxTokens` 120 when missing; other keys are ignored).
pub fn summarize_json(input: &str) -> Result<String, Error> {
    let (turn_id, messages, max_tokens) = summary_request(json_in::parse(input)?)?;
    Ok(summary::extractive(&summary::SummaryInput {
        turn_id: &turn_id,
        messages: &messages,
        max_tokens,
    }))
}

/// Reads a summary request by hand (see [`read`]): `turnId`, `messages`, `maxTokens`.
fn summary_request(v: Value) -> read::Parsed<(String, Vec<Value>, usize)> {
    let (mut turn_id, mut messages, mut max_tokens) = (None, None, 120);
    read::object(
        v,
        "struct Req",
        &["turnId", "messages", "maxTokens"],
        2,
        false,
        &mut |k, v| {
            match k {
                0 => turn_id = Some(read::string(v)?),
                1 => messages = Some(read::array(v)?),
                _ => max_tokens = read::usize_of(v)?,
            }
            Ok(())
        },
    )?;
    Ok((
        read::required(turn_id, "turnId")?,
        read::required(messages, "messages")?,
        max_tokens,
    ))
}

/// Estimated tokens of a JSON message array.
pub fn estimate_json(input: &str) -> Result<usize, Error> {
    let messages = read::list(json_in::parse(input)?, Ok)?;
    Ok(tokens::messages(&messages))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::testing::agree;
    use serde_json::json;

    /// The derived impls of the requests read here; the hand-written readers must agree.
    #[allow(dead_code)]
    mod derived {
        use serde::Deserialize;
        use serde_json::Value;

        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct CleanRequest {
            pub messages: Vec<Value>,
            #[serde(default)]
            pub config: Value,
            #[serde(default)]
            pub history_complete: bool,
        }

        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct Req {
            pub turn_id: String,
            pub messages: Vec<Value>,
            #[serde(default = "default_summary_tokens")]
            pub max_tokens: usize,
        }

        fn default_summary_tokens() -> usize {
            120
        }
    }

    #[test]
    fn hand_written_readers_match_the_derived_ones() {
        let messages = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]);
        let mut cases = 0;
        for v in [
            json!({"messages": messages, "config": {"maxTokens": 300}, "historyComplete": true}),
            json!({"config": null, "historyComplete": false, "messages": []}),
            json!({"messages": [], "bogus": 1, "config": 2}),
            json!({"historyComplete": 3, "nope": 1}),
            json!([messages, {"mode": "clean"}, true]),
            json!([[], null]),
            json!([[]]),
            json!([]),
            json!([[], {}, false, 1]),
            json!([1, {}, false, 1]),
        ] {
            cases += agree(
                &v,
                CleanRequest::from_value,
                |t: &str| serde_json::from_str::<derived::CleanRequest>(t),
                |r| format!("{:?}", (r.messages, r.config, r.history_complete)),
                |r| format!("{:?}", (r.messages, r.config, r.history_complete)),
            );
        }
        for v in [
            json!({"turnId": "t1", "messages": messages, "maxTokens": 40}),
            json!({"messages": [], "extra": [1], "turnId": "x"}),
            json!({"maxTokens": "a", "turnId": 1}),
            json!(["t", messages, 30]),
            json!(["t", []]),
            json!(["t"]),
            json!(["t", [], 1, 2]),
        ] {
            cases += agree(
                &v,
                summary_request,
                |t: &str| serde_json::from_str::<derived::Req>(t),
                |r| format!("{r:?}"),
                |r| format!("{:?}", (r.turn_id, r.messages, r.max_tokens)),
            );
        }
        // the one-shot assemble request, against `session::OneShot`'s derived impl
        let show = |r: session::OneShot| {
            format!(
                "{:?}",
                (
                    r.messages,
                    r.entries.map(|e| format!("{e:?}")),
                    r.prompt,
                    r.budget,
                    r.config,
                    r.summaries.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
                    r.folded,
                    r.pins
                )
            )
        };
        for v in [
            json!({"messages": messages, "entries": [{"id": "a", "parentId": null, "type": "message",
                "message": {"role": "user"}, "range": [1, 2], "seq": 3}], "prompt": "p", "budget": 900,
                "config": {"maxTokens": 300}, "summaries": {"a": "s", "b": "t"}, "folded": ["a"],
                "pins": {"turnIds": ["a"], "tools": ["read"], "patterns": ["x"]}}),
            json!({"entries": null, "prompt": null, "budget": null, "messages": [], "x": 1}),
            json!([messages, null, "p", 5, {}, {"a": "b"}, ["c"], [["d"]]]),
            json!([[], [{"id": "e"}]]),
            json!([]),
            json!([[], null, null, null, null, {}, [], {}, 9]),
        ] {
            cases += agree(
                &v,
                one_shot,
                |t: &str| serde_json::from_str::<session::OneShot>(t),
                show,
                show,
            );
        }
        assert!(cases > 300, "{cases}");
    }
}
