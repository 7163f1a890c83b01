//! Exact per-suit distances when melds cap some kinds below four copies: a pung leaves one copy
//! of its kind for the concealed hand, a kong none, so the nearest complete hand must respect
//! the cap, which the shared suit table (caps of 4) cannot know. Only a suit holding a meld's
//! kind, with a held tile within two ranks of it, comes here.
//!
//! **The programme.** [`capped_suit_dist`] is a rank-by-rank dynamic programme maximising the
//! overlap `Σ min(T_r, h_r)` with a target `T`; `d(m, p) = 3m + 2p − overlap`. Its state
//! between two ranks is the runs still open (started one and two ranks back) and, per state,
//! the best overlap for each (pair, sets) count, eight byte lanes of one `u64` ([`Lanes`]).
//!
//! **Prefix tables.** A capped rank lets at most one run through it (a pung's one copy) or
//! none (a kong), so the state on either side of the capped ranks is small: no open run, a run
//! started at the last rank, or one started at the rank before. [`capped_fast`] therefore
//! runs the programme only from the first capped rank to the last; the uncapped ranks before
//! them come from a table of the programme's three states after every prefix of 0–8 ranks
//! (caps 4, at most [`MAX_TILES`] tiles: 114,742 entries, built on first use), and the ranks
//! after them from the same table read backwards (a suit reversed is a suit), joined to the
//! programme's states by a max-plus product. A single pung costs one step of the programme
//! and two table reads instead of nine steps. Every configuration and cap pattern a hand can
//! hold is checked against the full programme by `cargo run --release -p xuezhan-core
//! --example capped_sweep`; the unit tests check every cap pattern on smaller hands.

use crate::shanten::SuitDist;
use std::sync::OnceLock;

/// Sets tracked: a suit holding a meld kind never needs four (`d(4, p)` is reported as
/// `d(3, p) + 3`, which no caller reads).
const J: usize = 4;

/// The programme's state between two ranks: `s[a][b]` holds the lanes with `a` runs started
/// one rank back and `b` two ranks back (`a + b < J`).
type State = [[u64; J]; J];

/// One rank of the programme: the state after rank `r` from the state before it, with the
/// rank's cap and held count, placing at most `max_u` new runs there.
///
/// Only sets and a pair that add overlap are placed: a triplet or pair on a rank holding
/// nothing (and a run beyond the largest count of its ranks, see [`max_runs`]) could go
/// anywhere, so it is counted as a "free" set (3 missing tiles, 2 for a free pair) at the end
/// ([`finish`]). Free sets always fit: a suit with k melds needs at most 4 − k sets, leaving
/// kinds with room for a triplet.
// The indices are the state (runs started one and two ranks back, new runs `u`): `cur[a][b]`
// moves to `nxt[u][a]`, so they are arithmetic, not positions to iterate over.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn step(cur: &State, capr: usize, hr: usize, max_u: usize) -> State {
    let mut nxt = [[0u64; J]; J];
    let max_t = if hr > 0 { 1 } else { 0 };
    for a in 0..J {
        for b in 0..J - a {
            let need = a + b;
            let v = cur[a][b];
            if need > capr || !Lanes::any(v) {
                continue;
            }
            for trip in 0..=max_t {
                for pr in 0..=max_t {
                    let with_pair = if pr == 1 { Lanes::place_pair(v) } else { v };
                    for u in 0..=max_u {
                        let w = need + 3 * trip + 2 * pr + u;
                        let add = trip + u;
                        if w > capr || add >= J {
                            break;
                        }
                        let x = Lanes::add(Lanes::place_sets(with_pair, add), w.min(hr) as u64);
                        nxt[u][a] = Lanes::max(nxt[u][a], x);
                    }
                }
            }
        }
    }
    nxt
}

/// [`step`] at a rank capped at `cap` ≤ 1 holding `held` (≤ cap): no triplet or pair fits; a
/// kong's rank lets nothing through, a pung's one run (open before it, or started at it).
#[inline(always)]
fn capped_step(cur: &State, cap: u8, held: u8) -> State {
    let mut nxt = [[0u64; J]; J];
    nxt[0][0] = cur[0][0];
    if cap == 1 {
        let g = held as u64;
        // a run started two ranks back ends here; one started a rank back goes on
        nxt[0][0] = Lanes::max(nxt[0][0], Lanes::add(cur[0][1], g));
        nxt[0][1] = Lanes::add(cur[1][0], g);
        // a run starts here (counted as a set now)
        nxt[1][0] = Lanes::add(Lanes::place_sets(cur[0][0], 1), g);
    }
    nxt
}

