//! The seeded deal (docs/rules.md R1.2, R1.4): the 108 tiles shuffled exactly as Python's
//! `random.Random(seed)` orders them, in a microsecond instead of fifteen.
//!
//! The project's deal is defined with Python's Mersenne Twister (the same on every platform):
//! the tiles, 4 of each kind in kind order, are sorted by 108 successive `random()` draws (a
//! stable sort: equal keys, of probability ~2^-40, keep the tile order), and the exchange
//! direction (R11.1) is the generator's next `randrange(3)`. This module is that generator,
//! bit for bit: `init_by_array` seeding from the seed's 32-bit words, `genrand_res53` doubles
//! and `getrandbits`-based `randrange`. The Python tests compare it with `random.Random` over
//! thousands of seeds.
//!
//! ```
//! use xuezhan_core::shuffled_tiles;
//! let (tiles, direction) = shuffled_tiles(&[7]);
//! let mut sorted = tiles;
//! sorted.sort();
//! assert_eq!(&sorted[..5], &[0, 0, 0, 0, 1]); // the whole set, four of each kind
//! assert!(direction < 3);
//! ```

use std::mem::ManuallyDrop;

const N: usize = 624;
const M: usize = 397;

/// MT19937 as CPython's `_random` module implements it.
#[derive(Clone)]
struct Mt {
    mt: [u32; N],
    i: usize,
}

impl Mt {
    fn init_genrand(s: u32) -> Mt {
        let mut mt = [0u32; N];
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt { mt, i: N }
    }

    /// `random.seed(n)` for an int: `key` is `abs(n)` in 32-bit words, least significant first
    /// (one zero word for 0).
    fn init_by_array(key: &[u32]) -> Mt {
        let [g] = Mt::init_by_array_lanes([key]);
        *g
    }

    /// [`Mt::init_by_array`] of `K` keys at once (see [`Mt::seed_boxes`]).
    fn init_by_array_lanes<const K: usize>(keys: [&[u32]; K]) -> [Box<Mt>; K] {
        let mut g: [Box<Mt>; K] = std::array::from_fn(|_| Mt::boxed());
        Mt::seed_boxes(&keys, &mut g);
        g
    }

    /// A generator's box to seed (its state is overwritten): a spare one of this thread, else
    /// a new one.
    fn boxed() -> Box<Mt> {
        if let Some(g) = SPARE.with_borrow_mut(Vec::pop) {
            return g; // any state: the seeding writes every word
        }
        // SAFETY: a generator is plain integers, for which all zeros is a valid value.
        unsafe { Box::<Mt>::new_zeroed().assume_init() }
    }

    /// [`Mt::init_by_array`] of each key into the generator beside it, each written in its own
    /// box (a generator is 2.5 KB: it is written where it stays, never moved). Each seeding is
    /// a chain of 1,247 dependent multiply steps (a few microseconds of latency); independent
    /// chains run side by side in about the time of one, which matters when every hand seeds a
    /// deal and up to four players' generators: where the CPU has AVX2, up to sixteen keys of
    /// up to four words (every 63-bit seed's) at a time as the lanes of two vectors, else eight
    /// interleaved. Keys longer than 624 words (never a 63-bit seed) are seeded one at a time.
    fn seed_boxes(keys: &[&[u32]], g: &mut [Box<Mt>]) {
        let start = Mt::start();
        if keys.iter().any(|k| k.len() > N) {
            for (x, key) in g.iter_mut().zip(keys) {
                **x = Mt::init_by_array_long(start.clone(), key);
            }
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if keys.iter().all(|k| k.len() <= 4) && std::is_x86_feature_detected!("avx2") {
            for (ks, gs) in keys.chunks(16).zip(g.chunks_mut(16)) {
                // SAFETY: the CPU has AVX2, the only feature `seed_avx2` is compiled with.
                unsafe {
                    if ks.len() > 8 {
                        seed_avx2::<2>(ks, start, gs)
                    } else {
                        seed_avx2::<1>(ks, start, gs)
                    }
                };
            }
            return;
        }
        for (ks, gs) in keys.chunks(8).zip(g.chunks_mut(8)) {
            Mt::seed_interleaved(ks, start, gs);
        }
    }

    /// The state every seeding starts from, `init_genrand(19650218)`: computed once.
    fn start() -> &'static Mt {
        static START: std::sync::OnceLock<Mt> = std::sync::OnceLock::new();
        START.get_or_init(|| Mt::init_genrand(19_650_218))
    }

