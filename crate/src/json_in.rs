//! JSON text to [`serde_json::Value`], parsed by hand.
//!
//! Every request reaches the core as JSON text. `serde_json::from_str::<Value>` drives its
//! parser through serde's visitor machinery (a visitor per kind of value, seeds, error
//! positions fixed up afterwards) and its own float tables: about 9 KB of the gzipped wasm
//! module. This parser builds the same `Value` directly. It follows serde_json 1.0's parser
//! step by step, so that it accepts exactly the same documents, gives exactly the same values
//! (numbers included: `u64`, then `i64`, then `f64` from serde_json's own significand and
//! power-of-ten arithmetic; `-0` is the float `-0.0`; a repeated key keeps its first place
//! and its last value) and refuses the others with the same message at the same line and
//! column. The tests compare the two on real sessions and on thousands of mutated documents.

use crate::read::Bad;
use serde_json::{Map, Number, Value};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
pub fn parse(text: &str) -> Result<Value, Bad> {
    let mut p = Parser {
        text,
        b: text.as_bytes(),
        i: 0,
        depth: 128,
    };
    let v = p.value()?;
    match p.ws() {
        Some(_) => Err(p.peek_err("trailing characters")),
        None => Ok(v),
    }
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    /// Nesting left before "recursion limit exceeded" (serde_json's limit of 128).
    depth: u8,
}

type R<T> = Result<T, Bad>;