/// The most runs worth starting at rank `r` of `h`: a run beyond the largest count among its
/// three ranks adds no overlap anywhere (each of its ranks is already saturated without it),
/// so it would be a free set; none start at ranks 8 and 9.
#[inline(always)]
fn max_runs(h: &[u8], r: usize) -> usize {
    if r <= 6 {
        (h[r].max(h[r + 1]).max(h[r + 2]) as usize).min(J - 1)
    } else {
        0
    }
}

/// The distances from the lanes of the finished programme (no run open): per set count the
/// best placement of at most that many sets, the others free (the reference's way, lane by
/// lane; [`finish_packed`] is the fast path's).
fn finish(end: u64) -> SuitDist {
    let mut out: SuitDist = ([0; 5], [0; 5]);
    for m in 0..J {
        let (mut best0, mut best1) = (0u8, 0u8); // the empty placement: every set free
        for j in 0..=m {
            best0 = best0.max(Lanes::get(end, 0, j));
            best1 = best1.max(Lanes::get(end, 0, j)).max(Lanes::get(end, 1, j));
        }
        out.0[m] = (3 * m) as u8 - best0;
        out.1[m] = (3 * m + 2) as u8 - best1;
    }
    out.0[J] = out.0[J - 1] + 3;
    out.1[J] = out.1[J - 1] + 3;
    out
}

/// [`finish`] as packed distances (`d(m, p)` in byte `2m + p`, as
/// [`crate::suit_table::SuitTables::packed`]), lane-wise: the best over at most `m` sets is a
/// running maximum along each pair half, a free pair the no-pair half's value in the pair half,
/// and `d = 3m + 2p − overlap`. Lane (0, 0), the empty placement, is always reachable, so after
/// the running maxima every lane is (no bias to remove lane by lane).
#[inline(always)]
fn finish_packed(end: u64) -> u128 {
    let mut x = end;
    x = Lanes::max(x, (x << 8) & 0xffff_ff00_ffff_ff00);
    x = Lanes::max(x, (x << 16) & 0xffff_0000_ffff_0000);
    x = Lanes::max(x, (x & 0xffff_ffff) << 32);
    // per lane (p, m): 3m + 2p plus the bias, less the best overlap
    const TOP: u64 = u64::from_le_bytes([64, 67, 70, 73, 66, 69, 72, 75]);
    let d = TOP - x;
    // byte i of each half to byte 2i, the pair half one byte up
    let spread = |t: u64| {
        let t = (t | t << 16) & 0x0000_ffff_0000_ffff;
        (t | t << 8) & 0x00ff_00ff_00ff_00ff
    };
    let low = spread(d & 0xffff_ffff) | spread(d >> 32) << 8;
    // d(4, p): d(3, p) + 3 (see `J`)
    low as u128 | (((low >> 48) + 0x0303) as u128) << 64
}

/// [`SuitDist`] of packed distances.
#[inline(always)]
pub(crate) fn unpack(d: u128) -> SuitDist {
    let b = d.to_le_bytes();
    (
        [b[0], b[2], b[4], b[6], b[8]],
        [b[1], b[3], b[5], b[7], b[9]],
    )
}

/// The exact distances of one suit `h` under the caps `cap` (nine values each, `h[r] ≤
/// cap[r]`): `([d(m, 0); 5], [d(m, 1); 5])`, the fewest tiles to add for `m` sets and `p`
/// pairs. The whole programme, rank by rank: the reference for [`capped_fast`], and its
/// fallback for a side holding more than [`MAX_TILES`] tiles.
///
/// ```
/// use xuezhan_core::capped::{capped_fast, capped_suit_dist};
/// // 5m held once beside a pung of 5m (cap 1): a pair of 5m is out of reach.
/// let (h, cap) = ([0, 0, 0, 0, 1, 0, 0, 0, 0], [4, 4, 4, 4, 1, 4, 4, 4, 4]);
/// let d = capped_suit_dist(&h, &cap);
/// assert_eq!((d.0[0], d.1[0]), (0, 2)); // the pair must be two new tiles
/// assert_eq!(capped_fast(&h, &cap), d);
/// ```
pub fn capped_suit_dist(h: &[u8], cap: &[u8]) -> ([u8; 5], [u8; 5]) {
    let mut cur = [[0u64; J]; J];
    cur[0][0] = Lanes::START;
    for r in 0..9 {
        cur = step(&cur, cap[r] as usize, h[r] as usize, max_runs(h, r));
    }
    finish(cur[0][0])
}

