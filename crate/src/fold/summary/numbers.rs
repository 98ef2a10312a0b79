//! Numbers worth keeping: with a unit (`840 tokens`, `100ms`, `3小时`), money (`$12.50`),
//! percentages, versions (`v1.2.3`), decimals and multi-digit counts, and whether each is
//! "strong" (a unit, money, percent or count: kept even from tool output). Zero counts are
//! dropped except failures. It never parses a value: what is kept is the text as written.

use super::dates::adjacent;
use super::words::Word;

#[rustfmt::skip]
const UNIT_WORDS: &[&str] = &[
    "test", "tests", "passed", "failed", "failing", "ignored", "skipped", "errors", "error", "warnings", "warning",
    "files", "file", "lines", "items", "turns", "messages", "tokens", "bytes", "kb", "mb", "gb", "tb", "ms", "s",
    "sec", "secs", "seconds", "second", "min", "mins", "minutes", "minute", "hours", "hour", "hrs", "h", "days",
    "day", "weeks", "week", "months", "month", "years", "year", "yrs", "people", "persons", "users", "times",
    "percent", "dollars", "dollar", "usd", "eur", "euros", "euro", "gbp", "cents", "cent", "yuan", "rmb", "km",
    "miles", "mi", "kg", "lbs", "lb", "g", "cm", "mm", "ft", "feet", "meters", "metres", "points", "pts", "rows",
    "records", "commits", "retries", "attempts", "requests", "calls", "steps", "pages", "words", "chars",
    "characters", "kids", "children", "am", "pm", "k", "x",
];
#[rustfmt::skip]
const ATTACHED_UNITS: &[&str] = &[
    "ms", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "d", "k", "m", "b", "bn", "kb", "mb", "gb", "tb",
    "kib", "mib", "gib", "px", "pt", "em", "rem", "x", "fps", "hz", "khz", "mhz", "ghz", "kg", "g", "mg", "lb",
    "lbs", "km", "cm", "mm", "mi", "ft", "ml", "l", "am", "pm", "w", "kw", "kwh", "mbps", "gbps", "usd", "eur", "°c",
    "°f",
];
const CJK_UNITS: &[char] = &[
    '元', '块', '角', '个', '次', '天', '年', '月', '日', '号', '岁', '人', '条', '位', '秒', '周', '万', '亿', '千',
    '百', '倍', '米', '斤', '克', '项', '份', '件', '张', '页', '行', '％', '分', '小', '公',
];
const CURRENCIES: &[&str] = &["US$", "$", "€", "£", "¥", "₹"];

/// A number worth keeping at `ws[i]`: the text (a slice of `text`), whether it is "strong"
/// (unit, money, percent, count), and how many words it used.
pub(super) fn number<'t>(ws: &[Word<'t>], i: usize, text: &'t str) -> Option<(&'t str, bool, usize)> {
    let w = &ws[i];
    let core = w.core;
    let starts_digit = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());
    let unpriced = CURRENCIES.iter().find_map(|c| core.strip_prefix(c));
    let money = unpriced.is_some();
    let s = unpriced.unwrap_or(core);
    if let Some(v) = s.strip_prefix(['v', 'V']).filter(|v| starts_digit(v)) {
        let ok = v.contains('.') && v.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        return ok.then_some((core, false, 1));
    }
    let s = match s.strip_prefix(['-', '+']) {
        Some(r) if starts_digit(r) => r,
        _ => s,
    };
    if !starts_digit(s) {
        return None;
    }
    let b = s.as_bytes();
    let mut k = 0;
    let mut dots = 0;
    let mut commas = false;
    while k < b.len() {
        let c = b[k];
        let next_digit = b.get(k + 1).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_digit() {
            k += 1;
        } else if c == b'.' && next_digit {
            dots += 1;
            k += 1;
        } else if c == b',' && next_digit {
            commas = true;
            k += 1;
        } else {
            break;
        }
    }
    let (num, suffix) = s.split_at(k);
    if dots >= 2 {
        return suffix.is_empty().then_some((core, false, 1));
    }
    if suffix == "%" {
        return Some((core, true, 1));
    }
    if !suffix.is_empty() {
        return listed_ci(ATTACHED_UNITS, suffix).then_some((core, true, 1));
    }
    let zero = !num.bytes().any(|c| (b'1'..=b'9').contains(&c));
    // A unit right after it, CJK (`500元`, `3小时`) or a word (`12 passed`, `840 tokens`).
    let after = text.get(w.end..).unwrap_or("");
    if let Some(c) = after.chars().next().filter(|c| CJK_UNITS.contains(c)) {
        let unit = match ["小时", "分钟", "公里", "公斤"]
            .into_iter()
            .find(|u| after.starts_with(u))
        {
            Some(two) => two,
            // `小` and `公` only begin a unit of two characters.
            None if matches!(c, '小' | '公') => return None,
            None => &after[..c.len_utf8()],
        };
        return Some((&text[w.start..w.end + unit.len()], true, 1));
    }
    if let Some(next) = ws.get(i + 1) {
        let unit = next.core;
        if adjacent(text, w, next) && text.get(w.end..next.start) == Some(" ") && listed_ci(UNIT_WORDS, unit) {
            let counts_failure = listed_ci(&["failed", "failing", "errors", "error"], unit);
            if zero && !counts_failure {
                return None;
            }
            // One space between them: the number, the space and the unit.
            return Some((&text[w.start..next.end], true, 2));
        }
    }
    if money {
        return Some((core, true, 1));
    }
    if zero {
        return None;
    }
    if dots == 1 || commas || num.len() >= 2 {
        return Some((core, false, 1));
    }
    None
}

/// Whether `word`, ASCII letters in any case, is one of the lowercase `list`.
fn listed_ci(list: &[&str], word: &str) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(word))
}