impl Parser<'_> {
    /// An error at byte `at`, with serde_json's line and column (column: bytes since the line
    /// start).
    fn err_at(&self, msg: &str, at: usize) -> Bad {
        let before = &self.b[..at];
        let line_start = before.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
        let line = 1 + before[..line_start].iter().filter(|&&c| c == b'\n').count();
        Bad::custom(format!("{msg} at line {line} column {}", at - line_start))
    }

    /// An error about the byte just read.
    fn err(&self, msg: &str) -> Bad {
        self.err_at(msg, self.i)
    }

    /// An error about the byte about to be read.
    fn peek_err(&self, msg: &str) -> Bad {
        self.err_at(msg, (self.i + 1).min(self.b.len()))
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// The next byte, 0 at the end.
    fn peek_or_null(&self) -> u8 {
        self.peek().unwrap_or(0)
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        if c.is_some() {
            self.i += 1;
        }
        c
    }

    /// Skips whitespace; the next byte, not consumed.
    fn ws(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
        self.peek()
    }

    fn value(&mut self) -> R<Value> {
        let Some(c) = self.ws() else {
            return Err(self.peek_err("EOF while parsing a value"));
        };
        Ok(match c {
            b'n' => self.ident(b"null", Value::Null)?,
            b't' => self.ident(b"true", Value::Bool(true))?,
            b'f' => self.ident(b"false", Value::Bool(false))?,
            b'-' => {
                self.i += 1;
                self.integer(false)?
            }
            b'0'..=b'9' => self.integer(true)?,
            b'"' => {
                self.i += 1;
                Value::String(self.string()?)
            }
            b'[' | b'{' => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Err(self.peek_err("recursion limit exceeded"));
                }
                self.i += 1;
                let v = if c == b'[' { self.array() } else { self.object() };
                self.depth += 1;
                v?
            }
            _ => return Err(self.peek_err("expected value")),
        })
    }

    /// The rest of a literal whose first byte was peeked.
    fn ident(&mut self, word: &[u8], v: Value) -> R<Value> {
        self.i += 1;
        for &want in &word[1..] {
            match self.next() {
                None => return Err(self.err("EOF while parsing a value")),
                Some(c) if c != want => return Err(self.err("expected ident")),
                Some(_) => {}
            }
        }
        Ok(v)
    }

    /// After `[`: the elements and the closing `]`.
    fn array(&mut self) -> R<Value> {
        let mut items = Vec::new();
        loop {
            let Some(c) = self.ws() else {
                return Err(self.peek_err("EOF while parsing a list"));
            };
            if c == b']' {
                break;
            }
            if !items.is_empty() {
                if c != b',' {
                    return Err(self.peek_err("expected `,` or `]`"));
                }
                self.i += 1;
                match self.ws() {
                    Some(b']') => return Err(self.peek_err("trailing comma")),
                    Some(_) => {}
                    None => return Err(self.peek_err("EOF while parsing a value")),
                }
            }
            items.push(self.value()?);
        }
        self.i += 1;
        Ok(Value::Array(items))
    }

    /// After `{`: the members and the closing `}`.
    fn object(&mut self) -> R<Value> {
        let mut map = Map::new();
        let mut first = true;
        loop {
            let Some(c) = self.ws() else {
                return Err(self.peek_err("EOF while parsing an object"));
            };
            if c == b'}' {
                break;
            }
            let key_next = if first {
                first = false;
                c == b'"'
            } else if c == b',' {
                self.i += 1;
                match self.ws() {
                    Some(b'"') => true,
                    Some(b'}') => return Err(self.peek_err("trailing comma")),
                    Some(_) => false,
                    None => return Err(self.peek_err("EOF while parsing a value")),
                }
            } else {
                return Err(self.peek_err("expected `,` or `}`"));
            };
            if !key_next {
                return Err(self.peek_err("key must be a string"));
            }
            self.i += 1;
            let key = self.string()?;
            match self.ws() {
                Some(b':') => self.i += 1,
                Some(_) => return Err(self.peek_err("expected `:`")),
                None => return Err(self.peek_err("EOF while parsing an object")),
            }
            let v = self.value()?;
            map.insert(key, v);
        }
        self.i += 1;
        Ok(Value::Object(map))
    }

    /// After the opening quote: the string's contents and the closing quote.
    fn string(&mut self) -> R<String> {
        let mut out = String::new();
        let mut start = self.i;
        loop {
            let run = self.b[self.i..]
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20);
            let Some(run) = run else {
                self.i = self.b.len();
                return Err(self.err("EOF while parsing a string"));
            };
            self.i += run;
            // The byte at `i` is ASCII, so `start..i` lies on character boundaries.
            out.push_str(&self.text[start..self.i]);
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.i += 1;
                    self.escape(&mut out)?;
                    start = self.i;
                }
                _ => {
                    self.i += 1;
                    return Err(self.err("control character (\\u0000-\\u001F) found while parsing a string"));
                }
            }
        }
    }

    /// After a backslash: one escape sequence, appended to `out`.
    fn escape(&mut self, out: &mut String) -> R<()> {
        let Some(c) = self.next() else {
            return Err(self.err("EOF while parsing a string"));
        };
        out.push(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\x08',
            b'f' => '\x0c',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(out),
            _ => return Err(self.err("invalid escape")),
        });
        Ok(())
    }

    /// After `\u`: a code point, or a surrogate pair as two escapes.
    fn unicode_escape(&mut self, out: &mut String) -> R<()> {
        let n = self.hex4()?;
        let n = match n {
            0xDC00..=0xDFFF => return Err(self.err("lone leading surrogate in hex escape")),
            0xD800..=0xDBFF => {
                for want in [b'\\', b'u'] {
                    match self.peek() {
                        None => return Err(self.err("EOF while parsing a string")),
                        Some(c) => {
                            self.i += 1;
                            if c != want {
                                return Err(self.err("unexpected end of hex escape"));
                            }
                        }
                    }
                }
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.err("lone leading surrogate in hex escape"));
                }
                (((n - 0xD800) << 10) | (low - 0xDC00)) + 0x1_0000
            }
            n => n,
        };
        // Surrogates are handled above: every other value is a character.
        out.push(char::from_u32(n).unwrap_or('\u{fffd}'));
        Ok(())
    }

    /// Four hex digits.
    fn hex4(&mut self) -> R<u32> {
        let Some(digits) = self.b.get(self.i..self.i + 4) else {
            self.i = self.b.len();
            return Err(self.err("EOF while parsing a string"));
        };
        self.i += 4;
        let mut n = 0;
        for &d in digits {
            match (d as char).to_digit(16) {
                Some(v) => n = n * 16 + v,
                None => return Err(self.err("invalid escape")),
            }
        }
        Ok(n)
    }

    /// A number, after its sign if negative.
    fn integer(&mut self, positive: bool) -> R<Value> {
        let Some(c) = self.next() else {
            return Err(self.err("EOF while parsing a value"));
        };
        let mut significand = match c {
            b'0' => {
                if self.peek_or_null().is_ascii_digit() {
                    return Err(self.peek_err("invalid number"));
                }
                0
            }
            b'1'..=b'9' => u64::from(c - b'0'),
            _ => return Err(self.err("invalid number")),
        };
        if c != b'0' {
            while let c @ b'0'..=b'9' = self.peek_or_null() {
                let digit = u64::from(c - b'0');
                if overflows(significand, digit) {
                    let f = self.long_integer(positive, significand)?;
                    return Ok(float(f));
                }
                self.i += 1;
                significand = significand * 10 + digit;
            }
        }
        Ok(match self.peek_or_null() {
            b'.' => float(self.decimal(positive, significand, 0)?),
            b'e' | b'E' => float(self.exponent(positive, significand, 0)?),
            _ if positive => Value::Number(Number::from(significand)),
            _ => {
                let neg = (significand as i64).wrapping_neg();
                // A float on underflow, and for `-0`.
                if neg >= 0 {
                    float(-(significand as f64))
                } else {
                    Value::Number(Number::from(neg))
                }
            }
        })
    }

    /// An integer part too long for a `u64`: its further digits only scale it.
    fn long_integer(&mut self, positive: bool, significand: u64) -> R<f64> {
        let mut exponent = 0;
        loop {
            match self.peek_or_null() {
                b'0'..=b'9' => {
                    self.i += 1;
                    exponent += 1;
                }
                b'.' => return self.decimal(positive, significand, exponent),
                b'e' | b'E' => return self.exponent(positive, significand, exponent),
                _ => return self.scaled(positive, significand, exponent),
            }
        }
    }

    /// At `.`: the fraction, then an exponent if any.
    fn decimal(&mut self, positive: bool, mut significand: u64, before_point: i32) -> R<f64> {
        self.i += 1;
        let mut after_point = 0;
        while let c @ b'0'..=b'9' = self.peek_or_null() {
            let digit = u64::from(c - b'0');
            if overflows(significand, digit) {
                // Further digits are ignored.
                while self.peek_or_null().is_ascii_digit() {
                    self.i += 1;
                }
                let exponent = before_point + after_point;
                return match self.peek_or_null() {
                    b'e' | b'E' => self.exponent(positive, significand, exponent),
                    _ => self.scaled(positive, significand, exponent),
                };
            }
            self.i += 1;
            significand = significand * 10 + digit;
            after_point -= 1;
        }
        if after_point == 0 {
            return Err(match self.peek() {
                Some(_) => self.peek_err("invalid number"),
                None => self.peek_err("EOF while parsing a value"),
            });
        }
        let exponent = before_point + after_point;
        match self.peek_or_null() {
            b'e' | b'E' => self.exponent(positive, significand, exponent),
            _ => self.scaled(positive, significand, exponent),
        }
    }

    /// At `e` or `E`: the exponent.
    fn exponent(&mut self, positive: bool, significand: u64, start: i32) -> R<f64> {
        self.i += 1;
        let positive_exp = match self.peek_or_null() {
            b'+' => {
                self.i += 1;
                true
            }
            b'-' => {
                self.i += 1;
                false
            }
            _ => true,
        };
        let mut exp = match self.next() {
            None => return Err(self.err("EOF while parsing a value")),
            Some(c @ b'0'..=b'9') => i32::from(c - b'0'),
            Some(_) => return Err(self.err("invalid number")),
        };
        while let c @ b'0'..=b'9' = self.peek_or_null() {
            self.i += 1;
            let digit = i32::from(c - b'0');
            if exp >= i32::MAX / 10 && (exp > i32::MAX / 10 || digit > i32::MAX % 10) {
                // Out of range: an error, or zero for a negative exponent or a zero number.
                if significand != 0 && positive_exp {
                    return Err(self.err("number out of range"));
                }
                while self.peek_or_null().is_ascii_digit() {
                    self.i += 1;
                }
                return Ok(if positive { 0.0 } else { -0.0 });
            }
            exp = exp * 10 + digit;
        }
        let exponent = if positive_exp {
            start.saturating_add(exp)
        } else {
            start.saturating_sub(exp)
        };
        self.scaled(positive, significand, exponent)
    }

    /// `significand × 10^exponent`, as serde_json computes it (one multiplication or division
    /// by a power of ten from its table; very small values divided by 1e308 first).
    fn scaled(&self, positive: bool, significand: u64, mut exponent: i32) -> R<f64> {
        let mut f = significand as f64;
        loop {
            match pow10(exponent.unsigned_abs() as usize) {
                Some(pow) => {
                    if exponent >= 0 {
                        f *= pow;
                        if f.is_infinite() {
                            return Err(self.err("number out of range"));
                        }
                    } else {
                        f /= pow;
                    }
                    break;
                }
                None => {
                    if f == 0.0 {
                        break;
                    }
                    if exponent >= 0 {
                        return Err(self.err("number out of range"));
                    }
                    f /= 1e308;
                    exponent += 308;
                }
            }
        }
        Ok(if positive { f } else { -f })
    }
}

