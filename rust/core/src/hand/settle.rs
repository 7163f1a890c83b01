//! Settlement: every payment of a hand (docs/rules.md R6, R7, R8), one function per rule, as the
//! Python engine's `xuezhan.engine.settlement` makes them (the same payments in the same order).
//! Each sees only the ledger, the rules and the facts it settles.

use crate::fan::RulesCore;
use crate::hand::event::{Event, KongHow, PayRule};
use crate::hand::ledger::{fired, KongRecord, Ledger};
use crate::hand::rules::{HandRules, SelfDrawBonus};
use crate::tiles::{Counts, Meld};
use crate::waits::{waits_unchecked, Wait};

/// The tiles of one seat at the end of the hand: concealed counts, melds, void.
#[derive(Debug, Clone)]
pub struct Holding {
    /// The seat.
    pub seat: u8,
    /// Concealed tiles.
    pub counts: Counts,
    /// Melds.
    pub melds: Vec<Meld>,
    /// Declared void.
    pub void: Option<u8>,
}

/// R6.1 (and R3.3 for a robbed kong): the discarder alone pays the winner its points; R6.5:
/// after the discarder's kong and replacement draw, it also pays that kong's full income.
pub fn settle_discard_win(
    ledger: &mut Ledger,
    rules: &HandRules,
    winner: u8,
    discarder: u8,
    points: i64,
    kong: Option<usize>,
    robbed: bool,
) {
    if robbed {
        ledger.pay(PayRule::R3_3, discarder, Some(winner), points);
        ledger.fire(fired::ROB_KONG);
    } else {
        ledger.pay(PayRule::R6_1, discarder, Some(winner), points);
        ledger.fire(fired::DISCARD_WIN);
    }
    if let (Some(i), true) = (kong, rules.kong_transfer) {
        let income = ledger.kongs[i].income();
        if income > 0 {
            ledger.pay(PayRule::R6_5, discarder, Some(winner), income);
            ledger.kongs[i].transferred = true;
            ledger.fire(fired::KONG_TRANSFER);
        }
    }
}

/// R6.2: every other active player pays (`point` bonus: `base` more each); R6.3: after a
/// kong on a discard won on its replacement, the discarder of the konged tile pays alone.
pub fn settle_self_draw(
    ledger: &mut Ledger,
    rules: &HandRules,
    winner: u8,
    points: i64,
    payers: &[u8],
    discarder_pays: Option<u8>,
) {
    if let Some(d) = discarder_pays {
        ledger.pay(PayRule::R6_3, d, Some(winner), points);
        ledger.fire(fired::KONG_DRAW_DISCARDER_PAYS);
        return;
    }
    let bonus = if rules.self_draw_bonus == SelfDrawBonus::Point {
        rules.core.base as i64
    } else {
        0
    };
    for &p in payers {
        ledger.pay(PayRule::R6_2, p, Some(winner), points + bonus);
    }
    ledger.fire(fired::SELF_DRAW);
}

/// R6.4: a kong pays at once: on a discard the discarder 2 × base; added kong every other
/// active player 1 × base; concealed kong each of them 2 × base.
pub fn settle_kong(
    ledger: &mut Ledger,
    rules: &HandRules,
    seat: u8,
    kind: u8,
    how: KongHow,
    frm: Option<u8>,
    others: &[u8],
) -> KongRecord {
    let base = rules.core.base as i64;
    let mut rec = KongRecord {
        seat,
        kind,
        how,
        frm,
        pay: Vec::with_capacity(3),
        transferred: false,
        refunded: false,
    };
    let (payers, amount): (&[u8], i64) = match how {
        KongHow::Gang => (
            std::slice::from_ref(frm.as_ref().expect("a kong on a discard has a discarder")),
            2 * base,
        ),
        KongHow::Jiagang => (others, base),
        KongHow::Angang => (others, 2 * base),
    };
    for &p in payers {
        ledger.pay(PayRule::R6_4, p, Some(seat), amount);
        rec.pay.push((p, amount));
    }
    ledger.fire(match how {
        KongHow::Gang => fired::GANG,
        KongHow::Jiagang => fired::JIAGANG,
        KongHow::Angang => fired::ANGANG,
    });
    rec
}

/// Returns all kong income `seat` received to its payers (R7.5, R8), except income already
/// handed on by R6.5.
pub fn refund_kongs(ledger: &mut Ledger, seat: u8, rule: PayRule) {
    for i in 0..ledger.kongs.len() {
        let rec = &ledger.kongs[i];
        if rec.seat == seat && !rec.transferred && !rec.refunded {
            ledger.kongs[i].refunded = true;
            let pay = ledger.kongs[i].pay.clone();
            for (p, a) in pay {
                ledger.pay(rule, seat, Some(p), a);
                ledger.fire(fired::REFUND);
            }
        }
    }
}

/// R7.1: all three suits in hand + melds; with `declare_void`, a tile of the declared suit.
pub fn is_pig(h: &Holding, declare_void: bool) -> bool {
    let mut suits = [false; 3];
    for (k, &n) in h.counts.iter().enumerate() {
        if n != 0 {
            suits[k / 9] = true;
        }
    }
    for m in &h.melds {
        suits[(m.kind / 9) as usize] = true;
    }
    match (h.void, declare_void) {
        (Some(v), true) => suits[v as usize],
        _ => suits.iter().all(|&s| s),
    }
}

