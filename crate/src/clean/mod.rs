//! Cleaning: where the live turn starts, what completed turns lose, and whether an output is
//! still valid for providers: [`clean_history`] proposes ([`cleaner`]) and gates ([`gate`]);
//! a plan the gate refuses becomes the identity plan. Never folds or drops whole turns.

pub mod cleaner;
pub mod frontier;
pub mod gate;

use crate::config::CleanConfig;
use crate::model::steps::{self, Step};
use crate::transcript::history::{History, HistoryCache};
use cleaner::CleanStats;
use serde::Serialize;
use serde_json::Value;

/// A `clean` result: the plan, the counts, and why the input was returned unchanged, if it was.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanResult {
    pub steps: Vec<Step>,
    pub stats: CleanStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// Cleans the messages of a request and gates the result. A plan the gate refuses is
/// replaced by the identity plan, with the refusal as `fallback`.
pub fn clean_messages(messages: &[Value], config: &CleanConfig) -> CleanResult {
    clean_history(messages, config, false)
}

/// [`clean_messages`] for a history whose upcoming prompt is passed separately (`complete`):
/// the frontier is then after the last message.
pub fn clean_history(messages: &[Value], config: &CleanConfig, complete: bool) -> CleanResult {
    clean_in(&HistoryCache::of(messages).view(messages), config, complete)
}

/// [`clean_history`] of a history whose facts are known (a live session's).
pub fn clean_in(h: &History, config: &CleanConfig, complete: bool) -> CleanResult {
    let messages = h.messages;
    let cleaned = cleaner::clean_keeping(h, config, complete, &[]);
    match gate::check_history(h, &cleaned.steps, cleaned.frontier.loop_start) {
        Ok(()) => CleanResult {
            steps: cleaned.steps,
            stats: cleaned.stats,
            fallback: None,
        },
        Err(refusal) => {
            let tokens = h.tokens_of(0..h.len());
            let stats = cleaner::CleanStats {
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