/// Whether `significand * 10 + digit` overflows a `u64`.
fn overflows(significand: u64, digit: u64) -> bool {
    significand >= u64::MAX / 10 && (significand > u64::MAX / 10 || digit > u64::MAX % 10)
}

/// A parsed float as a value (`null` if it is not finite, which the parser never returns).
fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// 10^n rounded to the nearest `f64` (what the literal `1eN` is), for n up to 308.
///
/// serde_json keeps these in a 2.4 KB table, which gzip cannot shrink. Up to 10^22 they are
/// exact products of tens; beyond, each is rounded from the exact integer once, when first
/// needed (floats written with large exponents are rare in messages), and remembered.
fn pow10(n: usize) -> Option<f64> {
    static LARGE: [AtomicU64; 309 - 23] = [const { AtomicU64::new(0) }; 309 - 23];
    if n <= 22 {
        return Some((0..n).fold(1.0, |f, _| f * 10.0));
    }
    let slot = LARGE.get(n - 23)?;
    let known = slot.load(Relaxed);
    if known != 0 {
        return Some(f64::from_bits(known));
    }
    let f = rounded_pow10(n);
    slot.store(f.to_bits(), Relaxed);
    Some(f)
}

/// 10^n computed exactly in 64-bit limbs, then rounded to nearest, ties to even: its top 64
/// bits, with a 1 in the lowest of them if any bit below is set (so that the conversion to
/// `f64`, which keeps 53, rounds as the whole number would), scaled by a power of two.
fn rounded_pow10(n: usize) -> f64 {
    let mut limbs: Vec<u64> = vec![1];
    for _ in 0..n {
        let mut carry = 0u128;
        for l in limbs.iter_mut() {
            let v = u128::from(*l) * 10 + carry;
            *l = v as u64;
            carry = v >> 64;
        }
        if carry != 0 {
            limbs.push(carry as u64);
        }
    }
    let k = limbs.len();
    let (hi, next) = (limbs[k - 1], if k >= 2 { limbs[k - 2] } else { 0 });
    let lz = hi.leading_zeros();
    let (top, below) = if lz == 0 {
        (hi, next)
    } else {
        ((hi << lz) | (next >> (64 - lz)), next << lz)
    };
    let sticky = below != 0 || limbs[..k.saturating_sub(2)].iter().any(|&l| l != 0);
    let shift = (k as u64 - 1) * 64 - u64::from(lz);
    (top | u64::from(sticky)) as f64 * f64::from_bits((shift + 1023) << 52)
}