/// [`capped_suit_dist`] with the uncapped ranks before the first capped rank and after the
/// last one read from the prefix tables (see the module documentation). `cap` holds at least
/// one value below 4.
///
/// ```
/// use xuezhan_core::capped::capped_fast;
/// // 34m beside a kong of 2m (cap 0): 234 is gone, 345 needs the 5m.
/// let d = capped_fast(&[0, 0, 1, 1, 0, 0, 0, 0, 0], &[4, 0, 4, 4, 4, 4, 4, 4, 4]);
/// assert_eq!(d.0[1], 1);
/// ```
pub fn capped_fast(h: &[u8], cap: &[u8]) -> ([u8; 5], [u8; 5]) {
    unpack(capped_packed_uncached(h, cap))
}

/// [`capped_fast`] as packed distances (`d(m, p)` in byte `2m + p`, as
/// [`crate::suit_table::SuitTables::packed`]), through a per-thread memo: a player's hand
/// changes by a tile a turn, so the configurations its discard evaluation asks about (the hand
/// less a tile, plus one) largely recur from turn to turn, and a suit with two or more capped
/// ranks costs a few hundred nanoseconds.
#[inline]
pub(crate) fn capped_packed(h: &[u8], cap: &[u8]) -> u128 {
    let (lo, hi) = crate::suit_table::split_code(h);
    // the configuration's code (21 bits), then each rank's cap (0, 1 or 4) in two bits; the top
    // bit marks a used slot
    let mut key = (hi as u64 * 625 + lo as u64) | 1 << 63;
    for (r, &c) in cap.iter().enumerate() {
        key |= (c.min(2) as u64) << (21 + 2 * r);
    }
    let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize & (MEMO_SLOTS - 1);
    MEMO.with_borrow_mut(|m| {
        if m[slot].0 != key {
            m[slot] = (key, capped_packed_uncached(h, cap));
        }
        m[slot].1
    })
}

/// Slots of the per-thread memo of [`capped_packed`] (direct-mapped, 32 bytes each: 128 KB,
/// on the heap at the thread's first capped suit).
const MEMO_SLOTS: usize = 1 << 12;

thread_local! {
    static MEMO: std::cell::RefCell<Vec<(u64, u128)>> =
        std::cell::RefCell::new(vec![(0, 0); MEMO_SLOTS]);
}

/// [`capped_packed`] without the memo. On x86-64 a copy compiled with AVX2 runs where the CPU
/// has it (detected once): each join ([`Lanes::join`]) is then a handful of vector operations.
#[inline]
fn capped_packed_uncached(h: &[u8], cap: &[u8]) -> u128 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the only feature `packed_avx2` is compiled with.
        return unsafe { packed_avx2(h, cap) };
    }
    packed_body::<false>(h, cap)
}

/// [`packed_body`] compiled with AVX2, its joins as [`join_avx2`].
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn packed_avx2(h: &[u8], cap: &[u8]) -> u128 {
    packed_body::<true>(h, cap)
}

/// Two independent parts of a suit together ([`Lanes::join`]); `AVX`: the caller is compiled
/// with AVX2 and the CPU has it.
#[inline(always)]
fn join<const AVX: bool>(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if AVX {
        // SAFETY: `AVX` is only set in code compiled with AVX2, run where the CPU has it.
        return unsafe { join_avx2(a, b) };
    }
    Lanes::join(a, b)
}

