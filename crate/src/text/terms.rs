//! What the terms of a text are: the words and character n-grams that topic segmentation
//! compares.
//!
//! A term is a lowercase word of letters, digits and inner `_` (any script) that is not a
//! stopword, a pure number or one character long. A run of CJK letters is cut at function
//! characters and stop phrases (see [`super::cjk`]); each piece gives its overlapping character
//! n-grams of two to [`MAX_CJK_GRAM`] characters, so a word of any of those lengths is a term
//! (a run of one character gives that character, unless it is a filler). This module
//! decides what counts as a term; it never weighs terms, never strips host metadata (the
//! caller does, see `model::hostmeta`) and never keeps state between calls.

use super::cjk::{is_cjk_letter, is_cjk_lone_filler, is_cjk_stop, stop_phrase_at};
use super::stopwords::is_stopword;

/// Words longer than this many bytes (base64, hashes, minified code) are not terms.
pub const MAX_TERM_BYTES: usize = 64;
/// The longest CJK n-gram, in characters (most Chinese words have two to four).
pub const MAX_CJK_GRAM: usize = 4;

/// Calls `emit` with every term of `text`, in order of appearance (a word or a CJK run when it
/// ends; a run's n-grams by position, then by length).
pub fn for_each_term(text: &str, mut emit: impl FnMut(&str)) {
    let mut word = Word::default();
    let mut run = CjkRun::default();
    for (at, ch) in text.char_indices() {
        match Class::of(ch) {
            Class::Word => {
                run.end(&mut emit);
                word.push(at, ch);
            }
            Class::Cjk => {
                word.end(text, at, &mut emit);
                run.chars.push(ch);
            }
            Class::Other => {
                run.end(&mut emit);
                word.end(text, at, &mut emit);
            }
        }
    }
    run.end(&mut emit);
    word.end(text, text.len(), &mut emit);
}

/// The terms of `text` as owned strings, in order.
pub fn terms_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t| out.push(t.to_owned()));
    out
}

/// What a character is to the tokenizer.
enum Class {
    /// Part of a word: letters, digits, `_` and combining accents (outside CJK).
    Word,
    /// A CJK letter (see [`is_cjk_letter`]).
    Cjk,
    /// Anything else: it ends a word and a run.
    Other,
}

impl Class {
    fn of(ch: char) -> Class {
        match ch {
            _ if ch.is_ascii() => match ch.is_ascii_alphanumeric() || ch == '_' {
                true => Class::Word,
                false => Class::Other,
            },
            _ if is_cjk_letter(ch) => Class::Cjk,
            _ if ch.is_alphanumeric() || matches!(ch, '\u{300}'..='\u{36F}') => Class::Word,
            _ => Class::Other,
        }
    }
}

/// The word being read: where it starts in the text, and whether it is already lowercase
/// ASCII (emitted from the text without a copy).
#[derive(Default)]
struct Word {
    start: Option<usize>,
    folded: bool,
}

impl Word {
    fn push(&mut self, at: usize, ch: char) {
        if self.start.is_none() {
            *self = Word {
                start: Some(at),
                folded: true,
            };
        }
        self.folded &= !ch.is_ascii_uppercase() && ch.is_ascii();
    }

    /// Ends the word at byte `end` of `text`: emits it lowercased if it is a term.
    fn end(&mut self, text: &str, end: usize, emit: &mut impl FnMut(&str)) {
        let Some(start) = self.start.take() else {
            return;
        };
        let word = &text[start..end];
        match self.folded {
            true => emit_if_term(word, emit),
            false => emit_if_term(&fold_case(word), emit),
        }
    }
}

/// A text lowercased character by character (`char::to_lowercase`): the one case folding of
/// the core, for terms, tool names and pin phrases alike.
pub fn fold_case(text: &str) -> String {
    // ASCII, most text, lowercases byte by byte to the same result without the Unicode tables.
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.chars().flat_map(char::to_lowercase).collect()
}

/// Emits a lowercased word unless it is not a term: shorter than two characters (after
/// trimming `_`), longer than [`MAX_TERM_BYTES`], a number, or a stopword.
fn emit_if_term(word: &str, emit: &mut impl FnMut(&str)) {
    let term = word.trim_matches('_');
    let keep = term.len() <= MAX_TERM_BYTES
        && term.chars().nth(1).is_some()
        && !term.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        && !is_stopword(term);
    if keep {
        emit(term);
    }
}