#[cfg(test)]
mod tests {
    use super::parse;
    use serde_json::Value;

    /// `parse` and serde_json agree on `text`: the same value (floats to the bit) or the same
    /// error message, line and column included.
    fn agree(text: &str) {
        let ours = parse(text);
        let theirs = serde_json::from_str::<Value>(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{text:?}");
                assert_eq!(bits(a), bits(b), "{text:?}");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
            _ => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    /// Every number's float bits and the keys in order (`==` on values ignores the sign of
    /// zero and the key order).
    fn bits(v: &Value) -> String {
        match v {
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => format!("u{u}"),
                (_, Some(i), _) => format!("i{i}"),
                (_, _, f) => format!("f{:x}", f.unwrap_or(f64::NAN).to_bits()),
            },
            Value::Array(a) => a.iter().map(bits).collect::<Vec<_>>().join(","),
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| format!("{k}={}", bits(v)))
                .collect::<Vec<_>>()
                .join(","),
            other => other.to_string(),
        }
    }

    const NUMBERS: &[&str] = &[
        "0",
        "-0",
        "1",
        "-1",
        "01",
        "-01",
        "00",
        "1.",
        "1.5",
        "-1.5",
        ".5",
        "-",
        "+1",
        "1e",
        "1e+",
        "1e-",
        "1E5",
        "1e+5",
        "1e-5",
        "0e0",
        "-0.0",
        "0.000",
        "1.5e-7",
        "5e-324",
        "2e-324",
        "1e-400",
        "-1e-400",
        "1e308",
        "1.7976931348623157e308",
        "1.8e308",
        "1e309",
        "-1e309",
        "1e22",
        "1e23",
        "9007199254740993",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "123456789012345678901234567890.5e-3",
        "1234567890123456789012.345",
        "0.12345678901234567890123456789",
        "1e2147483647",
        "1e2147483648",
        "1e-2147483648",
        "0e99999999999",
        "-0e99999999999",
        "1e-99999999999",
        "1e99999999999",
        "12345678901234567890e-400",
        "1.0e2",
        "100.0",
        "1e0001",
        "2.5E-3",
        "1ee5",
        "1e5.5",
        "1.5.5",
        "--1",
        "-a",
        "1x",
        "1 2",
        "0x10",
        "Infinity",
        "NaN",
        "4.9406564584124654e-324",
        "2.2250738585072011e-308",
        "0.1",
        "0.30000000000000004",
    ];