/// [`Lanes::join`] as eight terms side by side: the placements of `b` after each lane of `a`
/// (`j` sets more, and for the pair half the pair moved up) are four shifted copies of `b` and
/// four of its pair-moved self; each term adds its lane of `a` (broadcast by a byte shuffle)
/// and is kept only where that lane is reachable; the eight are folded by byte-wise maxima.
/// The same lanes as [`Lanes::join`] wherever either is reachable (unreachable lanes may hold
/// other values below the bias).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn join_avx2(a: u64, b: u64) -> u64 {
    use std::arch::x86_64::*;
    const SHIFTS: [i64; 4] = [0, 8, 16, 24];
    // `Lanes::place_sets` masks, by sets added
    const KEEP: [i64; 4] = [
        -1,
        0xffff_ff00_ffff_ff00_u64 as i64,
        0xffff_0000_ffff_0000_u64 as i64,
        0xff00_0000_ff00_0000_u64 as i64,
    ];
    let shifts = _mm256_loadu_si256(SHIFTS.as_ptr().cast());
    let keep = _mm256_loadu_si256(KEEP.as_ptr().cast());
    let place = |x: u64| {
        _mm256_and_si256(
            _mm256_sllv_epi64(_mm256_set1_epi64x(x as i64), shifts),
            keep,
        )
    };
    let (no_pair, pair) = (place(b), place(Lanes::place_pair(b)));
    // each 64-bit lane i of the first vector takes byte i of `a` eight times, of the second
    // byte 4 + i (within each 128-bit half, whose low eight bytes are `a`)
    let spread = |first: i8| {
        let (x, y) = (first, first + 1);
        _mm256_setr_epi8(
            x,
            x,
            x,
            x,
            x,
            x,
            x,
            x,
            y,
            y,
            y,
            y,
            y,
            y,
            y,
            y, //
            x + 2,
            x + 2,
            x + 2,
            x + 2,
            x + 2,
            x + 2,
            x + 2,
            x + 2, //
            y + 2,
            y + 2,
            y + 2,
            y + 2,
            y + 2,
            y + 2,
            y + 2,
            y + 2,
        )
    };
    let av = _mm256_set1_epi64x(a as i64);
    let bias = _mm256_set1_epi8(Lanes::BIAS as i8);
    let term = |placed: __m256i, first: i8| {
        let g = _mm256_shuffle_epi8(av, spread(first));
        let reachable = _mm256_cmpgt_epi8(g, _mm256_set1_epi8(Lanes::BIAS as i8 - 1));
        _mm256_and_si256(_mm256_add_epi8(placed, _mm256_sub_epi8(g, bias)), reachable)
    };
    let x = _mm256_max_epu8(term(no_pair, 0), term(pair, 4));
    let x = _mm256_max_epu8(x, _mm256_permute4x64_epi64::<0b01_00_11_10>(x));
    let x = _mm256_max_epu8(x, _mm256_shuffle_epi32::<0b01_00_11_10>(x));
    _mm256_extract_epi64::<0>(x) as u64
}

/// [`capped_packed_uncached`]'s work; `AVX`: compiled with AVX2, run where the CPU has it.
#[inline(always)]
fn packed_body<const AVX: bool>(h: &[u8], cap: &[u8]) -> u128 {
    let mut first = 9;
    let mut last = 0;
    for (r, &c) in cap.iter().enumerate() {
        if c < 4 {
            first = first.min(r);
            last = r;
        }
    }
    debug_assert!(first < 9, "a capped suit has a capped rank");
    let p = prefixes();
    let (Some(li), Some(ri)) = (
        p.index_of(h[..first].iter().copied()),
        p.index_of(h[last + 1..].iter().rev().copied()),
    ) else {
        let (d0, d1) = capped_suit_dist(h, cap);
        return (0..5).fold(0u128, |x, m| {
            x | (d0[m] as u128) << (16 * m) | (d1[m] as u128) << (16 * m + 8)
        });
    };
    // Both entries read before either is used, so that their cache misses overlap.
    let (left, right) = (p.states[li], p.states[ri]);
    if first == last {
        return finish_packed(one_capped_rank::<AVX>(&left, &right, cap[first], h[first]));
    }
    let mut cur = [[0u64; J]; J];
    cur[0][0] = left[NO_RUN];
    cur[1][0] = left[RUN_AT_LAST];
    cur[0][1] = left[RUN_BEFORE_LAST];
    for r in first..=last {
        cur = if cap[r] <= 1 {
            capped_step(&cur, cap[r], h[r])
        } else {
            step(&cur, cap[r] as usize, h[r] as usize, max_runs(h, r))
        };
    }
    // After the last capped rank at most one run is open (its cap is at most 1). Read
    // backwards, the rest of the suit sees a run started at that rank as one started at its
    // own rank before last, and a run started a rank earlier as one started at its last rank;
    // both sides counted that run as a set.
    let open = join::<AVX>(cur[0][0], right[NO_RUN]);
    let at = join::<AVX>(Lanes::unplace_set(cur[1][0]), right[RUN_BEFORE_LAST]);
    let before = join::<AVX>(Lanes::unplace_set(cur[0][1]), right[RUN_AT_LAST]);
    finish_packed(Lanes::max(open, Lanes::max(at, before)))
}

