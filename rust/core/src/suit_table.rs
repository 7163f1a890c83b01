//! Per-suit lookup tables: one 32-bit record for every suit configuration.
//!
//! A suit configuration is the nine counts (0–4) a hand holds of one suit, at most 14 tiles:
//! 405,350 of them. Everything the evaluator asks about a hand decomposes per suit (R4: sets
//! never cross suits), so one table lookup per suit replaces any search.
//!
//! **Indexing.** The base-5 code of a configuration is split into `lo` (ranks 1–4, 625 values)
//! and `hi` (ranks 5–9, 3125 values). Configurations are ranked in code order, skipping those
//! over 14 tiles: `rank = HI[hi].start + LO[budget(hi)][lo]` where `budget = 14 − tiles(hi)`.
//! Two small tables (12.5 KB + 18.75 KB) replace a 7.8 MB direct table; rank order is also a
//! topological order of "is a sub-multiset of", which the builder exploits.
//!
//! **Record layout** (`u32`), `d(m, p)` = fewest tiles to add so the suit contains `m` sets and
//! `p` pairs (Tomohxx's per-suit distance; surplus tiles are free to discard):
//! - bits 0–7: `d(m,0) − d(m−1,0)` for m = 1..4, two bits each (always 0..=3)
//! - bits 8–9: `d(0,1)` (0..=2)
//! - bits 10–17: `d(m,1) − d(m−1,1)` for m = 1..4
//! - bit 18 `W`: the configuration is complete: sets only when tiles ≡ 0 (mod 3), sets + one pair
//!   when tiles ≡ 2
//! - bit 19 `T`: complete with every set and the pair holding a 1 or 9 (带幺九 reading)
//! - bit 20 `A`: complete as triplets (+ pair) only (大对子 reading)
//! - bits 21–29: rank r set when adding one tile of rank r makes the configuration complete
//!   (wait bits)

use std::sync::OnceLock;

/// Number of suit configurations (nine counts 0–4 summing to at most 14).
pub const NUM_CONFIGS: usize = 405_350;

/// Bit of the complete flag in a record.
pub const W_BIT: u32 = 1 << 18;
/// Bit of the terminal-reading flag.
pub const T_BIT: u32 = 1 << 19;
/// Bit of the all-triplets-reading flag.
pub const A_BIT: u32 = 1 << 20;
/// Shift of the nine wait bits.
pub const WAIT_SHIFT: u32 = 21;

/// The tables: ranking helpers and one record per configuration.
pub struct SuitTables {
    /// Per `hi` code: `start << 4 | budget`, or `u32::MAX` when `hi` alone exceeds 14 tiles.
    hi: Box<[u32]>,
    /// `lo_index[budget * 625 + lo]`: rank of `lo` among `lo` codes of at most `budget` tiles.
    lo: Box<[u16]>,
    /// One record per configuration, by rank.
    rec: Box<[u32]>,
    /// The records' `W` bits alone, one bit per rank (50 KB, against 1.6 MB of records):
    /// what the wait check asks of the suits a winning tile does not go to, hand after hand.
    complete: Box<[u64]>,
}

/// Decoded `d(m,0)` for m = 0..4 from record bits 0–7 (prefix sums of the 2-bit deltas).
static DEC0: [[u8; 5]; 256] = {
    let mut t = [[0u8; 5]; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut m = 1;
        while m < 5 {
            t[bits][m] = t[bits][m - 1] + ((bits >> (2 * (m - 1))) & 3) as u8;
            m += 1;
        }
        bits += 1;
    }
    t
};

/// Decoded `d(m,1)` for m = 0..4 from record bits 8–17.
static DEC1: [[u8; 5]; 1024] = {
    let mut t = [[0u8; 5]; 1024];
    let mut bits = 0;
    while bits < 1024 {
        t[bits][0] = (bits & 3) as u8;
        let mut m = 1;
        while m < 5 {
            t[bits][m] = t[bits][m - 1] + ((bits >> (2 + 2 * (m - 1))) & 3) as u8;
            m += 1;
        }
        bits += 1;
    }
    t
};

/// [`DEC0`] as packed lanes: `d(m, 0)` in byte `2m` of a `u128` (see [`SuitTables::packed`]).
static PACK0: [u128; 256] = {
    let mut t = [0u128; 256];
    let mut i = 0;
    while i < 256 {
        let mut m = 0;
        while m < 5 {
            t[i] |= (DEC0[i][m] as u128) << (16 * m);
            m += 1;
        }
        i += 1;
    }
    t
};

