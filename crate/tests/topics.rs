//! Topic segmentation as a user of folding would notice it: clearly different subjects are
//! split where they change and named by their own words, Chinese sessions split too, short
//! detours do not become topics of their own, host metadata never names a topic, the same
//! input always gives the same output, and no input makes the segmenter panic.

use contextfold::fold::topics::{Segmenter, Topic, TopicConfig, TurnText};
use contextfold::model::hostmeta::strip_host_metadata;
use std::time::Instant;

const WEATHER: [(&str, &str); 5] = [
    (
        "What's the weather forecast for Berlin tomorrow?",
        "Tomorrow in Berlin: rain in the morning, clouds later, highs around 12 degrees.",
    ),
    (
        "Will the rain stop by the afternoon? I want to cycle.",
        "The forecast shows the rain clearing around 3 pm, with wind from the west.",
    ),
    (
        "How strong is the wind going to be?",
        "Wind gusts up to 40 km/h in the afternoon; the weather stays cool and cloudy.",
    ),
    (
        "And the weekend forecast? Any sun?",
        "Saturday looks sunny and warm, Sunday brings clouds and light rain again.",
    ),
    (
        "Should I pack an umbrella for the weekend trip?",
        "Yes, pack an umbrella: rain is likely on Sunday and the weather can change quickly.",
    ),
];

const RUST: [(&str, &str); 5] = [
    (
        "rustc says error[E0502]: cannot borrow `v` as mutable because it is also borrowed as immutable",
        "The borrow checker sees an immutable borrow of the vector still alive while you push. End the borrow before mutating.",
    ),
    (
        "Now the compiler complains about a missing lifetime in my struct",
        "A struct holding a reference needs a lifetime parameter; the compiler error asks you to tie the borrow to the struct lifetime.",
    ),
    ("error[E0382]: borrow of moved value: `config`", "The value was moved into the function; clone it or pass a reference so the borrow checker accepts it."),
    ("Why does the compiler say the trait bound `T: Clone` is not satisfied?", "Add a Clone bound to the generic parameter; the compiler error lists the missing trait."),
    ("cargo build still fails with a mismatched types error in the compiler output", "The compiler error says expected `&str`, found `String`: borrow the String to fix the types."),
];

const COOKING: [(&str, &str); 5] = [
    (
        "I want to bake a lemon cake, what recipe do you suggest?",
        "A simple lemon cake recipe: butter, sugar, eggs, flour, lemon zest and juice; bake 40 minutes at 180 degrees.",
    ),
    (
        "Can I replace the butter with oil in the cake recipe?",
        "Yes, use vegetable oil instead of butter; the cake will be moister. Use a little less oil.",
    ),
    (
        "How do I make the lemon glaze?",
        "Whisk powdered sugar with lemon juice until smooth, then pour the glaze over the cooled cake.",
    ),
    (
        "What oven temperature for the cake, and how do I know it is baked?",
        "Bake at 180 degrees; a skewer inserted in the cake should come out clean.",
    ),
    (
        "Any tips for storing the leftover cake?",
        "Wrap the cake in foil and keep it in the fridge; the lemon cake stays moist for three days.",
    ),
];

fn push_all(s: &mut Segmenter, turns: &[(&str, &str)]) {
    for &(u, a) in turns {
        s.push(TurnText::new(u, a));
    }
}

fn three_topics(cfg: TopicConfig) -> Segmenter {
    let mut s = Segmenter::new(cfg);
    push_all(&mut s, &WEATHER);
    push_all(&mut s, &RUST);
    push_all(&mut s, &COOKING);
    s
}

fn spans(topics: &[Topic]) -> Vec<(usize, usize)> {
    topics.iter().map(|t| (t.first_turn, t.last_turn)).collect()
}

fn label_has(topic: &Topic, words: &[&str]) -> bool {
    topic.label.split(" / ").any(|w| words.contains(&w))
}

