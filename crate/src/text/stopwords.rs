//! Which words say nothing about a subject: English stopwords and conversational fillers.
//!
//! It decides membership only; it never lowercases or splits text (the tokenizer in
//! [`super::terms`] asks about words it has already lowercased).

/// English stopwords and conversational fillers, lowercase, sorted (for [`is_stopword`]'s
/// binary search; a test checks the order).
#[rustfmt::skip]
pub const STOPWORDS: &[&str] = &[
    "about", "above", "actually", "after", "again", "against", "all", "also", "am", "an", "and", "any", "anything",
    "are", "aren", "as", "at", "awesome", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "cool", "could", "couldn", "did", "didn", "do", "does", "doesn", "doing", "don", "done",
    "down", "during", "each", "even", "ever", "few", "for", "from", "further", "get", "gets", "getting", "go",
    "going", "gonna", "good", "got", "great", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "hello",
    "her", "here", "hers", "herself", "hey", "hi", "him", "himself", "his", "hmm", "how", "however", "if", "im", "in",
    "into", "is", "isn", "it", "its", "itself", "just", "know", "let", "like", "ll", "lol", "make", "maybe", "me",
    "might", "more", "most", "much", "must", "my", "myself", "nice", "no", "nor", "not", "now", "of", "off", "oh",
    "ok", "okay", "on", "once", "one", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
    "please", "pretty", "re", "really", "right", "said", "same", "say", "see", "she", "should", "shouldn", "so",
    "some", "something", "still", "such", "sure", "than", "thank", "thanks", "that", "the", "their", "theirs", "them",
    "themselves", "then", "there", "these", "they", "thing", "things", "think", "this", "those", "through", "to",
    "too", "uh", "um", "under", "until", "up", "us", "ve", "very", "want", "was", "wasn", "way", "we", "well", "were",
    "weren", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "won", "would",
    "wouldn", "yeah", "yes", "yet", "you", "your", "yours", "yourself", "yourselves",
];

/// Whether `word` (already lowercased) is one of [`STOPWORDS`].
pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_unique_and_lowercase() {
        assert!(
            STOPWORDS.windows(2).all(|w| w[0] < w[1]),
            "STOPWORDS sorted, no repeats"
        );
        assert!(STOPWORDS
            .iter()
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())));
        assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
    }

    #[test]
    fn only_listed_lowercase_words_are_stopwords() {
        assert!(is_stopword("the") && is_stopword("yourselves") && is_stopword("about"));
        assert!(!is_stopword("weather") && !is_stopword("") && !is_stopword("yourselvesx"));
        assert!(!is_stopword("thé") && !is_stopword("the_") && !is_stopword("The"));
    }
}
