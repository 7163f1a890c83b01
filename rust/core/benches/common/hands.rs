//! Seeded benchmark hands shared by the criterion bench (`benches/evaluator.rs`) and the
//! timing example (`examples/timing.rs`), so both measure exactly the same hands.

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