/// [`DEC1`] as packed lanes: `d(m, 1)` in byte `2m + 1`.
static PACK1: [u128; 1024] = {
    let mut t = [0u128; 1024];
    let mut i = 0;
    while i < 1024 {
        let mut m = 0;
        while m < 5 {
            t[i] |= (DEC1[i][m] as u128) << (16 * m + 8);
            m += 1;
        }
        i += 1;
    }
    t
};

static TABLES: OnceLock<SuitTables> = OnceLock::new();

/// The shared tables, built on first use.
///
/// ```
/// let t = xuezhan_core::suit_table::tables();
/// assert_eq!(t.bytes(), 405_350 * 4 + 6334 * 8 + 3125 * 4 + 15 * 625 * 2 + 256 * 5 + 1024 * 5);
/// ```
#[inline]
pub fn tables() -> &'static SuitTables {
    TABLES.get_or_init(SuitTables::build)
}

const P5: [u32; 10] = [1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125];

static DRAW_MASKS: OnceLock<Box<[u128]>> = OnceLock::new();

/// Where [`draw_masks`] holds a configuration's distance bits (record bits 0–17).
pub const DRAW_DIST_SHIFT: u32 = 96;

/// Per configuration (by rank, as the records): for each distance lane `(m, p)` (lane
/// `2m + p`, see [`SuitTables::packed`]) the nine-bit set of ranks whose added tile lowers
/// that distance, lane `l` at bits `9l .. 9l + 9` ("which draw helps this target"; empty for
/// a configuration of 14 tiles), and at bits [`DRAW_DIST_SHIFT`]`..+18` the record's
/// distance bits (0–17), so that one 16-byte load gives the discard evaluation both a
/// configuration's distances ([`SuitTables::packed`] of them) and its draw masks. Built on
/// first use (3.6 million lookups, about 0.1 s).
///
/// ```
/// use xuezhan_core::suit_table::{draw_masks, split_code, tables, DRAW_DIST_SHIFT};
/// let t = tables();
/// let (lo, hi) = split_code(&[0, 1, 1, 0, 0, 0, 0, 0, 0]); // 23
/// let m = draw_masks()[t.rank(lo, hi)];
/// assert_eq!((m >> (9 * 2)) & 0x1ff, 0b1001); // one set: 1 or 4 completes it
/// let rec = t.record(&[0, 1, 1, 0, 0, 0, 0, 0, 0]);
/// assert_eq!((m >> DRAW_DIST_SHIFT) as u32, rec & 0x3ffff);
/// ```
pub fn draw_masks() -> &'static [u128] {
    DRAW_MASKS.get_or_init(|| {
        let t = tables();
        let mut out = vec![0u128; NUM_CONFIGS].into_boxed_slice();
        let mut digit = [0u8; 9];
        for hi in 0..3125u32 {
            let sh = t.hi[hi as usize];
            if sh == u32::MAX {
                continue;
            }
            let mut x = hi;
            for d in digit[4..].iter_mut() {
                *d = (x % 5) as u8;
                x /= 5;
            }
            let hi_tiles: u32 = digit[4..].iter().map(|&d| d as u32).sum();
            for lo in 0..625u32 {
                let mut x = lo;
                for d in digit[..4].iter_mut() {
                    *d = (x % 5) as u8;
                    x /= 5;
                }
                let tiles = hi_tiles + digit[..4].iter().map(|&d| d as u32).sum::<u32>();
                if tiles > 14 {
                    continue;
                }
                let rank = t.rank(lo, hi);
                let dist = ((t.rec[rank] & 0x3ffff) as u128) << DRAW_DIST_SHIFT;
                if tiles == 14 {
                    out[rank] = dist; // no room for a draw
                    continue;
                }
                let own = t.packed(t.rec[rank]);
                let mut m = 0u128;
                for (r, &d) in digit.iter().enumerate() {
                    if d < 4 {
                        let lower = lanes_below(t.packed(t.record_plus(lo, hi, r)), own);
                        // One bit per lane (the multiply gathers eight high bits at once).
                        let gather = |x: u64| {
                            ((x >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)
                                >> 56
                        };
                        let mut lanes = gather(lower as u64) | gather((lower >> 64) as u64) << 8;
                        while lanes != 0 {
                            m |= 1u128 << (9 * lanes.trailing_zeros() as usize + r);
                            lanes &= lanes - 1;
                        }
                    }
                }
                out[rank] = m | dist;
            }
        }
        out
    })
}

