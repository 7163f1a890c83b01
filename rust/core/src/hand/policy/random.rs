//! `random` (Python `RandomStrategy`): `legal[floor(random() × n)]` with its own generator,
//! except that a locked hand (R14.2) always takes a legal win; the draw is made all the same,
//! so the generator's stream stays as it was.

use super::Policy;
use crate::hand::action::{Act, Action};
use crate::hand::view::View;

pub(super) fn act(p: &mut Policy, v: &View) -> Action {
    let legal = v.legal_actions();
    let rng = p.rng.as_mut().expect("random keeps a generator");
    let i = (rng.random() * legal.len() as f64) as usize;
    let choice = legal.get(i).expect("an index below the count");
    match legal.first() {
        Some(hu) if p.stay && hu.act == Act::Hu && v.won(p.seat) => hu,
        _ => choice,
    }
}
