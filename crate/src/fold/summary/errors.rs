//! Error lines: compiler and runtime errors, panics, exceptions, failed tests, non-zero exit
//! codes, `not found` / `permission denied` and their CJK counterparts, and how telling each
//! is. Counts of zero (`0 failed`, `exit code 0`) and code that only names an error type
//! (`crate::error::Error`) are not errors. It never decides whether a tool call failed; the
//! walk over the messages passes that in.

use super::add_text;
use super::shorten::floor_boundary;
use super::words::all_digits;
use super::LIST_CAP;

/// Only the head of a very long line is searched for error markers (bytes).
const ERROR_SCAN_BYTES: usize = 4096;

#[rustfmt::skip]
const ERROR_MARKERS: &[&str] = &[
    "error[", "panicked", "panic:", "traceback (most recent", "exception:", "exception in", "uncaught", "fatal:",
    "fatal error", "segmentation fault", "command not found", "no such file", "permission denied", "cannot find",
    "could not", "unable to", "not found", "assertion failed", "undefined reference", "timed out", "enoent",
    "eacces", "econnrefused",
];
const ERROR_CJK: &[&str] = &["错误", "失败", "报错", "异常", "崩溃", "找不到"];
#[rustfmt::skip]
const EXIT_MARKERS: &[&str] = &[
    "exit code", "exit status", "exited with code", "exited with status", "exitcode", "exit_code", "returncode",
    "return code",
];

/// The word before byte `k` of `lower`, without punctuation.
fn word_before(lower: &str, k: usize) -> &str {
    let from = floor_boundary(lower, k.saturating_sub(32));
    let t = lower[from..k].trim_end();
    let last = t.rsplit(char::is_whitespace).next().unwrap_or("");
    last.trim_matches(|c: char| !c.is_alphanumeric())
}

/// One pass over the words of a (lowercased) line: could any error rule match?
fn error_trigger(lower: &str) -> bool {
    lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        w.starts_with("err")
            || w.ends_with("error")
            || w.starts_with("fail")
            || w.starts_with("panic")
            || w.ends_with("exception")
            || w.starts_with("exit")
            || ERROR_TRIGGERS.contains(&w)
    })
}

/// Words that start an error marker without matching the word rules of [`error_trigger`].
#[rustfmt::skip]
const ERROR_TRIGGERS: &[&str] = &[
    "traceback", "fatal", "segmentation", "denied", "cannot", "could", "unable", "found", "such", "timed", "enoent",
    "eacces", "econnrefused", "uncaught", "undefined", "returncode", "code", "status",
];

/// `needle` occurs in `hay` as a whole word (ASCII boundaries).
fn has_word(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(k, m)| {
        let before = hay.as_bytes().get(k.wrapping_sub(1)).copied();
        let after = hay.as_bytes().get(k + m.len()).copied();
        (k == 0 || !before.is_some_and(|b| b.is_ascii_alphanumeric()))
            && !after.is_some_and(|b| b.is_ascii_alphanumeric())
    })
}

/// Whether a line reports an error.
pub(super) fn is_error_line(line: &str) -> bool {
    let head = &line[..floor_boundary(line, ERROR_SCAN_BYTES)];
    if !head.is_ascii() && ERROR_CJK.iter().any(|m| head.contains(m)) {
        return true;
    }
    let lower = head.to_ascii_lowercase();
    if !error_trigger(&lower) {
        return false;
    }
    if ERROR_MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    if lower.starts_with("error") || head.starts_with("FAIL ") || has_word(head, "ERROR") {
        return true;
    }
    let b = lower.as_bytes();
    for w in ["failed", "failure", "failures"] {
        for (k, _) in lower.match_indices(w) {
            let after = lower.as_bytes().get(k + w.len()).copied();
            let before = lower.as_bytes().get(k.wrapping_sub(1)).copied();
            if (k > 0 && before.is_some_and(|b| b.is_ascii_alphanumeric()))
                || after.is_some_and(|b| b.is_ascii_alphanumeric())
            {
                continue;
            }
            if !["0", "no", "zero", "without", "never", "not"].contains(&word_before(&lower, k)) {
                return true;
            }
        }
    }
    for (k, _) in lower.match_indices("error") {
        // `error:` as a message (`TypeError: x`, `error: x`), not a path (`crate::error::Error`).
        if b.get(k + 5) == Some(&b':') && b.get(k + 6) != Some(&b':') && (k == 0 || b[k - 1] != b':') {
            return true;
        }
        // `error` or `errors` after a non-zero count (`errors` starts with `error`, so its
        // places are among those of `error`).
        let prev = word_before(&lower, k);
        if !prev.is_empty() && all_digits(prev) && prev.bytes().any(|b| b != b'0') {
            return true;
        }
    }
    EXIT_MARKERS.iter().any(|m| {
        lower.match_indices(m).any(|(k, _)| {
            let rest = lower[k + m.len()..].trim_start_matches([' ', ':', '=', '"', '\'']);
            let rest = rest.strip_prefix('-').unwrap_or(rest);
            let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
            !digits.is_empty() && digits.bytes().any(|b| b != b'0')
        })
    })
}

/// How telling an error line is: 2 for panics, exceptions, `error:` and model errors, 1 for
/// a failed tool's own line or an exit code, 0 for tallies such as `... FAILED`.
pub(super) fn weight(line: &str) -> u8 {
    let lower = line.to_ascii_lowercase();
    #[rustfmt::skip]
    const STRONG: &[&str] = &[
        "panicked", "error:", "error[", "exception", "traceback", "fatal", "model error", "assertion",
        "no such file", "not found", "permission denied", "错误", "报错", "异常",
    ];
    if STRONG.iter().any(|m| lower.contains(m) || line.contains(m)) {
        2
    } else if lower.contains("test result") || lower.contains("... failed") || lower.starts_with("fail ") {
        0
    } else {
        1
    }
}

/// Pushes the error lines of `text` (only those in fenced blocks when `fenced_only`); returns
/// whether it had any.
pub(super) fn scan_errors(text: &str, fenced_only: bool, out: &mut Vec<String>) -> bool {
    let mut found = false;
    let mut fence = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if t.is_empty() || (fenced_only && !fence) {
            continue;
        }
        if is_error_line(t) {
            found = true;
            if out.len() >= LIST_CAP {
                return true;
            }
            add_text(out, t);
        }
    }
    found
}