/// R7.3: the most points over the seat's waits, scored as a discard win with shape items only;
/// 0 when not ready. A seat caught holding a 14th tile (an escape during its turn, R8) is
/// valued on its best discard.
pub fn ready_value(h: &Holding, core: &RulesCore) -> i64 {
    let mut ws: Vec<Wait> = Vec::with_capacity(9);
    let best = |c: &Counts, ws: &mut Vec<Wait>| {
        waits_unchecked(c, &h.melds, core, h.void, ws);
        ws.iter().map(|w| w.points as i64).max().unwrap_or(0)
    };
    let total: u32 = h.counts.iter().map(|&n| n as u32).sum::<u32>() + 3 * h.melds.len() as u32;
    if total == 13 {
        return best(&h.counts, &mut ws);
    }
    let mut out = 0;
    let mut t = h.counts;
    for k in 0..27 {
        if t[k] != 0 {
            t[k] -= 1;
            out = out.max(best(&t, &mut ws));
            t[k] += 1;
        }
    }
    out
}

fn find_pigs(ledger: &mut Ledger, rules: &HandRules, held: &[Holding]) -> u8 {
    let mut pigs = 0u8;
    for h in held {
        if is_pig(h, rules.declare_void) {
            pigs |= 1 << h.seat;
        }
    }
    for h in held {
        if pigs >> h.seat & 1 != 0 {
            ledger.record(Event::Pig { seat: h.seat });
            ledger.fire(fired::PIG);
        }
    }
    pigs
}

/// R7.3: each ready non-pig with its value, announced as an event; a winner that stayed in the
/// hand (`winners`, bit s) is ready, valued on its locked hand (R14.5).
fn ready_values(
    ledger: &mut Ledger,
    rules: &HandRules,
    held: &[Holding],
    pigs: u8,
    winners: u8,
) -> Vec<(u8, i64)> {
    let mut ready = Vec::with_capacity(held.len());
    for h in held {
        if pigs >> h.seat & 1 == 0 {
            let v = ready_value(h, &rules.core);
            if v > 0 || winners >> h.seat & 1 != 0 {
                ready.push((h.seat, v));
                ledger.record(Event::Ready {
                    seat: h.seat,
                    value: v,
                });
            }
        }
    }
    ready
}

fn ready_and_refund(
    ledger: &mut Ledger,
    rules: &HandRules,
    held: &[Holding],
    ready: &[(u8, i64)],
    pigs: u8,
) {
    let is_ready = |s: u8| ready.iter().any(|&(r, _)| r == s);
    // R7.4: each active player that is neither ready nor a pig pays each ready player its value.
    for h in held {
        let s = h.seat;
        if is_ready(s) || pigs >> s & 1 != 0 {
            continue;
        }
        for &(r, value) in ready {
            ledger.pay(PayRule::R7_4, s, Some(r), value);
            ledger.fire(fired::READY_PAID);
        }
    }
    // R7.5: kong refund by every active player not ready (pigs included).
    if rules.kong_refund {
        for h in held {
            if !is_ready(h.seat) {
                refund_kongs(ledger, h.seat, PayRule::R7_5);
            }
        }
    }
}

/// R7: the ready check when the wall ran out with at least two active players (`held`: the
/// tiles of each active seat, in seat order; `present`: the seats that did not escape;
/// `winners`: the active seats that have won when winners stay, ready by R14.5). Returns the
/// pigs and the ready seats with their values.
pub fn end_of_wall(
    ledger: &mut Ledger,
    rules: &HandRules,
    held: &[Holding],
    present: &[u8],
    winners: u8,
) -> (u8, Vec<(u8, i64)>) {
    if held.len() < 2 {
        return (0, Vec::new());
    }
    ledger.fire(fired::READY_CHECK);
    let pigs = find_pigs(ledger, rules, held);
    if rules.pig_penalty {
        // R7.2: each pig pays every non-pig player (active or already won) the capped maximum.
        let mp = rules.max_points();
        for p in 0..8u8 {
            if pigs >> p & 1 == 0 {
                continue;
            }
            for &q in present {
                if q != p && pigs >> q & 1 == 0 {
                    ledger.pay(PayRule::R7_2, p, Some(q), mp);
                }
            }
        }
    }
    let ready = ready_values(ledger, rules, held, pigs, winners);
    ready_and_refund(ledger, rules, held, &ready, pigs);
    (pigs, ready)
}

/// R8: the escapee's kong income is refunded; among the other active players the ready check
/// R7.3–R7.5 is made without the pig penalty; the escapee pays each ready player its value and
/// a further `escape_penalty × base` to nobody.
pub fn settle_escape(
    ledger: &mut Ledger,
    rules: &HandRules,
    seat: u8,
    held: &[Holding],
    winners: u8,
) -> (u8, Vec<(u8, i64)>) {
    ledger.fire(fired::ESCAPE);
    refund_kongs(ledger, seat, PayRule::R8);
    let pigs = find_pigs(ledger, rules, held);
    let ready = ready_values(ledger, rules, held, pigs, winners);
    if !held.is_empty() {
        ledger.fire(fired::READY_CHECK);
    }
    ready_and_refund(ledger, rules, held, &ready, pigs);
    for &(r, value) in &ready {
        ledger.pay(PayRule::R8, seat, Some(r), value);
    }
    ledger.pay(
        PayRule::R8,
        seat,
        None,
        rules.escape_penalty * rules.core.base as i64,
    );
    (pigs, ready)
}
