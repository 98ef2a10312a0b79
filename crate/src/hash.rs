//! The crate's hash maps and sets: rustc-hash's FxHash instead of std's SipHash (a multiply
//! and a rotate per word rather than SipHash's rounds at every lookup). Nothing the core
//! returns depends on the iteration order of these maps. It decides nothing else.

pub use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
