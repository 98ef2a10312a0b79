//! Which characters belong to the scripts written without spaces between words (Chinese,
//! Japanese, and Korean hangul), and which of them are function characters.
//!
//! It classifies single characters; it never segments text (the tokenizer in [`super::terms`]
//! does) and never estimates tokens (`model::tokens` does, with [`is_cjk`]).

/// CJK ideographs and punctuation, kana, bopomofo, hangul syllables and full-width forms: the
/// characters the token estimate counts at the CJK rate.
pub fn is_cjk(ch: char) -> bool {
    matches!(ch as u32,
        0x2E80..=0x2FDF      // radicals
        | 0x3000..=0x303F    // CJK punctuation
        | 0x3040..=0x30FF    // hiragana, katakana
        | 0x3100..=0x31BF    // bopomofo
        | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF    // extension A
        | 0x4E00..=0x9FFF    // unified ideographs
        | 0xAC00..=0xD7AF    // hangul syllables
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xFF00..=0xFFEF    // full-width forms
        | 0x20000..=0x2FA1F) // extensions B–F
}

/// Han ideographs, kana and hangul, without punctuation: the letters of scripts written
/// without spaces between words (hangul has spaces, but n-grams of its syllables still work).
/// The tokenizer makes character n-grams of their runs.
pub fn is_cjk_letter(ch: char) -> bool {
    matches!(ch as u32,
        0x1100..=0x11FF      // hangul jamo
        | 0x3040..=0x309F    // hiragana
        | 0x30A0..=0x30FA    // katakana (without the middle dot)
        | 0x30FC..=0x30FF
        | 0x3130..=0x318F    // hangul compatibility jamo
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // hangul syllables
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0x20000..=0x2FA1F) // extensions B–F
}

/// Chinese particles and pronouns: they end a run instead of forming n-grams with their
/// neighbours ("我的电脑" gives "电脑", not "我的" and "的电").
pub fn is_cjk_stop(ch: char) -> bool {
    matches!(
        ch,
        '的' | '了'
            | '吗'
            | '呢'
            | '吧'
            | '啊'
            | '呀'
            | '嗯'
            | '哦'
            | '是'
            | '在'
            | '和'
            | '也'
            | '都'
            | '就'
            | '我'
            | '你'
            | '您'
            | '他'
            | '她'
            | '它'
            | '们'
            | '这'
            | '那'
            | '个'
            | '很'
            | '把'
            | '被'
            | '还'
            | '又'
    )
}
