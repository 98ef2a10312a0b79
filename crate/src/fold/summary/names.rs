//! Proper names and acronyms in prose: capitalised words not at a sentence start, not labels
//! (`Flight Number:`), not common capitalised words, months or weekdays; runs of up to four
//! such words make one name (`Jordan Smith`). It never looks inside code.

use super::words::Word;
use crate::model::hostmeta::{is_month, WEEKDAYS};

#[rustfmt::skip]
const NAME_STOP: &[&str] = &[
    "I", "I'm", "I've", "I'll", "I'd", "Im", "OK", "Ok", "Okay", "Yes", "No", "Hi", "Hey", "Hello", "Thanks",
    "Thank", "Please", "Sure", "The", "A", "An", "And", "But", "Or", "So", "If", "Then", "This", "That", "These",
    "Those", "It", "It's", "Its", "We", "You", "He", "She", "They", "My", "Our", "Your", "His", "Her", "Their",
    "What", "When", "Where", "Why", "How", "Who", "Which", "Also", "Just", "Note", "Oh", "Wow", "Great", "Good",
    "Nice", "Cool", "Well", "Error", "Result", "Option", "Some", "None", "Err", "True", "False", "Null", "String",
    "Vec", "Self", "Done", "Fixed", "Step", "Next", "Today", "Tomorrow", "Yesterday", "Asked", "Answer", "Did",
    "Files", "Errors", "Ids", "Names", "Links", "Decisions",
];
#[rustfmt::skip]
const ACRONYM_STOP: &[&str] = &[
    "TODO", "FIXME", "NOTE", "ERROR", "WARN", "WARNING", "INFO", "DEBUG", "TRACE", "FAILED", "FAIL", "PASS",
    "PASSED", "THE", "AND", "API", "JSON", "HTTP", "HTTPS", "URL", "URI", "CLI", "UTC", "GMT", "CPU", "GPU", "RAM",
    "SQL", "CSV", "HTML", "CSS", "PDF", "USD", "EUR", "LLM", "FAQ", "ASAP", "FYI", "BTW", "LOL", "OMG", "IMO", "TBD",
    "YES", "NOT", "ALL", "NEW", "README", "EOF", "NULL", "TRUE", "FALSE", "GET", "POST", "PUT", "DELETE", "UTF",
    "ASCII", "SSH", "TLS", "SSL", "DNS", "TCP", "UDP",
];

/// When `w` is a proper-name word, the end of the name (a possessive `'s` dropped).
pub(super) fn name_word(w: &Word) -> Option<usize> {
    let core = w.core;
    let base = core
        .strip_suffix("'s")
        .or_else(|| core.strip_suffix("’s"))
        .unwrap_or(core)
        .trim_end_matches(['\'', '’', '+']);
    let count = base.chars().count();
    if !(2..=30).contains(&count) || !base.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    let end = w.start + base.len();
    let letters = base.bytes().filter(u8::is_ascii_alphabetic).count();
    if base.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
        let acronym = letters >= 3 && count <= 8 && !ACRONYM_STOP.contains(&base);
        return acronym.then_some(end);
    }
    if w.sentence_start || w.label || NAME_STOP.contains(&base) || is_month(base) || WEEKDAYS.contains(&base) {
        return None;
    }
    let proper = base.split('-').all(|seg| {
        let mut cs = seg.chars();
        cs.next().is_some_and(char::is_uppercase) && cs.all(|c| c.is_lowercase() || c == '\'' || c == '’')
    });
    proper.then_some(end)
}
