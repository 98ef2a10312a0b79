//! Typed values read by hand from parsed JSON.
//!
//! Derived `Deserialize` impls are compiled once per input format, with a visitor per field
//! type: several KB of wasm for each type the core reads. These types are read instead from a
//! [`serde_json::Value`] (parsed once, by the one `Value` parser the core needs anyway) with
//! the helpers below, which build serde's own messages for a wrong type, a missing or unknown
//! field and a number out of range. Each reader's tests compare it with the derived impl it
//! replaces: the same input is accepted, with the same values, and refused with the same
//! message. Differences, on malformed input only: a shape error carries no position (JSON
//! syntax errors keep theirs), a repeated key is not an error (the last one counts), and a
//! document both invalid and misshapen reports the JSON error first.

use crate::session::Pins;
use serde_json::{Map, Value};
use std::fmt;

pub type Parsed<T> = Result<T, Bad>;

/// Input that could not be read, with serde_json's message for it: the same words, built by
/// the same rules as serde's `de::Error` methods and serde_json's `Display` of what it found,
/// without serde_json's error type (its codes, positions and I/O errors) in the wasm module.
#[derive(Debug, PartialEq)]
pub struct Bad(String);

impl Bad {
    pub fn custom(msg: impl Into<String>) -> Bad {
        Bad(msg.into())
    }

    /// `what` found where `expected` was wanted (`what` as [`found`] words it).
    pub fn invalid_value(what: &str, expected: &str) -> Bad {
        Bad(format!("invalid value: {what}, expected {expected}"))
    }

    pub fn invalid_length(n: usize, expected: &str) -> Bad {
        Bad(format!("invalid length {n}, expected {expected}"))
    }

    pub fn missing_field(key: &str) -> Bad {
        Bad(format!("missing field `{key}`"))
    }

    pub fn unknown_field(key: &str, keys: &[&str]) -> Bad {
        Bad(format!("unknown field `{key}`, {}", one_of(keys, "fields")))
    }

    pub fn unknown_variant(name: &str, names: &[&str]) -> Bad {
        Bad(format!("unknown variant `{name}`, {}", one_of(names, "variants")))
    }
}

impl fmt::Display for Bad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Bad {}

/// serde's list of the names it expected: `` expected `a` ``, `` expected `a` or `b` ``,
/// `` expected one of `a`, `b`, `c` ``, or `there are no …`.
fn one_of(names: &[&str], kind: &str) -> String {
    match names {
        [] => format!("there are no {kind}"),
        [a] => format!("expected `{a}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        _ => format!("expected one of `{}`", crate::turns::join(names, "`, `")),
    }
}

/// A value as serde_json's messages name it: `null`, ``boolean `true` ``, ``integer `3` ``,
/// ``floating point `1.5` ``, `string "x"`, `sequence`, `map`.
pub fn found(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => format!("integer `{u}`"),
            (None, Some(i)) => format!("integer `{i}`"),
            _ => format!(
                "floating point `{}`",
                zmij::Buffer::new().format(n.as_f64().unwrap_or_default())
            ),
        },
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "sequence".into(),
        Value::Object(_) => "map".into(),
    }
}

/// Reads a struct as a derived impl reads it from JSON text: from an object, the fields in
/// the object's order (`field` gets the position in `keys` of each known key, and its value;
/// an unknown key is an error when `deny_unknown`, as `#[serde(deny_unknown_fields)]`, and
/// skipped otherwise); from an array, the fields in the order of `keys`, of which the first
/// `required` must be there. A missing key is for the caller to handle ([`required`]).
pub fn object(
    v: Value,
    what: &'static str,
    keys: &'static [&'static str],
    required: usize,
    deny_unknown: bool,
    field: &mut dyn FnMut(usize, Value) -> Parsed<()>,
) -> Parsed<()> {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match keys.iter().position(|&key| key == k) {
                    Some(i) => field(i, v).map_err(|e| in_field(keys[i], e))?,
                    None if deny_unknown => return Err(Bad::unknown_field(&k, keys)),
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            let n = items.len();
            for (i, v) in items.into_iter().enumerate().take(keys.len()) {
                field(i, v).map_err(|e| in_field(keys[i], e))?;
            }
            if n < required {
                let expected = format!("{what} with {} elements", keys.len());
                return Err(Bad::invalid_length(n, &expected));
            }
            if n > keys.len() {
                return Err(Bad::custom("trailing characters"));
            }
        }
        other => return Err(invalid_type(&other, what)),
    }
    Ok(())
}

