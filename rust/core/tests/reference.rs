//! Property tests: the table-driven evaluator against the brute-force reference in
//! `common.rs` (recursive decomposition, target enumeration, reading enumeration).

mod common;

use common::*;
use proptest::prelude::*;
use xuezhan_core::*;

const LESHAN_ITEMS: u32 = 0x1ff;
const CHENGDU_ITEMS: u32 = 0x1ff | 1 << 9 | 1 << 10 | 1 << 13;

/// A test hand: near a win (most cases) or dealt at random from one to three suits.
fn hand(seed: u64, size: usize) -> (Counts, Vec<Meld>, Option<u8>) {
    let mut rng = XRng::new(seed);
    let void = match rng.below(4) {
        0 => Some(rng.below(3) as u8),
        _ => None,
    };
    loop {
        let kind = rng.below(10);
        if kind == 6 {
            // Seven pairs (quads allowed) in one or two suits, then some swaps.
            let s = rng.below(3);
            let s2 = (s + 1 + rng.below(2)) % 3;
            let mut c = [0u8; 27];
            let mut ok = true;
            for _ in 0..7 {
                let k = [s, s2][rng.below(2)] * 9 + rng.below(9);
                c[k] += 2;
                ok &= c[k] <= 4;
            }
            if !ok {
                continue;
            }
            let swaps = rng.below(3) + (14 - size);
            for i in 0..swaps {
                let held: Vec<usize> = (0..27).filter(|&k| c[k] > 0).collect();
                c[held[rng.below(held.len())]] -= 1;
                if i >= 14 - size {
                    let k = rng.below(27);
                    if c[k] >= 4 {
                        ok = false;
                        break;
                    }
                    c[k] += 1;
                }
            }
            if ok {
                return (c, Vec::new(), void);
            }
            continue;
        }
        if kind < 7 {
            let noise = [0, 0, 1, 1, 2, 3, 4][rng.below(7)];
            let three = rng.below(4) == 0;
            if let Some((c, m)) = near_hand(&mut rng, size, noise, three) {
                return (c, m, void);
            }
        } else {
            // Small alphabets: one or two suits, few kinds, plus sometimes a stray third suit.
            let s = rng.below(3);
            let lo = rng.below(5);
            let mut kinds: Vec<usize> = (lo..lo + 5).map(|r| s * 9 + r).collect();
            if kind >= 8 {
                let s2 = (s + 1) % 3;
                kinds.extend((0..4).map(|_| s2 * 9 + rng.below(9)));
            }
            if kind == 9 {
                kinds.push(((s + 2) % 3) * 9 + rng.below(9));
            }
            kinds.sort();
            kinds.dedup();
            if let Some(c) = deal(&mut rng, size, &kinds, &[0; 27]) {
                return (c, Vec::new(), void);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn is_win_matches_recursive_reference(seed in any::<u64>()) {
        let (c, m, v) = hand(seed, 14);
        prop_assert_eq!(is_win(&c, &m, v).unwrap(), ref_is_win(&c, &m, v), "{:?} {:?} {:?}", c, m, v);
    }

    #[test]
    fn wait_mask_matches_every_tile_tried(seed in any::<u64>()) {
        let (c, m, v) = hand(seed, 13);
        prop_assert_eq!(wait_mask(&c, &m, v).unwrap(), ref_wait_mask(&c, &m, v), "{:?} {:?} {:?}", c, m, v);
    }

    #[test]
    fn shanten_matches_target_enumeration(seed in any::<u64>(), size in 13usize..=14) {
        let (c, m, v) = hand(seed, size);
        let p = shanten_parts(&c, &m, v).unwrap();
        let r = ref_shanten(&c, &m, v);
        prop_assert_eq!((p.total, p.standard, p.seven_pairs), r, "{:?} {:?} {:?}", c, m, v);
        // Definition checks that need no target enumeration.
        if size == 14 {
            prop_assert_eq!(p.total == -1, ref_is_win(&c, &m, v));
        } else {
            prop_assert_eq!(p.total == 0, ref_wait_mask(&c, &m, v) != 0);
        }
    }

    #[test]
    fn fan_matches_reading_enumeration(seed in any::<u64>(), ctx in 0u8..128, chengdu in any::<bool>(), sdf in any::<bool>(), mid5 in any::<bool>()) {
        let (c, m, v) = hand(seed, 14);
        let rules = if chengdu { RulesCore::chengdu() } else { RulesCore::leshan() };
        let items = rules.items | if mid5 { 1 << item::MIDDLE_FIVE } else { 0 };
        let rules = RulesCore { self_draw_fan: sdf, items, ..rules };
        for win in (0..27).filter(|&k| c[k] > 0) {
            let got = fan(&c, &m, win as u8, ctx, &rules, v).unwrap();
            let want = if ref_is_win(&c, &m, v) {
                ref_fan(&c, &m, win, ctx, rules.items, rules.max_fan, sdf)
            } else {
                None
            };
            match (got, want) {
                (None, None) => {}
                (Some(g), Some((raw, capped, items))) => {
                    prop_assert_eq!((g.raw, g.capped), (raw, capped), "{:?} {:?} win {} ctx {}", c, m, win, ctx);
                    prop_assert_eq!(g.points, 1u64 << (capped - 1));
                    // Same total; items may differ only between equally good readings.
                    let sum = |x: &[u8; 16]| x.iter().enumerate().filter(|(i, _)| *i != 13).map(|(_, &y)| y as u32).sum::<u32>();
                    prop_assert_eq!(sum(&g.items), sum(&items));
                }
                (g, w) => prop_assert!(false, "{:?} {:?}: got {:?} want {:?}", c, m, g, w),
            }
        }
    }

    #[test]
    fn waits_are_fan_of_each_completion(seed in any::<u64>(), chengdu in any::<bool>()) {
        let (c, m, v) = hand(seed, 13);
        let items = if chengdu { CHENGDU_ITEMS } else { LESHAN_ITEMS };
        let rules = if chengdu { RulesCore::chengdu() } else { RulesCore::leshan() };
        let w = waits(&c, &m, &rules, v).unwrap();
        let mask = ref_wait_mask(&c, &m, v);
        prop_assert_eq!(w.iter().fold(0u32, |a, w| a | 1 << w.kind), mask);
        for x in &w {
            let mut h = c;
            h[x.kind as usize] += 1;
            // R7.3: shape items only, as a win on a discard (no context).
            let shape = items & 0b1_1110_0001_1111;
            let (_, capped, _) = ref_fan(&h, &m, x.kind as usize, 0, shape, rules.max_fan, false).unwrap();
            prop_assert_eq!(x.fan, capped);
            prop_assert_eq!(x.points, 1u64 << (capped - 1));
        }
    }

    #[test]
    fn best_discards_match_shanten_of_each_option(seed in any::<u64>()) {
        let (c, m, v) = hand(seed, 14);
        let mut rng = XRng::new(seed ^ 0xabc);
        let mc = meld_counts(&m);
        let mut visible = mc;
        for k in 0..27 {
            let room = 4 - c[k] - visible[k];
            visible[k] += rng.below(room as usize + 1) as u8;
        }
        let d = best_discards(&c, &m, &visible, v).unwrap();
        prop_assert_eq!(d.len(), c.iter().filter(|&&x| x > 0).count());
        for row in &d {
            let mut h = c;
            h[row.kind as usize] -= 1;
            let s = shanten(&h, &m, v).unwrap();
            prop_assert_eq!(row.shanten, s);
            let mut uk = 0u32;
            if s != UNREACHABLE {
                for t in 0..27 {
                    if h[t] + mc[t] >= 4 {
                        continue;
                    }
                    let mut h2 = h;
                    h2[t] += 1;
                    if shanten(&h2, &m, v).unwrap() < s {
                        uk += (4i32 - h[t] as i32 - visible[t] as i32).max(0) as u32;
                    }
                }
            }
            prop_assert_eq!(row.ukeire, uk, "{:?} {:?} discard {}", c, m, row.kind);
        }
    }
}

#[test]
fn targets_reference_is_sane() {
    let t = suit_targets();
    assert_eq!(t[0].len(), 1);
    assert_eq!(t[1].len(), 9);
    assert_eq!(t[2].len(), 16);
}

/// The generators must actually reach wins, ready hands, melds and void cases, or the
/// properties above would hold vacuously.
#[test]
fn generators_cover_interesting_cases() {
    let (mut wins, mut ready, mut melded, mut voids, mut seven) = (0, 0, 0, 0, 0);
    for seed in 0..2000u64 {
        let (c, m, v) = hand(seed, 14);
        wins += ref_is_win(&c, &m, v) as u32;
        seven += (m.is_empty() && c.iter().all(|&x| x % 2 == 0)) as u32;
        melded += !m.is_empty() as u32;
        voids += v.is_some() as u32;
        let (c, m, v) = hand(seed, 13);
        ready += (ref_wait_mask(&c, &m, v) != 0) as u32;
    }
    assert!(
        wins > 200 && ready > 300 && melded > 400 && voids > 300 && seven > 40,
        "{wins} {ready} {melded} {voids} {seven}"
    );
}
