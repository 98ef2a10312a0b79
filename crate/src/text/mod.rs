//! Text as the core reads it for meaning: which characters are CJK ([`cjk`]), which words are
//! stopwords ([`stopwords`]), and the terms a text is made of ([`terms`]: words lowercased as
//! `char::to_lowercase` does, CJK character n-grams).
//!
//! It knows nothing of messages, turns or topics (it is below `model`), never weighs terms and
//! keeps no state between calls.

pub mod cjk;
pub mod stopwords;
pub mod terms;
