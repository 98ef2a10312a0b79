//! The crate's hash maps and sets: std's, with FxHash instead of SipHash.
//!
//! SipHash's rounds are inlined at every lookup and insert; FxHash is a multiply and a
//! rotate per word. Nothing the core returns depends on the iteration order of these maps.

use std::hash::{BuildHasherDefault, Hasher};

pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<FxHasher>>;

/// FxHash (the rustc hasher): fast on short keys, deterministic.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut tail = 0u64;
        for (k, &b) in chunks.remainder().iter().enumerate() {
            tail |= (b as u64) << (8 * k);
        }
        self.add(tail);
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    /// The product's high half folded into the low one: the table picks buckets with the
    /// low bits (32 of them in wasm), which a multiply alone leaves weak.
    #[inline]
    fn finish(&self) -> u64 {
        self.hash ^ (self.hash >> 32)
    }
}