/// 0x80 in each byte lane where `a < b` (lanes below 128).
fn lanes_below(a: u128, b: u128) -> u128 {
    const ONES: u128 = u128::from_le_bytes([1; 16]);
    const HIGH: u128 = ONES * 0x80;
    ((b | HIGH) - a - ONES) & HIGH
}

/// `lo` (ranks 1–4) and `hi` (ranks 5–9) base-5 codes of one suit's nine counts.
#[inline(always)]
pub fn split_code(c: &[u8]) -> (u32, u32) {
    let lo = c[0] as u32 + 5 * c[1] as u32 + 25 * c[2] as u32 + 125 * c[3] as u32;
    let hi =
        c[4] as u32 + 5 * c[5] as u32 + 25 * c[6] as u32 + 125 * c[7] as u32 + 625 * c[8] as u32;
    (lo, hi)
}

fn digits(code: u32) -> [u8; 9] {
    let mut d = [0u8; 9];
    let mut x = code;
    for v in d.iter_mut() {
        *v = (x % 5) as u8;
        x /= 5;
    }
    d
}

impl SuitTables {
    /// Rank of a configuration from its split code. The configuration must hold ≤ 14 tiles.
    #[inline(always)]
    pub fn rank(&self, lo: u32, hi: u32) -> usize {
        // SAFETY-free: indices are bounded by construction; `get_unchecked` is not used so a
        // caller bug shows as a panic in tests rather than memory corruption.
        let sh = self.hi[hi as usize];
        (sh >> 4) as usize + self.lo[(sh & 15) as usize * 625 + lo as usize] as usize
    }

    /// Record of a configuration given as nine counts (≤ 14 tiles, each ≤ 4).
    ///
    /// ```
    /// use xuezhan_core::suit_table::{tables, W_BIT};
    /// let t = tables();
    /// assert!(t.record(&[1, 1, 0, 1, 0, 0, 0, 0, 0]) & W_BIT == 0); // 124: not a set
    /// assert!(t.record(&[2, 1, 1, 1, 0, 0, 0, 0, 0]) & W_BIT != 0); // 11 234
    /// ```
    #[inline(always)]
    pub fn record(&self, c: &[u8]) -> u32 {
        let (lo, hi) = split_code(c);
        self.rec[self.rank(lo, hi)]
    }

    /// Rank of the configuration with split code `(lo, hi)` ([`split_code`]).
    #[inline(always)]
    pub fn rank_code(&self, (lo, hi): (u32, u32)) -> usize {
        self.rank(lo, hi)
    }

    /// Record of the configuration with split code `(lo, hi)` ([`split_code`]).
    #[inline(always)]
    pub fn record_code(&self, (lo, hi): (u32, u32)) -> u32 {
        self.rec[self.rank(lo, hi)]
    }

    /// Record of the configuration with split code `(lo, hi)` plus one tile of rank `r`
    /// (the configuration must hold ≤ 13 tiles and fewer than 4 of rank `r`).
    #[inline(always)]
    pub fn record_plus(&self, lo: u32, hi: u32, r: usize) -> u32 {
        let (lo, hi) = if r < 4 {
            (lo + P5[r], hi)
        } else {
            (lo, hi + P5[r - 4])
        };
        self.rec[self.rank(lo, hi)]
    }

    /// Records of the configuration `(lo, hi)` plus one tile of each rank r with bit r of
    /// `ranks` set (0 elsewhere). The ranks are computed first and the nine loads issued
    /// back to back, so their cache misses overlap (≈ one miss latency instead of nine).
    /// Each added rank must keep the configuration valid (< 4 of it, ≤ 13 tiles before).
    #[inline]
    pub fn records_plus_each(&self, lo: u32, hi: u32, ranks: u32) -> [u32; 9] {
        let mut idx = [0usize; 9];
        for (r, slot) in idx.iter_mut().enumerate() {
            if ranks & (1 << r) != 0 {
                let (l, h) = if r < 4 {
                    (lo + P5[r], hi)
                } else {
                    (lo, hi + P5[r - 4])
                };
                *slot = self.rank(l, h);
            }
        }
        let mut out = [0u32; 9];
        for r in 0..9 {
            if ranks & (1 << r) != 0 {
                out[r] = self.rec[idx[r]];
            }
        }
        out
    }

    /// Record by rank.
    #[inline(always)]
    pub fn record_at(&self, rank: usize) -> u32 {
        self.rec[rank]
    }

