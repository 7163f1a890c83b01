//! The legal actions of each kind of decision (docs/rules.md R2.1, R3.1, R11, R14.2), built in
//! the order the Python engine's `xuezhan.engine.legal` builds them: a policy drawing among
//! them by index must find the same action at the same index.

use std::sync::OnceLock;

use crate::hand::action::{Act, Action};
use crate::tiles::{Counts, Meld, MeldType};
use crate::waits::wait_mask_unchecked;

/// The legal actions of the pending decision: every action but a turn's discards as a list
/// (the head), and the discards as a kind mask; they come after the head, by kind, as in the
/// Python engine's list. Most readers want the count, one action by index, the head or the
/// mask, and making the dozen discard actions of every turn cost more than anything else a
/// `random` player does, so the whole list is made only when read as one
/// ([`Legal::as_slice`]).
///
/// ```
/// use xuezhan_core::hand::{Act, Action, legal::Legal};
/// let l = Legal::from_actions(&[
///     Action::new(2, Act::Hu),
///     Action::new(2, Act::Discard(4)),
///     Action::new(2, Act::Discard(9)),
/// ])
/// .unwrap();
/// assert_eq!((l.len(), l.head().len(), l.discards()), (3, 1, 1 << 4 | 1 << 9));
/// assert_eq!(l.get(2), Some(Action::new(2, Act::Discard(9))));
/// assert!(l.contains(&Action::new(2, Act::Discard(4))) && !l.contains(&Action::new(1, Act::Discard(4))));
/// assert_eq!(l.as_slice().len(), 3);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Legal {
    /// The seat whose discards they are.
    seat: u8,
    /// Every action but the discards, in order.
    head: Vec<Action>,
    /// The discards (bit k = kind k).
    discards: u32,
    /// The whole list, made on first read.
    whole: OnceLock<Vec<Action>>,
}

impl PartialEq for Legal {
    fn eq(&self, other: &Legal) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Legal {}

impl Legal {
    /// No action.
    pub const fn none() -> Legal {
        Legal {
            seat: 0,
            head: Vec::new(),
            discards: 0,
            whole: OnceLock::new(),
        }
    }

    /// No action, with room for `n` in the head.
    pub fn with_capacity(n: usize) -> Legal {
        Legal {
            head: Vec::with_capacity(n),
            ..Legal::default()
        }
    }

    /// A list read from elsewhere (the Python engine's state): its discards must come last, by
    /// kind, all of one seat (as the engine lists them), else the error says what is wrong.
    pub fn from_actions(actions: &[Action]) -> Result<Legal, String> {
        let mut l = Legal::default();
        let mut last: Option<u8> = None;
        for a in actions {
            match a.act {
                Act::Discard(k) => {
                    if k >= 27
                        || last.is_some_and(|x| x >= k)
                        || (last.is_some() && a.seat != l.seat)
                    {
                        return Err(format!(
                            "legal actions: the discards come last, by kind, of one seat ({a})"
                        ));
                    }
                    l.seat = a.seat;
                    l.discards |= 1 << k;
                    last = Some(k);
                }
                _ if last.is_some() => {
                    return Err(format!(
                        "legal actions: the discards come last, by kind, of one seat ({a})"
                    ))
                }
                _ => l.head.push(*a),
            }
        }
        Ok(l)
    }

    /// Empties the list for a decision of `seat` and returns the head to fill.
    pub(crate) fn start(&mut self, seat: u8) -> &mut Vec<Action> {
        self.seat = seat;
        self.discards = 0;
        if self.whole.get().is_some() {
            self.whole = OnceLock::new();
        }
        self.head.clear();
        &mut self.head
    }

    /// No action (the hand is over).
    pub fn clear(&mut self) {
        self.start(self.seat);
    }

    /// Every action but the discards, in order.
    #[inline]
    pub fn head(&self) -> &[Action] {
        &self.head
    }

    /// The legal discards (bit k = kind k).
    #[inline]
    pub fn discards(&self) -> u32 {
        self.discards
    }