/// `e` with the path of the value it is about in front: `pins.tools: invalid type: …`,
/// `entries[2].id: …` (`key` is a field name or an index in brackets). The messages of
/// serde never start with a word followed by `: `, so a path is recognised by that.
pub fn in_field(key: &str, e: Bad) -> Bad {
    let msg = e.0;
    let sep = match msg.split_once(": ") {
        Some((path, _)) if !path.contains(' ') => {
            if path.starts_with('[') {
                ""
            } else {
                "."
            }
        }
        _ => ": ",
    };
    Bad(format!("{key}{sep}{msg}"))
}

/// The value of a field that must be present.
pub fn required<T>(v: Option<T>, key: &'static str) -> Parsed<T> {
    v.ok_or_else(|| Bad::missing_field(key))
}

/// An `Option`: `null` is `None`.
pub fn opt<T>(v: Value, parse: fn(Value) -> Parsed<T>) -> Parsed<Option<T>> {
    match v {
        Value::Null => Ok(None),
        v => parse(v).map(Some),
    }
}

/// The fields of a JSON object, taken out one by one.
pub struct Fields(Map<String, Value>);

impl Fields {
    pub fn of(v: Value, what: &'static str) -> Parsed<Fields> {
        match v {
            Value::Object(m) => Ok(Fields(m)),
            other => Err(invalid_type(&other, what)),
        }
    }

    /// An `Option` field: missing or `null` is `None`.
    pub fn opt<T>(&mut self, key: &str, parse: impl FnOnce(Value) -> Parsed<T>) -> Parsed<Option<T>> {
        match self.0.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => parse(v).map(Some).map_err(|e| in_field(key, e)),
        }
    }

    /// A field with a default: missing is the default (`null` is not).
    pub fn or_default<T: Default>(&mut self, key: &str, parse: impl FnOnce(Value) -> Parsed<T>) -> Parsed<T> {
        match self.0.remove(key) {
            None => Ok(T::default()),
            Some(v) => parse(v).map_err(|e| in_field(key, e)),
        }
    }

    /// A field that must be present.
    pub fn req<T>(&mut self, key: &'static str, parse: impl FnOnce(Value) -> Parsed<T>) -> Parsed<T> {
        match self.0.remove(key) {
            Some(v) => parse(v).map_err(|e| in_field(key, e)),
            None => Err(Bad::missing_field(key)),
        }
    }
}

pub fn invalid_type(v: &Value, expected: &str) -> Bad {
    Bad(format!("invalid type: {}, expected {expected}", found(v)))
}

pub fn string(v: Value) -> Parsed<String> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(invalid_type(&other, "a string")),
    }
}

pub fn boolean(v: Value) -> Parsed<bool> {
    v.as_bool().ok_or_else(|| invalid_type(&v, "a boolean"))
}

/// A non-negative integer, named `what` in errors.
pub fn unsigned(v: &Value, what: &'static str) -> Parsed<u64> {
    match (v.as_u64(), v.as_i64()) {
        (Some(n), _) => Ok(n),
        (None, Some(i)) => Err(Bad::invalid_value(&format!("integer `{i}`"), what)),
        _ => Err(invalid_type(v, what)),
    }
}

pub fn u64_of(v: Value) -> Parsed<u64> {
    unsigned(&v, "u64")
}

pub fn usize_of(v: Value) -> Parsed<usize> {
    narrow(unsigned(&v, "usize")?, "usize")
}

pub fn narrow<T: TryFrom<u64>>(n: u64, what: &'static str) -> Parsed<T> {
    T::try_from(n).map_err(|_| Bad::invalid_value(&format!("integer `{n}`"), what))
}

