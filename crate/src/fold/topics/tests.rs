//! The short-topic merge and the labels on hand-made similarities and terms.

use super::segments::segments;
use super::{Segmenter, TopicConfig, TurnText};

#[test]
fn boundaries_fall_below_the_threshold_and_short_topics_join_the_closer_side() {
    // Boundaries at 2, 3 and 6: [0-1] [2] [3-5] [6-7]. Topic [2] is short; its left boundary
    // (0.01) is less similar than its right one (0.04), so it joins [3-5].
    let sims = [1.0, 0.5, 0.01, 0.04, 0.5, 0.5, 0.0, 0.5];
    assert_eq!(segments(&sims, 0.05, 2), [(0, 1), (2, 5), (6, 7)]);
    // Ties go left.
    let sims = [1.0, 0.5, 0.02, 0.02, 0.5, 0.5];
    assert_eq!(segments(&sims, 0.05, 2), [(0, 2), (3, 5)]);
    // The last topic may be short; no turns, no topics; min_turns 0 is 1.
    assert_eq!(segments(&[1.0, 0.5, 0.0], 0.05, 2), [(0, 1), (2, 2)]);
    assert!(segments(&[], 0.05, 2).is_empty());
    assert_eq!(segments(&[1.0, 0.0, 0.0], 0.05, 0), [(0, 0), (1, 1), (2, 2)]);
}

#[test]
fn shortest_topics_merge_first() {
    // [0] [1-2] [3-5] [6-8]: with a minimum of 3, [0] (1 turn) goes first, into [1-2]; the
    // result, [0-2], is long enough and nothing else is short.
    let sims = [1.0, 0.01, 0.5, 0.02, 0.5, 0.5, 0.03, 0.5, 0.5];
    assert_eq!(segments(&sims, 0.05, 3), [(0, 2), (3, 5), (6, 8)]);
}

#[test]
fn labels_fall_back_to_tools_then_to_turn_numbers() {
    let tools = ["search".to_string(), "search".to_string()];
    let mut s = Segmenter::new(TopicConfig::default());
    s.push(TurnText {
        user: "🙂",
        assistant: "",
        tools: &tools,
    });
    s.push(TurnText::new("", ""));
    let topics = s.topics();
    assert_eq!(topics.len(), 1);
    assert_eq!(topics[0].label, "search");
    assert_eq!(topics[0].terms, ["tool:search"]);
    let mut empty = Segmenter::default();
    empty.push(TurnText::new("ok", "ok"));
    assert_eq!(empty.topics()[0].label, "turns 0-0");
}

#[test]
fn two_short_topics_in_a_row_merge_with_each_other() {
    // [0-2] [3] [4] [5-7]: [3]'s left boundary is more similar (0.04 > 0.01), but [4] is short
    // too, and [3] joins it: a subject that came up for two turns, not the tail of [0-2].
    let sims = [1.0, 0.5, 0.5, 0.04, 0.01, 0.0, 0.5, 0.5];
    assert_eq!(segments(&sims, 0.05, 2), [(0, 2), (3, 4), (5, 7)]);
    // The same when the second short topic is the last one.
    assert_eq!(segments(&sims[..5], 0.05, 2), [(0, 2), (3, 4)]);
}