    /// How many actions.
    #[inline]
    pub fn len(&self) -> usize {
        self.head.len() + self.discards.count_ones() as usize
    }

    /// No action is legal.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The action at index `i` of the whole list.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Action> {
        if let Some(&a) = self.head.get(i) {
            return Some(a);
        }
        let j = i - self.head.len();
        nth_bit(self.discards, j).map(|k| Action::new(self.seat, Act::Discard(k)))
    }

    /// The first action.
    #[inline]
    pub fn first(&self) -> Option<Action> {
        self.get(0)
    }

    /// `a` is among them.
    pub fn contains(&self, a: &Action) -> bool {
        match a.act {
            Act::Discard(k) if k < 27 && self.discards >> k & 1 != 0 && a.seat == self.seat => true,
            _ => self.head.contains(a),
        }
    }

    /// The actions in order.
    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        let seat = self.seat;
        let kinds = (0..27u8).filter(move |&k| self.discards >> k & 1 != 0);
        (self.head.iter().copied()).chain(kinds.map(move |k| Action::new(seat, Act::Discard(k))))
    }

    /// The whole list (made on its first read for this decision).
    pub fn as_slice(&self) -> &[Action] {
        self.whole.get_or_init(|| self.iter().collect())
    }
}

/// Bit k set for each kind held.
#[inline]
pub fn kinds_mask(c: &Counts) -> u32 {
    kind_masks(c).0
}

/// The index of the `j`-th set bit of `m` (from 0, lowest first), if it has that many: the
/// byte holding it from the bytes' running bit counts, then its place in that byte from a
/// table (no loop over the bits: `random` asks this at every turn).
#[inline]
fn nth_bit(m: u32, j: usize) -> Option<u8> {
    /// `IN_BYTE[b][j]`: the index of the `j`-th set bit of the byte `b`.
    static IN_BYTE: [[u8; 8]; 256] = {
        let mut t = [[0u8; 8]; 256];
        let mut b = 0;
        while b < 256 {
            let (mut bit, mut n) = (0, 0);
            while bit < 8 {
                if b >> bit & 1 != 0 {
                    t[b][n] = bit as u8;
                    n += 1;
                }
                bit += 1;
            }
            b += 1;
        }
        t
    };
    if j >= m.count_ones() as usize {
        return None;
    }
    let j = j as u32;
    // bits per byte, then the running counts (byte k: the bits of bytes 0..=k)
    let c = m - ((m >> 1) & 0x5555_5555);
    let c = (c & 0x3333_3333) + ((c >> 2) & 0x3333_3333);
    let c = (c + (c >> 4)) & 0x0f0f_0f0f;
    let run = c.wrapping_mul(0x0101_0101);
    // the bytes whose running count is at most j come first: their number is the byte
    let at_most = (((j * 0x0101_0101) | 0x8080_8080) - run) & 0x8080_8080;
    let k = (at_most >> 7).wrapping_mul(0x0101_0101) >> 24;
    let before = if k == 0 {
        0
    } else {
        run >> (8 * (k - 1)) & 0xff
    };
    let byte = (m >> (8 * k)) & 0xff;
    Some((8 * k) as u8 + IN_BYTE[byte as usize][(j - before) as usize])
}

/// Bit k set for each kind held, and for each kind held four times: eight counts at a time
/// as the bytes of a `u64` (every count is at most 4, so adding 0x7f to a byte sets its high
/// bit exactly when it is nonzero, and its bit 2 is set exactly when it is 4).
#[inline]
pub fn kind_masks(c: &Counts) -> (u32, u32) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// One bit per byte (bit i for byte i) from the bytes' high bits.
    fn gather(flags: u64) -> u32 {
        ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    }
    let word = |at: usize| u64::from_le_bytes(c[at..at + 8].try_into().expect("eight counts"));
    let (mut held, mut four) = (0u32, 0u32);
    // kinds 0-7, 8-15, 16-23, and 24-26 as the top three bytes of the word at 19
    for (i, w) in [word(0), word(8), word(16), word(19) >> 40]
        .into_iter()
        .enumerate()
    {
        held |= gather((w + 0x7f7f_7f7f_7f7f_7f7f) & HIGH) << (8 * i);
        four |= gather((w << 5) & HIGH) << (8 * i);
    }
    (held, four)
}