/// The finished lanes of a suit with one capped rank between the prefix states `left` and the
/// reversed suffix states `right`: the rank unused (a kong's only case), or one run through a
/// pung's copy (`held` of it, 0 or 1), started two ranks before it, one rank before it (both
/// sides counted it) or at it.
#[inline(always)]
fn one_capped_rank<const AVX: bool>(left: &[u64; 3], right: &[u64; 3], cap: u8, held: u8) -> u64 {
    if cap == 0 {
        return join::<AVX>(left[NO_RUN], right[NO_RUN]);
    }
    let g = held as u64;
    let ends_at = Lanes::add(left[RUN_BEFORE_LAST], g);
    let through = Lanes::add(Lanes::unplace_set(left[RUN_AT_LAST]), g);
    let starts_at = Lanes::add(right[RUN_BEFORE_LAST], g);
    let a = join::<AVX>(left[NO_RUN], Lanes::max(right[NO_RUN], starts_at));
    let b = join::<AVX>(ends_at, right[NO_RUN]);
    let c = join::<AVX>(through, right[RUN_AT_LAST]);
    Lanes::max(a, Lanes::max(b, c))
}

/// The most tiles of a prefix the tables hold: a suit holding a meld's kind has at most 11
/// concealed tiles, one more while a draw is weighed.
pub const MAX_TILES: usize = 12;

/// Where each state sits in a prefix entry.
const NO_RUN: usize = 0;
const RUN_AT_LAST: usize = 1;
const RUN_BEFORE_LAST: usize = 2;

/// The programme's states after every prefix of 0–8 uncapped ranks holding at most
/// [`MAX_TILES`] tiles: no open run, a run started at the prefix's last rank, one started at
/// the rank before (the only states a capped rank after it lets through).
///
/// Prefixes are ranked as the suit table ranks configurations (see [`crate::suit_table`]):
/// the base-5 code of the first four ranks (`lo`) and of the rest (`hi`), and
/// `rank = HI[hi].start + LO[budget(hi)][lo]`; the prefixes of one length are the codes below
/// `5^len`, so they take consecutive ranks from 0, after the entries of the shorter lengths.
struct Prefixes {
    /// Per `hi` code (ranks 5–8 of the prefix): `start << 4 | budget`, or `u32::MAX` when it
    /// alone holds too many tiles.
    hi: Box<[u32]>,
    /// `lo[budget * 625 + lo]`: rank of `lo` among codes of ranks 1–4 of at most `budget`
    /// tiles (`u16::MAX` over budget).
    lo: Box<[u16]>,
    /// The first entry of each prefix length 0–8.
    base: [u32; 9],
    /// The three states of each entry (see [`NO_RUN`] etc.).
    states: Box<[[u64; 3]]>,
}

static PREFIXES: OnceLock<Prefixes> = OnceLock::new();

fn prefixes() -> &'static Prefixes {
    PREFIXES.get_or_init(Prefixes::build)
}

impl Prefixes {
    /// The entry of the prefix whose counts `digits` yields in rank order (at most 8 of
    /// them), or None when it holds more than [`MAX_TILES`] tiles.
    #[inline(always)]
    fn index_of(&self, digits: impl Iterator<Item = u8>) -> Option<usize> {
        let (mut code, mut len, mut pow) = (0u32, 0usize, 1u32);
        for d in digits {
            code += d as u32 * pow;
            pow *= 5;
            len += 1;
        }
        self.index(len, code)
    }

    #[inline(always)]
    fn index(&self, len: usize, code: u32) -> Option<usize> {
        let sh = self.hi[(code / 625) as usize];
        if sh == u32::MAX {
            return None;
        }
        let lo = self.lo[(sh & 15) as usize * 625 + (code % 625) as usize];
        if lo == u16::MAX {
            return None;
        }
        Some(self.base[len] as usize + (sh >> 4) as usize + lo as usize)
    }

    fn build() -> Prefixes {
        let digit_sum = |mut x: u32| {
            let mut s = 0;
            while x != 0 {
                s += x % 5;
                x /= 5;
            }
            s as usize
        };
        let mut lo = vec![u16::MAX; (MAX_TILES + 1) * 625].into_boxed_slice();
        let mut count_le = [0u32; MAX_TILES + 1];
        for (b, n) in count_le.iter_mut().enumerate() {
            for l in 0..625u32 {
                if digit_sum(l) <= b {
                    lo[b * 625 + l as usize] = *n as u16;
                    *n += 1;
                }
            }
        }
        let mut hi = vec![u32::MAX; 625].into_boxed_slice();
        let mut start = 0u32;
        for (h, slot) in hi.iter_mut().enumerate() {
            let s = digit_sum(h as u32);
            if s <= MAX_TILES {
                let budget = (MAX_TILES - s) as u32;
                *slot = start << 4 | budget;
                start += count_le[budget as usize];
            }
        }
        // Entries of each length: the codes below 5^len within the budget.
        let mut base = [0u32; 9];
        let mut total = 0u32;
        for (len, b) in base.iter_mut().enumerate() {
            *b = total;
            total += (0..5u32.pow(len as u32))
                .filter(|&c| digit_sum(c) <= MAX_TILES)
                .count() as u32;
        }
        let mut p = Prefixes {
            hi,
            lo,
            base,
            states: vec![[0u64; 3]; total as usize].into_boxed_slice(),
        };
        let mut start_state = [[0u64; J]; J];
        start_state[0][0] = Lanes::START;
        p.visit(&start_state, 0, 0, 0, 1);
        p
    }

