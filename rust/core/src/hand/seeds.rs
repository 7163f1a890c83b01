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
    let mut h = Blake2bVar::new(8).expect("8 is a valid BLAKE2b digest size");
    // the text hashed in pieces, without building it (a hand derives four seeds)
    let mut digits = [0u8; 40];
    h.update(decimal(base, &mut digits));
    for p in parts {
        h.update(b":");
        h.update(p.as_bytes());
    }
    let mut out = [0u8; 8];
    h.finalize_variable(&mut out)
        .expect("the digest is 8 bytes");
    u64::from_le_bytes(out) >> 1
}

/// `n` in decimal as Python's `str()` writes it, in `buf`.
///
/// ```
/// use xuezhan_core::hand::seeds::decimal;
/// let mut buf = [0u8; 40];
/// assert_eq!(decimal(-1234, &mut buf), b"-1234");
/// assert_eq!(decimal(i128::MIN, &mut buf), i128::MIN.to_string().as_bytes());
/// ```
pub fn decimal(n: i128, buf: &mut [u8; 40]) -> &[u8] {
    let mut at = buf.len();
    let mut m = n.unsigned_abs();
    loop {
        at -= 1;
        buf[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    &buf[at..]
}

/// R9.1: the first dealer of a match (or of a tournament hand), drawn from its seed: the first
/// eight bytes of SHA-256 of `"xuezhan:dealer:seed"`, big-endian, modulo 4.
pub fn first_dealer(seed: i128) -> u8 {
    let mut digits = [0u8; 40];
    let d = Sha256::new()
        .chain_update(b"xuezhan:dealer:")
        .chain_update(decimal(seed, &mut digits))
        .finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    (u64::from_be_bytes(b) % 4) as u8
}
