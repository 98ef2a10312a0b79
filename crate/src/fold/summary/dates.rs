//! Dates: numeric (`2026-11-30`, `2026-11-30T05:02Z`, `30/11/2026`), spread over words
//! (`7 May 2023`, `7th of May`, `May 7, 2023`, `June 2024`) and with CJK units
//! (`2023年5月7日`, `5月7日`). Only plausible values count (months 1–12, days 1–31, years
//! 1000–2999). It never normalises a date: what is kept is the text as written.

use super::words::{all_digits, Word};
use crate::model::hostmeta::is_month;

/// The value of a run of at most four ASCII digits (checked by the caller).
fn value(digits: &str) -> u32 {
    digits.parse().unwrap_or(0)
}

/// Two words separated only by spaces or a comma (a date's parts).
pub(super) fn adjacent(text: &str, a: &Word, b: &Word) -> bool {
    match text.get(a.end..b.start) {
        Some(gap) => !gap.is_empty() && gap.len() <= 3 && gap.bytes().all(|c| c == b' ' || c == b','),
        None => false,
    }
}

/// `7`, `07`, `7th`, `21st` (1–31).
fn is_day(s: &str) -> bool {
    let suffix = s.trim_start_matches(|c: char| c.is_ascii_digit());
    let digits = &s[..s.len() - suffix.len()];
    if !(suffix.is_empty() || ["st", "nd", "rd", "th"].iter().any(|x| x.eq_ignore_ascii_case(suffix))) {
        return false;
    }
    (1..=2).contains(&digits.len()) && (1..=31).contains(&value(digits))
}

fn is_year(s: &str) -> bool {
    s.len() == 4 && all_digits(s) && (1000..=2999).contains(&value(s))
}

/// A date spread over several words (`7 May 2023`, `7th of May`, `May 7, 2023`, `May 2023`)
/// or written with CJK units (`2023年5月7日`, `5月7日`): the date (a slice of `text`; the
/// words of the first kinds are ASCII, so cleaning only collapses spaces) and the words it
/// used.
pub(super) fn multi_date<'t>(ws: &[Word], i: usize, text: &'t str) -> Option<(&'t str, usize)> {
    if let Some(d) = cjk_date(ws, i, text) {
        return Some(d);
    }
    let a = &ws[i];
    let adj = |x: usize| x + 1 < ws.len() && adjacent(text, &ws[x], &ws[x + 1]);
    // The date's last word.
    let mut last = None;
    if is_day(a.core) {
        let mut j = i + 1;
        if adj(i) && ws[j].core.eq_ignore_ascii_case("of") {
            j += 1;
        }
        if adj(j - 1) && is_month(ws[j].core) {
            last = Some(j + usize::from(adj(j) && is_year(ws[j + 1].core)));
        }
    }
    if last.is_none() && is_month(a.core) && adj(i) {
        let b = &ws[i + 1];
        if is_day(b.core) {
            last = Some(i + 1 + usize::from(adj(i + 1) && is_year(ws[i + 2].core)));
        } else if is_year(b.core) {
            last = Some(i + 1);
        }
    }
    let last = last?;
    Some((text.get(a.start..ws[last].end).unwrap_or(""), last + 1 - i))
}

/// `2023年5月7日`, `2023年5月`, `5月7日`: a year or a month, then as many of the next units as
/// follow, each a number of one or two digits right after the previous unit (a month alone
/// is not a date).
fn cjk_date<'t>(ws: &[Word], i: usize, text: &'t str) -> Option<(&'t str, usize)> {
    let small = |s: &str| (1..=2).contains(&s.len()) && all_digits(s);
    let a = &ws[i];
    let (units, min) = if is_year(a.core) {
        (&["年", "月", "日号"][..], 1)
    } else if small(a.core) {
        (&["月", "日号"][..], 2)
    } else {
        return None;
    };
    let (mut end, mut n) = (a.start, 0);
    for (k, unit) in units.iter().enumerate() {
        let Some(w) = ws.get(i + k).filter(|w| k == 0 || (w.start == end && small(w.core))) else {
            break;
        };
        let Some(c) = text.get(w.end..)?.chars().next().filter(|&c| unit.contains(c)) else {
            break;
        };
        end = w.end + c.len_utf8();
        n = k + 1;
    }
    if n < min {
        return None;
    }
    Some((text.get(a.start..end)?, n))
}

/// `2026-11-30`, `2026-11-30T05:02:00Z`, `2026/11/30`, `30/11/2026`, `30.11.2026`.
pub(super) fn is_date(w: &str) -> bool {
    let k = w
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '/' | '.')))
        .unwrap_or(w.len());
    let (head, tail) = w.split_at(k);
    if !(tail.is_empty() || tail.starts_with('T')) {
        return false;
    }
    let Some(sep) = head.chars().find(|c| !c.is_ascii_digit()) else {
        return false;
    };
    let mut groups = head.split(sep);
    let (Some(a), Some(b), Some(c), None) = (groups.next(), groups.next(), groups.next(), groups.next()) else {
        return false;
    };
    if a.is_empty() || b.is_empty() || c.is_empty() || !all_digits(a) || !all_digits(b) || !all_digits(c) {
        return false;
    }
    let n = value;
    if a.len() == 4 && b.len() <= 2 && c.len() <= 2 {
        return (1000..=2999).contains(&n(a)) && (1..=12).contains(&n(b)) && (1..=31).contains(&n(c));
    }
    c.len() == 4
        && a.len() <= 2
        && b.len() <= 2
        && (1..=31).contains(&n(a))
        && (1..=31).contains(&n(b))
        && (n(a) <= 12 || n(b) <= 12)
        && (1000..=2999).contains(&n(c))
}
