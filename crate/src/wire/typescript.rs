//! Test helpers that read the TypeScript written next to the wire types, to compare it with
//! what serde reads and writes.

use serde_json::Value;

/// All of the core's TypeScript, as the `.d.ts` gets it.
pub fn all() -> String {
    [
        super::TYPESCRIPT,
        crate::config::TYPESCRIPT,
        super::clean::TYPESCRIPT,
        super::assemble::TYPESCRIPT,
        super::transcript::TYPESCRIPT,
        super::prune::TYPESCRIPT,
        super::rules::TYPESCRIPT,
    ]
    .concat()
}

/// The fields of `export interface <name> { ... }` in `ts`, in order, each with whether it is
/// required (no `?`). Panics when there is no such interface.
pub fn fields(ts: &str, name: &str) -> Vec<(String, bool)> {
    let head = format!("export interface {name} {{\n");
    let start = ts.find(&head).unwrap_or_else(|| panic!("no interface {name}")) + head.len();
    let body = &ts[start..start + ts[start..].find("\n}").expect("a closing brace")];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("/*") && !l.starts_with('*'))
        .map(|l| {
            let key = l.split(':').next().unwrap_or_default();
            match key.strip_suffix('?') {
                Some(k) => (k.to_string(), false),
                None => (key.to_string(), true),
            }
        })
        .collect()
}

/// Checks that a written value's keys are the fields of interface `name`: each key is one of
/// them and each required field is there.
pub fn check(name: &str, v: &Value) {
    let ts = all();
    let fields = fields(&ts, name);
    let obj = v.as_object().unwrap_or_else(|| panic!("{name}: not an object: {v}"));
    for k in obj.keys() {
        assert!(
            fields.iter().any(|(f, _)| f == k),
            "{name} has no field {k} (written: {v})"
        );
    }
    for (f, required) in &fields {
        assert!(
            !required || obj.contains_key(f),
            "{name}.{f} is required but not written: {v}"
        );
    }
}

/// The fields a request type accepts, as its `deny_unknown_fields` error lists them.
pub fn accepted<T: serde::de::DeserializeOwned + std::fmt::Debug>() -> Vec<String> {
    let e = serde_json::from_str::<T>(r#"{"?": 0}"#).unwrap_err().to_string();
    let list = e.split("expected ").nth(1).unwrap_or_else(|| panic!("{e}"));
    let list = list.split(" at line").next().unwrap_or_default();
    list.split(['`', ',', ' '])
        .filter(|w| !w.is_empty() && *w != "or" && *w != "one" && *w != "of")
        .map(str::to_string)
        .collect()
}

/// Checks that interface `name` has exactly the fields request `T` accepts, in order, each
/// required exactly when `T` requires it (the `{}` document names its first missing field).
pub fn check_request<T: serde::de::DeserializeOwned + std::fmt::Debug>(name: &str) {
    let ts = all();
    let fields = fields(&ts, name);
    let keys: Vec<&String> = fields.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, accepted::<T>().iter().collect::<Vec<_>>(), "fields of {name}");
    let first_required = fields.iter().find(|(_, r)| *r).map(|(k, _)| k.clone());
    let missing = serde_json::from_str::<T>("{}")
        .err()
        .map(|e| e.to_string())
        .and_then(|e| e.split('`').nth(1).map(str::to_string));
    assert_eq!(missing, first_required, "first required field of {name}");
}
