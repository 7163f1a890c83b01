//! # xuezhan-core
//!
//! Hand evaluation for Sichuan "Xuezhan Daodi" (血战到底) mahjong, rule ids per `RULES.md`:
//! win check ([`is_win`]), shanten ([`shanten()`], [`shanten_parts`]), waits with their R7.3
//! values ([`wait_mask`], [`waits()`]), fan of a win ([`fan()`], R5) and discard support
//! ([`best_discards`], and the whole discard choice of the `greedy` and `value` strategies:
//! [`greedy_discard`], [`value_discard`]).
//!
//! Everything is table driven per suit (see [`suit_table`]): a hand is three suit
//! configurations, each looked up once; there is no search in any hot path. Checked functions
//! validate their input and return [`EvalError`]; `*_unchecked` variants skip validation for
//! the batch API and the round engine's inner loops.
//!
//! ```
//! use xuezhan_core::*;
//! let hand = parse_counts("11122233345m99m").unwrap();
//! assert_eq!(shanten(&hand, &[], None), Ok(0));
//! let w = waits(&hand, &[], &RulesCore::leshan(), None).unwrap();
//! assert_eq!(w[0], Wait { kind: 2, fan: 4, points: 8 }); // 3m: one_suit + gen
//! ```
#![warn(missing_docs)]

pub mod capped;
pub mod deal;
pub mod discards;
pub mod error;
pub mod fan;
pub mod hand;
pub mod shanten;
pub mod suit_table;
pub mod tiles;
pub mod value;
pub mod waits;
pub mod win;

pub use deal::{shuffled_range, shuffled_tiles};
pub use discards::{
    best_discards, best_discards_lowest, best_discards_unchecked, check_legal, greedy_discard,
    greedy_discard_unchecked, most_isolated, Discard, GreedyChoice,
};
pub use error::EvalError;
pub use fan::{ctx, fan, fan_unchecked, item, FanResult, RulesCore};
pub use shanten::{
    shanten, shanten_parts, shanten_parts_unchecked, shanten_unchecked, ShantenParts, UNREACHABLE,
};
pub use tiles::{
    melds_from_codes, parse_counts, tile_name, void_from_i64, Counts, Meld, MeldType, NUM_KINDS,
};
pub use value::{
    danger, likely_void, one_suit_target, opponent_threat, potential, round_to, triplets_shanten,
    value_discard, value_discard_unchecked, Opponent, ValueChoice, ValueParams, ValueTurn,
};
pub use waits::{wait_mask, wait_mask_unchecked, waits, waits_unchecked, Wait};
pub use win::{is_win, is_win_unchecked};

/// Crate version.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Builds the lookup tables now rather than on the first evaluation (e.g. at import).
///
/// ```
/// xuezhan_core::warm_up();
/// ```
pub fn warm_up() {
    let _ = suit_table::tables();
}
