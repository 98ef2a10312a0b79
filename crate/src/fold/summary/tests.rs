//! Unit tests of the fact finders, the text hygiene and the shortening rules (the public
//! behaviour is tested in `crate/tests/summary.rs`).

use super::classify::{scan_text, Source};
use super::dates::is_date;
use super::errors::is_error_line;
use super::neutralise::{clean_inline, neutralise_line};
use super::paths::is_path;
use super::shorten::{cut_chars, shorten};
use super::stub::approx_count;
use super::Facts;

fn scanned(text: &str) -> Facts {
    let mut f = Facts::default();
    scan_text(text, Source::Prose, &mut f);
    f
}

#[test]
fn summary_paths() {
    for p in [
        "/a/b.c",
        "src/x.rs",
        "src/x.rs:42",
        "src/ledger.rs:42:9",
        "C:\\x\\y.txt",
        "~/notes",
        "Cargo.toml",
        "./run.sh",
        "/usr/bin/env",
    ] {
        assert!(is_path(p), "{p}");
    }
    for p in [
        "and/or",
        "e.g",
        "3.14",
        "/new",
        "Node.js",
        "https://x.io/a",
        "TCP/IP",
        "24/7",
        "v1.2.3",
    ] {
        assert!(!is_path(p), "{p}");
    }
}

#[test]
fn summary_dates() {
    let f = scanned("Met on 7 May 2023, then May 7, 2023 and 2026-11-30T05:02Z; also 7th of May and June 2024.");
    assert_eq!(
        f.dates,
        vec![
            "7 May 2023",
            "May 7, 2023",
            "2026-11-30T05:02Z",
            "7th of May",
            "June 2024"
        ]
    );
    let f = scanned("我在2023年5月7日去了，5月8日回来。");
    assert_eq!(f.dates, vec!["2023年5月7日", "5月8日"]);
    assert!(!is_date("1234-56-78"));
    assert!(is_date("30/11/2026"));
}

#[test]
fn summary_numbers() {
    let f = scanned("It cost $12.50, took 840 tokens and 100ms, 3 failed, 11 passed, 0 ignored, 42% done, 1,200 rows, 1 2 3, 3.5GB, v1.2.3, 花了500元 3小时");
    assert_eq!(
        f.numbers,
        vec![
            "$12.50",
            "840 tokens",
            "100ms",
            "3 failed",
            "11 passed",
            "42%",
            "1,200 rows",
            "3.5GB",
            "v1.2.3",
            "500元",
            "3小时"
        ]
    );
}

#[test]
fn summary_identifiers_and_names() {
    let f = scanned(
        "Then Caroline met Jordan Smith at the LGBTQ center. Call `open_position_value` via ledger::Cents, \
         getUserId, commit 080fb7e, id 2f1e8c4a-1b2c-4d5e-8f90-1234567890ab, toolu_01ABC and PROJ-123.",
    );
    assert_eq!(f.names, vec!["Caroline", "Jordan Smith", "LGBTQ"]);
    assert_eq!(
        f.identifiers,
        vec![
            "open_position_value",
            "ledger::Cents",
            "getUserId",
            "080fb7e",
            "2f1e8c4a-1b2c-4d5e-8f90-1234567890ab",
            "toolu_01ABC",
            "PROJ-123"
        ]
    );
}

#[test]
fn summary_error_lines() {
    assert!(is_error_line("error[E0308]: mismatched types"));
    assert!(is_error_line("thread 'main' panicked at src/main.rs:3:5:"));
    assert!(is_error_line("test result: FAILED. 11 passed; 1 failed"));
    assert!(is_error_line("Process exited with code 2"));
    assert!(is_error_line("编译失败"));
    assert!(!is_error_line("test result: ok. 12 passed; 0 failed; 0 ignored"));
    assert!(!is_error_line("use crate::error::Error;"));
    assert!(!is_error_line("exit code 0"));
}

#[test]
fn summary_neutralises_template_tokens() {
    let s = clean_inline("a <|im_start|>system [INST] x [/INST] </s> <system> <<SYS>>");
    assert!(
        !s.contains("<|") && !s.contains("[INST]") && !s.contains("</") && !s.contains("<system"),
        "{s}"
    );
    assert!(!s.contains("<<SYS>>"), "{s}");
    assert_eq!(neutralise_line("System: hi"), "> System: hi");
}

#[test]
fn summary_shorten_keeps_closing_question() {
    let long = format!(
        "{} Want me to migrate the importer too?",
        "This sentence is filler. ".repeat(20)
    );
    let s = shorten(&long, 120);
    assert!(s.chars().count() <= 120, "{s}");
    assert!(s.ends_with("Want me to migrate the importer too?"), "{s}");
    assert_eq!(cut_chars("héllo wörld", 3), "hé…");
}

#[test]
fn summary_approx_counts() {
    assert_eq!(approx_count(840), "840");
    assert_eq!(approx_count(8_400), "8.4k");
    assert_eq!(approx_count(84_000), "84k");
    assert_eq!(approx_count(1_250_000), "1.3M");
}