    /// The `W` bit of the record of rank `rank` (the configuration is complete), from a
    /// 50 KB bit set rather than the records.
    ///
    /// ```
    /// use xuezhan_core::suit_table::{split_code, tables, W_BIT};
    /// let t = tables();
    /// for c in [[2, 1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 0, 1, 0, 0, 0, 0, 0]] {
    ///     let rank = t.rank_code(split_code(&c));
    ///     assert_eq!(t.is_complete(rank), t.record_at(rank) & W_BIT != 0);
    /// }
    /// ```
    #[inline(always)]
    pub fn is_complete(&self, rank: usize) -> bool {
        self.complete[rank / 64] >> (rank % 64) & 1 != 0
    }

    /// `[d(m,0) for m in 0..5]` and `[d(m,1) for m in 0..5]` of a record.
    ///
    /// ```
    /// let t = xuezhan_core::suit_table::tables();
    /// let (d0, d1) = t.distances(t.record(&[0; 9]));
    /// assert_eq!(d0, [0, 3, 6, 9, 12]);
    /// assert_eq!(d1, [2, 5, 8, 11, 14]);
    /// ```
    #[inline(always)]
    pub fn distances(&self, rec: u32) -> ([u8; 5], [u8; 5]) {
        (
            DEC0[(rec & 0xff) as usize],
            DEC1[((rec >> 8) & 0x3ff) as usize],
        )
    }

    /// The ten distances of a record packed one byte each, `d(m, p)` in byte `2m + p` of a
    /// `u128` (bytes 10–15 zero): the form the discard evaluation compares lane-wise.
    ///
    /// ```
    /// let t = xuezhan_core::suit_table::tables();
    /// let d = t.packed(t.record(&[0; 9]));
    /// assert_eq!(d.to_le_bytes()[..10], [0, 2, 3, 5, 6, 8, 9, 11, 12, 14]);
    /// ```
    #[inline(always)]
    pub fn packed(&self, rec: u32) -> u128 {
        PACK0[(rec & 0xff) as usize] | PACK1[((rec >> 8) & 0x3ff) as usize]
    }

    /// Bytes held by the tables.
    pub fn bytes(&self) -> usize {
        self.rec.len() * 4
            + self.complete.len() * 8
            + self.hi.len() * 4
            + self.lo.len() * 2
            + 256 * 5
            + 1024 * 5
    }

