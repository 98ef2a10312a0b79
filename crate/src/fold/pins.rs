//! Pins: the turns a person marked never to be folded or pruned, by id, by a tool the turn
//! calls or answers, or by a text pattern. It decides whether one turn is pinned; what a
//! pinned turn keeps is the planner's and prune's.

use crate::model::message;
use crate::text::terms::fold_case;
use crate::transcript::turns;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Pins: turns that are never folded, by id, by tool name or by text pattern. Stored by the JS
/// layer: missing lists are empty, unknown keys are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Pins {
    pub turn_ids: Vec<String>,
    pub tools: Vec<String>,
    pub patterns: Vec<String>,
}

/// Whether a turn is pinned: by id, by a tool it calls or answers, or by a text pattern
/// (case-insensitive substring of its visible text). One rule for the planner (through the
/// session) and for prune.
pub fn pinned(pins: &Pins, id: &str, turn: &[Value]) -> bool {
    if pins.turn_ids.iter().any(|p| p == id) {
        return true;
    }
    if pins.tools.is_empty() && pins.patterns.is_empty() {
        return false;
    }
    let pinned_tool = |name: &str| pins.tools.iter().any(|t| t == name);
    let tool_hit = turn.iter().any(|m| {
        message::tool_calls(m).iter().any(|c| pinned_tool(&c.name)) || pinned_tool(message::str_field(m, "toolName"))
    });
    if tool_hit || pins.patterns.is_empty() {
        return tool_hit;
    }
    // Each message's text is case-folded once, not once per pattern.
    let texts: Vec<String> = turn.iter().map(|m| fold_case(&turns::visible_text(m))).collect();
    pins.patterns.iter().any(|pat| {
        let pat = fold_case(pat);
        texts.iter().any(|t| t.contains(&pat))
    })
}

/// A turn as `pinnedTurns` reads it: every id it goes by (entry id, hash id) and its messages.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PinTurn {
    pub ids: Vec<String>,
    #[serde(default)]
    pub messages: Vec<Value>,
}

/// `pinnedTurns`: which of these turns the pins hold.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PinnedTurnsRequest {
    pub pins: Pins,
    pub turns: Vec<PinTurn>,
}

/// The first id of each turn of `turns` that the pins hold, in order: the same rule as
/// [`pinned`], with a turn pinned by id under any of its ids.
pub fn pinned_turns(req: &PinnedTurnsRequest) -> Vec<String> {
    req.turns
        .iter()
        .filter_map(|t| {
            let first = t.ids.first()?;
            let by_id = t.ids.iter().any(|id| req.pins.turn_ids.contains(id));
            (by_id || pinned(&req.pins, first, &t.messages)).then(|| first.clone())
        })
        .collect()
}
