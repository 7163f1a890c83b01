//! Shared helpers of the integration tests: a tiny seeded RNG, hand generators and a
//! brute-force reference evaluator that shares no code with the crate.
// Each integration test binary compiles this module and uses only some of its helpers.
#![allow(dead_code)]

use std::sync::OnceLock;
use xuezhan_core::{Counts, Meld, MeldType};

/// xorshift64*: deterministic, no dependency.
pub struct XRng(pub u64);
impl XRng {
    pub fn new(seed: u64) -> XRng {
        XRng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub fn meld_counts(melds: &[Meld]) -> [u8; 27] {
    let mut m = [0u8; 27];
    for x in melds {
        m[x.kind as usize] += if x.ty == MeldType::Pung { 3 } else { 4 };
    }
    m
}

/// Deals `n` concealed tiles from the kinds in `kinds` (4 copies each minus `used`).
pub fn deal(rng: &mut XRng, n: usize, kinds: &[usize], used: &[u8; 27]) -> Option<Counts> {
    let mut wall: Vec<usize> = Vec::new();
    for &k in kinds {
        for _ in used[k]..4 {
            wall.push(k);
        }
    }
    if wall.len() < n {
        return None;
    }
    let mut c = [0u8; 27];
    for i in 0..n {
        let j = i + rng.below(wall.len() - i);
        wall.swap(i, j);
        c[wall[i]] += 1;
    }
    Some(c)
}

/// A random hand of `size` (13 or 14) tiles counting melds, built to be near a win: random
/// sets and a pair in one or two suits (some turned into melds), then `noise` tiles swapped
/// for random ones from `noise_kinds`. Returns None when the draw hit the four-copies limit.
pub fn near_hand(
    rng: &mut XRng,
    size: usize,
    noise: usize,
    three_suits: bool,
) -> Option<(Counts, Vec<Meld>)> {
    let suits: Vec<usize> = match rng.below(3) {
        0 => vec![rng.below(3)],
        _ => {
            let a = rng.below(3);
            vec![a, (a + 1 + rng.below(2)) % 3]
        }
    };
    let mut c = [0u8; 27];
    let mut melds = Vec::new();
    let n_melds = [0, 0, 0, 1, 1, 2, 3, 4][rng.below(8)];
    let add = |c: &mut Counts, mc: &[u8; 27], k: usize, n: u8| -> bool {
        if c[k] + mc[k] + n > 4 {
            return false;
        }
        c[k] += n;
        true
    };
    for set in 0..4 {
        let s = suits[rng.below(suits.len())];
        let mc = meld_counts(&melds);
        if set < n_melds {
            let k = s * 9 + rng.below(9);
            if c[k] + mc[k] > 0 {
                return None;
            }
            let ty = [
                MeldType::Pung,
                MeldType::Pung,
                MeldType::Kong,
                MeldType::ConcealedKong,
            ][rng.below(4)];
            melds.push(Meld { ty, kind: k as u8 });
            continue;
        }
        if rng.below(2) == 0 {
            let k = s * 9 + rng.below(9);
            if !add(&mut c, &mc, k, 3) {
                return None;
            }
        } else {
            let k = s * 9 + rng.below(7);
            for d in 0..3 {
                if !add(&mut c, &mc, k + d, 1) {
                    return None;
                }
            }
        }
    }
    let mc = meld_counts(&melds);
    let k = suits[rng.below(suits.len())] * 9 + rng.below(9);
    if !add(&mut c, &mc, k, 2) {
        return None;
    }
    // Now 14 tiles counting melds: drop to `size`, then swap `noise` tiles.
    let mut held: Vec<usize> = (0..27)
        .flat_map(|k| std::iter::repeat_n(k, c[k] as usize))
        .collect();
    let drop = 14 - size;
    for _ in 0..drop + noise {
        if held.is_empty() {
            return None;
        }
        let i = rng.below(held.len());
        c[held[i]] -= 1;
        held.swap_remove(i);
    }
    let pool: Vec<usize> = if three_suits {
        (0..27).collect()
    } else {
        suits.iter().flat_map(|&s| s * 9..s * 9 + 9).collect()
    };
    for _ in 0..noise {
        let k = pool[rng.below(pool.len())];
        if c[k] + mc[k] >= 4 {
            return None;
        }
        c[k] += 1;
    }
    Some((c, melds))
}

// ------------------------------------------------------------------ reference win

fn suits_present(c: &Counts, melds: &[Meld]) -> u8 {
    let mut s = 0;
    for (k, &x) in c.iter().enumerate() {
        if x > 0 {
            s |= 1 << (k / 9);
        }
    }
    for m in melds {
        s |= 1 << (m.kind / 9);
    }
    s
}

/// Recursive decomposition: can `c` be split into exactly `sets` sets and `pairs` pairs?
pub fn decomposes(c: &mut Counts, sets: usize, pairs: usize) -> bool {
    let Some(k) = (0..27).find(|&k| c[k] > 0) else {
        return sets == 0 && pairs == 0;
    };
    if pairs > 0 && c[k] >= 2 {
        c[k] -= 2;
        let ok = decomposes(c, sets, pairs - 1);
        c[k] += 2;
        if ok {
            return true;
        }
    }
    if sets > 0 && c[k] >= 3 {
        c[k] -= 3;
        let ok = decomposes(c, sets - 1, pairs);
        c[k] += 3;
        if ok {
            return true;
        }
    }
    if sets > 0 && k % 9 <= 6 && c[k + 1] > 0 && c[k + 2] > 0 {
        c[k] -= 1;
        c[k + 1] -= 1;
        c[k + 2] -= 1;
        let ok = decomposes(c, sets - 1, pairs);
        c[k] += 1;
        c[k + 1] += 1;
        c[k + 2] += 1;
        if ok {
            return true;
        }
    }
    false
}

pub fn ref_is_win(c: &Counts, melds: &[Meld], void: Option<u8>) -> bool {
    let present = suits_present(c, melds);
    if present == 7 || void.is_some_and(|v| present & (1 << v) != 0) {
        return false;
    }
    if melds.is_empty()
        && c.iter().all(|&x| x % 2 == 0)
        && c.iter().map(|&x| x as u32).sum::<u32>() == 14
    {
        return true;
    }
    let mut h = *c;
    decomposes(&mut h, 4 - melds.len(), 1)
}

pub fn ref_wait_mask(c: &Counts, melds: &[Meld], void: Option<u8>) -> u32 {
    let mc = meld_counts(melds);
    let mut m = 0;
    for t in 0..27 {
        if c[t] + mc[t] >= 4 {
            continue;
        }
        let mut h = *c;
        h[t] += 1;
        if ref_is_win(&h, melds, void) {
            m |= 1 << t;
        }
    }
    m
}

// ------------------------------------------------------------------ reference shanten

/// Every complete single-suit (m sets, p pairs) multiset, by class `m * 2 + p`; built by
/// adding sets in non-decreasing order (no table tricks), deduplicated.
pub fn suit_targets() -> &'static Vec<Vec<[u8; 9]>> {
    static T: OnceLock<Vec<Vec<[u8; 9]>>> = OnceLock::new();
    T.get_or_init(|| {
        let mut sets: Vec<[u8; 9]> = Vec::new();
        for r in 0..9 {
            let mut d = [0; 9];
            d[r] = 3;
            sets.push(d);
        }
        for r in 0..7 {
            let mut d = [0; 9];
            d[r] = 1;
            d[r + 1] = 1;
            d[r + 2] = 1;
            sets.push(d);
        }
        let mut out = vec![Vec::new(); 10];
        fn rec(cur: [u8; 9], m: usize, from: usize, sets: &[[u8; 9]], out: &mut Vec<Vec<[u8; 9]>>) {
            out[m * 2].push(cur);
            for r in 0..9 {
                let mut x = cur;
                x[r] += 2;
                if x[r] <= 4 {
                    out[m * 2 + 1].push(x);
                }
            }
            if m == 4 {
                return;
            }
            for (i, s) in sets.iter().enumerate().skip(from) {
                let mut x = cur;
                let mut ok = true;
                for r in 0..9 {
                    x[r] += s[r];
                    ok &= x[r] <= 4;
                }
                if ok {
                    rec(x, m + 1, i, sets, out);
                }
            }
        }
        rec([0; 9], 0, 0, &sets, &mut out);
        for v in out.iter_mut() {
            v.sort();
            v.dedup();
        }
        out
    })
}

/// Per suit `d(m,p)` by scanning every target within the caps.
pub fn ref_suit_dist(h: &[u8], cap: &[u8]) -> [[u32; 2]; 5] {
    let t = suit_targets();
    let mut d = [[99u32; 2]; 5];
    for m in 0..5 {
        for p in 0..2 {
            for tg in &t[m * 2 + p] {
                if (0..9).any(|r| tg[r] > cap[r]) {
                    continue;
                }
                let miss: u32 = (0..9).map(|r| tg[r].saturating_sub(h[r]) as u32).sum();
                d[m][p] = d[m][p].min(miss);
            }
        }
    }
    d
}

/// (total, standard, seven_pairs) by definition: fewest missing tiles over every complete
/// two-suit hand (respecting four copies with the melds), minus one. 127 = unreachable.
pub fn ref_shanten(c: &Counts, melds: &[Meld], void: Option<u8>) -> (i8, i8, i8) {
    let mc = meld_counts(melds);
    let cap: Vec<u8> = (0..27).map(|k| 4 - mc[k]).collect();
    let msuits = melds.iter().fold(0u8, |a, m| a | 1 << (m.kind / 9));
    let d: Vec<[[u32; 2]; 5]> = (0..3)
        .map(|s| ref_suit_dist(&c[s * 9..s * 9 + 9], &cap[s * 9..s * 9 + 9]))
        .collect();
    let sets = 4 - melds.len();
    let mut std = 999u32;
    let mut sp = 999u32;
    for v in 0..3usize {
        if msuits & (1 << v) != 0 || void.is_some_and(|x| x as usize != v) {
            continue;
        }
        let (a, b) = ((v + 1) % 3, (v + 2) % 3);
        for m in 0..=sets {
            std = std
                .min(d[a][m][0] + d[b][sets - m][1])
                .min(d[a][m][1] + d[b][sets - m][0]);
        }
        if melds.is_empty() {
            // DP over kinds: pairs taken per kind 0..=2, exactly 7 pairs, cost = tiles missing.
            let mut best = [999u32; 8];
            best[0] = 0;
            for (k, &ck) in c.iter().enumerate() {
                if k / 9 == v {
                    continue;
                }
                let mut nb = best;
                for have in 0..8 {
                    for take in 1..=2usize {
                        if have + take <= 7 && best[have] < 999 {
                            let cost = (2 * take as u32).saturating_sub(ck as u32);
                            nb[have + take] = nb[have + take].min(best[have] + cost);
                        }
                    }
                }
                best = nb;
            }
            sp = sp.min(best[7]);
        }
    }
    let conv = |x: u32| if x >= 999 { 127 } else { x as i8 - 1 };
    let (s, p) = (conv(std), conv(sp));
    (s.min(p), s, p)
}

// ------------------------------------------------------------------ reference fan

/// Every standard reading: (sets as (is_triplet, kind of first tile), pair kind).
pub fn readings(c: &Counts, sets: usize) -> Vec<(Vec<(bool, usize)>, usize)> {
    fn rec(
        c: &mut Counts,
        sets: usize,
        pair: Option<usize>,
        cur: &mut Vec<(bool, usize)>,
        out: &mut Vec<(Vec<(bool, usize)>, usize)>,
    ) {
        let Some(k) = (0..27).find(|&k| c[k] > 0) else {
            if sets == 0 {
                if let Some(p) = pair {
                    out.push((cur.clone(), p));
                }
            }
            return;
        };
        if pair.is_none() && c[k] >= 2 {
            c[k] -= 2;
            rec(c, sets, Some(k), cur, out);
            c[k] += 2;
        }
        if sets > 0 && c[k] >= 3 {
            c[k] -= 3;
            cur.push((true, k));
            rec(c, sets - 1, pair, cur, out);
            cur.pop();
            c[k] += 3;
        }
        if sets > 0 && k % 9 <= 6 && c[k + 1] > 0 && c[k + 2] > 0 {
            for d in 0..3 {
                c[k + d] -= 1;
            }
            cur.push((false, k));
            rec(c, sets - 1, pair, cur, out);
            cur.pop();
            for d in 0..3 {
                c[k + d] += 1;
            }
        }
    }
    let mut out = Vec::new();
    let mut h = *c;
    rec(&mut h, sets, None, &mut Vec::new(), &mut out);
    out
}

/// R5 by enumeration of every reading; returns (raw, capped, items) or None.
pub fn ref_fan(
    c: &Counts,
    melds: &[Meld],
    win: usize,
    ctx: u8,
    items_on: u32,
    max_fan: u8,
    self_draw_fan: bool,
) -> Option<(u8, u8, [u8; 16])> {
    let present = suits_present(c, melds);
    if present == 7 {
        return None;
    }
    let on = |i: usize| items_on & (1 << i) != 0;
    let mc = meld_counts(melds);
    let all: Vec<u8> = (0..27).map(|k| c[k] + mc[k]).collect();
    let term = |k: usize| k.is_multiple_of(9) || k % 9 == 8;
    let mut base = [0u8; 16];
    if present.count_ones() == 1 && on(1) {
        base[1] = 2;
    }
    let gen = all.iter().filter(|&&x| x == 4).count() as u8;
    if gen > 0 && on(3) {
        base[3] = gen;
    }
    if melds.len() == 4 && c[win] == 2 && on(4) {
        base[4] = 1;
    }
    for (bit, item) in [(1u8, 5usize), (2, 6), (3, 7), (4, 8)] {
        if ctx & (1 << bit) != 0 && on(item) {
            base[item] = 1;
        }
    }
    if !melds.iter().any(|m| m.ty != MeldType::ConcealedKong) && on(11) {
        base[11] = 1;
    }
    if (0..27).all(|k| all[k] == 0 || !term(k)) && on(12) {
        base[12] = 1;
    }
    if ctx & 1 != 0 && ctx & (1 << 6) == 0 && (self_draw_fan || on(14)) {
        base[14] = 1;
    }
    let mut best: Option<[u8; 16]> = None;
    let score = |it: &[u8; 16]| it.iter().map(|&x| x as u32).sum::<u32>();
    let mut consider = |it: [u8; 16]| {
        if best.is_none_or(|b| score(&it) > score(&b)) {
            best = Some(it);
        }
    };
    for (sets, pair) in readings(c, 4 - melds.len()) {
        let mut it = base;
        let trip = sets.iter().all(|s| s.0);
        if trip && on(0) {
            it[0] = 1;
        }
        let set_term = sets
            .iter()
            .all(|&(t, k)| if t { term(k) } else { k % 9 == 0 || k % 9 == 6 })
            && term(pair)
            && melds.iter().all(|m| term(m.kind as usize));
        if set_term && on(9) {
            it[9] = 2;
        }
        let only258 = (0..27).all(|k| all[k] == 0 || [1, 4, 7].contains(&(k % 9)));
        if trip && only258 && on(10) {
            it[10] = 2;
        }
        // 夹心五: the winning 5 in a 4-5-6 run of this reading (no winning tile for 天胡).
        let mid5 =
            win % 9 == 4 && ctx & (1 << 5) == 0 && sets.iter().any(|&(t, k)| !t && k + 1 == win);
        if mid5 && on(15) {
            it[15] = 1;
        }
        consider(it);
    }
    if melds.is_empty() && c.iter().all(|&x| x % 2 == 0) {
        let mut it = base;
        if on(2) {
            it[2] = 2;
        }
        consider(it);
    }
    let mut it = best?;
    let mut raw = 1 + score(&it) as u8;
    if ctx & (1 << 5) != 0 && on(13) {
        it[13] = max_fan;
        raw = raw.max(max_fan);
    }
    Some((raw, raw.min(max_fan), it))
}