/// Pushes `make(k)` for each bit k of `mask`, lowest first.
#[inline]
fn push_kinds(out: &mut Vec<Action>, mut mask: u32, make: impl Fn(u8) -> Action) {
    while mask != 0 {
        out.push(make(mask.trailing_zeros() as u8));
        mask &= mask - 1;
    }
}

/// R2.1: the turn's legal actions and the legal discards as a kind mask. A win first, then
/// concealed kongs by kind, added kongs in meld order, then the discards by kind (only the
/// void suit's while the seat holds one, R11.2). No kong right after a peng nor with an empty
/// wall, none of the void suit.
#[allow(clippy::too_many_arguments)]
pub fn turn_legal(
    seat: u8,
    c: &Counts,
    melds: &[Meld],
    void: Option<u8>,
    can_hu: bool,
    after_peng: bool,
    wall_empty: bool,
    legal: &mut Legal,
) -> u32 {
    let out = legal.start(seat);
    if can_hu {
        out.push(Action::new(seat, Act::Hu));
    }
    let (held, four) = kind_masks(c);
    let void_suit = void.map_or(0, |v| 0x1ffu32 << (9 * v));
    if !after_peng && !wall_empty {
        push_kinds(out, four & !void_suit, |k| {
            Action::new(seat, Act::Angang(k))
        });
        for m in melds {
            if m.ty == MeldType::Pung && c[m.kind as usize] != 0 {
                out.push(Action::new(seat, Act::Jiagang(m.kind)));
            }
        }
    }
    let mask = if held & void_suit != 0 {
        held & void_suit
    } else {
        held
    };
    legal.discards = mask;
    mask
}

/// R14.2: the turn of a winner that stays, having drawn `t`: a self-drawn win when `t`
/// completes its hand; a concealed or added kong of `t` only if its waits (`waits`, the wait
/// mask of its locked hand) stay the same apart from `t` itself, and not with an empty wall;
/// the discard of `t`.
#[allow(clippy::too_many_arguments)]
pub fn locked_turn_legal(
    seat: u8,
    c: &Counts,
    melds: &[Meld],
    void: Option<u8>,
    t: u8,
    can_hu: bool,
    wall_empty: bool,
    waits: u32,
    legal: &mut Legal,
) -> u32 {
    let out = legal.start(seat);
    if can_hu {
        out.push(Action::new(seat, Act::Hu));
    }
    if !wall_empty {
        let keeps = |rest: &Counts, after: &[Meld]| {
            wait_mask_unchecked(rest, after, void) == waits & !(1u32 << t)
        };
        if c[t as usize] == 4 && Some(t / 9) != void {
            let mut after: Vec<Meld> = melds.to_vec();
            after.push(Meld {
                ty: MeldType::ConcealedKong,
                kind: t,
            });
            let mut rest = *c;
            rest[t as usize] = 0;
            if keeps(&rest, &after) {
                out.push(Action::new(seat, Act::Angang(t)));
            }
        }
        if melds.iter().any(|m| m.ty == MeldType::Pung && m.kind == t) {
            let after: Vec<Meld> = melds
                .iter()
                .map(|&m| {
                    if m.ty == MeldType::Pung && m.kind == t {
                        Meld {
                            ty: MeldType::Kong,
                            kind: t,
                        }
                    } else {
                        m
                    }
                })
                .collect();
            let mut rest = *c;
            rest[t as usize] -= 1;
            if keeps(&rest, &after) {
                out.push(Action::new(seat, Act::Jiagang(t)));
            }
        }
    }
    legal.discards = 1 << t;
    1 << t
}

