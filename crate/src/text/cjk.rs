//! Which characters belong to the scripts written without spaces between words (Chinese,
//! Japanese, and Korean hangul), and which characters and phrases of them carry no subject:
//! function characters, greetings, pronouns and conversational phrases ("你好", "什么",
//! "可以", "帮我").
//!
//! It classifies characters and looks phrases up; it never segments text (the tokenizer in
//! [`super::terms`] does) and never estimates tokens (`model::tokens` does, with [`is_cjk`]).

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
    "的了吗呢吧啊呀嗯哦是在和也都就我你您他她它们这那个很把被还又".contains(ch)
}

/// Single characters that are never a term on their own (a one-character message "好", "对"),
/// though they are part of words ("好看", "对象").
pub fn is_cjk_lone_filler(ch: char) -> bool {
    "好对行有没要会能想去来说看做让给请谢用嘛么哈呵啦哇喔".contains(ch)
}

/// Chinese phrases that say nothing about a subject: greetings and thanks, question words,
/// pronouns, connectives, requests for help and common adverbs. Sorted (for
/// [`stop_phrase_at`]'s binary search; a test checks the order), two to four characters.
#[rustfmt::skip]
pub const STOP_PHRASES: &[&str] = &[
    "一下", "一个", "一些", "一点", "一直", "一般", "一起", "不好意思", "不客气", "不是", "不错", "东西", "为什么",
    "之前", "之后", "之间", "也是", "什么", "他们", "以上", "以下", "以便", "以前", "以及", "以后", "但是", "你们",
    "你好", "使用", "例如", "关于", "其中", "其实", "其次", "再见", "别的", "包括", "另外", "只是", "可不可以",
    "可以", "可以的", "可是", "可能", "咱们", "哈哈", "哪个", "哪些", "哪里", "嗯嗯", "因为", "多少", "多谢",
    "大家好", "她们", "好吧", "好啊", "好的", "如何", "如果", "它们", "对不起", "对于", "对的", "将会", "已经",
    "希望", "帮你", "帮助", "帮忙", "帮我", "应该", "当然", "当然可以", "怎么", "怎么样", "怎样", "总之", "您好",
    "想要", "感谢", "我们", "或者", "所以", "抱歉", "时候", "是不是", "是的", "最后", "有没有", "有点", "有的",
    "本来", "比如", "比较", "没关系", "没有", "没问题", "然后", "然而", "特别", "现在", "用于", "的话", "真的",
    "知道", "等等", "而且", "能不能", "能够", "自己", "要不要", "觉得", "认为", "请问", "谢谢", "谢谢你", "谢谢您",
    "还是", "还有", "这个", "这么", "这些", "这样", "进行", "通过", "那个", "那么", "那些", "那样", "问题", "需要",
    "非常", "首先", "麻烦",
];

/// The length in characters of the longest [`STOP_PHRASES`] entry `chars` starts with; 0 if
/// none.
pub fn stop_phrase_at(chars: &[char]) -> usize {
    (2..=chars.len().min(4))
        .rev()
        .find(|&n| {
            STOP_PHRASES
                .binary_search(&String::from_iter(&chars[..n]).as_str())
                .is_ok()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_phrases_are_sorted_unique_and_short() {
        assert!(
            STOP_PHRASES.windows(2).all(|w| w[0] < w[1]),
            "{:?}",
            STOP_PHRASES.windows(2).find(|w| w[0] >= w[1])
        );
        assert!(STOP_PHRASES.iter().all(|p| (2..=4).contains(&p.chars().count())));
        assert!(STOP_PHRASES.iter().all(|p| p.chars().all(is_cjk_letter)));
    }

    #[test]
    fn the_longest_phrase_wins() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(stop_phrase_at(&chars("当然可以写")), 4);
        assert_eq!(stop_phrase_at(&chars("可以写")), 2);
        assert_eq!(stop_phrase_at(&chars("小说")), 0);
        assert_eq!(stop_phrase_at(&chars("你")), 0);
    }
}
