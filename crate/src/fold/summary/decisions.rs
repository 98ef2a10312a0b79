//! Decisions: sentences that decide or plan (`decided`, `will`, `should`, `let's`, `fixed`,
//! `next`, `todo`, `going to`, and their CJK counterparts), outside code fences and not
//! questions. In thinking only explicit decisions count. It never rewrites a sentence beyond
//! cleaning it.

use super::add_text;
use super::shorten::sentences;
use super::LIST_CAP;

#[rustfmt::skip]
const DECISION_WORDS: &[&str] = &[
    "decided", "decide", "decision", "will", "i'll", "i’ll", "we'll", "we’ll", "should", "let's", "let’s", "fixed",
    "chose", "choose", "chosen", "agreed", "agree", "todo", "next",
];
const DECISION_CJK: &[&str] = &[
    "决定",
    "应该",
    "修复",
    "修好",
    "改为",
    "改成",
    "选择",
    "同意",
    "待办",
    "下一步",
    "接下来",
    "计划",
    "打算",
    "我会",
    "将会",
];

/// Markers that still count in thinking, where "I should use the X tool" is procedure.
const THINKING_DECISION_WORDS: &[&str] = &[
    "decided", "decide", "decision", "chose", "chosen", "agreed", "todo", "instead",
];

/// A sentence that decides or plans: one pass over its words. `strict` (for thinking) only
/// accepts explicit decisions.
fn is_decision(sentence: &str, strict: bool) -> bool {
    if !sentence.is_ascii() && DECISION_CJK.iter().any(|w| sentence.contains(w)) {
        return true;
    }
    // `’` counts as `'` (the lists hold both spellings).
    let lower = sentence.to_ascii_lowercase();
    let mut prev = "";
    for w in lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '’')) {
        let w = w.trim_matches(['\'', '’']);
        if w.is_empty() {
            continue;
        }
        let hit = if strict {
            THINKING_DECISION_WORDS.contains(&w) || (w == "to" && ["plan", "switched", "switch"].contains(&prev))
        } else {
            DECISION_WORDS.contains(&w)
                || (w == "to" && ["going", "plan", "switched", "switch"].contains(&prev))
                || (w == "us" && prev == "let")
        };
        if hit {
            return true;
        }
        prev = w;
    }
    false
}

/// Pushes the decisions of `text` (explicit ones only when `strict`).
pub(super) fn scan_decisions(text: &str, strict: bool, out: &mut Vec<String>) {
    let mut fence = false;
    for line in text.lines() {
        if out.len() >= LIST_CAP {
            return;
        }
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        for sentence in sentences(line) {
            let sent = sentence.trim_start_matches(['-', '*', '•', '#', '>', ' ']).trim();
            // Not a sentence but a blob (minified code, base64): nothing to decide there.
            if sent.len() < 8 || sent.len() > 2000 || sent.ends_with('?') || sent.ends_with('？') {
                continue;
            }
            if is_decision(sent, strict) {
                add_text(out, sent);
            }
        }
    }
}