pub fn array(v: Value) -> Parsed<Vec<Value>> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(invalid_type(&other, "a sequence")),
    }
}

pub fn list<T>(v: Value, item: fn(Value) -> Parsed<T>) -> Parsed<Vec<T>> {
    let mut out = Vec::new();
    each(v, &mut |v| {
        out.push(item(v)?);
        Ok(())
    })?;
    Ok(out)
}

/// Calls `f` with every item of an array, in order, up to the first error (which gets the
/// item's index as its path). Not generic: `list` is compiled once per item type, this once.
fn each(v: Value, f: &mut dyn FnMut(Value) -> Parsed<()>) -> Parsed<()> {
    for (i, v) in array(v)?.into_iter().enumerate() {
        f(v).map_err(|e| in_field(&format!("[{i}]"), e))?;
    }
    Ok(())
}

pub fn strings(v: Value) -> Parsed<Vec<String>> {
    list(v, string)
}

/// A JSON object as a map from its keys (`HashMap`, `BTreeMap`).
pub fn map<M: FromIterator<(String, T)>, T>(v: Value, item: fn(Value) -> Parsed<T>) -> Parsed<M> {
    match v {
        Value::Object(m) => m.into_iter().map(|(k, v)| Ok((k, item(v)?))).collect(),
        other => Err(invalid_type(&other, "a map")),
    }
}

/// `[start, end]`.
pub fn pair(v: Value) -> Parsed<(u64, u64)> {
    const WHAT: &str = "a tuple of size 2";
    match &v {
        Value::Array(items) if items.len() == 2 => Ok((unsigned(&items[0], "u64")?, unsigned(&items[1], "u64")?)),
        Value::Array(items) if items.len() < 2 => Err(Bad::invalid_length(items.len(), WHAT)),
        Value::Array(_) => Err(Bad::custom("trailing characters")),
        other => Err(invalid_type(other, WHAT)),
    }
}

/// A number as `f64` (integers converted, as serde does).
pub fn f64_of(v: Value) -> Parsed<f64> {
    v.as_f64().ok_or_else(|| invalid_type(&v, "f64"))
}

/// Pins as their derived impl reads them: every key optional, unknown keys ignored.
pub fn pins(v: Value) -> Parsed<Pins> {
    let mut pins = Pins::default();
    object(
        v,
        "struct Pins",
        &["turnIds", "tools", "patterns"],
        0,
        false,
        &mut |k, v| {
            let list = strings(v)?;
            match k {
                0 => pins.turn_ids = list,
                1 => pins.tools = list,
                _ => pins.patterns = list,
            }
            Ok(())
        },
    )?;
    Ok(pins)
}

/// Helpers for the tests that compare the readers with the derived impls they replace.
#[cfg(test)]
pub mod testing {
    use super::Parsed;
    use serde_json::{json, Value};

    /// Every object in `v` with one field removed, or replaced by a value of another type.
    pub fn mutations(v: &Value) -> Vec<Value> {
        let odd = [
            json!(null),
            json!("x"),
            json!(-1),
            json!(1.5),
            json!(5_000_000_000u64),
            json!([1]),
            json!([1, 2, 3]),
            json!({}),
            json!(true),
            json!(0),
            json!(""),
            json!("fifo"),
            json!({"fifo": null}),
            json!({"fifo": 1}),
            json!({"a": null, "b": 2}),
        ];
        let mut out = Vec::new();
        match v {
            Value::Object(m) => {
                for k in m.keys() {
                    let mut gone = m.clone();
                    gone.remove(k);
                    out.push(Value::Object(gone));
                    for o in &odd {
                        let mut w = m.clone();
                        w.insert(k.clone(), o.clone());
                        out.push(Value::Object(w));
                    }
                    for inner in mutations(&m[k]) {
                        let mut w = m.clone();
                        w.insert(k.clone(), inner);
                        out.push(Value::Object(w));
                    }
                }
            }
            Value::Array(items) if !items.is_empty() => {
                for inner in mutations(&items[0]) {
                    let mut w = items.clone();
                    w[0] = inner;
                    out.push(Value::Array(w));
                }
            }
            _ => {}
        }
        out.extend(odd);
        out
    }

