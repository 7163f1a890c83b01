//! The rule options a hand is played under (docs/rules.md R11), as the native engine reads them.
//!
//! The Python `Rules` value is the one definition of every option, its presets and its checks;
//! this is the part of it a hand's play and settlement read, built from it field by field
//! (`xuezhan.native`) and compared with it by the differential tests. The clock of R10 is not
//! here: the native engine plays built-in strategies, which never run out of time.

use crate::fan::RulesCore;

/// R6.2: what a self-draw adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelfDrawBonus {
    /// Nothing (leshan).
    None,
    /// Each payer pays `base` more (加底).
    Point,
    /// +1 fan (加番, the `self_draw` fan item of R5).
    Fan,
}

/// Every option of a hand's play and settlement (R3–R8, R11, R14), plus the shape of the
/// table: the number of seats and of suits in play (four and three here; kept as parameters
/// so that smaller tables can arrive later as rule data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandRules {
    /// The evaluator's part: cap, base, fan items, the self-draw fan (R5).
    pub core: RulesCore,
    /// R6.2.
    pub self_draw_bonus: SelfDrawBonus,
    /// R3.3: an added kong can be robbed.
    pub rob_kong: bool,
    /// R4.3: a passed win locks discard wins until the seat's next draw.
    pub pass_win_lock: bool,
    /// R4.4: wins are compulsory in the last-tiles phase.
    pub last_tiles_forced: bool,
    /// R6.5: the kong transfer of 杠上炮.
    pub kong_transfer: bool,
    /// R6.3: after a kong on a discard, 杠上开花 is paid by that discarder alone.
    pub kong_draw_discarder_pays: bool,
    /// R7.2: pigs pay the capped maximum.
    pub pig_penalty: bool,
    /// R7.5: the kong refund.
    pub kong_refund: bool,
    /// R11.2: 定缺.
    pub declare_void: bool,
    /// R11.1: 换三张.
    pub exchange_three: bool,
    /// R8: the escape penalty, in units of `base`.
    pub escape_penalty: i64,
    /// R14: winners stay in the hand (血流成河).
    pub stay: bool,
    /// Seats at the table (4).
    pub seats: u8,
    /// Suits in play (3).
    pub suits: u8,
}

impl HandRules {
    /// The `leshan` preset.
    ///
    /// ```
    /// let r = xuezhan_core::hand::HandRules::leshan();
    /// assert!(r.last_tiles_forced && !r.declare_void && !r.stay);
    /// ```
    pub fn leshan() -> HandRules {
        HandRules {
            core: RulesCore::leshan(),
            self_draw_bonus: SelfDrawBonus::None,
            rob_kong: true,
            pass_win_lock: true,
            last_tiles_forced: true,
            kong_transfer: true,
            kong_draw_discarder_pays: true,
            pig_penalty: true,
            kong_refund: true,
            declare_void: false,
            exchange_three: false,
            escape_penalty: 50,
            stay: false,
            seats: 4,
            suits: 3,
        }
    }

    /// The `chengdu` preset (`xueliu` is it with `stay`).
    pub fn chengdu() -> HandRules {
        HandRules {
            core: RulesCore::chengdu(),
            self_draw_bonus: SelfDrawBonus::Point,
            last_tiles_forced: false,
            declare_void: true,
            exchange_three: true,
            ..HandRules::leshan()
        }
    }

    /// The capped maximum `base × 2^(max_fan − 1)` (R7.2).
    pub fn max_points(&self) -> i64 {
        (self.core.base as i64) << (self.core.max_fan - 1)
    }

    /// Why these rules cannot be played natively (today: a table other than four seats and
    /// three suits), or None.
    pub fn unsupported(&self) -> Option<String> {
        if self.seats != 4 || self.suits != 3 {
            return Some(format!(
                "a table of {} seats and {} suits (the native engine plays four seats and three suits)",
                self.seats, self.suits
            ));
        }
        if self.core.max_fan == 0 || self.core.max_fan > 16 || self.core.base == 0 {
            return Some(format!(
                "max_fan {} and base {} (max_fan is 1-16, base at least 1)",
                self.core.max_fan, self.core.base
            ));
        }
        None
    }
}