    #[test]
    fn numbers() {
        for n in NUMBERS {
            agree(n);
            agree(&format!("[{n}]"));
            agree(&format!("{{\"a\":{n}}}"));
            agree(&format!(" {n} \n"));
        }
        for e in -420..=420 {
            agree(&format!("7e{e}"));
            agree(&format!("-123456789.987654321e{e}"));
            agree(&format!("0.000000000000000000000000000001234567890123456789e{e}"));
        }
    }

    const DOCS: &[&str] = &[
        "",
        " ",
        "null",
        "nul",
        "nulx",
        "true",
        "tru",
        "false",
        "fals3",
        "[]",
        "[ ]",
        "[1,]",
        "[1 2]",
        "[,1]",
        "[1,,2]",
        "[",
        "[1",
        "[1,",
        "]",
        "{}",
        "{ }",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{\"a\":1 \"b\":2}",
        "{a:1}",
        "{1:1}",
        "{\"a\":1,\"a\":2,\"b\":3}",
        "{\"b\":1,\"a\":2}",
        "{\"a\"",
        "{\"a\":",
        "{\"a\":1",
        "{\"a\":1,",
        "{\"a\":1,}",
        "{,}",
        "\"abc\"",
        "\"abc",
        "\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"",
        "\"\\u0041\\u00e9\\u4e2d\"",
        "\"\\ud83d\\ude00\"",
        "\"\\ud83d\"",
        "\"\\ud83dx\"",
        "\"\\ud83d\\n\"",
        "\"\\ud83d\\u0041\"",
        "\"\\ude00\"",
        "\"\\u12\"",
        "\"\\u12",
        "\"\\u12g4\"",
        "\"\\x\"",
        "\"\\",
        "\"a\u{1}b\"",
        "\"tab\there\"",
        "\"é中😀\"",
        "\"\\u0000\"",
        "[1]x",
        "[1] ",
        "\n\n  [1,\n  2,\n  x]",
        "{\"a\":[{\"b\":null,\"c\":[true,false,\"x\"]}],\"d\":-2.5e3}",
    ];

    /// Every power of ten the parser scales by is the float the literal `1eN` is.
    #[test]
    fn powers_of_ten_are_correctly_rounded() {
        for n in 0..=308 {
            let want: f64 = format!("1e{n}").parse().unwrap();
            assert_eq!(super::pow10(n).map(f64::to_bits), Some(want.to_bits()), "1e{n}");
            assert_eq!(
                super::pow10(n).map(f64::to_bits),
                Some(want.to_bits()),
                "1e{n}, remembered"
            );
        }
        assert_eq!(super::pow10(309), None);
        assert_eq!(super::pow10(2_147_483_648), None);
    }

    #[test]
    fn documents() {
        for d in DOCS {
            agree(d);
        }
    }

    #[test]
    fn nesting_limit() {
        for depth in [126, 127, 128, 129, 200] {
            agree(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            agree(&format!("{}1{}", "[".repeat(depth), "]".repeat(depth)));
            agree(&"{\"a\":".repeat(depth));
            agree(&format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)));
        }
    }