    /// [`Mt::seed_boxes`] of at most eight keys of at most 624 words on any CPU: the chains
    /// interleaved step by step.
    fn seed_interleaved(keys: &[&[u32]], start: &Mt, g: &mut [Box<Mt>]) {
        const K: usize = 8;
        let k = keys.len().min(K);
        let (keys, g) = (&keys[..k], &mut g[..k]);
        for x in g.iter_mut() {
            x.mt.copy_from_slice(&start.mt);
            x.i = N;
        }
        let mut lens = [1usize; K];
        for (n, key) in lens.iter_mut().zip(keys) {
            *n = key.len().max(1);
        }
        let mut j = [0usize; K];
        // the previous word of each chain, kept in a register rather than read back
        let mut prev = [0u32; K];
        for (p, x) in prev.iter_mut().zip(g.iter()) {
            *p = x.mt[0];
        }
        let mut i = 1usize;
        for _ in 0..N {
            for l in 0..k {
                let kj = keys[l].get(j[l]).copied().unwrap_or(0);
                let v = (g[l].mt[i] ^ (prev[l] ^ (prev[l] >> 30)).wrapping_mul(1_664_525))
                    .wrapping_add(kj)
                    .wrapping_add(j[l] as u32);
                g[l].mt[i] = v;
                prev[l] = v;
                j[l] += 1;
                if j[l] >= lens[l] {
                    j[l] = 0;
                }
            }
            i += 1;
            if i >= N {
                for x in g.iter_mut() {
                    x.mt[0] = x.mt[N - 1];
                }
                i = 1;
            }
        }
        for _ in 0..N - 1 {
            for l in 0..k {
                let v = (g[l].mt[i] ^ (prev[l] ^ (prev[l] >> 30)).wrapping_mul(1_566_083_941))
                    .wrapping_sub(i as u32);
                g[l].mt[i] = v;
                prev[l] = v;
            }
            i += 1;
            if i >= N {
                for x in g.iter_mut() {
                    x.mt[0] = x.mt[N - 1];
                }
                i = 1;
            }
        }
        for x in g.iter_mut() {
            x.mt[0] = 0x8000_0000;
        }
    }

