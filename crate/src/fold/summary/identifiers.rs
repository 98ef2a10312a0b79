//! Code identifiers and ids: uuids, hex hashes, `a::b` paths, snake_case, CamelCase,
//! `dotted.snake_name`, letters-and-digits ids (`toolu_01ABC`), ticket keys (`PROJ-123`), and
//! any name-like word in a one-word code span. It never looks at a word's neighbours.

/// `8-4-4-4-12` hex digits.
fn is_uuid(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(k, &c)| {
            if matches!(k, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// An ASCII word with a lower-to-upper step (`getUser`) or an acronym before a word (`HTTPServer`).
fn is_camel(w: &str) -> bool {
    let b = w.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    // `aB` or `ABc` somewhere.
    (1..b.len()).any(|k| {
        b[k].is_ascii_uppercase()
            && (b[k - 1].is_ascii_lowercase()
                || (b[k - 1].is_ascii_uppercase() && b.get(k + 1).is_some_and(u8::is_ascii_lowercase)))
    })
}

/// A word a language would accept as a name: letters, digits, `_`, not starting with a digit.
fn is_word_ident(w: &str) -> bool {
    !w.is_empty()
        && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !w.starts_with(|c: char| c.is_ascii_digit())
}

/// A code identifier or an id: uuid, hash, `a::b`, snake_case, CamelCase, `abc123def`,
/// `dotted.snake_name`, `PROJ-123`.
pub(super) fn is_identifier(w: &str) -> bool {
    if w.len() < 3 || w.len() > 120 || !w.is_ascii() {
        return false;
    }
    if is_uuid(w) {
        return true;
    }
    let b = w.as_bytes();
    let has_letter = w.bytes().any(|b| b.is_ascii_alphabetic());
    let has_digit = w.bytes().any(|b| b.is_ascii_digit());
    if (7..=64).contains(&b.len())
        && w.bytes().all(|b| b.is_ascii_hexdigit())
        && has_digit
        && w.bytes().any(|c| matches!(c, b'a'..=b'f'))
    {
        return true;
    }
    if w.contains("::") {
        return w.split("::").all(is_word_ident);
    }
    if w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        if !has_letter || b[0].is_ascii_digit() {
            return false;
        }
        return (w.contains('_') && w.trim_matches('_').len() > 1) || is_camel(w) || (b.len() >= 6 && has_digit);
    }
    if w.contains('.') && w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.') {
        // At least two segments: `w` contains a dot.
        return w.split('.').all(is_word_ident) && w.split('.').any(|s| s.contains('_') || is_camel(s));
    }
    if let Some((key, num)) = w.split_once('-') {
        return (2..=10).contains(&key.len())
            && key.bytes().all(|c| c.is_ascii_uppercase())
            && (2..=6).contains(&num.len())
            && num.bytes().all(|c| c.is_ascii_digit());
    }
    false
}

/// A word inside a one-word code span that reads as a name in code.
pub(super) fn ident_like(w: &str) -> bool {
    (2..=100).contains(&w.len())
        && w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.:-$#@!?".contains(&b))
}
