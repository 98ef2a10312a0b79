//! The layer rule: each top-level module of the crate refers only to modules of the layers
//! below it, never to a higher layer or to another module of its own layer. The order is
//! declared here and in the crate docs (`src/lib.rs`); this test reads `crate/src` and names
//! every `crate::<module>` reference that breaks it, with its file and line.
//!
//! What is checked is the shipped code: comment lines (doc links may point anywhere), a file's
//! test module (`#[cfg(test)] mod tests { .. }` at its end) and files that are test modules
//! (`#[cfg(test)] mod tests;`) are not: a test may drive higher layers to check what they write.

use std::fs;
use std::path::{Path, PathBuf};

/// Bottom to top. A module may refer to the modules of earlier lines only.
const LAYERS: &[&[&str]] = &[
    &["error", "config", "hash"],
    &["text"],
    &["model"],
    &["transcript"],
    &["clean"],
    &["fold"],
    &["wire"],
    &["session"],
    &["api"],
    &["wasm"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .flat_map(|p| match p.is_dir() {
            true => files(&p),
            false => vec![p],
        })
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    out.sort();
    out
}

/// The top-level module a file belongs to: `src/fold/planner.rs` is in `fold`, `src/wasm.rs`
/// in `wasm`; `None` for `src/lib.rs`.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(name) => Some(name.to_string()),
        None => Some(first),
    }
}

/// The modules named by `crate::` in one line of code: `crate::a::b` names `a`,
/// `crate::{a, b::c}` names `a` and `b`.
fn referenced(line: &str) -> Vec<String> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let preceded = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `contextfold_crate::` or `$crate::` are not this crate's paths.
        if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                out.extend(group.split(',').map(|p| ident(p.trim())).filter(|p| !p.is_empty()));
            }
            None => out.push(ident(rest)),
        }
    }
    out
}

/// Whether `file` is a module its parent declares under `#[cfg(test)]`.
fn test_only(file: &Path) -> bool {
    let stem = file.file_stem().unwrap().to_str().unwrap();
    let dir = file.parent().unwrap();
    let parents = [dir.join("mod.rs"), dir.with_extension("rs"), dir.join("lib.rs")];
    parents.iter().filter(|p| p.as_path() != file).any(|p| {
        let text = fs::read_to_string(p).unwrap_or_default();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        lines.windows(2).any(|w| {
            w[0] == "#[cfg(test)]"
                && w[1].strip_suffix(';').and_then(|d| d.rsplit(' ').next()) == Some(stem)
                && w[1].contains("mod ")
        })
    })
}

/// The lines of a file that are shipped code, numbered from 1: without comment lines and
/// without the test module at its end.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let tests = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].starts_with("mod ") && w[1].ends_with('{'))
        .unwrap_or(lines.len());
    lines[..tests]
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, *l))
        .collect()
}

/// `file:line: what is wrong` for every reference that breaks the order.
fn violations() -> Vec<String> {
    let mut out = Vec::new();
    for file in files(&src()) {
        let Some(module) = module_of(&file) else { continue };
        if test_only(&file) {
            continue;
        }
        let shown = file
            .strip_prefix(src().parent().unwrap())
            .unwrap()
            .display()
            .to_string();
        let Some(own) = layer_of(&module) else {
            out.push(format!("{shown}: module `{module}` is in no layer of tests/layers.rs"));
            continue;
        };
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in code_lines(&text) {
            for target in referenced(line) {
                if target == module {
                    continue;
                }
                let why = match layer_of(&target) {
                    None => format!("`crate::{target}` is not a module of a declared layer"),
                    Some(l) if l == own => format!("`{module}` refers to `{target}`, of its own layer"),
                    Some(l) if l > own => format!("`{module}` refers to `{target}`, a higher layer"),
                    Some(_) => continue,
                };
                out.push(format!("{shown}:{n}: {why}: {}", line.trim()));
            }
        }
    }
    out
}

#[test]
fn every_module_refers_only_to_lower_layers() {
    let v = violations();
    assert!(
        v.is_empty(),
        "{} references break the layer order:\n{}",
        v.len(),
        v.join("\n")
    );
}

#[test]
fn every_top_level_module_has_a_layer_and_every_layer_a_module() {
    let found: Vec<String> = files(&src()).iter().filter_map(|f| module_of(f)).collect();
    let mut missing: Vec<&str> = LAYERS
        .iter()
        .flat_map(|l| l.iter().copied())
        .filter(|m| !found.iter().any(|f| f == m))
        .collect();
    missing.dedup();
    assert!(missing.is_empty(), "layers name modules that do not exist: {missing:?}");
}

#[test]
fn references_are_read_from_paths_and_groups() {
    assert_eq!(referenced("use crate::fold::planner::{self, Assembled};"), ["fold"]);
    assert_eq!(
        referenced("use crate::{model::message, transcript};"),
        ["model", "transcript"]
    );
    assert_eq!(
        referenced("let x = crate::clean::gate::check(h) + crate::wire::to_json(&v);"),
        ["clean", "wire"]
    );
    assert!(referenced("$crate::x and my_crate::y").is_empty());
    let text = "use crate::model;\n// crate::wasm in a comment\nfn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::wasm;\n}\n";
    let code: Vec<usize> = code_lines(text).iter().map(|(n, _)| *n).collect();
    assert_eq!(code, [1, 3]);
    assert!(test_only(&src().join("session/tests.rs")));
    assert!(!test_only(&src().join("session/once.rs")));
}