    /// Stores the states after the prefix `code` of `len` ranks and `tiles` tiles, then
    /// extends it by one rank. Every run is allowed at every rank: the ranks that follow a
    /// prefix are not known here, and a run that adds nothing only stands for a free set.
    fn visit(&mut self, cur: &State, len: usize, code: u32, tiles: usize, pow: u32) {
        let i = self.index(len, code).expect("a prefix within the budget");
        self.states[i] = [cur[0][0], cur[1][0], cur[0][1]];
        if len == 8 {
            return;
        }
        for d in 0..=4usize.min(MAX_TILES - tiles) {
            let nxt = step(cur, 4, d, J - 1);
            self.visit(&nxt, len + 1, code + d as u32 * pow, tiles + d, pow * 5);
        }
    }
}

/// Eight byte lanes of a `u64`: lane `4p + j` holds the best overlap with `p` pairs and `j`
/// sets placed, plus [`Lanes::BIAS`] when reachable. An unreachable lane holds less than the
/// bias (it starts at 0 and gains at most 4 per rank over 9 ranks, and a join adds at most one
/// reachable overlap of at most 11), and no lane reaches 128, so byte-wise adds never carry and
/// the byte-wise max needs no sign handling.
struct Lanes;

impl Lanes {
    const BIAS: u64 = 64;
    const BIAS_BITS: u64 = 0x4040_4040_4040_4040;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// Nothing placed: lane (0, 0) reachable with overlap 0.
    const START: u64 = Self::BIAS;

    #[inline(always)]
    fn any(v: u64) -> bool {
        v & Self::BIAS_BITS != 0
    }

    /// `add` more sets: lane j moves to j + add within each pair half; lanes past three sets
    /// are dropped and the vacated lower lanes become unreachable.
    #[inline(always)]
    fn place_sets(v: u64, add: usize) -> u64 {
        const KEEP: [u64; 4] = [
            !0,
            0xffff_ff00_ffff_ff00,
            0xffff_0000_ffff_0000,
            0xff00_0000_ff00_0000,
        ];
        (v << (8 * add)) & KEEP[add]
    }

    /// One set fewer: lane j moves to j − 1 within each pair half (a run both sides of a join
    /// counted).
    #[inline(always)]
    fn unplace_set(v: u64) -> u64 {
        (v >> 8) & 0x00ff_ffff_00ff_ffff
    }

    /// The pair: the no-pair half moves to the pair half (a second pair is not allowed).
    #[inline(always)]
    fn place_pair(v: u64) -> u64 {
        (v & 0xffff_ffff) << 32
    }

    #[inline(always)]
    fn add(v: u64, gain: u64) -> u64 {
        v + gain * Self::ONES
    }

    /// Byte-wise max of lanes below 128: `(a | 0x80) − b` keeps bit 7 exactly where a ≥ b.
    #[inline(always)]
    fn max(a: u64, b: u64) -> u64 {
        let ge = ((a | Self::HIGH) - b) & Self::HIGH;
        let m = (ge >> 7) * 0xff;
        (a & m) | (b & !m)
    }

    /// Two independent parts of a suit together (max-plus product): lane (p, j) gets the best
    /// sum over the lanes (p1, j1) of `a` and (p2, j2) of `b` with p1 + p2 = p, j1 + j2 = j.
    #[inline(always)]
    fn join(a: u64, b: u64) -> u64 {
        if !Self::any(a) || !Self::any(b) {
            return 0;
        }

        let b_pair = Self::place_pair(b);
        let mut out = 0u64;
        let mut reach = a & Self::BIAS_BITS;
        while reach != 0 {
            let l = reach.trailing_zeros() as usize / 8;
            reach &= reach - 1;
            let gain = ((a >> (8 * l)) & 0xff) - Self::BIAS;
            let from = if l >= 4 { b_pair } else { b };
            out = Self::max(out, Self::add(Self::place_sets(from, l % 4), gain));
        }
        out
    }