    /// Builds every table (≈ 20–40 ms in release on one core).
    ///
    /// Distances use `d(m,p) = 3m + 2p − g(h)` where `g(h)` is the size of the largest
    /// sub-multiset of `h` that is itself contained in some complete (m, p) suit hand. The set
    /// `P(m,p)` of such sub-multisets is downward closed, so two linear passes over the ranks
    /// suffice: a descending pass closes the target marks downwards, an ascending pass takes
    /// `g(h) = |h|` for members and `max_j g(h − e_j)` otherwise.
    pub fn build() -> SuitTables {
        // --- ranking ---
        let mut lo_sum = [0u8; 625];
        for (lo, s) in lo_sum.iter_mut().enumerate() {
            *s = digits(lo as u32).iter().sum();
        }
        let mut lo = vec![u16::MAX; 15 * 625].into_boxed_slice();
        let mut cnt_le = [0u32; 15];
        for b in 0..15 {
            let mut i = 0u16;
            for l in 0..625 {
                if lo_sum[l] as usize <= b {
                    lo[b * 625 + l] = i;
                    i += 1;
                }
            }
            cnt_le[b] = i as u32;
        }
        let mut hi = vec![u32::MAX; 3125].into_boxed_slice();
        let mut codes: Vec<u32> = Vec::with_capacity(NUM_CONFIGS);
        let mut start = 0u32;
        for h in 0..3125u32 {
            let s: u8 = digits(h).iter().sum();
            if s <= 14 {
                let b = 14 - s as u32;
                hi[h as usize] = start << 4 | b;
                start += cnt_le[b as usize];
                for l in 0..625u32 {
                    if lo_sum[l as usize] as u32 <= b {
                        codes.push(h * 625 + l);
                    }
                }
            }
        }
        assert_eq!(codes.len(), NUM_CONFIGS);
        let n = codes.len();
        let rank_of = |code: u32| -> usize {
            let sh = hi[(code / 625) as usize];
            (sh >> 4) as usize + lo[(sh & 15) as usize * 625 + (code % 625) as usize] as usize
        };

        // --- complete (m, p) suit hands: class bit m * 2 + p ---
        let mut mask = vec![0u16; n];
        let mut sets: Vec<u32> = Vec::new(); // code increments of the 16 sets
        let mut set_digits: Vec<[u8; 9]> = Vec::new();
        for r in 0..9 {
            let mut d = [0u8; 9];
            d[r] = 3;
            set_digits.push(d);
            sets.push(3 * P5[r]);
        }
        for r in 0..7 {
            let mut d = [0u8; 9];
            d[r] = 1;
            d[r + 1] = 1;
            d[r + 2] = 1;
            set_digits.push(d);
            sets.push(P5[r] + P5[r + 1] + P5[r + 2]);
        }
        // Lists of target codes per class, grown one set or the pair at a time.
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); 10];
        lists[0].push(0);
        mask[0] |= 1;
        let fits = |code: u32, add: &[u8; 9]| -> bool {
            let d = digits(code);
            let mut s = 0u32;
            for i in 0..9 {
                if d[i] + add[i] > 4 {
                    return false;
                }
                s += (d[i] + add[i]) as u32;
            }
            s <= 14
        };
        for m in 0..5usize {
            for p in 0..2usize {
                let cls = m * 2 + p;
                let mut out: Vec<u32> = Vec::new();
                if m > 0 {
                    let prev = std::mem::take(&mut lists[cls - 2]);
                    for &code in &prev {
                        for (i, &inc) in sets.iter().enumerate() {
                            if fits(code, &set_digits[i]) {
                                let c2 = code + inc;
                                let r = rank_of(c2);
                                if mask[r] & 1 << cls == 0 {
                                    mask[r] |= 1 << cls;
                                    out.push(c2);
                                }
                            }
                        }
                    }
                    lists[cls - 2] = prev;
                }
                if p == 1 {
                    let prev = std::mem::take(&mut lists[cls - 1]);
                    for &code in &prev {
                        for r in 0..9 {
                            let mut add = [0u8; 9];
                            add[r] = 2;
                            if fits(code, &add) {
                                let c2 = code + 2 * P5[r];
                                let rk = rank_of(c2);
                                if mask[rk] & 1 << cls == 0 {
                                    mask[rk] |= 1 << cls;
                                    out.push(c2);
                                }
                            }
                        }
                    }
                    lists[cls - 1] = prev;
                }
                if cls != 0 {
                    lists[cls] = out;
                }
            }
        }

        // --- downward closure: descending rank order visits supersets first ---
        for i in (0..n).rev() {
            let m = mask[i];
            if m == 0 {
                continue;
            }
            let code = codes[i];
            let d = digits(code);
            for j in 0..9 {
                if d[j] > 0 {
                    let r = rank_of(code - P5[j]);
                    mask[r] |= m;
                }
            }
        }

        // --- g pass: ascending rank order visits subsets first ---
        let full: u16 = (1 << 10) - 1;
        let mut g: Vec<[u8; 16]> = vec![[0u8; 16]; n];
        let mut tiles = vec![0u8; n];
        for i in 0..n {
            let code = codes[i];
            let d = digits(code);
            let size: u8 = d.iter().sum();
            tiles[i] = size;
            let m = mask[i];
            let mut best = [0u8; 16];
            if m != full {
                for j in 0..9 {
                    if d[j] > 0 {
                        let gj = &g[rank_of(code - P5[j])];
                        for c in 0..16 {
                            best[c] = best[c].max(gj[c]);
                        }
                    }
                }
            }
            for (c, b) in best.iter_mut().enumerate().take(10) {
                if m & 1 << c != 0 {
                    *b = size;
                }
            }
            g[i] = best;
        }

        // --- pack records ---
        let mut rec = vec![0u32; n].into_boxed_slice();
        for i in 0..n {
            let mut dist = [[0u8; 2]; 5];
            for m in 0..5 {
                for p in 0..2 {
                    dist[m][p] = (3 * m + 2 * p) as u8 - g[i][m * 2 + p];
                }
            }
            let mut r = 0u32;
            for m in 1..5 {
                let d0 = dist[m][0] - dist[m - 1][0];
                let d1 = dist[m][1] - dist[m - 1][1];
                debug_assert!(d0 <= 3 && d1 <= 3);
                r |= (d0 as u32) << (2 * (m - 1));
                r |= (d1 as u32) << (10 + 2 * (m - 1));
            }
            debug_assert!(dist[0][1] <= 2);
            r |= (dist[0][1] as u32) << 8;
            let t = tiles[i] as usize;
            let complete = match t % 3 {
                0 => dist[t / 3][0] == 0,
                2 => dist[t / 3][1] == 0,
                _ => false,
            };
            if complete {
                r |= W_BIT;
                let d = digits(codes[i]);
                if terminal_reading(&d, t % 3 == 2) {
                    r |= T_BIT;
                }
                if d.iter().all(|&x| x == 0 || x == 3 || x == 2)
                    && d.iter().filter(|&&x| x == 2).count() <= 1
                {
                    r |= A_BIT;
                }
            }
            rec[i] = r;
        }
        // Wait bits: config h − e_j waits on rank j when h is complete.
        for i in 0..n {
            if rec[i] & W_BIT != 0 {
                let code = codes[i];
                let d = digits(code);
                for j in 0..9 {
                    if d[j] > 0 {
                        let r = rank_of(code - P5[j]);
                        rec[r] |= 1 << (WAIT_SHIFT + j as u32);
                    }
                }
            }
        }

        let mut complete = vec![0u64; n.div_ceil(64)].into_boxed_slice();
        for (i, &r) in rec.iter().enumerate() {
            if r & W_BIT != 0 {
                complete[i / 64] |= 1 << (i % 64);
            }
        }
        SuitTables {
            hi,
            lo,
            rec,
            complete,
        }
    }
}

