//! Seeds (docs/rules.md R1.4, R9.1), bit for bit as the Python engine derives them
//! (`xuezhan.engine.seeds`): the tests compare the two over thousands of seeds.

use blake2::digest::{Update, VariableOutput};
use blake2::Blake2bVar;
use sha2::{Digest, Sha256};

/// The key `random.Random(seed)` seeds its Mersenne Twister with: `abs(seed)` in 32-bit words,
/// least significant first (one zero word for 0).
///
/// ```
/// use xuezhan_core::hand::seeds::random_key;
/// assert_eq!(random_key(1), vec![1]);
/// assert_eq!(random_key(-(1i128 << 32)), vec![0, 1]);
/// ```
pub fn random_key(seed: i128) -> Vec<u32> {
    let mut n = seed.unsigned_abs();
    let mut words = vec![(n & 0xffff_ffff) as u32];
    n >>= 32;
    while n != 0 {
        words.push((n & 0xffff_ffff) as u32);
        n >>= 32;
    }
    words
}

/// A 63-bit seed from a base seed and labels: BLAKE2b (8-byte digest) of
/// `"base:label:label…"`, read little-endian, shifted right by one bit.
///
/// ```
/// use xuezhan_core::hand::seeds::derive_seed;
/// assert_ne!(derive_seed(7, &["wall", "3"]), derive_seed(8, &["wall", "3"]));
/// ```
pub fn derive_seed(base: i128, parts: &[&str]) -> u64 {
    let mut blob = base.to_string();
    for p in parts {
        blob.push(':');
        blob.push_str(p);
    }
    let mut h = Blake2bVar::new(8).expect("8 is a valid BLAKE2b digest size");
    h.update(blob.as_bytes());
    let mut out = [0u8; 8];
    h.finalize_variable(&mut out)
        .expect("the digest is 8 bytes");
    u64::from_le_bytes(out) >> 1
}

/// R9.1: the first dealer of a match (or of a tournament hand), drawn from its seed: the first
/// eight bytes of SHA-256 of `"xuezhan:dealer:seed"`, big-endian, modulo 4.
pub fn first_dealer(seed: i128) -> u8 {
    let d = Sha256::digest(format!("xuezhan:dealer:{seed}").as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    (u64::from_be_bytes(b) % 4) as u8
}