    /// The message without serde_json's position, and without the path of the value that
    /// the readers put in front ([`super::in_field`]; the derived impls give a position).
    pub fn message(e: impl std::fmt::Display) -> String {
        let s = e.to_string();
        let s = s.split(" at line ").next().unwrap_or("");
        match s.split_once(": ") {
            Some((path, rest)) if !path.contains(' ') => rest.to_string(),
            _ => s.to_string(),
        }
    }

    /// The derived impls also read a struct from an array of its fields in order; nothing
    /// writes that form, and the index does not accept it any more.
    pub fn arrays_as_structs<T, E: std::fmt::Display>(r: &Result<T, E>) -> bool {
        r.as_ref().is_err_and(|e| {
            let s = e.to_string();
            let s = s
                .split_once(": ")
                .filter(|(p, _)| !p.contains(' '))
                .map_or(s.as_str(), |(_, m)| m);
            s.starts_with("invalid type: sequence, expected struct")
        })
    }

    /// Checks a reader against the derived impl it replaces, on `v` and every mutation of it:
    /// the same value (as `show` prints them) or the same message (without position). Returns
    /// the number of cases compared.
    pub fn agree<A, B>(
        v: &Value,
        ours: impl Fn(Value) -> Parsed<A>,
        theirs: impl Fn(&str) -> Result<B, serde_json::Error>,
        show_ours: impl Fn(A) -> String,
        show_theirs: impl Fn(B) -> String,
    ) -> usize {
        let mut cases = 0;
        for m in mutations(v).into_iter().chain([v.clone()]) {
            let text = m.to_string();
            match (ours(m), theirs(&text)) {
                (Ok(a), Ok(b)) => assert_eq!(show_ours(a), show_theirs(b), "{text}"),
                (Err(a), Err(b)) => assert_eq!(message(a), message(b), "{text}"),
                (a, b) => panic!("{text}: ours {:?}, derived {:?}", a.map(|_| ()), b.map(|_| ())),
            }
            cases += 1;
        }
        cases
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Errors name the value they are about: a path of fields and indices.
    #[test]
    fn errors_carry_the_path_of_the_value() {
        let req = |v: Value| object(v, "struct X", &["pins"], 0, true, &mut |_, v| read_pins(v));
        fn read_pins(v: Value) -> Parsed<()> {
            pins(v).map(|_| ())
        }
        let e = req(json!({"pins": {"tools": ["a", 1]}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "pins.tools[1]: invalid type: integer `1`, expected a string"
        );
        let e = req(json!({"pins": {"turnIds": "x"}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "pins.turnIds: invalid type: string \"x\", expected a sequence"
        );
        let e = list(json!([{}, 3]), |v| Fields::of(v, "struct E").map(|_| ())).unwrap_err();
        assert_eq!(e.to_string(), "[1]: invalid type: integer `3`, expected struct E");
        let e = req(json!({"pins": 1})).unwrap_err();
        assert_eq!(e.to_string(), "pins: invalid type: integer `1`, expected struct Pins");
        assert_eq!(testing::message(e), "invalid type: integer `1`, expected struct Pins");
    }

    /// serde_json prints floats in errors itself: serde's own `Display` of
    /// `Unexpected::Float` (patched out, see vendor/README.md) is never used.
    #[test]
    fn float_messages_come_from_serde_json() {
        let e = serde_json::from_str::<usize>("1.5").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid type: floating point `1.5`, expected usize at line 1 column 3"
        );
        let e = serde_json::from_value::<String>(json!(-0.5)).unwrap_err();
        assert_eq!(e.to_string(), "invalid type: floating point `-0.5`, expected a string");
        assert_eq!(
            invalid_type(&json!(2.0), "usize").to_string(),
            "invalid type: floating point `2.0`, expected usize"
        );
        let e = serde_json::from_str::<bool>("1e300").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid type: floating point `1e+300`, expected a boolean at line 1 column 5"
        );
    }
}