/// R3.1: the claims a seat holding `c` may make on `tile`; empty if none (it is not asked).
/// `win_fan`: the capped fan of its win on the tile (0 = none); `locked_fan`: the best win it
/// passed when the R4.3 lock applies, else 0 (a win must be worth strictly more). No peng or
/// kong of the void suit (R11.2), on an added kong (R3.3), kong with an empty wall (R3.1), or
/// by a locked winner (R14.2).
#[allow(clippy::too_many_arguments)]
pub fn claim_actions(
    seat: u8,
    c: &Counts,
    tile: u8,
    void: Option<u8>,
    win_fan: u8,
    locked_fan: u8,
    robbing: bool,
    wall_empty: bool,
    locked: bool,
    legal: &mut Legal,
) {
    let out = legal.start(seat);
    if win_fan != 0 && (locked_fan == 0 || win_fan > locked_fan) {
        out.push(Action::new(seat, Act::Hu));
    }
    let n = c[tile as usize];
    if !locked && Some(tile / 9) != void && !robbing && n >= 2 {
        out.push(Action::new(seat, Act::Peng));
        if n == 3 && !wall_empty {
            out.push(Action::new(seat, Act::Gang));
        }
    }
    if !out.is_empty() {
        out.push(Action::new(seat, Act::Pass));
    }
}

/// R11.1: every choice of three tiles of one suit held in `c` (distinct multisets, kinds
/// sorted), suit by suit: three different kinds in lexicographic order, then for each held
/// kind with a pair the pair with each other kind, then its triplet.
pub fn exchange_actions(seat: u8, c: &Counts, legal: &mut Legal) {
    let out = legal.start(seat);
    for a in [0u8, 9, 18] {
        let cs: [u8; 9] = std::array::from_fn(|i| c[a as usize + i].min(3));
        let mut held = [0u8; 9];
        let mut n_held = 0;
        for i in 0..9u8 {
            if cs[i as usize] != 0 {
                held[n_held] = a + i;
                n_held += 1;
            }
        }
        let ks = &held[..n_held];
        for i in 0..ks.len() {
            for j in i + 1..ks.len() {
                for l in j + 1..ks.len() {
                    out.push(Action::new(seat, Act::Exchange([ks[i], ks[j], ks[l]])));
                }
            }
        }
        for &d in ks {
            let n = cs[(d - a) as usize];
            if n >= 2 {
                for &k in ks {
                    if k < d {
                        out.push(Action::new(seat, Act::Exchange([k, d, d])));
                    } else if k > d {
                        out.push(Action::new(seat, Act::Exchange([d, d, k])));
                    }
                }
                if n >= 3 {
                    out.push(Action::new(seat, Act::Exchange([d, d, d])));
                }
            }
        }
    }
}

/// R11.2: the three suits a seat may name.
pub fn void_actions(seat: u8, legal: &mut Legal) {
    legal
        .start(seat)
        .extend((0..3).map(|s| Action::new(seat, Act::Void(s))));
}

/// R10.1: discard the tile just drawn (`drawn`, -1 if none) if that is legal, else the last
/// allowed tile of the sorted hand.
pub fn default_discard(legal: &Legal, drawn: i8) -> Action {
    let m = legal.discards();
    assert!(m != 0, "a turn always has a legal discard");
    let k = if (0..27).contains(&drawn) && m >> drawn & 1 != 0 {
        drawn as u8
    } else {
        31 - m.leading_zeros() as u8
    };
    Action::new(legal.seat, Act::Discard(k))
}

/// The tiles of each suit held (m, p, s).
pub fn suit_counts(c: &Counts) -> [u32; 3] {
    let mut n = [0u32; 3];
    for (k, &x) in c.iter().enumerate() {
        n[k / 9] += x as u32;
    }
    n
}

