//! Seeded benchmark hands shared by the criterion benches (`rust/bench/benches/`), the timing
//! example (`examples/timing.rs`) and the agreement test, so all measure exactly the same hands.

// Each of the bench, the peer bench, the timing example and the agreement test uses some of
// these sets only.
#![allow(dead_code)]

use xuezhan_core::Counts;

/// Hands per corpus.
pub const N: usize = 4096;

/// xorshift64*: a tiny seeded generator, the same on every platform.
pub struct Rng(pub u64);
impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    /// Uniform in `0..n` (modulo bias is irrelevant for benchmark hands).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Two distinct suits.
pub fn two_suits(rng: &mut Rng) -> [usize; 2] {
    let a = rng.below(3);
    [a, (a + 1 + rng.below(2)) % 3]
}

/// `n` tiles dealt from a shuffled two-suit wall.
pub fn dealt(rng: &mut Rng, n: usize) -> Counts {
    let s = two_suits(rng);
    let mut wall: Vec<usize> = s
        .iter()
        .flat_map(|&s| (s * 9..s * 9 + 9).flat_map(|k| [k; 4]))
        .collect();
    for i in (1..wall.len()).rev() {
        wall.swap(i, rng.below(i + 1));
    }
    let mut c = [0u8; 27];
    for &k in &wall[..n] {
        c[k] += 1;
    }
    c
}

/// A winning 14-tile hand (no melds) in two suits and one of its tiles as the winning tile.
pub fn winning(rng: &mut Rng) -> (Counts, u8) {
    loop {
        let s = two_suits(rng);
        let mut c = [0u8; 27];
        let mut ok = true;
        if rng.below(8) == 0 {
            for _ in 0..7 {
                let k = s[rng.below(2)] * 9 + rng.below(9);
                c[k] += 2;
                ok &= c[k] <= 4;
            }
        } else {
            for _ in 0..4 {
                let base = s[rng.below(2)] * 9;
                if rng.below(3) == 0 {
                    let k = base + rng.below(9);
                    c[k] += 3;
                    ok &= c[k] <= 4;
                } else {
                    let k = base + rng.below(7);
                    for d in 0..3 {
                        c[k + d] += 1;
                        ok &= c[k + d] <= 4;
                    }
                }
            }
            let k = s[rng.below(2)] * 9 + rng.below(9);
            c[k] += 2;
            ok &= c[k] <= 4;
        }
        if ok {
            let held: Vec<usize> = (0..27).filter(|&k| c[k] > 0).collect();
            return (c, held[rng.below(held.len())] as u8);
        }
    }
}

/// The benchmark corpora, `N` hands each, drawn from `rng` in a fixed order.
pub struct Corpus {
    /// 14 tiles dealt from a two-suit wall.
    pub random14: Vec<Counts>,
    /// 13 tiles dealt from a two-suit wall.
    pub random13: Vec<Counts>,
    /// Winning hands with their winning tile.
    pub wins: Vec<(Counts, u8)>,
    /// Ready hands: a winning hand minus its winning tile.
    pub ready: Vec<Counts>,
    /// is_win input: half random, half winning.
    pub mixed14: Vec<Counts>,
    /// waits input: half random, half ready.
    pub mixed13: Vec<Counts>,
}

/// Draws the corpora (the same hands for the criterion bench and the timing example).
pub fn corpus(rng: &mut Rng) -> Corpus {
    let random14: Vec<Counts> = (0..N).map(|_| dealt(rng, 14)).collect();
    let random13: Vec<Counts> = (0..N).map(|_| dealt(rng, 13)).collect();
    let wins: Vec<(Counts, u8)> = (0..N).map(|_| winning(rng)).collect();
    // Ready hands: a winning hand minus its winning tile.
    let ready: Vec<Counts> = wins
        .iter()
        .map(|(c, w)| {
            let mut h = *c;
            h[*w as usize] -= 1;
            h
        })
        .collect();
    // is_win input: half random, half winning.
    let mixed14: Vec<Counts> = (0..N)
        .map(|i| if i % 2 == 0 { random14[i] } else { wins[i].0 })
        .collect();
    let mixed13: Vec<Counts> = (0..N)
        .map(|i| if i % 2 == 0 { random13[i] } else { ready[i] })
        .collect();
    Corpus {
        random14,
        random13,
        wins,
        ready,
        mixed14,
        mixed13,
    }
}

/// A position from self-play: a seat's 14 tiles on its turn, every tile it has seen outside
/// its hand (all discards so far) and its declared void suit.
#[derive(Clone, Copy)]
pub struct Position {
    /// The 14 concealed tiles.
    pub counts: Counts,
    /// Discards seen so far (the `visible` argument of `best_discards`).
    pub visible: Counts,
    /// The seat's void suit (R4.2).
    pub void: u8,
}

