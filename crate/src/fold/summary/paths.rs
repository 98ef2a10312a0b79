//! File paths: absolute (`/a/b.c`), relative with a slash (`src/x.rs`), home and dot
//! relative (`~/x`, `./x`), Windows (`C:\x`), bare file names with a known extension
//! (`Cargo.toml`), each with an optional `:line[:col]`. It never treats a URL, a fraction or a
//! product name (`Node.js`) as a path.

use super::words::all_digits;

#[rustfmt::skip]
const KNOWN_EXT: &[&str] = &[
    "rs", "toml", "md", "mdx", "json", "jsonl", "json5", "yaml", "yml", "txt", "py", "pyi", "ipynb", "ts", "tsx",
    "js", "jsx", "mjs", "cjs", "go", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "sh", "bash",
    "zsh", "ps1", "html", "htm", "css", "scss", "sql", "lock", "xml", "csv", "tsv", "log", "ini", "cfg", "conf",
    "env", "swift", "vue", "svelte", "lua", "zig", "dart", "ex", "exs", "hs", "ml", "scala", "pdf", "png", "jpg",
    "jpeg", "gif", "svg", "webp", "mp3", "mp4", "wav", "zip", "gz", "tgz", "tar", "exe", "dll", "so", "dylib",
    "wasm", "proto", "graphql", "gradle", "plist", "db", "sqlite", "docx", "xlsx", "pptx", "patch", "diff",
];

/// `(stem, ext)` when the segment ends in a plausible extension.
fn split_ext(seg: &str) -> Option<(&str, &str)> {
    let (stem, ext) = seg.rsplit_once('.')?;
    let ok = !stem.is_empty()
        && (1..=8).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext.bytes().any(|b| b.is_ascii_alphabetic());
    ok.then_some((stem, ext))
}

/// Drops a `:line` or `:line:col` suffix.
fn strip_line_suffix(w: &str) -> &str {
    let mut s = w;
    for _ in 0..2 {
        match s.rsplit_once(':') {
            Some((head, tail)) if !tail.is_empty() && all_digits(tail) => s = head,
            _ => break,
        }
    }
    s
}

/// `/a/b.c`, `src/x.rs:42`, `~/x`, `./x`, `C:\x`, `Cargo.toml`.
pub(super) fn is_path(w: &str) -> bool {
    if w.len() < 3 || w.contains("://") || w.starts_with('-') {
        return false;
    }
    if !w.chars().all(|c| c.is_alphanumeric() || "/\\._-~@+%:#$".contains(c)) || !w.chars().any(char::is_alphabetic) {
        return false;
    }
    let b = w.as_bytes();
    if b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\' {
        return w.len() > 3;
    }
    let bare = strip_line_suffix(w);
    if bare.contains(':') {
        return false;
    }
    if bare.starts_with("~/") || bare.starts_with("./") || bare.starts_with("../") {
        return !bare.trim_start_matches(['.', '~', '/']).is_empty();
    }
    let slashes = bare.matches('/').count();
    let last = bare.rsplit_once('/').map_or(bare, |(_, l)| l);
    if let Some(rest) = bare.strip_prefix('/') {
        return !rest.is_empty() && !bare.contains("//") && (slashes >= 2 || split_ext(last).is_some());
    }
    if slashes >= 1 {
        let inner = bare.strip_suffix('/').unwrap_or(bare);
        return segments_filled(inner, '/') && (split_ext(last).is_some() || slashes >= 2);
    }
    if bare.contains('\\') {
        return segments_filled(bare, '\\') && split_ext(last).is_some();
    }
    match split_ext(bare) {
        Some((stem, ext)) => {
            let product = ext.eq_ignore_ascii_case("js") && stem.starts_with(|c: char| c.is_ascii_uppercase());
            KNOWN_EXT.iter().any(|x| x.eq_ignore_ascii_case(ext))
                && !product
                && stem.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        }
        None => false,
    }
}

/// Whether every `sep`-separated segment of `s` is non-empty.
fn segments_filled(s: &str, sep: char) -> bool {
    s.split(sep).all(|seg| !seg.is_empty())
}