/// R11.1 default (R10): the three highest tiles of the suit held fewest of, among suits with
/// at least three.
pub fn default_exchange(seat: u8, c: &Counts) -> Action {
    let n = suit_counts(c);
    let s = (0..3u8)
        .filter(|&i| n[i as usize] >= 3)
        .min_by_key(|&i| (n[i as usize], i))
        .unwrap_or(0);
    let mut tiles = Vec::with_capacity(3);
    for k in (s * 9..s * 9 + 9).rev() {
        for _ in 0..c[k as usize] {
            if tiles.len() < 3 {
                tiles.push(k);
            }
        }
    }
    let mut t = [tiles[0], tiles[1], tiles[2]];
    t.sort_unstable();
    Action::new(seat, Act::Exchange(t))
}

/// R11.2 default (R10): the suit held fewest of (the first in m, p, s order on a tie).
pub fn default_void(seat: u8, c: &Counts) -> Action {
    let n = suit_counts(c);
    let s = (0..3u8).min_by_key(|&i| (n[i as usize], i)).unwrap_or(0);
    Action::new(seat, Act::Void(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next number of a small generator (xorshift64), so the checks need no dependency.
    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// The word-at-a-time masks are the kind-by-kind ones, on every count of every kind.
    #[test]
    fn kind_masks_are_the_counts_kind_by_kind() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut c = [0u8; 27];
            for n in c.iter_mut() {
                *n = (xorshift(&mut x) % 5) as u8;
            }
            let held = (0..27).filter(|&k| c[k] != 0).fold(0, |m, k| m | 1 << k);
            let four = (0..27).filter(|&k| c[k] == 4).fold(0, |m, k| m | 1 << k);
            assert_eq!(kind_masks(&c), (held, four), "{c:?}");
        }
    }

    /// The `j`-th set bit, every mask of a few thousand and every rank in it.
    #[test]
    fn nth_bit_is_the_jth_set_bit() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for t in 0..4000 {
            xorshift(&mut x);
            let m = match t {
                0 => 0,
                1 => u32::MAX,
                2 => 1 << 31,
                _ => (x as u32) >> (t % 9),
            };
            let bits: Vec<u8> = (0..32).filter(|&b| m >> b & 1 != 0).collect();
            for j in 0..34 {
                assert_eq!(nth_bit(m, j), bits.get(j).copied(), "{m:#x} {j}");
            }
        }
    }

    /// A turn's list is its head, then its discards by kind: read back from the whole list it
    /// is the same; a list whose discards do not come last, by kind, of one seat is refused.
    #[test]
    fn a_list_is_its_head_then_its_discards() {
        let mut c = [0u8; 27];
        for k in [0, 0, 0, 0, 4, 9, 13, 13, 26] {
            c[k] += 1;
        }
        let mut l = Legal::default();
        let mask = turn_legal(3, &c, &[], None, true, false, false, &mut l);
        assert_eq!(mask, 1 | 1 << 4 | 1 << 9 | 1 << 13 | 1 << 26);
        let all = l.as_slice().to_vec();
        assert_eq!(
            all[..2],
            [Action::new(3, Act::Hu), Action::new(3, Act::Angang(0))]
        );
        assert_eq!(all.len(), 7);
        assert_eq!((0..7).map(|i| l.get(i).unwrap()).collect::<Vec<_>>(), all);
        assert_eq!(l.get(7), None);
        assert_eq!(Legal::from_actions(&all), Ok(l.clone()));
        assert_eq!(default_discard(&l, 13), Action::new(3, Act::Discard(13)));
        assert_eq!(default_discard(&l, 5), Action::new(3, Act::Discard(26)));
        let d = |s, k| Action::new(s, Act::Discard(k));
        for bad in [
            vec![d(0, 4), Action::new(0, Act::Hu)],
            vec![d(0, 9), d(0, 4)],
            vec![d(0, 4), d(1, 9)],
        ] {
            assert!(Legal::from_actions(&bad).unwrap_err().contains("come last"));
        }
        l.clear();
        assert!(l.is_empty() && l.as_slice().is_empty());
    }
}
