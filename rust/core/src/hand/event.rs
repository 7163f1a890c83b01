//! Events of a hand and their log lines (docs/rules.md R9.3, R12.4).
//!
//! The same events as the Python engine's (`xuezhan.engine.events`), written as the same log
//! line byte for byte: canonical JSON with sorted keys, no spaces (Python's
//! `json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`). Every
//! string an event holds is ASCII (tiles, rule ids, verbs), so no escaping is needed; the
//! differential tests compare the lines with the Python engine's.

use crate::fan::item;
use crate::hand::action::three_tiles;
use crate::tiles::{tile_name, SUIT_LETTERS};
use std::fmt::Write;

/// How a win was made (R2.1, R3.1, R3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinHow {
    /// 自摸.
    SelfDraw,
    /// On a discard.
    Discard,
    /// On a robbed kong.
    Rob,
}

impl WinHow {
    /// The name the logs and results use.
    pub fn name(self) -> &'static str {
        match self {
            WinHow::SelfDraw => "self_draw",
            WinHow::Discard => "discard",
            WinHow::Rob => "rob",
        }
    }
}

/// One win and its fan (R4, R5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Win {
    /// The winner.
    pub seat: u8,
    /// The discarder or kong-maker; None for a self-draw.
    pub frm: Option<u8>,
    /// The winning tile.
    pub tile: u8,
    /// Capped fan.
    pub fan: u8,
    /// Fan before the cap.
    pub raw_fan: u8,
    /// Points of the win.
    pub points: u64,
    /// Fan of each R5 item (0: did not apply).
    pub items: [u8; item::COUNT],
    /// How it was won.
    pub how: WinHow,
    /// A compulsory win (R4.4).
    pub forced: bool,
    /// Tells the wins on one discard apart (R9.2).
    pub group: i64,
}

/// How a kong was made (R6.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KongHow {
    /// On a discard (点杠).
    Gang,
    /// Concealed (暗杠).
    Angang,
    /// Added to an own pung (加杠).
    Jiagang,
}

impl KongHow {
    /// The name the logs and results use.
    pub fn name(self) -> &'static str {
        match self {
            KongHow::Gang => "gang",
            KongHow::Angang => "angang",
            KongHow::Jiagang => "jiagang",
        }
    }
}

/// Why the hand ended (R4.5, R8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// A seat had to draw from an empty wall.
    Wall,
    /// Three seats won (血战到底).
    ThreeWon,
    /// A seat escaped (R8).
    Escape,
}

impl EndReason {
    /// The name the logs and results use.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Wall => "wall",
            EndReason::ThreeWon => "three_won",
            EndReason::Escape => "escape",
        }
    }
}

/// The rule a payment names (R3.3, R6–R8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayRule {
    /// 抢杠胡.
    R3_3,
    /// Win on a discard.
    R6_1,
    /// Self-draw.
    R6_2,
    /// 杠上开花 after a kong on a discard.
    R6_3,
    /// Kong.
    R6_4,
    /// Kong transfer.
    R6_5,
    /// Pig.
    R7_2,
    /// Ready check.
    R7_4,
    /// Kong refund.
    R7_5,
    /// Escape.
    R8,
}

impl PayRule {
    /// The rule id as a payment names it.
    pub fn id(self) -> &'static str {
        match self {
            PayRule::R3_3 => "R3.3",
            PayRule::R6_1 => "R6.1",
            PayRule::R6_2 => "R6.2",
            PayRule::R6_3 => "R6.3",
            PayRule::R6_4 => "R6.4",
            PayRule::R6_5 => "R6.5",
            PayRule::R7_2 => "R7.2",
            PayRule::R7_4 => "R7.4",
            PayRule::R7_5 => "R7.5",
            PayRule::R8 => "R8",
        }
    }
}

/// The meld an event shows (R2.4, R3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeldVerb {
    /// A pung claimed on a discard.
    Peng,
    /// A kong claimed on a discard.
    Gang,
    /// An added kong that stands.
    Jiagang,
}