    /// Real messages, and every document one edit away from them: each prefix, and each byte
    /// deleted or replaced by one of the bytes that matter to the grammar.
    #[test]
    fn real_lines_and_their_mutations() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/");
        let mut lines = Vec::new();
        for f in ["session.jsonl", "multitopic.jsonl"] {
            let text = std::fs::read_to_string(format!("{root}{f}")).unwrap();
            lines.extend(text.lines().map(str::to_string));
        }
        assert!(lines.len() > 50);
        for line in &lines {
            agree(line);
        }
        let mut edits = 0;
        for line in lines.iter().filter(|l| l.len() < 700).take(12) {
            let b = line.as_bytes();
            for i in 0..b.len() {
                if line.is_char_boundary(i) {
                    agree(&line[..i]);
                    let rest = &line[i..];
                    let next = rest.chars().next().map_or(0, char::len_utf8);
                    agree(&format!("{}{}", &line[..i], &rest[next..]));
                    for c in [
                        "\"", "\\", ",", "]", "}", "{", "[", ":", "0", "-", "e", ".", " ", "\n", "u", "n", "\u{1}",
                    ] {
                        agree(&format!("{}{c}{}", &line[..i], &rest[next..]));
                        edits += 1;
                    }
                }
            }
        }
        assert!(edits > 10_000, "{edits}");
    }

    #[test]
    fn printed_as_serde_json_prints() {
        let mut docs: Vec<String> = DOCS.iter().chain(NUMBERS).map(|s| s.to_string()).collect();
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/session.jsonl");
        docs.extend(std::fs::read_to_string(root).unwrap().lines().map(str::to_string));
        docs.push("[1e300,-0.0,0.1,5e-324,18446744073709551615,-9223372036854775808,1.0,-1e-7,123.456]".into());
        let mut printed = 0;
        for d in docs {
            if let Ok(v) = parse(&d) {
                assert_eq!(
                    crate::json_out::to_string(&v),
                    serde_json::to_string(&v).unwrap(),
                    "{d:?}"
                );
                printed += 1;
            }
        }
        assert!(printed > 50);
    }
}
