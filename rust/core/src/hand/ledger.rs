//! What a hand records (docs/rules.md R6–R9, R12.2): the native twin of the Python engine's
//! `Ledger` part, and the registry of the rule ids a hand can fire (R9.3).

use crate::hand::event::{EndReason, Event, KongHow, PayRule, Win};

/// The rule ids a hand can fire, in the order the Python registry (`xuezhan.engine.fired`)
/// lists them; bit i of [`Ledger::fired`] is `FIRED[i]`. The tests compare the two lists.
pub const FIRED: [&str; 21] = [
    "R3.2-multi-win",
    "R6.5-kong-transfer",
    "R3.3-rob-kong",
    "R6.3-kong-draw-discarder-pays",
    "R4.4-phase-win",
    "R4.3-pass",
    "R7-ready-check",
    "R7.4-ready-paid",
    "R7.2-pig",
    "R7.5-refund",
    "R8-escape",
    "R5-capped",
    "R6.1-discard-win",
    "R6.2-self-draw",
    "R6.4-gang",
    "R6.4-jiagang",
    "R6.4-angang",
    "R11.1-exchange",
    "R11.2-void",
    "R10-defaults",
    "R14.3-repeat-win",
];

/// Bit indexes of [`FIRED`].
#[allow(missing_docs)]
pub mod fired {
    pub const MULTI_WIN: u32 = 0;
    pub const KONG_TRANSFER: u32 = 1;
    pub const ROB_KONG: u32 = 2;
    pub const KONG_DRAW_DISCARDER_PAYS: u32 = 3;
    pub const PHASE_WIN: u32 = 4;
    pub const PASS_WIN: u32 = 5;
    pub const READY_CHECK: u32 = 6;
    pub const READY_PAID: u32 = 7;
    pub const PIG: u32 = 8;
    pub const REFUND: u32 = 9;
    pub const ESCAPE: u32 = 10;
    pub const CAPPED: u32 = 11;
    pub const DISCARD_WIN: u32 = 12;
    pub const SELF_DRAW: u32 = 13;
    pub const GANG: u32 = 14;
    pub const JIAGANG: u32 = 15;
    pub const ANGANG: u32 = 16;
    pub const EXCHANGE: u32 = 17;
    pub const VOID: u32 = 18;
    pub const DEFAULTS: u32 = 19;
    pub const REPEAT_WIN: u32 = 20;
}

/// One kong and the income it earned at once (R6.4), for the transfer (R6.5) and the refund
/// (R7.5, R8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KongRecord {
    /// Who made it.
    pub seat: u8,
    /// Its kind.
    pub kind: u8,
    /// How.
    pub how: KongHow,
    /// Whose discard it took (a kong on a discard).
    pub frm: Option<u8>,
    /// (payer, amount) of its income.
    pub pay: Vec<(u8, i64)>,
    /// Handed on by R6.5.
    pub transferred: bool,
    /// Returned by R7.5 / R8.
    pub refunded: bool,
}

impl KongRecord {
    /// Its income.
    pub fn income(&self) -> i64 {
        self.pay.iter().map(|&(_, a)| a).sum()
    }
}

/// What a hand records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ledger {
    /// Every event in order, when recorded (a hand played only for its result keeps none).
    pub events: Option<Vec<Event>>,
    /// Each seat's points so far (R12.2).
    pub deltas: [i64; 4],
    /// The wins, in order.
    pub wins: Vec<Win>,
    /// The kongs with their income.
    pub kongs: Vec<KongRecord>,
    /// The rule ids that fired (bit i = [`FIRED`]`[i]`).
    pub fired: u32,
    /// R10 defaults taken.
    pub defaults_used: u32,
    /// The seats the ready check was made for (R7, R8), bit s.
    pub checked: u8,
    /// The pigs found (R7.1), bit s.
    pub pigs: u8,
    /// The ready seats and their values (R7.3), in seat order.
    pub ready: Vec<(u8, i64)>,
    /// Why the hand ended.
    pub end_reason: Option<EndReason>,
    /// R9.2.
    pub next_dealer: Option<u8>,
}

impl Ledger {
    /// A ledger that records its events when `record`.
    pub fn new(record: bool) -> Ledger {
        Ledger {
            events: record.then(|| Vec::with_capacity(160)),
            ..Ledger::default()
        }
    }

    /// Appends an event (when recording).
    #[inline]
    pub(crate) fn record(&mut self, e: Event) {
        if let Some(ev) = &mut self.events {
            ev.push(e);
        }
    }

    /// A rule fired.
    #[inline]
    pub(crate) fn fire(&mut self, bit: u32) {
        self.fired |= 1 << bit;
    }

    /// One payment (nothing for an amount of 0). R12.2: every point paid is received, except
    /// the R8 penalty (`to` None).
    pub(crate) fn pay(&mut self, rule: PayRule, frm: u8, to: Option<u8>, amount: i64) {
        if amount <= 0 {
            return;
        }
        self.deltas[frm as usize] -= amount;
        if let Some(t) = to {
            self.deltas[t as usize] += amount;
        }
        self.record(Event::Pay {
            rule,
            frm,
            to,
            amount,
        });
    }

    /// The fired ids, sorted as the results write them (`"+"`-joined).
    pub fn fired_ids(&self) -> Vec<&'static str> {
        let mut ids: Vec<&str> = (0..FIRED.len() as u32)
            .filter(|&b| self.fired >> b & 1 != 0)
            .map(|b| FIRED[b as usize])
            .collect();
        ids.sort_unstable();
        ids
    }
}