/// True when a complete configuration splits into sets (and the pair, if `pair`) that each
/// hold a 1 or 9: only 123, 111, 11 at the bottom and 789, 999, 99 at the top qualify, so the
/// number of runs is forced (`d[1] == d[2]` runs of 123) and the check is arithmetic.
fn terminal_reading(d: &[u8; 9], pair: bool) -> bool {
    if d[3] != 0 || d[4] != 0 || d[5] != 0 {
        return false;
    }
    if d[1] != d[2] || d[7] != d[6] || d[0] < d[1] || d[8] < d[7] {
        return false;
    }
    let low = d[0] - d[1];
    let high = d[8] - d[7];
    let ok = |x: u8| x == 0 || x == 2 || x == 3;
    if !ok(low) || !ok(high) {
        return false;
    }
    let pairs = (low == 2) as u8 + (high == 2) as u8;
    pairs == pair as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection() {
        let t = tables();
        assert_eq!(t.rec.len(), NUM_CONFIGS);
        // Spot-check: empty config is rank 0, the last code (all in hi) the last rank.
        assert_eq!(t.rank(0, 0), 0);
        let (lo, hi) = split_code(&[0, 0, 0, 0, 0, 2, 4, 4, 4]);
        assert_eq!(t.rank(lo, hi), NUM_CONFIGS - 1);
    }

    #[test]
    fn records_of_small_configs() {
        let t = tables();
        // 1m alone: waits on 1m (pair); d(0,1) = 1, d(1,0) = 2.
        let r = t.record(&[1, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!((r >> WAIT_SHIFT) & 0x1ff, 1);
        let (d0, d1) = t.distances(r);
        assert_eq!(d0[1], 2);
        assert_eq!(d1[0], 1);
        // 23: waits 1 and 4 for a set.
        let r = t.record(&[0, 1, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!((r >> WAIT_SHIFT) & 0x1ff, 0b1001);
        // 1112345678999: nine-gates waits on everything.
        let r = t.record(&[3, 1, 1, 1, 1, 1, 1, 1, 3]);
        assert_eq!((r >> WAIT_SHIFT) & 0x1ff, 0x1ff);
        // 11 123 789 999: complete with a terminal reading, not all triplets.
        let r = t.record(&[3, 1, 1, 0, 0, 0, 1, 1, 4]);
        assert!(r & W_BIT != 0 && r & T_BIT != 0 && r & A_BIT == 0);
        // 222 555 88: all triplets, no terminal reading.
        let r = t.record(&[0, 3, 0, 0, 3, 0, 0, 2, 0]);
        assert!(r & W_BIT != 0 && r & T_BIT == 0 && r & A_BIT != 0);
    }

    #[test]
    fn terminal_reading_examples() {
        assert!(!terminal_reading(&[3, 1, 1, 0, 0, 0, 1, 1, 3], true)); // two pairs
        assert!(terminal_reading(&[3, 1, 1, 0, 0, 0, 1, 1, 4], true));
        assert!(terminal_reading(&[4, 1, 1, 0, 0, 0, 1, 1, 4], false));
        assert!(!terminal_reading(&[0, 1, 1, 1, 0, 0, 0, 0, 0], false));
    }
}