/// The CJK run being read.
#[derive(Default)]
struct CjkRun {
    chars: Vec<char>,
}

impl CjkRun {
    /// Ends the run: cuts it at function characters and stop phrases and emits the n-grams of
    /// each piece.
    fn end(&mut self, emit: &mut impl FnMut(&str)) {
        let chars = std::mem::take(&mut self.chars);
        let whole = chars.len() == 1;
        let (mut piece, mut i) = (0, 0);
        while i < chars.len() {
            let stop = match stop_phrase_at(&chars[i..]) {
                0 => usize::from(is_cjk_stop(chars[i])),
                n => n,
            };
            if stop == 0 {
                i += 1;
                continue;
            }
            emit_ngrams(&chars[piece..i], whole, emit);
            i += stop;
            piece = i;
        }
        emit_ngrams(&chars[piece..], whole, emit);
    }
}

/// The n-grams of a piece of a CJK run; a piece of one character only when it is the whole run
/// and not a filler.
fn emit_ngrams(piece: &[char], whole: bool, emit: &mut impl FnMut(&str)) {
    if let [ch] = piece {
        if whole && !is_cjk_lone_filler(*ch) {
            emit(ch.encode_utf8(&mut [0; 4]));
        }
        return;
    }
    for start in 0..piece.len() {
        for end in start + 2..=piece.len().min(start + MAX_CJK_GRAM) {
            emit(&String::from_iter(&piece[start..end]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_folding_is_per_character_with_or_without_ascii_only_text() {
        let by_char = |t: &str| t.chars().flat_map(char::to_lowercase).collect::<String>();
        for t in [
            "Borrow-Checker E0502 `Vec::push`",
            "",
            "ÀÉÎ ΣΑΣ İstanbul Straße",
            "Mixed Ünïcode and ASCII",
        ] {
            assert_eq!(fold_case(t), by_char(t), "{t}");
        }
        assert_eq!(fold_case("HeLLo_World42"), "hello_world42");
    }

    #[test]
    fn words_are_lowercased_without_stopwords_numbers_or_single_letters() {
        assert_eq!(
            terms_of("The Borrow-checker says: `foo_bar` isn't 42 x __init__ v2"),
            ["borrow", "checker", "says", "foo_bar", "init", "v2"]
        );
        assert_eq!(
            terms_of("Café à Zürich, ПРИВЕТ мир"),
            ["café", "zürich", "привет", "мир"]
        );
        assert_eq!(terms_of("yeah okay thanks, really!! 🙂🙂 12345"), Vec::<String>::new());
        assert_eq!(terms_of(""), Vec::<String>::new());
    }

    #[test]
    fn cjk_runs_give_ngrams_and_function_characters_end_them() {
        assert_eq!(
            terms_of("天气预报"),
            ["天气", "天气预", "天气预报", "气预", "气预报", "预报"]
        );
        assert_eq!(terms_of("我的电脑"), ["电脑"]);
        assert_eq!(terms_of("雨, rust编译器"), ["雨", "rust", "编译", "编译器", "译器"]);
        assert_eq!(terms_of("编译器rust"), ["编译", "编译器", "译器", "rust"]);
    }

    #[test]
    fn greetings_and_conversational_phrases_are_not_terms() {
        assert_eq!(terms_of("你好！有什么可以帮你的？"), Vec::<String>::new());
        assert_eq!(terms_of("好"), Vec::<String>::new());
        assert_eq!(terms_of("谢谢，帮我写小说"), ["写小", "写小说", "小说"]);
    }

    #[test]
    fn long_tokens_are_dropped() {
        let blob = "a".repeat(MAX_TERM_BYTES + 1);
        assert_eq!(terms_of(&format!("{blob} tail")), ["tail"]);
        let edge = "b".repeat(MAX_TERM_BYTES);
        assert_eq!(terms_of(&edge), vec![edge.clone()]);
        assert_eq!(terms_of(&format!("_{}_", edge.to_uppercase())), vec![edge]);
    }

    #[test]
    fn case_folds_as_std_does_per_character() {
        assert_eq!(terms_of("İSTANBUL ΟΔΟΣ"), ["i\u{307}stanbul", "οδοσ"]);
    }
}