    /// Overlap of lane (p, j), 0 when unreachable.
    #[inline(always)]
    fn get(v: u64, p: usize, j: usize) -> u8 {
        let x = (v >> (8 * (4 * p + j))) & 0xff;
        x.saturating_sub(Self::BIAS) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suit_table::tables;

    /// Brute force: every (m sets, p pairs) single-suit target within `cap`.
    fn brute_capped(h: &[u8; 9], cap: &[u8; 9]) -> SuitDist {
        fn rec(
            t: &mut [u8; 9],
            m: usize,
            p: usize,
            from: usize,
            h: &[u8; 9],
            cap: &[u8; 9],
            out: &mut SuitDist,
        ) {
            let miss: u8 = (0..9).map(|r| t[r].saturating_sub(h[r])).sum();
            let slot = if p == 0 { &mut out.0[m] } else { &mut out.1[m] };
            *slot = (*slot).min(miss);
            if p == 0 {
                for r in 0..9 {
                    if t[r] + 2 <= cap[r] {
                        t[r] += 2;
                        rec(t, m, 1, 99, h, cap, out);
                        t[r] -= 2;
                    }
                }
            }
            if m == 4 || from == 99 {
                return;
            }
            for set in from..16 {
                let ranks: Vec<usize> = if set < 9 {
                    vec![set; 3]
                } else {
                    (set - 9..set - 6).collect()
                };
                let mut ok = true;
                for &r in &ranks {
                    t[r] += 1;
                }
                for &r in &ranks {
                    ok &= t[r] <= cap[r];
                }
                if ok {
                    rec(t, m + 1, p, set, h, cap, out);
                }
                for &r in &ranks {
                    t[r] -= 1;
                }
            }
        }
        let mut out: SuitDist = ([u8::MAX; 5], [u8::MAX; 5]);
        rec(&mut [0; 9], 0, 0, 0, h, cap, &mut out);
        out
    }

    /// A small generator (xorshift64), so the checks below need no dependency.
    fn rng(seed: u64) -> impl FnMut(u64) -> u8 {
        let mut x = seed;
        move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n) as u8
        }
    }

    /// A random capped suit: one to three meld kinds (a kong, cap 0, or a pung, cap 1) and up
    /// to `tiles` tiles within the caps.
    fn random_suit(next: &mut impl FnMut(u64) -> u8, tiles: u64) -> ([u8; 9], [u8; 9]) {
        let mut cap = [4u8; 9];
        for _ in 0..=next(3) {
            cap[next(9) as usize] = next(2);
        }
        let mut h = [0u8; 9];
        for _ in 0..next(tiles + 1) {
            let r = next(9) as usize;
            if h[r] < cap[r] {
                h[r] += 1;
            }
        }
        (h, cap)
    }

    #[test]
    fn capped_dp_matches_brute_force() {
        let mut next = rng(0x1234_5678_9abc_def1);
        for _ in 0..300 {
            let (h, cap) = random_suit(&mut next, 11);
            // The brute force's (4, 1) row is only reachable within the caps; compare m ≤ 3
            // (a suit holding a meld never needs four sets).
            let (got, want) = (capped_suit_dist(&h, &cap), brute_capped(&h, &cap));
            assert_eq!(
                (&got.0[..4], &got.1[..4]),
                (&want.0[..4], &want.1[..4]),
                "{h:?} {cap:?}"
            );
        }
    }

    #[test]
    fn capped_dp_matches_table_without_caps() {
        let t = tables();
        for h in [
            [0u8; 9],
            [1, 1, 2, 0, 4, 0, 1, 3, 2],
            [3, 1, 1, 1, 1, 1, 1, 1, 3],
            [0, 0, 4, 4, 0, 0, 2, 0, 0],
        ] {
            let (got, want) = (capped_suit_dist(&h, &[4; 9]), t.distances(t.record(&h)));
            assert_eq!(
                (&got.0[..4], &got.1[..4]),
                (&want.0[..4], &want.1[..4]),
                "{h:?}"
            );
        }
    }

    /// Every configuration of at most `tiles` tiles within `cap`, in turn.
    fn each_config(cap: &[u8; 9], tiles: usize, f: &mut impl FnMut(&[u8; 9])) {
        fn rec(
            r: usize,
            left: usize,
            h: &mut [u8; 9],
            cap: &[u8; 9],
            f: &mut impl FnMut(&[u8; 9]),
        ) {
            if r == 9 {
                f(h);
                return;
            }
            for x in 0..=(cap[r] as usize).min(left) {
                h[r] = x as u8;
                rec(r + 1, left - x, h, cap, f);
            }
            h[r] = 0;
        }
        rec(0, tiles, &mut [0; 9], cap, f);
    }

    /// Every cap pattern of one to four meld kinds in a suit (a kong or a pung each), each with
    /// every configuration of a few tiles: the prefix tables, the programme between the capped
    /// ranks and the join agree with the whole programme. The release sweep
    /// (`--example capped_sweep`) covers every configuration a hand can hold.
    #[test]
    fn fast_path_matches_the_programme_for_every_cap_pattern() {
        let mut checked = 0u32;
        for pattern in 1..3u32.pow(9) {
            let mut cap = [4u8; 9];
            let mut x = pattern;
            let mut melds = 0;
            for c in cap.iter_mut() {
                match x % 3 {
                    1 => *c = 1,
                    2 => *c = 0,
                    _ => {}
                }
                melds += (x % 3 != 0) as usize;
                x /= 3;
            }
            if melds > 4 {
                continue;
            }
            let tiles = [0, 5, 4, 3, 2][melds];
            each_config(&cap, tiles, &mut |h| {
                let (got, want) = (capped_fast(h, &cap), capped_suit_dist(h, &cap));
                assert_eq!(got, want, "{h:?} {cap:?}");
                checked += 1;
            });
        }
        assert!(checked > 100_000, "{checked}");
    }

    /// Random suits of up to 12 tiles (one more than a melded hand holds in a suit, as while a
    /// draw is weighed), beyond the sizes the sweep above reaches.
    #[test]
    fn fast_path_matches_the_programme_on_random_suits() {
        let mut next = rng(0x5eed_cafe_f00d_0001);
        for _ in 0..20_000 {
            let (h, cap) = random_suit(&mut next, 16);
            if h.iter().all(|&x| x == 0) && cap.iter().all(|&c| c == 4) {
                continue;
            }
            if cap.iter().all(|&c| c == 4) {
                continue;
            }
            assert_eq!(
                capped_fast(&h, &cap),
                capped_suit_dist(&h, &cap),
                "{h:?} {cap:?}"
            );
        }
    }

    /// The AVX2 join is the lane-by-lane join wherever either is reachable, on lanes as the
    /// programme makes them (reachable lanes the bias plus an overlap of at most 11, the
    /// others below the bias); and the fast path's two builds agree on random suits.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_join_is_the_join() {
        let mut next = rng(0xa5a5_5a5a_0f0f_f0f0);
        // (on a CPU without AVX2 both builds are the portable one)
        let avx2 = std::is_x86_feature_detected!("avx2");
        let lanes = |next: &mut dyn FnMut(u64) -> u8| {
            (0..8).fold(0u64, |v, l| {
                let x = if next(3) == 0 {
                    next(44)
                } else {
                    64 + next(12)
                } as u64;
                v | x << (8 * l)
            })
        };
        for _ in 0..if avx2 { 200_000 } else { 0 } {
            let (a, b) = (lanes(&mut next), lanes(&mut next));
            // SAFETY: the CPU has AVX2 (checked above).
            let (want, got) = (Lanes::join(a, b), unsafe { join_avx2(a, b) });
            for l in 0..8 {
                let (w, g) = ((want >> (8 * l)) & 0xff, (got >> (8 * l)) & 0xff);
                assert!(
                    w == g || (w < Lanes::BIAS && g < Lanes::BIAS),
                    "{a:#x} {b:#x} lane {l}"
                );
            }
        }
        for _ in 0..20_000 {
            let (h, cap) = random_suit(&mut next, 12);
            assert_eq!(
                capped_packed_uncached(&h, &cap),
                packed_body::<false>(&h, &cap)
            );
        }
    }

    /// A side of more than [`MAX_TILES`] tiles is not in the tables: the whole programme
    /// answers.
    #[test]
    fn a_side_beyond_the_tables_falls_back_to_the_programme() {
        let h = [4, 4, 4, 1, 0, 0, 0, 0, 0];
        let cap = [4, 4, 4, 4, 4, 4, 4, 4, 0];
        assert!(prefixes().index_of(h[..8].iter().copied()).is_none());
        assert_eq!(capped_fast(&h, &cap), capped_suit_dist(&h, &cap));
    }
}