/// One event of a hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The hand begins.
    Start {
        /// The dealer.
        dealer: u8,
        /// Tiles in the wall.
        wall_count: usize,
    },
    /// R11.1: the tiles a seat passes.
    Exchange {
        /// Who.
        seat: u8,
        /// The three tiles, sorted.
        tiles: [u8; 3],
        /// An R10 default.
        default: bool,
    },
    /// R11.1: the tiles pass, in this direction (0 next, 1 prev, 2 across).
    Exchanged {
        /// The direction.
        direction: u8,
    },
    /// R11.1: the tiles a seat received.
    Received {
        /// Who.
        seat: u8,
        /// The three tiles.
        tiles: [u8; 3],
    },
    /// R11.2: a seat's void choice.
    Void {
        /// Who.
        seat: u8,
        /// The suit.
        suit: u8,
        /// An R10 default.
        default: bool,
    },
    /// R11.2: the four voids, revealed together.
    Voids {
        /// Each seat's suit.
        voids: [u8; 4],
    },
    /// R4.4: the last-tiles phase begins.
    LastTiles {
        /// Tiles left before the draw that began it.
        wall_count: usize,
    },
    /// R1.3: a draw.
    Draw {
        /// Who.
        seat: u8,
        /// The tile.
        tile: u8,
        /// A kong replacement.
        replacement: bool,
    },
    /// R2.1: a discard, concealed kong or added kong (`verb` says which).
    TileDecision {
        /// "discard", "angang" or "jiagang".
        verb: &'static str,
        /// Who.
        seat: u8,
        /// The tile.
        tile: u8,
        /// An R10 default.
        default: bool,
    },
    /// A declared win, or a compulsory one (R4.4).
    Hu {
        /// Who.
        seat: u8,
        /// An R10 default.
        default: bool,
        /// Compulsory (R4.4).
        forced: bool,
    },
    /// A decision without a tile: "peng", "gang", "pass" or "escape".
    SeatDecision {
        /// The verb.
        verb: &'static str,
        /// Who.
        seat: u8,
        /// An R10 default.
        default: bool,
    },
    /// A meld that stands.
    Meld {
        /// Who.
        seat: u8,
        /// Which.
        meld: MeldVerb,
        /// Its tile.
        tile: u8,
        /// Whose discard it took (None for an added kong).
        frm: Option<u8>,
    },
    /// A win.
    Win(Win),
    /// A payment; `to` None is the R8 penalty, paid to nobody.
    Pay {
        /// The rule.
        rule: PayRule,
        /// Payer.
        frm: u8,
        /// Payee.
        to: Option<u8>,
        /// Points.
        amount: i64,
    },
    /// R7.1: a pig.
    Pig {
        /// Who.
        seat: u8,
    },
    /// R7.3: a ready seat and its value.
    Ready {
        /// Who.
        seat: u8,
        /// Its value.
        value: i64,
    },
    /// The end.
    End {
        /// Why.
        reason: EndReason,
        /// Each seat's points in the hand.
        deltas: [i64; 4],
        /// R9.2.
        next_dealer: u8,
    },
}

const DIRECTIONS: [&str; 3] = ["next", "prev", "across"];

fn opt(out: &mut String, v: Option<u8>) {
    match v {
        Some(s) => {
            let _ = write!(out, "{s}");
        }
        None => out.push_str("null"),
    }
}

