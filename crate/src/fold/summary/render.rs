//! The summary's lines and the budget: how each line is rendered (a label and its text or
//! entries, quoted when it would read as a role marker) and which lines lose entries or shrink
//! first when the summary is over its token budget. It never finds facts; it lays out what
//! [`super::extractive`] hands it.

use super::neutralise::neutralise_line;
use super::shorten::{cut_chars, shorten};
use crate::model::tokens;

enum Body {
    /// Text that can shrink from `src`; `shown` is what is rendered.
    Text {
        src: String,
        shown: String,
        shrinks: bool,
    },
    Items {
        items: Vec<String>,
        sep: &'static str,
    },
}

pub(super) struct Line {
    label: &'static str,
    body: Body,
    /// Higher survives longer.
    rank: u8,
}

impl Line {
    pub(super) fn text(label: &'static str, shown: String, rank: u8) -> Line {
        Line {
            label,
            body: Body::Text {
                src: String::new(),
                shown,
                shrinks: false,
            },
            rank,
        }
    }
    pub(super) fn shrinking(label: &'static str, src: String, shown: String, rank: u8) -> Line {
        Line {
            label,
            body: Body::Text {
                src,
                shown,
                shrinks: true,
            },
            rank,
        }
    }
    pub(super) fn items(label: &'static str, items: Vec<String>, sep: &'static str, rank: u8) -> Line {
        Line {
            label,
            body: Body::Items { items, sep },
            rank,
        }
    }
    fn rendered(&self) -> Option<String> {
        let body = match &self.body {
            Body::Text { shown, .. } if !shown.is_empty() => shown.clone(),
            Body::Items { items, sep } if !items.is_empty() => items.join(sep),
            _ => return None,
        };
        let line = if self.label.is_empty() {
            body
        } else {
            format!("{}: {body}", self.label)
        };
        Some(neutralise_line(&line))
    }
}

/// The lines that have something to show, one per line.
pub(super) fn render(lines: &[Line]) -> String {
    lines.iter().filter_map(Line::rendered).collect::<Vec<_>>().join("\n")
}

/// Trims lines, lowest rank first, until the rendering is within `max` tokens: lists lose
/// their last entries, texts shrink by a quarter at a time and go below 16 characters.
pub(super) fn fit(lines: &mut [Line], max: usize) {
    let fits = |lines: &[Line]| tokens::text(&render(lines)) <= max;
    if fits(lines) {
        return;
    }
    let mut order: Vec<usize> = (0..lines.len()).filter(|&k| lines[k].rank < 100).collect();
    order.sort_by_key(|&k| lines[k].rank);
    for k in order {
        while !fits(lines) {
            match &mut lines[k].body {
                Body::Items { items, .. } => {
                    // The last long entry (an error line, a decision) shortens before it goes.
                    let last_chars = items.last().map_or(0, |x| x.chars().count());
                    if items.len() == 1 && last_chars > 48 {
                        items[0] = cut_chars(&items[0], (last_chars * 3 / 4).max(40));
                    } else if items.pop().is_none() {
                        break;
                    }
                }
                Body::Text { src, shown, shrinks } => {
                    let n = shown.chars().count();
                    let next = n * 3 / 4;
                    if !*shrinks || next < 16 {
                        shown.clear();
                        break;
                    }
                    *shown = shorten(src, next);
                }
            }
        }
        if fits(lines) {
            return;
        }
    }
}