/// `n` positions from seeded self-play with `greedy_discard`: four seats are dealt 13 tiles
/// each from a shuffled 108-tile wall, each declares its shortest suit void (the lowest on a
/// tie), then in turn draws and throws `greedy_discard`'s choice (void tiles first, by
/// isolation). Claims and wins are left out (a win just plays on), so every turn until the
/// wall is empty is a position; games follow each other until `n` positions are collected.
pub fn selfplay(rng: &mut Rng, n: usize) -> Vec<Position> {
    let mut out = Vec::with_capacity(n);
    let mut rows = Vec::with_capacity(14);
    while out.len() < n {
        let mut wall: Vec<usize> = (0..108).map(|i| i / 4).collect();
        for i in (1..wall.len()).rev() {
            wall.swap(i, rng.below(i + 1));
        }
        let mut hands = [[0u8; 27]; 4];
        for (i, &k) in wall[..52].iter().enumerate() {
            hands[i % 4][k] += 1;
        }
        let voids: Vec<u8> = hands
            .iter()
            .map(|h| {
                let n = |s: usize| h[s * 9..s * 9 + 9].iter().map(|&x| x as u32).sum::<u32>();
                (0..3u8).min_by_key(|&s| (n(s as usize), s)).unwrap()
            })
            .collect();
        let mut seen = [0u8; 27];
        for (turn, &k) in wall[52..].iter().enumerate() {
            if out.len() == n {
                break;
            }
            let seat = turn % 4;
            let h = &mut hands[seat];
            h[k] += 1;
            out.push(Position {
                counts: *h,
                visible: seen,
                void: voids[seat],
            });
            let legal = (0..27).filter(|&t| h[t] > 0).fold(0u32, |m, t| m | 1 << t);
            let g = xuezhan_core::greedy_discard_unchecked(
                h,
                &[],
                &seen,
                Some(voids[seat]),
                legal,
                true,
                &mut rows,
            );
            h[g.kind as usize] -= 1;
            seen[g.kind as usize] += 1;
        }
    }
    out
}

/// `n` tiles dealt from a shuffled 108-tile wall (all three suits).
pub fn dealt3(rng: &mut Rng, n: usize) -> Counts {
    let mut wall: Vec<usize> = (0..108).map(|i| i / 4).collect();
    for i in (1..wall.len()).rev() {
        wall.swap(i, rng.below(i + 1));
    }
    let mut c = [0u8; 27];
    for &k in &wall[..n] {
        c[k] += 1;
    }
    c
}

/// The hand sets shared by the peer benchmarks and the agreement test, `N` hands each.
pub struct PeerSets {
    /// Self-play positions (14 tiles, what was seen, the void).
    pub selfplay: Vec<Position>,
    /// 14 tiles from a two-suit wall.
    pub two14: Vec<Counts>,
    /// 14 tiles from the whole wall.
    pub three14: Vec<Counts>,
    /// 13 tiles from a two-suit wall.
    pub two13: Vec<Counts>,
    /// Ready 13-tile hands (a two-suit winning hand minus one tile).
    pub ready13: Vec<Counts>,
    /// A ready hand plus one more tile of its suits (a copy left): a 14-tile turn.
    pub ready14: Vec<Counts>,
    /// Half winning, half random two-suit 14-tile hands.
    pub mixed14: Vec<Counts>,
}

/// The peer sets, drawn from their own seed (the corpus above is left as it was).
pub fn peer_sets() -> PeerSets {
    let mut rng = Rng(0x5eed_9ee4_0000_0002);
    let selfplay = selfplay(&mut rng, N);
    let two14: Vec<Counts> = (0..N).map(|_| dealt(&mut rng, 14)).collect();
    let three14: Vec<Counts> = (0..N).map(|_| dealt3(&mut rng, 14)).collect();
    let two13: Vec<Counts> = (0..N).map(|_| dealt(&mut rng, 13)).collect();
    let wins: Vec<(Counts, u8)> = (0..N).map(|_| winning(&mut rng)).collect();
    let ready13: Vec<Counts> = wins
        .iter()
        .map(|(c, w)| {
            let mut h = *c;
            h[*w as usize] -= 1;
            h
        })
        .collect();
    let ready14: Vec<Counts> = ready13
        .iter()
        .map(|h| {
            let kinds: Vec<usize> = (0..27)
                .filter(|&k| h[k] < 4 && h[k / 9 * 9..k / 9 * 9 + 9].iter().any(|&x| x > 0))
                .collect();
            let mut h = *h;
            h[kinds[rng.below(kinds.len())]] += 1;
            h
        })
        .collect();
    let mixed14: Vec<Counts> = (0..N)
        .map(|i| if i % 2 == 0 { two14[i] } else { wins[i].0 })
        .collect();
    PeerSets {
        selfplay,
        two14,
        three14,
        two13,
        ready13,
        ready14,
        mixed14,
    }
}