impl Event {
    /// Appends the event's log line (without a newline) to `out`.
    ///
    /// ```
    /// use xuezhan_core::hand::{Event, PayRule};
    /// let mut s = String::new();
    /// Event::Pay { rule: PayRule::R6_1, frm: 0, to: Some(1), amount: 2 }.write_json(&mut s);
    /// assert_eq!(s, r#"{"amount":2,"from":0,"rule":"R6.1","to":1,"type":"pay"}"#);
    /// ```
    pub fn write_json(&self, out: &mut String) {
        match self {
            Event::Start { dealer, wall_count } => {
                let _ = write!(
                    out,
                    r#"{{"dealer":{dealer},"type":"start","wall_count":{wall_count}}}"#
                );
            }
            Event::Exchange {
                seat,
                tiles,
                default,
            } => {
                let _ = write!(
                    out,
                    r#"{{"default":{default},"seat":{seat},"tiles":"{}","type":"exchange"}}"#,
                    three_tiles(tiles)
                );
            }
            Event::Exchanged { direction } => {
                let _ = write!(
                    out,
                    r#"{{"direction":"{}","type":"exchanged"}}"#,
                    DIRECTIONS[*direction as usize]
                );
            }
            Event::Received { seat, tiles } => {
                let _ = write!(
                    out,
                    r#"{{"seat":{seat},"tiles":"{}","type":"received"}}"#,
                    three_tiles(tiles)
                );
            }
            Event::Void {
                seat,
                suit,
                default,
            } => {
                let _ = write!(
                    out,
                    r#"{{"default":{default},"seat":{seat},"suit":"{}","type":"void"}}"#,
                    SUIT_LETTERS[*suit as usize]
                );
            }
            Event::Voids { voids } => {
                let v: Vec<String> = voids
                    .iter()
                    .map(|&s| format!("\"{}\"", SUIT_LETTERS[s as usize]))
                    .collect();
                let _ = write!(out, r#"{{"type":"voids","voids":[{}]}}"#, v.join(","));
            }
            Event::LastTiles { wall_count } => {
                let _ = write!(out, r#"{{"type":"last_tiles","wall_count":{wall_count}}}"#);
            }
            Event::Draw {
                seat,
                tile,
                replacement,
            } => {
                let _ = write!(
                    out,
                    r#"{{"replacement":{replacement},"seat":{seat},"tile":"{}","type":"draw"}}"#,
                    tile_name(*tile)
                );
            }
            Event::TileDecision {
                verb,
                seat,
                tile,
                default,
            } => {
                let _ = write!(
                    out,
                    r#"{{"default":{default},"seat":{seat},"tile":"{}","type":"{verb}"}}"#,
                    tile_name(*tile)
                );
            }
            Event::Hu {
                seat,
                default,
                forced,
            } => {
                if *forced {
                    let _ = write!(out, r#"{{"forced":true,"seat":{seat},"type":"hu"}}"#);
                } else {
                    let _ = write!(out, r#"{{"default":{default},"seat":{seat},"type":"hu"}}"#);
                }
            }
            Event::SeatDecision {
                verb,
                seat,
                default,
            } => {
                let _ = write!(
                    out,
                    r#"{{"default":{default},"seat":{seat},"type":"{verb}"}}"#
                );
            }
            Event::Meld {
                seat,
                meld,
                tile,
                frm,
            } => {
                out.push_str(r#"{"from":"#);
                opt(out, *frm);
                let m = match meld {
                    MeldVerb::Peng => "peng",
                    MeldVerb::Gang => "gang",
                    MeldVerb::Jiagang => "jiagang",
                };
                let _ = write!(
                    out,
                    r#","meld":"{m}","seat":{seat},"tile":"{}","type":"meld"}}"#,
                    tile_name(*tile)
                );
            }
            Event::Win(w) => {
                let _ = write!(out, r#"{{"fan":{},"forced":{},"from":"#, w.fan, w.forced);
                opt(out, w.frm);
                let _ = write!(
                    out,
                    r#","group":{},"how":"{}","items":{{"#,
                    w.group,
                    w.how.name()
                );
                let mut items: Vec<(&str, u8)> = (0..item::COUNT)
                    .filter(|&i| w.items[i] != 0)
                    .map(|i| (item::IDS[i], w.items[i]))
                    .collect();
                items.sort_unstable();
                for (i, (id, f)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, r#""{id}":{f}"#);
                }
                let _ = write!(
                    out,
                    r#"}},"points":{},"raw_fan":{},"seat":{},"tile":"{}","type":"win"}}"#,
                    w.points,
                    w.raw_fan,
                    w.seat,
                    tile_name(w.tile)
                );
            }
            Event::Pay {
                rule,
                frm,
                to,
                amount,
            } => {
                let _ = write!(
                    out,
                    r#"{{"amount":{amount},"from":{frm},"rule":"{}","to":"#,
                    rule.id()
                );
                opt(out, *to);
                out.push_str(r#","type":"pay"}"#);
            }
            Event::Pig { seat } => {
                let _ = write!(out, r#"{{"seat":{seat},"type":"pig"}}"#);
            }
            Event::Ready { seat, value } => {
                let _ = write!(out, r#"{{"seat":{seat},"type":"ready","value":{value}}}"#);
            }
            Event::End {
                reason,
                deltas,
                next_dealer,
            } => {
                let d: Vec<String> = deltas.iter().map(|x| x.to_string()).collect();
                let _ = write!(
                    out,
                    r#"{{"deltas":[{}],"next_dealer":{next_dealer},"reason":"{}","type":"end"}}"#,
                    d.join(","),
                    reason.name()
                );
            }
        }
    }

    /// The event's log line.
    pub fn to_json(&self) -> String {
        let mut s = String::with_capacity(64);
        self.write_json(&mut s);
        s
    }
}