    /// CPython's `init_by_array` as written, for keys of any length.
    fn init_by_array_long(mut g: Mt, key: &[u32]) -> Mt {
        let mt = &mut g.mt;
        let (mut i, mut j) = (1usize, 0usize);
        let len = key.len().max(1);
        for _ in 0..N.max(len) {
            let kj = key.get(j).copied().unwrap_or(0);
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(kj)
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= len {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        g
    }

    /// The next output. Each state word is regenerated just before it is read rather than all
    /// 624 at once: the same words in the same order (the twist is sequential and in place),
    /// but a deal reads only 217 of them.
    #[inline]
    fn next_u32(&mut self) -> u32 {
        if self.i >= N {
            self.i = 0;
        }
        let k = self.i;
        let mt = &mut self.mt;
        let next = if k + 1 < N { k + 1 } else { 0 };
        let far = if k + M < N { k + M } else { k + M - N };
        let y = (mt[k] & 0x8000_0000) | (mt[next] & 0x7fff_ffff);
        let mag = if y & 1 != 0 { 0x9908_b0df } else { 0 };
        mt[k] = mt[far] ^ (y >> 1) ^ mag;
        self.i = k + 1;
        let mut y = mt[k];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random.random()`'s 53 bits as an integer (`random()` is it divided by 2^53).
    #[inline]
    fn bits53(&mut self) -> u64 {
        let a = (self.next_u32() >> 5) as u64;
        let b = (self.next_u32() >> 6) as u64;
        a << 26 | b
    }

    /// `random.random()`: 53 random bits as a double in [0, 1).
    fn random(&mut self) -> f64 {
        self.bits53() as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `random.randrange(n)` for 1 ≤ n ≤ 2^32: `getrandbits(n.bit_length())` until below n.
    fn randbelow(&mut self, n: u32) -> u32 {
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.next_u32() >> (32 - k);
            if r < n {
                return r;
            }
        }
    }
}

/// [`Mt::seed_boxes`] of at most `8 V` keys of at most four words, the chains as the lanes of
/// `V` AVX2 vectors (independent chains, so two take about the time of one): one multiply
/// chain of 1,247 steps per vector instead of one per key.
///
/// The first pass reads the starting state (the same for every lane) and adds `key[j] + j`
/// with `j = t mod len`: periodic in the step `t`, so its vectors are made once (the period
/// divides 12). Its results stay interleaved; the second pass reads them and writes each
/// lane's words into its generator. CPython's index wrap (`mt[0] = mt[623]`) only feeds reads
/// of `mt[0]`, which neither pass makes (the last step of the first pass rereads `mt[1]`),
/// and `mt[0]` ends as `0x8000_0000`.
///
/// # Safety
/// The CPU must have AVX2.
// The indices are the generators' word positions (the first pass writes word i, the last step
// rereads word 1, the transpose takes eight rows at a time), not positions to iterate over.
#[allow(clippy::needless_range_loop)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn seed_avx2<const V: usize>(keys: &[&[u32]], start: &Mt, g: &mut [Box<Mt>]) {
    use std::arch::x86_64::*;
    let k = keys.len().min(8 * V);
    let mut lens = [1usize; 16];
    for (n, key) in lens.iter_mut().zip(&keys[..k]) {
        *n = key.len().max(1);
    }
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let period = lens[..k].iter().fold(1, |p, &l| p / gcd(p, l) * l);
    let mut adds = [[_mm256_setzero_si256(); V]; 12];
    for (t, v) in adds.iter_mut().enumerate().take(period) {
        let mut lane = [0u32; 16];
        for l in 0..k {
            let j = t % lens[l];
            lane[l] = keys[l].get(j).copied().unwrap_or(0).wrapping_add(j as u32);
        }
        for (h, x) in v.iter_mut().enumerate() {
            *x = _mm256_loadu_si256(lane[8 * h..].as_ptr().cast());
        }
    }
    let mix = |prev: __m256i, c: __m256i| {
        _mm256_mullo_epi32(_mm256_xor_si256(prev, _mm256_srli_epi32::<30>(prev)), c)
    };
    let c1 = _mm256_set1_epi32(1_664_525);
    let c2 = _mm256_set1_epi32(1_566_083_941);
    // the first pass's words 1-623 (word 0 is never read): written before they are read, so
    // not initialised (20 KB per vector)
    let mut first = [[std::mem::MaybeUninit::<__m256i>::uninit(); V]; N];
    let mut prev = [_mm256_set1_epi32(start.mt[0] as i32); V];
    let mut t = 0;
    for i in 1..N {
        let s = _mm256_set1_epi32(start.mt[i] as i32);
        for h in 0..V {
            prev[h] = _mm256_add_epi32(_mm256_xor_si256(s, mix(prev[h], c1)), adds[t][h]);
            first[i][h].write(prev[h]);
        }
        t = if t + 1 == period { 0 } else { t + 1 };
    }
    // SAFETY (here and below): words 1-623 were all written by the loop above.
    for h in 0..V {
        let v = _mm256_xor_si256(first[1][h].assume_init(), mix(prev[h], c1));
        prev[h] = _mm256_add_epi32(v, adds[t][h]);
        first[1][h].write(prev[h]);
    }
    // the second pass's words replace the first's, still interleaved
    for i in (2..N).chain(1..2) {
        let sub = _mm256_set1_epi32(i as i32);
        for h in 0..V {
            let v = _mm256_xor_si256(first[i][h].assume_init(), mix(prev[h], c2));
            prev[h] = _mm256_sub_epi32(v, sub);
            first[i][h].write(prev[h]);
        }
    }
    // then eight words of eight lanes at a time transposed into the generators (word 0 is
    // set below)
    for h in 0..V {
        first[0][h].write(_mm256_setzero_si256());
    }
    for h in 0..V {
        let lanes = k.saturating_sub(8 * h).min(8);
        for i in (0..N).step_by(8) {
            let r: [__m256i; 8] = std::array::from_fn(|j| first[i + j][h].assume_init());
            let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
            let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
            let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
            let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
            let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
            let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
            let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
            let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
            let u = [
                _mm256_unpacklo_epi64(t0, t2),
                _mm256_unpackhi_epi64(t0, t2),
                _mm256_unpacklo_epi64(t1, t3),
                _mm256_unpackhi_epi64(t1, t3),
                _mm256_unpacklo_epi64(t4, t6),
                _mm256_unpackhi_epi64(t4, t6),
                _mm256_unpacklo_epi64(t5, t7),
                _mm256_unpackhi_epi64(t5, t7),
            ];
            for l in 0..lanes {
                // lane l of rows i..i+8: the low halves give lanes 0-3, the high ones 4-7
                let o = if l < 4 {
                    _mm256_permute2x128_si256::<0x20>(u[l], u[l + 4])
                } else {
                    _mm256_permute2x128_si256::<0x31>(u[l - 4], u[l])
                };
                _mm256_storeu_si256(g[8 * h + l].mt[i..i + 8].as_mut_ptr().cast(), o);
            }
        }
    }
    for x in g[..k].iter_mut() {
        x.mt[0] = 0x8000_0000;
        x.i = N;
    }
}

/// Python's `random.Random(seed)` generator, as far as the built-in policies use it: seeded
/// from the seed's key (see [`crate::hand::seeds::random_key`]) and drawing `random()`.
///
/// ```
/// use xuezhan_core::deal::PyRandom;
/// // Python: random.Random(0).random() == 0.8444218515250481
/// assert_eq!(PyRandom::new(&[0]).random(), 0.844_421_851_525_048_1);
/// ```
#[derive(Clone)]
pub struct PyRandom(ManuallyDrop<Box<Mt>>); // boxed: a generator is 2.5 KB, moved often and
                                            // cheaply; its box goes back to the thread's spares

thread_local! {
    /// Boxes of generators dropped on this thread, kept for the next seedings: every hand
    /// seeds up to five generators and drops them at its end, and a 2.5 KB allocation and its
    /// release cost more than a tenth of a seeding.
    // boxed: the boxes themselves are what is kept and handed out again
    #[allow(clippy::vec_box)]
    static SPARE: std::cell::RefCell<Vec<Box<Mt>>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for PyRandom {
    fn drop(&mut self) {
        /// Spare boxes kept per thread (a hand drops at most five generators).
        const KEEP: usize = 16;
        // SAFETY: the box is taken once, here, and `self.0` is not used again.
        let g = unsafe { ManuallyDrop::take(&mut self.0) };
        // (the thread's spares may be gone while the thread ends: then the box is freed)
        let _ = SPARE.try_with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < KEEP {
                s.push(g);
            }
        });
    }
}

impl PyRandom {
    /// `random.Random(seed)` for the seed whose key is `key`.
    pub fn new(key: &[u32]) -> PyRandom {
        let [g] = Mt::init_by_array_lanes([key]);
        PyRandom(ManuallyDrop::new(g))
    }

    /// `random.Random(seed)` for each of `K` keys, seeded together (faster than one by one).
    pub fn new_many<const K: usize>(keys: [&[u32]; K]) -> [PyRandom; K] {
        Mt::init_by_array_lanes(keys).map(|g| PyRandom(ManuallyDrop::new(g)))
    }

    /// `random.Random(seed)` for each key of `keys`, seeded together (see [`PyRandom::new_many`];
    /// up to sixteen at a time where the CPU has AVX2).
    ///
    /// ```
    /// use xuezhan_core::deal::PyRandom;
    /// let mut g = PyRandom::new_batch(&[&[0], &[7, 1], &[0]]);
    /// assert_eq!(g[0].random(), 0.844_421_851_525_048_1);
    /// assert_eq!(g[2].random(), 0.844_421_851_525_048_1);
    /// ```
    pub fn new_batch(keys: &[&[u32]]) -> Vec<PyRandom> {
        let mut g: Vec<Box<Mt>> = keys.iter().map(|_| Mt::boxed()).collect();
        Mt::seed_boxes(keys, &mut g);
        g.into_iter()
            .map(|g| PyRandom(ManuallyDrop::new(g)))
            .collect()
    }

    /// `random()`: a double in [0, 1).
    #[inline]
    pub fn random(&mut self) -> f64 {
        self.0.random()
    }
}

/// The 108 tiles (kinds 0–26, four each) in the order `random.Random(seed)` deals them, and the
/// exchange direction drawn next (0 next, 1 prev, 2 across: `randrange(3)`). `key` is the
/// seed's `abs()` as 32-bit words, least significant first (Python's `random.seed` key).
pub fn shuffled_tiles(key: &[u32]) -> ([u8; 108], u8) {
    shuffled_tiles_from(PyRandom::new(key))
}

/// [`shuffled_tiles`] drawn from a generator already seeded (see [`PyRandom::new_many`]).
pub fn shuffled_tiles_from(mut g: PyRandom) -> ([u8; 108], u8) {
    let g = &mut g.0; // the generator stays in its box (2.5 KB not moved)
                      // random() is its 53 bits over 2^53, so the bits order the tiles as the doubles do; below
                      // them the tile's index, so equal keys keep the tiles' order (Python's sort is stable)
    let mut keyed = [0u64; 108];
    for (i, slot) in keyed.iter_mut().enumerate() {
        *slot = g.bits53() << 7 | i as u64;
    }
    sort_keys(&mut keyed);
    let mut tiles = [0u8; 108];
    for (t, &x) in tiles.iter_mut().zip(&keyed) {
        *t = ((x & 0x7f) / 4) as u8;
    }
    (tiles, g.randbelow(3) as u8)
}

/// Sorts 108 distinct keys whose top bits are uniformly random (53 random bits above a 7-bit
/// index): a counting pass on the top 8 bits puts each key in one of 256 buckets (about 0.4
/// keys each), then an insertion sort finishes the few buckets holding more than one, in place.
/// Several times faster than a general sort of 108 keys; the order is the same (the keys are
/// distinct).
fn sort_keys(keys: &mut [u64; 108]) {
    const SHIFT: u32 = 60 - 8; // 53 + 7 = 60 bits in use
    let mut start = [0u8; 257];
    for &k in keys.iter() {
        start[(k >> SHIFT) as usize + 1] += 1;
    }
    for b in 0..256 {
        start[b + 1] += start[b];
    }
    let mut out = [0u64; 108];
    let mut next = start;
    for &k in keys.iter() {
        let b = (k >> SHIFT) as usize;
        out[next[b] as usize] = k;
        next[b] += 1;
    }
    // within a bucket the keys are in input order: sort each by insertion (almost all hold
    // zero or one key, so this is one pass of compares)
    for i in 1..out.len() {
        let k = out[i];
        let mut j = i;
        while j > 0 && out[j - 1] > k {
            out[j] = out[j - 1];
            j -= 1;
        }
        out[j] = k;
    }
    *keys = out;
}

/// `random.Random(seed).shuffle(list(range(n)))` for n ≤ 32: Python's Fisher–Yates (from the
/// end, `randbelow(i + 1)` per position). `key` as for [`shuffled_tiles`].
///
/// ```
/// use xuezhan_core::shuffled_range;
/// let mut s = shuffled_range(&[7], 4);
/// s.sort();
/// assert_eq!(s, vec![0, 1, 2, 3]);
/// ```
pub fn shuffled_range(key: &[u32], n: usize) -> Vec<u8> {
    let mut g = Mt::init_by_array(key);
    let mut x: Vec<u8> = (0..n.min(32) as u8).collect();
    for i in (1..x.len()).rev() {
        let j = g.randbelow(i as u32 + 1) as usize;
        x.swap(i, j);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_outputs_match_the_reference_mt19937() {
        // The reference implementation's init_by_array({0x123, 0x234, 0x345, 0x456}) output
        // (mt19937ar.out): 1067595299 955945823 477289528 ...
        let mut g = Mt::init_by_array(&[0x123, 0x234, 0x345, 0x456]);
        let first: Vec<u32> = (0..3).map(|_| g.next_u32()).collect();
        assert_eq!(first, vec![1_067_595_299, 955_945_823, 477_289_528]);
    }

    #[test]
    fn python_random_of_seed_zero() {
        // Python: random.Random(0).random() == 0.8444218515250481
        assert_eq!(Mt::init_by_array(&[0]).random(), 0.844_421_851_525_048_1);
    }

    #[test]
    fn seeding_many_at_once_is_seeding_each() {
        let keys: [&[u32]; 5] = [&[0], &[7], &[1, 2], &[0xffff_ffff, 3, 9], &[]];
        let mut many = Mt::init_by_array_lanes(keys);
        for (k, g) in keys.iter().zip(many.iter_mut()) {
            let mut one = Mt::init_by_array_long(Mt::init_genrand(19_650_218), k);
            assert_eq!(one.mt, g.mt);
            assert_eq!(
                (0..700).map(|_| one.next_u32()).collect::<Vec<_>>(),
                (0..700).map(|_| g.next_u32()).collect::<Vec<_>>()
            );
        }
    }

    /// Both ways of seeding chains side by side (the AVX2 lanes where the CPU has them, and the
    /// interleaved chains every CPU runs) give CPython's generators: up to eight keys of one to
    /// four words, the lengths mixed (their added terms have periods 1 to 12), and more keys
    /// or longer ones than the vector takes.
    #[test]
    fn every_way_of_seeding_side_by_side_is_cpythons() {
        let words: [u32; 4] = [0x9e37_79b9, 0, 0xffff_ffff, 12_345];
        let keys: [&[u32]; 8] = [
            &words[..1],
            &words[..2],
            &words[1..4],
            &words,
            &words[2..3],
            &words[..3],
            &[],
            &words[1..3],
        ];
        let long: Vec<u32> = (0..700).collect();
        let one = |k: &[u32]| Mt::init_by_array_long(Mt::init_genrand(19_650_218), k);
        let check = |g: &[Box<Mt>], ks: &[&[u32]]| {
            for (x, k) in g.iter().zip(ks) {
                assert_eq!(x.mt, one(k).mt, "{k:?}");
                assert_eq!(x.i, N);
            }
        };
        check(&Mt::init_by_array_lanes(keys), &keys);
        let nine: [&[u32]; 9] = std::array::from_fn(|l| if l == 8 { &words[..2] } else { keys[l] });
        check(&Mt::init_by_array_lanes(nine), &nine);
        let with_five_words: [&[u32]; 2] = [&words, &long[..5]];
        check(&Mt::init_by_array_lanes(with_five_words), &with_five_words);
        let with_long: [&[u32]; 2] = [&words, &long];
        check(&Mt::init_by_array_lanes(with_long), &with_long);
        let start = Mt::init_genrand(19_650_218);
        let mut g: [Box<Mt>; 8] = std::array::from_fn(|_| Box::new(start.clone()));
        Mt::seed_interleaved(&keys, &start, &mut g);
        check(&g, &keys);
        // batches of every size up to 40 (groups of sixteen, of eight, and the rest)
        let many: Vec<&[u32]> = (0..40).map(|i| keys[i % 8]).collect();
        for n in [1, 5, 8, 9, 16, 17, 40] {
            let mut b: Vec<Box<Mt>> = (0..n).map(|_| Mt::boxed()).collect();
            Mt::seed_boxes(&many[..n], &mut b);
            check(&b, &many[..n]);
            let mut b: Vec<Box<Mt>> = (0..n).map(|_| Mt::boxed()).collect();
            for (ks, gs) in many[..n].chunks(8).zip(b.chunks_mut(8)) {
                Mt::seed_interleaved(ks, &start, gs);
            }
            check(&b, &many[..n]);
        }
    }

    #[test]
    fn the_bucket_sort_sorts() {
        let mut g = Mt::init_by_array(&[3]);
        for _ in 0..2000 {
            let mut keys = [0u64; 108];
            for (i, k) in keys.iter_mut().enumerate() {
                *k = g.bits53() << 7 | i as u64;
            }
            // some crowded buckets too: keys sharing their top bits
            for k in keys.iter_mut().take(20) {
                *k &= !(0xfff << 48);
            }
            let mut want = keys;
            want.sort_unstable();
            sort_keys(&mut keys);
            assert_eq!(keys, want);
        }
    }

    #[test]
    fn a_deal_is_the_whole_set() {
        for seed in 0..50u32 {
            let (t, d) = shuffled_tiles(&[seed]);
            let mut n = [0u8; 27];
            for &k in &t {
                n[k as usize] += 1;
            }
            assert!(n.iter().all(|&c| c == 4) && d < 3);
        }
    }
}
