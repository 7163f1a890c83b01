//! The result of a finished hand, per seat (docs/rules.md R9.3): the fields of a tournament's
//! result row (`xuezhan.tournament.results`), computed as the Python `HandResult.seats` does.

use crate::fan::item;
use crate::hand::event::WinHow;
use crate::hand::Hand;

/// One seat's part of a hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SeatResult {
    /// Points this hand (escape penalty included).
    pub delta: i64,
    /// It won.
    pub won: bool,
    /// 1 for the hand's first win, …; 0 if it did not win (its first win when winners stay).
    pub win_order: u8,
    /// Its (first) win was a self-draw.
    pub self_draw: bool,
    /// Capped fan of its (first) win (0 without one).
    pub fan: u8,
    /// The R5 items of its (first) win (bit i = item i).
    pub fan_items: u32,
    /// Wins on its discards or robbed kongs.
    pub dealt_in: u8,
    /// Kongs it made.
    pub kongs: u8,
    /// A pig at the ready check.
    pub pig: bool,
    /// It went to the ready check.
    pub checked: bool,
    /// Ready at the ready check.
    pub ready: bool,
    /// It escaped.
    pub escaped: bool,
    /// How many times it won.
    pub wins: u8,
}

impl Hand {
    /// Each seat's part of the hand (finished, or so far).
    pub fn seat_results(&self) -> [SeatResult; 4] {
        let mut out = [SeatResult::default(); 4];
        let l = &self.ledger;
        for (i, w) in l.wins.iter().enumerate() {
            let r = &mut out[w.seat as usize];
            if r.wins == 0 {
                r.won = true;
                r.win_order = (i + 1) as u8;
                r.self_draw = w.how == WinHow::SelfDraw;
                r.fan = w.fan;
                r.fan_items = (0..item::COUNT)
                    .filter(|&j| w.items[j] != 0)
                    .fold(0, |m, j| m | 1 << j);
            }
            r.wins += 1;
            if let (Some(f), true) = (w.frm, w.how != WinHow::SelfDraw) {
                out[f as usize].dealt_in += 1;
            }
        }
        for k in &l.kongs {
            out[k.seat as usize].kongs += 1;
        }
        for (s, r) in out.iter_mut().enumerate() {
            r.delta = l.deltas[s];
            r.pig = l.pigs >> s & 1 != 0;
            r.checked = l.checked >> s & 1 != 0;
            r.ready = l.ready.iter().any(|&(q, _)| q as usize == s);
            r.escaped = self.seats.escaped[s];
        }
        out
    }
}