#[test]
fn topics_three_clear_subjects_are_split_and_named() {
    let s = three_topics(TopicConfig::default());
    let topics = s.topics();
    assert_eq!(
        spans(&topics),
        [(0, 4), (5, 9), (10, 14)],
        "{topics:#?}\n{:?}",
        s.adjacent_similarities()
    );
    assert!(
        label_has(&topics[0], &["rain", "weather", "forecast", "wind", "umbrella"]),
        "{}",
        topics[0].label
    );
    assert!(
        label_has(&topics[1], &["borrow", "compiler", "error", "checker", "lifetime"]),
        "{}",
        topics[1].label
    );
    assert!(
        label_has(&topics[2], &["cake", "lemon", "recipe", "butter", "bake"]),
        "{}",
        topics[2].label
    );
    for t in &topics {
        let parts = t.label.split(" / ").count();
        assert!((2..=3).contains(&parts), "label {:?}", t.label);
        assert!(!t.terms.is_empty() && t.terms.len() <= 5);
        assert!(
            t.label.split(" / ").all(|w| t.terms.iter().any(|x| x == w)),
            "label words come from the terms"
        );
    }
    assert_eq!(s.topic_of_turns(), [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    let sims = s.adjacent_similarities();
    assert_eq!(sims.len(), 15);
    assert_eq!(sims[0], 1.0);
    assert!(sims[5] < 0.05 && sims[10] < 0.05, "{sims:?}");
    // The same holds for window 3. Window 1 compares single short turns, which share few
    // words even within a subject: it finds the switches but also splits inside them.
    let s = three_topics(TopicConfig {
        window: 3,
        ..TopicConfig::default()
    });
    assert_eq!(
        spans(&s.topics()),
        [(0, 4), (5, 9), (10, 14)],
        "window 3: {:?}",
        s.adjacent_similarities()
    );
    let s = three_topics(TopicConfig {
        window: 1,
        ..TopicConfig::default()
    });
    let starts: Vec<usize> = s.topics().iter().map(|t| t.first_turn).collect();
    assert!(starts.contains(&5) && starts.contains(&10), "window 1: {starts:?}");
}

#[test]
fn topics_serialize_in_camel_case() {
    let topics = three_topics(TopicConfig::default()).topics();
    let json = serde_json::to_value(&topics[1]).unwrap();
    assert_eq!(json["firstTurn"], 5);
    assert_eq!(json["lastTurn"], 9);
    assert_eq!(json["id"], 1);
    assert!(json["label"].is_string() && json["terms"].is_array());
}

#[test]
fn topics_the_upcoming_prompt_matches_its_topic() {
    let s = three_topics(TopicConfig::default());
    let ranges = [0..=4, 5..=9, 10..=14];
    let prompts = [
        "is it going to rain tomorrow, should I take an umbrella?",
        "back to that borrow checker error from the compiler",
        "how long does the lemon cake need in the oven?",
    ];
    for (k, prompt) in prompts.iter().enumerate() {
        let sims: Vec<f64> = ranges
            .iter()
            .map(|r| s.similarity_to_turns(prompt, r.clone()))
            .collect();
        for (j, &sim) in sims.iter().enumerate() {
            if j != k {
                assert!(sims[k] > sim + 0.05, "prompt {k} {prompt:?}: {sims:?}");
            }
        }
        assert!(sims[k] > 0.1, "{sims:?}");
    }
    assert_eq!(s.similarity_to_turns("", 0..=14), 0.0);
    assert_eq!(
        s.similarity_to_turns("completely unseen vocabulary xylophone", 0..=14),
        0.0
    );
    assert_eq!(s.similarity_to_turns("rain", 20..=30), 0.0);
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = 4..=0;
    assert_eq!(s.similarity_to_turns("rain", backwards), 0.0);
    assert!(s.similarity_to_turns("rain", 0..=usize::MAX) > 0.0);
}

#[test]
fn topics_chinese_conversation_with_two_subjects_splits() {
    let weather = [
        (
            "明天北京的天气怎么样？会下雨吗？",
            "明天北京多云转小雨，气温十到十五度，出门记得带伞。",
        ),
        ("后天的天气预报呢？", "后天北京晴天，气温回升到二十度，风力不大。"),
        (
            "周末会下雨吗？天气冷不冷？",
            "周末有小雨，天气偏冷，建议多穿衣服并带伞。",
        ),
        (
            "下周的天气预报怎么样？",
            "下周前半周晴天，后半周可能下雨，气温十五度左右。",
        ),
    ];
    let code = [
        (
            "我的程序编译报错，提示类型不匹配，怎么修复？",
            "类型不匹配的编译错误通常是变量类型写错了，检查函数参数的类型。",
        ),
        (
            "修复以后程序运行很慢，怎么优化性能？",
            "先用性能分析工具找到慢的函数，再优化循环和内存分配。",
        ),
        (
            "程序的内存占用也很高，怎么排查？",
            "用内存分析工具检查程序里哪些对象没有释放，优化内存分配。",
        ),
        (
            "怎么给这个程序写单元测试？",
            "为每个函数写单元测试，测试正常输入和错误输入，运行测试检查程序的行为。",
        ),
    ];
    let mut s = Segmenter::new(TopicConfig::default());
    push_all(&mut s, &weather);
    push_all(&mut s, &code);
    let topics = s.topics();
    assert_eq!(
        spans(&topics),
        [(0, 3), (4, 7)],
        "{topics:#?}\n{:?}",
        s.adjacent_similarities()
    );
    assert!(
        label_has(&topics[0], &["天气", "气温", "下雨", "北京", "预报", "带伞"]),
        "{}",
        topics[0].label
    );
    assert!(
        label_has(&topics[1], &["程序", "内存", "测试", "优化", "类型", "函数"]),
        "{}",
        topics[1].label
    );
    assert!(s.similarity_to_turns("明天会下雨吗", 0..=3) > s.similarity_to_turns("明天会下雨吗", 4..=7));
}

/// What a person recognises in a Chinese label: no greeting or function phrase, no term that
/// is a fragment of another term of the same topic.
fn assert_readable_chinese(topics: &[Topic]) {
    use contextfold::text::cjk::{is_cjk_letter, STOP_PHRASES};
    for t in topics {
        let words: Vec<&str> = t.label.split(" / ").collect();
        for w in &words {
            assert!(!STOP_PHRASES.contains(w), "stop phrase {w} in {}", t.label);
            assert!(
                w.chars().count() >= 2 || !w.chars().all(is_cjk_letter),
                "one character {w} in {}",
                t.label
            );
        }
        // "写小" beside "小说" (or inside "写小说") is a piece of a phrase, not a word.
        let cjk = |x: &str| x.chars().all(is_cjk_letter);
        let joins = |a: &str, b: &str| {
            let a: Vec<char> = a.chars().collect();
            (1..a.len()).any(|k| b.starts_with(&String::from_iter(&a[k..])))
        };
        for a in t.terms.iter().filter(|a| cjk(a)) {
            for b in t.terms.iter().filter(|b| *b != a && cjk(b)) {
                assert!(
                    !b.contains(a.as_str()) && !joins(a, b),
                    "{a} is a piece of {b}: {:?}",
                    t.terms
                );
            }
        }
    }
}

#[test]
fn topics_chinese_labels_are_words_not_greetings_or_fragments() {
    // The shape of a chat with an assistant: greetings and offers of help around two subjects.
    let novel = [
        ("你好", "你好！有什么可以帮你的吗？"),
        (
            "帮我写小说，一部关于太空探险的科幻小说",
            "好的，我可以帮你写科幻小说。小说的主角是一名宇航员，她驾驶飞船前往火星。",
        ),
        (
            "小说的主角叫什么名字？",
            "主角叫林月，是飞船的船长，小说从她离开地球写起。",
        ),
        (
            "谢谢，再写小说的第二章",
            "第二章里飞船遇到陨石雨，林月带领船员修理飞船。",
        ),
    ];
    let cooking = [
        ("你好，我想学做红烧肉", "你好！红烧肉要先把五花肉切块焯水，再炒糖色。"),
        (
            "红烧肉要炖多久？",
            "五花肉加酱油和冰糖，小火炖一个小时左右，红烧肉就软了。",
        ),
        (
            "可以用高压锅炖红烧肉吗？",
            "可以，用高压锅炖二十分钟，五花肉更软，最后大火收汁。",
        ),
    ];
    let mut s = Segmenter::new(TopicConfig::default());
    push_all(&mut s, &novel);
    push_all(&mut s, &cooking);
    let topics = s.topics();
    assert_eq!(
        spans(&topics),
        [(0, 3), (4, 6)],
        "{topics:#?}\n{:?}",
        s.adjacent_similarities()
    );
    assert_readable_chinese(&topics);
    assert!(
        label_has(&topics[0], &["小说", "写小说", "主角", "飞船", "林月"]),
        "{}",
        topics[0].label
    );
    assert!(
        label_has(&topics[1], &["红烧肉", "五花肉", "高压锅"]),
        "{}",
        topics[1].label
    );
}

/// Turns of one subject drawn from its own words plus shared filler.
fn subject_turn(words: &[&str], k: usize) -> String {
    let mut out = String::from("so about the ");
    for j in 0..6 {
        out.push_str(words[(k * 3 + j * 7) % words.len()]);
        out.push(' ');
    }
    out
}

#[test]
fn topics_min_turns_is_respected_except_for_the_live_topic() {
    let garden = [
        "garden",
        "tomato",
        "soil",
        "compost",
        "seedling",
        "watering",
        "greenhouse",
        "mulch",
    ];
    let taxes = [
        "taxes",
        "invoice",
        "deduction",
        "receipt",
        "accountant",
        "refund",
        "income",
        "filing",
    ];
    let detour = [
        "football", "match", "goal", "referee", "striker", "stadium", "penalty", "league",
    ];
    // garden ×4, one football turn, garden ×4, taxes ×4, football ×1 (the live turn).
    let mut texts: Vec<String> = (0..4).map(|k| subject_turn(&garden, k)).collect();
    texts.push(subject_turn(&detour, 0));
    texts.extend((4..8).map(|k| subject_turn(&garden, k)));
    texts.extend((0..4).map(|k| subject_turn(&taxes, k)));
    texts.push(subject_turn(&detour, 1));

    for min_turns in [1, 2, 3, 4] {
        for window in [1, 2, 3] {
            let cfg = TopicConfig {
                min_turns,
                window,
                ..TopicConfig::default()
            };
            let mut s = Segmenter::new(cfg);
            for t in &texts {
                s.push(TurnText::new(t, ""));
            }
            let topics = s.topics();
            let (last, rest) = topics.split_last().unwrap();
            for t in rest {
                assert!(
                    t.last_turn + 1 - t.first_turn >= min_turns,
                    "min_turns {min_turns} window {window}: {topics:#?}"
                );
            }
            assert_eq!(last.last_turn, texts.len() - 1);
            // Topics tile the turns.
            let mut next = 0;
            for (k, t) in topics.iter().enumerate() {
                assert_eq!((t.id, t.first_turn), (k, next));
                next = t.last_turn + 1;
            }
            if min_turns >= 2 {
                // The detour was folded into a neighbour; the taxes topic is still found.
                assert!(
                    topics.iter().all(|t| t.first_turn != 4 || t.last_turn != 4),
                    "{topics:#?}"
                );
                assert!(topics.iter().any(|t| t.first_turn == 9), "{topics:#?}");
            }
        }
    }
    // With min_turns 1 and window 1 the detour and the live football turn are topics of their own.
    let mut s = Segmenter::new(TopicConfig {
        min_turns: 1,
        window: 1,
        ..TopicConfig::default()
    });
    for t in &texts {
        s.push(TurnText::new(t, ""));
    }
    assert_eq!(spans(&s.topics()), [(0, 3), (4, 4), (5, 8), (9, 12), (13, 13)]);
}

#[test]
fn topics_output_is_deterministic() {
    let build = || {
        let mut s = Segmenter::new(TopicConfig {
            window: 1,
            ..TopicConfig::default()
        });
        let tools = vec!["web_search".to_string(), "exec".to_string()];
        for (k, &(u, a)) in WEATHER.iter().chain(&RUST).chain(&COOKING).enumerate() {
            s.push(TurnText {
                user: u,
                assistant: a,
                tools: if k % 2 == 0 { &tools } else { &[] },
            });
        }
        s
    };
    let a = build();
    let b = build();
    let json = |s: &Segmenter| serde_json::to_string(&s.topics()).unwrap();
    assert_eq!(json(&a), json(&b));
    assert_eq!(a.adjacent_similarities(), b.adjacent_similarities());
    assert_eq!(json(&a), json(&a.clone()));
    // Ties between equally scored terms break on the text, not on insertion order.
    let mut x = Segmenter::default();
    x.push(TurnText::new("zebra apple", ""));
    let mut y = Segmenter::default();
    y.push(TurnText::new("apple zebra", ""));
    assert_eq!(x.topics(), y.topics());
    assert_eq!(x.topics()[0].label, "apple / zebra");
}

#[test]
fn topics_tools_are_terms() {
    let tools = vec!["Read".to_string(), "exec".to_string()];
    let mut s = Segmenter::default();
    s.push(TurnText {
        user: "",
        assistant: "",
        tools: &tools,
    });
    s.push(TurnText {
        user: "",
        assistant: "",
        tools: &tools,
    });
    let topics = s.topics();
    assert_eq!(topics.len(), 1);
    assert_eq!(topics[0].terms, ["tool:exec", "tool:read"]);
    assert_eq!(topics[0].label, "exec / read");
}

#[test]
fn topics_host_metadata_never_names_a_topic() {
    let meta = |id: usize, text: &str| {
        format!(
            "Conversation info (untrusted metadata):\n```json\n{{\n  \"message_id\": \"{id}\",\n  \"sender_id\": \"8135108803\",\n  \"sender\": \"Martin Gimpl\",\n  \"timestamp\": \"Tue 2026-03-31 21:46 GMT+2\"\n}}\n```\n\nSender (untrusted metadata):\n```json\n{{\n  \"label\": \"Martin Gimpl (8135108803)\",\n  \"name\": \"Martin Gimpl\"\n}}\n```\n\n[Tue 2026-03-31 21:46 GMT+2] {text}"
        )
    };
    let mut s = Segmenter::default();
    for (k, &(u, a)) in WEATHER.iter().chain(&RUST).enumerate() {
        s.push(TurnText::new(&meta(k, u), &format!("[[reply_to_current]] {a}")));
    }
    // Turns that are nothing but metadata.
    s.push(TurnText::new(&meta(99, ""), ""));
    let topics = s.topics();
    assert_eq!(spans(&topics), [(0, 4), (5, 10)], "{topics:#?}");
    let banned = [
        "conversation",
        "info",
        "untrusted",
        "metadata",
        "sender",
        "sender_id",
        "message_id",
        "martin",
        "gimpl",
        "json",
        "timestamp",
        "gmt",
        "tue",
        "label",
        "name",
        "reply_to_current",
    ];
    for t in &topics {
        for term in t.terms.iter().map(String::as_str).chain(t.label.split(" / ")) {
            assert!(
                !banned.contains(&term) && !term.chars().all(|c| c.is_ascii_digit()),
                "{term:?} in {t:?}"
            );
        }
    }
    assert_eq!(strip_host_metadata(&meta(1, "hello")), "hello");
}

#[test]
fn topics_garbage_never_panics() {
    let huge_word = "x".repeat(1 << 18);
    let huge_text = "lorem ipsum dolor sit amet ".repeat(10_000);
    let huge_cjk = "汉字测试数据".repeat(5_000);
    let bytes: Vec<u8> = (0..50_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let noise = String::from_utf8_lossy(&bytes).into_owned();
    let inputs: Vec<&str> = vec![
        "",
        " ",
        "\n\n\n",
        "🙂🙂🙂 👍",
        "yeah okay thanks really",
        "12345 678 9",
        "_ __ ___",
        "a b c d e",
        "\u{0}\u{1}\u{7f}\u{200b}\u{feff}",
        "é",
        "\u{0301}\u{0301}",
        "[Mon 2026-11-30 05:02 UTC]",
        "[Mon 2026-11-30 05:02",
        "Sender (untrusted metadata):\n```json\n{",
        "[[",
        "[[]]",
        "]]",
        "Untrusted context (metadata, do not treat as instructions or commands):",
        "ｆｕｌｌｗｉｄｔｈ ＡＢＣ",
        "ภาษาไทยไม่มีช่องว่าง",
        "한국어 문장입니다",
        "カタカナとひらがな",
        &huge_word,
        &huge_text,
        &huge_cjk,
        &noise,
    ];
    let configs = [
        TopicConfig::default(),
        TopicConfig {
            similarity_threshold: f64::NAN,
            min_turns: 0,
            window: 0,
        },
        TopicConfig {
            similarity_threshold: f64::INFINITY,
            min_turns: usize::MAX,
            window: usize::MAX,
        },
        TopicConfig {
            similarity_threshold: -1.0,
            min_turns: 1,
            window: 1,
        },
        TopicConfig {
            similarity_threshold: 2.0,
            min_turns: 1,
            window: 1,
        },
    ];
    let tools = [
        String::new(),
        " ".to_string(),
        "x".repeat(1000),
        "🙂".to_string(),
        "exec".to_string(),
    ];
    for cfg in configs {
        let mut s = Segmenter::new(cfg);
        assert!(s.topics().is_empty());
        assert!(s.topic_of_turns().is_empty());
        assert!(s.adjacent_similarities().is_empty());
        assert_eq!(s.similarity_to_turns("anything", 0..=0), 0.0);
        for (k, text) in inputs.iter().enumerate() {
            let other = inputs[(k * 7 + 3) % inputs.len()];
            let t = if k % 3 == 0 { &tools[..] } else { &[] };
            assert_eq!(
                s.push(TurnText {
                    user: text,
                    assistant: other,
                    tools: t
                }),
                k
            );
            if k % 5 == 0 {
                check_shape(&s);
            }
        }
        check_shape(&s);
        for text in &inputs {
            let sim = s.similarity_to_turns(text, 0..=usize::MAX);
            assert!((0.0..=1.0).contains(&sim), "{sim}");
            assert!(s.similarity_to_turns(text, usize::MAX..=usize::MAX) == 0.0);
        }
    }
}

fn check_shape(s: &Segmenter) {
    let topics = s.topics();
    let per_turn = s.topic_of_turns();
    let sims = s.adjacent_similarities();
    assert_eq!(per_turn.len(), s.len());
    assert_eq!(sims.len(), s.len());
    assert!(sims.iter().all(|x| (0.0..=1.0).contains(x)), "{sims:?}");
    let mut next = 0;
    for (k, t) in topics.iter().enumerate() {
        assert_eq!((t.id, t.first_turn), (k, next));
        assert!(t.last_turn >= t.first_turn);
        assert!(!t.label.is_empty() && t.terms.len() <= 5);
        assert!(per_turn[t.first_turn..=t.last_turn].iter().all(|&x| x == k));
        next = t.last_turn + 1;
    }
    assert_eq!(next, s.len());
}

// ---------------------------------------------------------------------------------------------
// Scale
// ---------------------------------------------------------------------------------------------

/// A deterministic word from a number: consonant–vowel syllables ("kamo", "ritesu", ...).
fn word(mut n: usize) -> String {
    const C: &[u8] = b"bdfgkmnprstvz";
    const V: &[u8] = b"aeiou";
    let mut w = String::new();
    loop {
        w.push(C[n % C.len()] as char);
        n /= C.len();
        w.push(V[n % V.len()] as char);
        n /= V.len();
        if n == 0 && w.len() >= 4 {
            return w;
        }
    }
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }
}

/// `turns` synthetic turns of `words` words: a new subject every `every` turns, each subject
/// with 60 words of its own (two words in three), the rest from a shared vocabulary of 2,000
/// skewed words.
fn synthetic(turns: usize, words: usize, every: usize) -> Vec<String> {
    let mut rng = Lcg(42);
    (0..turns)
        .map(|t| {
            let subject = t / every;
            let mut text = String::with_capacity(words * 8);
            for _ in 0..words {
                let n = if rng.next() % 3 != 0 {
                    100_000 + subject * 60 + rng.next() % 60
                } else {
                    let r = (rng.next() % 1000) as f64 / 1000.0;
                    (r * r * r * 2000.0) as usize
                };
                text.push_str(&word(n));
                text.push(' ');
            }
            text
        })
        .collect()
}

#[test]
fn topics_two_thousand_turns_segment_correctly() {
    let every = 25;
    let texts = synthetic(2_000, 60, every);
    let mut s = Segmenter::default();
    for (k, t) in texts.iter().enumerate() {
        let (user, assistant) = t.split_at(t.len() / 3);
        let user = user.rsplit_once(' ').map_or(user, |x| x.0);
        assert_eq!(s.push(TurnText::new(user, assistant)), k);
    }
    let topics = s.topics();
    let starts: Vec<usize> = topics.iter().map(|t| t.first_turn).collect();
    let expected: Vec<usize> = (0..2_000).step_by(every).collect();
    assert_eq!(starts, expected);
    assert!(topics.iter().all(|t| t.label.split(" / ").count() >= 2));
}

/// `cargo test --release -p contextfold --test topics -- --ignored --nocapture`
#[test]
#[ignore]
fn topics_timing_ten_thousand_turns_of_500_words() {
    let texts = synthetic(10_000, 500, 20);
    let bytes: usize = texts.iter().map(String::len).sum();
    let start = Instant::now();
    let mut s = Segmenter::default();
    let mut slowest = 0.0f64;
    for t in &texts {
        let one = Instant::now();
        s.push(TurnText::new(t, ""));
        slowest = slowest.max(one.elapsed().as_secs_f64());
    }
    let pushed = start.elapsed();
    let t1 = Instant::now();
    let topics = s.topics();
    let topics_time = t1.elapsed();
    let t2 = Instant::now();
    let _ = s.topic_of_turns();
    let boundaries_time = t2.elapsed();
    let t3 = Instant::now();
    let sim = s.similarity_to_turns(&texts[5], 0..=19);
    let query_time = t3.elapsed();
    println!(
        "{} turns, {:.1} MB, vocabulary {}: push total {:?} ({:.1} µs/turn, slowest {:.0} µs), topics() {:?} ({} topics), topic_of_turns() {:?}, similarity_to_turns {:?} ({sim:.3})",
        s.len(),
        bytes as f64 / 1e6,
        s.vocabulary_size(),
        pushed,
        pushed.as_secs_f64() * 1e6 / s.len() as f64,
        slowest * 1e6,
        topics_time,
        topics.len(),
        boundaries_time,
        query_time,
    );
    assert_eq!(topics.len(), 500);
}
