//! `xuezhan._core`'s native hand play (contract: `xuezhan.native`): whole hands of built-in
//! strategies in Rust, in batches across cores with the GIL released, and single hands stepped
//! from Python (the differential tests, the mid-hand hand-off of a searching strategy).
//!
//! Nothing panics across the boundary: every call into the engine runs under `catch_unwind`,
//! and a panic becomes one `RuntimeError` naming the hand's seed.

use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use rayon::prelude::*;
use xuezhan_core as core;
use xuezhan_core::hand::legal::Legal;
use xuezhan_core::hand::play::{
    play_out, play_tournament_hand, play_tournament_hands, strategy_seed, TournamentHand,
};
use xuezhan_core::hand::policy::{ExpertOptions, Policy, PolicySpec, ValueOptions};
use xuezhan_core::hand::seeds::first_dealer;
use xuezhan_core::hand::{Act, Action, EndReason, Hand, HandRules, Phase, SelfDrawBonus};

use crate::CoreRules;

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The rules of a hand as the native engine reads them (built by `xuezhan.native` from a
/// `Rules` value, field by field).
#[pyclass(frozen, module = "xuezhan._core")]
#[derive(Clone)]
pub struct NativeRules(pub HandRules);

#[pymethods]
impl NativeRules {
    #[new]
    #[pyo3(signature = (*, core, self_draw_bonus, rob_kong, pass_win_lock, last_tiles_forced,
        kong_transfer, kong_draw_discarder_pays, pig_penalty, kong_refund, declare_void,
        exchange_three, escape_penalty, after_win))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        core: &CoreRules,
        self_draw_bonus: &str,
        rob_kong: bool,
        pass_win_lock: bool,
        last_tiles_forced: bool,
        kong_transfer: bool,
        kong_draw_discarder_pays: bool,
        pig_penalty: bool,
        kong_refund: bool,
        declare_void: bool,
        exchange_three: bool,
        escape_penalty: i64,
        after_win: &str,
    ) -> PyResult<Self> {
        let bonus = match self_draw_bonus {
            "none" => SelfDrawBonus::None,
            "point" => SelfDrawBonus::Point,
            "fan" => SelfDrawBonus::Fan,
            other => {
                return Err(PyValueError::new_err(format!(
                    "NativeRules: self_draw_bonus {other:?} is not none, point or fan"
                )))
            }
        };
        let stay = match after_win {
            "leave" => false,
            "stay" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "NativeRules: after_win {other:?} is not leave or stay"
                )))
            }
        };
        if escape_penalty < 0 {
            return Err(PyValueError::new_err(
                "NativeRules: escape_penalty must be at least 0",
            ));
        }
        let r = HandRules {
            core: core.core(),
            self_draw_bonus: bonus,
            rob_kong,
            pass_win_lock,
            last_tiles_forced,
            kong_transfer,
            kong_draw_discarder_pays,
            pig_penalty,
            kong_refund,
            declare_void,
            exchange_three,
            escape_penalty,
            stay,
            seats: 4,
            suits: 3,
        };
        if let Some(why) = r.unsupported() {
            return Err(PyValueError::new_err(format!(
                "NativeRules: cannot play {why}"
            )));
        }
        Ok(NativeRules(r))
    }

    fn __repr__(&self) -> String {
        format!("NativeRules({:?})", self.0)
    }
}

/// Four built-in strategies (one per line-up entry) with their options.
#[pyclass(frozen, module = "xuezhan._core")]
#[derive(Clone)]
pub struct NativeLineup {
    specs: Vec<PolicySpec>,
    seed_options: Vec<String>,
}

fn value_options(func: &str, opts: &Bound<'_, PyDict>) -> PyResult<ValueOptions> {
    let mut o = ValueOptions::default();
    for (k, v) in opts.iter() {
        value_option(func, &mut o, &k.extract::<String>()?, &v, "value")?;
    }
    Ok(o)
}

/// `expert`'s options: `value`'s, and its own.
pub(crate) fn expert_options(func: &str, opts: &Bound<'_, PyDict>) -> PyResult<ExpertOptions> {
    let mut o = ExpertOptions::default();
    for (k, v) in opts.iter() {
        let key: String = k.extract()?;
        let bad = |what: &str| {
            PyValueError::new_err(format!("{func}: expert option {key} must be {what}"))
        };
        let number = |lo: f64, hi: f64| -> PyResult<f64> {
            if v.is_instance_of::<pyo3::types::PyBool>() {
                return Err(bad("a number"));
            }
            let x: f64 = v.extract().map_err(|_| bad("a number"))?;
            if !(lo..=hi).contains(&x) {
                return Err(bad(&format!("a number from {lo} to {hi}")));
            }
            Ok(x)
        };
        let boolean = || -> PyResult<bool> {
            if v.is_instance_of::<pyo3::types::PyBool>() {
                v.extract()
            } else {
                Err(bad("true or false"))
            }
        };
        match key.as_str() {
            "samples" => o.samples = number(0.0, 4096.0)? as u16,
            "width" => o.width = number(1.0, 14.0)? as u8,
            "margin" => o.margin = number(-100.0, 100.0)?,
            "danger_cost" => o.danger_cost = number(0.0, 1000.0)?,
            "ready_weight" => o.ready_weight = number(0.0, 100.0)?,
            "survival" => o.survival = number(0.0, 1.0)?,
            "budget" => o.budget = number(0.001, 3600.0)?,
            "rollouts" => o.rollouts = number(0.0, 4096.0)? as u16,
            "search_width" => o.search_width = number(1.0, 14.0)? as u8,
            "nest" => o.nest = number(0.0, 4096.0)? as u16,
            "nest_width" => o.nest_width = number(1.0, 14.0)? as u8,
            "nest_depth" => o.nest_depth = number(0.0, 255.0)? as u8,
            "nest_z" => o.nest_z = number(0.0, 100.0)?,
            "z" => o.z = number(0.0, 100.0)?,
            "pick" => o.pick = number(1.0, 255.0)? as u8,
            "avoid_locked" => o.avoid_locked = boolean()?,
            "pass_wins" => o.pass_wins = boolean()?,
            "fan_play" => o.fan_play = boolean()?,
            "ready" => o.ready = boolean()?,
            "void_plans" => o.void_plans = boolean()?,
            "read_voids" => o.read_voids = boolean()?,
            "search_turns" => o.search_turns = boolean()?,
            "search_claims" => o.search_claims = boolean()?,
            "search_wins" => {
                o.search_wins = if v.extract::<String>().is_ok_and(|x| x == "auto") {
                    None
                } else {
                    Some(boolean().map_err(|_| bad("true, false or \"auto\""))?)
                }
            }
            _ => value_option(func, &mut o.value, &key, &v, "expert")?,
        }
    }
    Ok(o)
}

fn value_option(
    func: &str,
    o: &mut ValueOptions,
    key: &str,
    v: &Bound<'_, PyAny>,
    who: &str,
) -> PyResult<()> {
    {
        let key = key.to_string();
        let bad = |what: &str| {
            PyValueError::new_err(format!("{func}: {who} option {key} must be {what}"))
        };
        let as_bool = || -> PyResult<bool> {
            if v.is_instance_of::<pyo3::types::PyBool>() {
                v.extract()
            } else {
                Err(bad("true or false"))
            }
        };
        let as_int = || -> PyResult<i64> {
            if v.is_instance_of::<pyo3::types::PyBool>() {
                return Err(bad("an integer"));
            }
            v.extract().map_err(|_| bad("an integer"))
        };
        match key.as_str() {
            "defence" => o.params.defence = as_bool()?,
            "fan" => o.params.fan = as_bool()?,
            "steer" => o.params.steer = as_bool()?,
            "fold" => o.params.fold = as_bool()?,
            "lookahead" => o.params.lookahead = as_bool()?,
            "one_suit" => o.params.one_suit = as_bool()?,
            "smart_void" => o.smart_void = as_bool()?,
            "strict_peng" => o.strict_peng = as_bool()?,
            "alpha" => {
                let a: f64 = v.extract().map_err(|_| bad("a number"))?;
                if !a.is_finite() {
                    return Err(bad("a finite number"));
                }
                o.params.alpha = a;
            }
            "fold_wall" => o.params.fold_wall = as_int()?,
            "one_suit_min" => o.params.one_suit_min = as_int()?,
            "one_suit_slack" => o.params.one_suit_slack = as_int()?,
            "one_suit_wall" => o.params.one_suit_wall = as_int()?,
            "one_suit_step" => {
                o.params.one_suit_step = as_int()?;
                if o.params.one_suit_step < 1 {
                    return Err(bad("at least 1"));
                }
            }
            "kong_slack" => {
                o.kong_slack = i8::try_from(as_int()?).map_err(|_| bad("a small integer"))?;
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "{func}: {who} has no option '{other}'"
                )))
            }
        }
    }
    Ok(())
}

#[pymethods]
impl NativeLineup {
    /// `entries`: a list of `(name, options, seed_option)`: a built-in name (`random`,
    /// `greedy`, `value`), its constructor options (a dict, without `seed`) and its `seed`
    /// option as Python's `str()` of it ("" without one).
    #[new]
    fn new(entries: &Bound<'_, PyList>) -> PyResult<Self> {
        const F: &str = "NativeLineup";
        let mut specs = Vec::new();
        let mut seed_options = Vec::new();
        for e in entries.iter() {
            let (name, opts, seed): (String, Bound<'_, PyDict>, String) =
                e.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{F}: each entry is (name, options dict, seed option str)"
                    ))
                })?;
            let spec = match name.as_str() {
                "random" | "greedy" => {
                    if let Some((k, _)) = opts.iter().next() {
                        return Err(PyValueError::new_err(format!("{F}: {name} has no option '{k}'")));
                    }
                    if name == "random" {
                        PolicySpec::Random
                    } else {
                        PolicySpec::Greedy
                    }
                }
                "value" => PolicySpec::Value(value_options(F, &opts)?),
                "expert" => PolicySpec::Expert(expert_options(F, &opts)?),
                other => {
                    return Err(PyValueError::new_err(format!(
                        "{F}: {other:?} is not a strategy the native engine plays (random, greedy, value, expert)"
                    )))
                }
            };
            specs.push(spec);
            seed_options.push(seed);
        }
        if specs.is_empty() {
            return Err(PyValueError::new_err(format!("{F}: no entries")));
        }
        Ok(NativeLineup {
            specs,
            seed_options,
        })
    }

    fn __len__(&self) -> usize {
        self.specs.len()
    }
}

/// What a played hand gives a results table: per seat the row's fields, per hand its end, the
/// rules fired and the dealer, and the log lines when asked for.
struct Played {
    dealer: u8,
    seats: [core::hand::result::SeatResult; 4],
    end: u8,
    fired: u32,
    lines: Option<Vec<String>>,
}

/// The end reasons by their code (`end_code`).
const END_REASONS: [EndReason; 3] = [EndReason::Wall, EndReason::ThreeWon, EndReason::Escape];

fn end_code(r: Option<EndReason>) -> u8 {
    match r {
        Some(EndReason::Wall) => 0,
        Some(EndReason::ThreeWon) => 1,
        Some(EndReason::Escape) => 2,
        None => 255,
    }
}

fn play_one(
    rules: &HandRules,
    lineup: &NativeLineup,
    seed: i64,
    seating: &[u8],
    logs: bool,
) -> Result<Played, String> {
    let entry = |s: usize| seating[s] as usize;
    let specs: [PolicySpec; 4] = std::array::from_fn(|s| lineup.specs[entry(s)].clone());
    let options: [&str; 4] = std::array::from_fn(|s| lineup.seed_options[entry(s)].as_str());
    // the deal's and the `random` seats' generators are seeded together (see `generators`)
    let hand =
        play_tournament_hand(rules, seed as i128, &specs, &options, logs).map_err(|e| e.0)?;
    Ok(played(&hand, logs))
}

/// What the results keep of a played hand.
fn played(hand: &Hand, logs: bool) -> Played {
    Played {
        dealer: hand.dealer,
        seats: hand.seat_results(),
        end: end_code(hand.ledger.end_reason),
        fired: hand.ledger.fired,
        lines: logs.then(|| hand.event_lines()),
    }
}

/// Hands of a batch played together: their generators are seeded side by side
/// (`play_tournament_hands`).
const GROUP: usize = 16;

/// Plays the hands `seeds` (seated as `seatings`, four entries per hand) as `play_one` plays
/// each, with their generators seeded together. A panic inside replays them one at a time, so
/// that the error names the hand.
fn play_group(
    rules: &HandRules,
    lineup: &NativeLineup,
    seeds: &[i64],
    seatings: &[u8],
    logs: bool,
) -> Result<Vec<Played>, String> {
    let hands: Vec<TournamentHand> = seeds
        .iter()
        .zip(seatings.chunks(4))
        .map(|(&seed, seating)| TournamentHand {
            seed: seed as i128,
            lineup: std::array::from_fn(|s| &lineup.specs[seating[s] as usize]),
            seed_options: std::array::from_fn(|s| {
                lineup.seed_options[seating[s] as usize].as_str()
            }),
        })
        .collect();
    let together = catch_unwind(AssertUnwindSafe(|| {
        let mut out = Vec::with_capacity(hands.len());
        play_tournament_hands(rules, &hands, logs, |i, h| {
            out.push(
                h.map(|h| played(&h, logs))
                    .map_err(|e| format!("hand of seed {}: {}", seeds[i], e.0)),
            )
        });
        out
    }));
    match together {
        Ok(results) => results.into_iter().collect(),
        Err(_) => seeds
            .iter()
            .zip(seatings.chunks(4))
            .map(|(&seed, seating)| guarded(seed, || play_one(rules, lineup, seed, seating, logs)))
            .collect(),
    }
}

fn guarded<T>(seed: i64, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(|e| format!("hand of seed {seed}: {e}")),
        Err(p) => Err(format!(
            "the native engine failed on the hand of seed {seed}: {} (a bug in xuezhan: please report it with the seed and rules)",
            panic_message(&*p)
        )),
    }
}

/// A string column of the results dictionary-encoded: per row the index of its value among
/// `names`, the distinct values ordered by the integer they name (so the dictionary is the one
/// `numpy.unique` of those integers gives).
struct Coded {
    codes: Vec<i32>,
    names: Vec<String>,
}

impl Coded {
    /// The column whose row `i` names `keys[i]` (`name(key)` its text).
    fn new(keys: &[u32], name: impl Fn(u32) -> String) -> Coded {
        let mut distinct = keys.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let codes = keys
            .iter()
            .map(|k| distinct.binary_search(k).unwrap_or(0) as i32)
            .collect();
        Coded {
            codes,
            names: distinct.into_iter().map(name).collect(),
        }
    }

    /// Stores it in `out` as `{column}_codes` (int32) and `{column}_names` (list of str).
    fn store<'py>(self, out: &Bound<'py, PyDict>, column: &str) -> PyResult<()> {
        let py = out.py();
        out.set_item(
            format!("{column}_codes"),
            PyArray1::from_vec(py, self.codes),
        )?;
        out.set_item(format!("{column}_names"), self.names)
    }
}

/// The ids of the bits of `mask` among `ids`, sorted and `+`-joined (as the results write fan
/// items and fired rules).
fn joined_ids(ids: &[&str], mask: u32) -> String {
    let mut v: Vec<&str> = (0..ids.len())
        .filter(|&b| mask >> b & 1 != 0)
        .map(|b| ids[b])
        .collect();
    v.sort_unstable();
    v.join("+")
}

/// Plays one hand per seed; `seatings[i][s]` is the line-up entry in seat `s` of hand `i`.
/// Returns a dict of numpy columns, one row per (hand, seat) in hand then seat order, plus per
/// hand `end` (0 wall, 1 three_won, 2 escape), `fired` (bit mask of `FIRED`) and, with
/// `logs`, `lines` (each hand's event lines). The results' string columns come
/// dictionary-encoded per row: `fan_items_codes` / `fan_items_names`, `end_codes` /
/// `end_names` and `fired_codes` / `fired_names` (see `Coded`).
#[pyfunction]
#[pyo3(signature = (rules, lineup, seeds, seatings, threads = 1, logs = false))]
pub fn play_hands<'py>(
    py: Python<'py>,
    rules: &NativeRules,
    lineup: &NativeLineup,
    seeds: PyReadonlyArray1<'py, i64>,
    seatings: PyReadonlyArray2<'py, u8>,
    threads: usize,
    logs: bool,
) -> PyResult<Bound<'py, PyDict>> {
    const F: &str = "play_hands";
    let seeds = seeds
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{F}: seeds: {e}")))?
        .to_vec();
    let shape = seatings.shape().to_vec();
    if shape.len() != 2 || shape[0] != seeds.len() || shape[1] != 4 {
        return Err(PyValueError::new_err(format!(
            "{F}: seatings must have shape ({}, 4), got {shape:?}",
            seeds.len()
        )));
    }
    let seat_data = seatings
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{F}: seatings: {e}")))?
        .to_vec();
    if let Some(&e) = seat_data
        .iter()
        .find(|&&e| e as usize >= lineup.specs.len())
    {
        return Err(PyValueError::new_err(format!(
            "{F}: seating names entry {e}, the line-up has {}",
            lineup.specs.len()
        )));
    }
    let r = rules.0;
    let lu = lineup.clone();
    let results: Result<Vec<Vec<Played>>, String> = py.detach(|| {
        let group = |(g, seeds): (usize, &[i64])| {
            let at = 4 * GROUP * g;
            play_group(&r, &lu, seeds, &seat_data[at..at + 4 * seeds.len()], logs)
        };
        if threads <= 1 {
            seeds.chunks(GROUP).enumerate().map(group).collect()
        } else {
            match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                Ok(pool) => {
                    pool.install(|| seeds.par_chunks(GROUP).enumerate().map(group).collect())
                }
                Err(e) => Err(format!("cannot start {threads} threads: {e}")),
            }
        }
    });
    let played: Vec<Played> = results
        .map_err(|e| PyRuntimeError::new_err(format!("{F}: {e}")))?
        .into_iter()
        .flatten()
        .collect();
    let n = played.len() * 4;
    let mut dealer = Vec::with_capacity(n);
    let mut delta = Vec::with_capacity(n);
    let mut won = Vec::with_capacity(n);
    let mut wins = Vec::with_capacity(n);
    let mut win_order = Vec::with_capacity(n);
    let mut self_draw = Vec::with_capacity(n);
    let mut fan = Vec::with_capacity(n);
    let mut fan_items = Vec::with_capacity(n);
    let mut dealt_in = Vec::with_capacity(n);
    let mut kongs = Vec::with_capacity(n);
    let mut pig = Vec::with_capacity(n);
    let mut checked = Vec::with_capacity(n);
    let mut ready = Vec::with_capacity(n);
    let mut escape = Vec::with_capacity(n);
    let mut end = Vec::with_capacity(played.len());
    let mut fired = Vec::with_capacity(played.len());
    for p in &played {
        for (s, r) in p.seats.iter().enumerate() {
            dealer.push(s as u8 == p.dealer);
            delta.push(r.delta);
            won.push(r.won);
            wins.push(r.wins as i8);
            win_order.push(r.win_order as i8);
            self_draw.push(r.self_draw);
            fan.push(r.fan as i8);
            fan_items.push(r.fan_items);
            dealt_in.push(r.dealt_in as i8);
            kongs.push(r.kongs as i8);
            pig.push(r.pig);
            checked.push(r.checked);
            ready.push(r.ready);
            escape.push(r.escaped);
        }
        end.push(p.end);
        fired.push(p.fired);
    }
    let out = PyDict::new(py);
    out.set_item("dealer", PyArray1::from_vec(py, dealer))?;
    out.set_item("delta", PyArray1::from_vec(py, delta))?;
    out.set_item("won", PyArray1::from_vec(py, won))?;
    out.set_item("wins", PyArray1::from_vec(py, wins))?;
    out.set_item("win_order", PyArray1::from_vec(py, win_order))?;
    out.set_item("self_draw", PyArray1::from_vec(py, self_draw))?;
    out.set_item("fan", PyArray1::from_vec(py, fan))?;
    out.set_item("fan_items", PyArray1::from_vec(py, fan_items.clone()))?;
    out.set_item("dealt_in", PyArray1::from_vec(py, dealt_in))?;
    out.set_item("kongs", PyArray1::from_vec(py, kongs))?;
    out.set_item("pig", PyArray1::from_vec(py, pig))?;
    out.set_item("checked", PyArray1::from_vec(py, checked))?;
    out.set_item("ready", PyArray1::from_vec(py, ready))?;
    out.set_item("escape", PyArray1::from_vec(py, escape))?;
    let per_row = |v: &[u32]| -> Vec<u32> { v.iter().flat_map(|&x| [x; 4]).collect() };
    Coded::new(&fan_items, |m| joined_ids(&core::item::IDS, m)).store(&out, "fan_items")?;
    let ends: Vec<u32> = end.iter().map(|&e| e as u32).collect();
    Coded::new(&per_row(&ends), |e| {
        END_REASONS
            .get(e as usize)
            .map_or("", |r| r.name())
            .to_string()
    })
    .store(&out, "end")?;
    Coded::new(&per_row(&fired), |m| joined_ids(&core::hand::FIRED, m)).store(&out, "fired")?;
    out.set_item("end", PyArray1::from_vec(py, end))?;
    out.set_item("fired", PyArray1::from_vec(py, fired))?;
    if logs {
        let lines: Vec<Vec<String>> = played
            .into_iter()
            .map(|p| p.lines.unwrap_or_default())
            .collect();
        out.set_item("lines", lines)?;
    }
    Ok(out)
}

// ---------------------------------------------------------------- one hand, stepped

fn action_tuple<'py>(py: Python<'py>, a: &Action) -> PyResult<Bound<'py, PyTuple>> {
    let verb = a.verb();
    let arg: Py<PyAny> = match a.act {
        Act::Discard(k) | Act::Angang(k) | Act::Jiagang(k) | Act::Void(k) => {
            k.into_pyobject(py)?.into_any().unbind()
        }
        Act::Exchange(t) => PyTuple::new(py, t)?.into_any().unbind(),
        _ => py.None(),
    };
    PyTuple::new(
        py,
        [
            a.seat.into_pyobject(py)?.into_any().unbind(),
            verb.into_pyobject(py)?.into_any().unbind(),
            arg,
        ],
    )
}

fn parse_action(seat: u8, verb: &str, arg: &Bound<'_, PyAny>) -> PyResult<Action> {
    let tile = || -> PyResult<u8> {
        let k: u8 = arg
            .extract()
            .map_err(|_| PyValueError::new_err(format!("{verb} takes a tile kind 0-26")))?;
        if k >= 27 {
            return Err(PyValueError::new_err(format!(
                "{verb} takes a tile kind 0-26, got {k}"
            )));
        }
        Ok(k)
    };
    let act = match verb {
        "discard" => Act::Discard(tile()?),
        "angang" => Act::Angang(tile()?),
        "jiagang" => Act::Jiagang(tile()?),
        "hu" => Act::Hu,
        "peng" => Act::Peng,
        "gang" => Act::Gang,
        "pass" => Act::Pass,
        "escape" => Act::Escape,
        "void" => {
            let s: u8 = arg
                .extract()
                .map_err(|_| PyValueError::new_err("void takes a suit 0-2"))?;
            if s > 2 {
                return Err(PyValueError::new_err(format!(
                    "void takes a suit 0-2, got {s}"
                )));
            }
            Act::Void(s)
        }
        "exchange" => {
            let t: [u8; 3] = arg
                .extract()
                .map_err(|_| PyValueError::new_err("exchange takes three tile kinds"))?;
            if t.iter().any(|&k| k >= 27) {
                return Err(PyValueError::new_err(
                    "exchange takes three tile kinds 0-26",
                ));
            }
            Act::Exchange(t)
        }
        other => return Err(PyValueError::new_err(format!("{other:?} is not a verb"))),
    };
    Ok(Action::new(seat, act))
}

/// One hand in the native engine, stepped from Python: dealt from a seed or from given tiles,
/// its legal actions read and its actions applied one at a time, or played out by built-in
/// policies.
#[pyclass(module = "xuezhan._core")]
pub struct NativeHand {
    hand: Hand,
    seed: Option<i64>,
}

impl NativeHand {
    fn guard<T>(&mut self, f: impl FnOnce(&mut Hand) -> Result<T, String>) -> PyResult<T> {
        let seed = self.seed.map_or("none".to_string(), |s| s.to_string());
        let hand = &mut self.hand;
        match catch_unwind(AssertUnwindSafe(|| f(hand))) {
            Ok(r) => r.map_err(PyValueError::new_err),
            Err(p) => Err(PyRuntimeError::new_err(format!(
                "the native engine failed on the hand of seed {seed}: {} (a bug in xuezhan)",
                panic_message(&*p)
            ))),
        }
    }
}

#[pymethods]
impl NativeHand {
    /// A hand dealt from `seed` (R1.4) with `dealer`.
    #[staticmethod]
    #[pyo3(signature = (rules, seed, dealer, record = true))]
    fn from_seed(rules: &NativeRules, seed: i64, dealer: u8, record: bool) -> PyResult<NativeHand> {
        let r = rules.0;
        let hand = catch_unwind(|| Hand::from_seed(r, seed as i128, dealer, record))
            .map_err(|p| PyRuntimeError::new_err(panic_message(&*p)))?
            .map_err(|e| PyValueError::new_err(e.0))?;
        Ok(NativeHand {
            hand,
            seed: Some(seed),
        })
    }

    /// A hand of `hands` (lists of kinds) and `wall` (kinds in draw order).
    #[staticmethod]
    #[pyo3(signature = (rules, hands, wall, dealer, exchange = None, record = true))]
    fn deal(
        rules: &NativeRules,
        hands: Vec<Vec<u8>>,
        wall: Vec<u8>,
        dealer: u8,
        exchange: Option<u8>,
        record: bool,
    ) -> PyResult<NativeHand> {
        let r = rules.0;
        let hand = catch_unwind(|| Hand::new(r, hands, wall, dealer, exchange, record))
            .map_err(|p| PyRuntimeError::new_err(panic_message(&*p)))?
            .map_err(|e| PyValueError::new_err(e.0))?;
        Ok(NativeHand { hand, seed: None })
    }

    /// The hand a Python round's state describes (``xuezhan.native.from_round`` writes the
    /// dict), at its pending decision; ``record``: keep the events from here on.
    #[staticmethod]
    #[pyo3(signature = (rules, state, record = false))]
    fn from_state(
        rules: &NativeRules,
        state: &Bound<'_, PyDict>,
        record: bool,
    ) -> PyResult<NativeHand> {
        Ok(NativeHand {
            hand: hand_from_state(rules.0, state, record)?,
            seed: None,
        })
    }

    /// An independent copy.
    fn copy(&self) -> NativeHand {
        NativeHand {
            hand: self.hand.clone(),
            seed: self.seed,
        }
    }

    /// Each action of `actions` (of the seat to decide) played on a copy of this hand, and the
    /// rest of the hand by `lineup` (fresh policies, the `random` of seat `s` seeded `seed + s`,
    /// as a Python rollout builds them): each copy's final deltas.
    fn rollouts(
        &mut self,
        py: Python<'_>,
        actions: Vec<(u8, String, Py<PyAny>)>,
        lineup: &NativeLineup,
        seed: i64,
    ) -> PyResult<Vec<[i64; 4]>> {
        if lineup.specs.len() != 4 {
            return Err(PyValueError::new_err(
                "rollouts: the line-up has one entry per seat",
            ));
        }
        let mut acts = Vec::with_capacity(actions.len());
        for (seat, verb, arg) in &actions {
            acts.push(parse_action(*seat, verb, arg.bind(py))?);
        }
        let specs = lineup.specs.clone();
        py.detach(|| {
            self.guard(move |h| {
                let rules = h.rules;
                let mut out = Vec::with_capacity(acts.len());
                for a in acts {
                    let mut copy = h.clone();
                    copy.apply(a, false).map_err(|e| e.0)?;
                    let mut policies: Vec<Policy> = (0..4u8)
                        .map(|s| {
                            Policy::new(
                                &specs[s as usize],
                                s,
                                &rules,
                                Some(seed as i128 + s as i128),
                            )
                        })
                        .collect();
                    play_out(&mut copy, &mut policies);
                    out.push(copy.ledger.deltas);
                }
                Ok(out)
            })
        })
    }

    /// The expert's estimate of each of `actions` (of the seat to decide): per action, the
    /// seat's points on each of `rollouts` samples of what it cannot see, every action played on
    /// each and the hand finished by `value` (what `xuezhan review` shows).
    #[pyo3(signature = (actions, rollouts, seed, pick = 12))]
    fn estimate(
        &mut self,
        py: Python<'_>,
        actions: Vec<(u8, String, Py<PyAny>)>,
        rollouts: u32,
        seed: u64,
        pick: u8,
    ) -> PyResult<Vec<Vec<i64>>> {
        let Some(seat) = self.hand.turn.cur else {
            return Err(PyValueError::new_err("estimate: the hand is over"));
        };
        let mut acts = Vec::with_capacity(actions.len());
        for (s, verb, arg) in &actions {
            acts.push(parse_action(*s, verb, arg.bind(py))?);
        }
        py.detach(|| {
            self.guard(move |h| {
                Ok(core::hand::policy::estimate(
                    h,
                    seat,
                    &acts,
                    rollouts,
                    seed,
                    pick.max(1),
                ))
            })
        })
    }

    /// The seat whose decision is pending (None once the hand is over).
    #[getter]
    fn cur(&self) -> Option<u8> {
        self.hand.turn.cur
    }

    /// The hand is over.
    #[getter]
    fn over(&self) -> bool {
        self.hand.is_over()
    }

    /// Each seat's points so far.
    #[getter]
    fn deltas(&self) -> [i64; 4] {
        self.hand.ledger.deltas
    }

    /// The next dealer (R9.2), once over.
    #[getter]
    fn next_dealer(&self) -> Option<u8> {
        self.hand.ledger.next_dealer
    }

    /// The legal actions of the pending decision as `(seat, verb, arg)` tuples.
    fn legal<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        self.hand
            .legal()
            .iter()
            .map(|a| action_tuple(py, a))
            .collect()
    }

    /// The R10 default of the pending decision, or None once over.
    fn default_action<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.hand
            .default_action()
            .map(|a| action_tuple(py, &a))
            .transpose()
    }

    /// Applies `(seat, verb, arg)`; `default` marks an R10 default. A ValueError names an
    /// action that is not legal (nothing changes).
    #[pyo3(signature = (seat, verb, arg = None, default = false))]
    fn apply(
        &mut self,
        py: Python<'_>,
        seat: u8,
        verb: &str,
        arg: Option<&Bound<'_, PyAny>>,
        default: bool,
    ) -> PyResult<()> {
        let none = py.None().into_bound(py);
        let a = parse_action(seat, verb, arg.unwrap_or(&none))?;
        self.guard(|h| h.apply(a, default).map_err(|e| e.0))
    }

    /// The log lines of the events so far.
    fn events(&self) -> Vec<String> {
        self.hand.event_lines()
    }

    /// Plays the hand to its end with `lineup` (one entry per seat, in seat order); `seeds`:
    /// the seed of each seat's `random` policy (None: 0).
    #[pyo3(signature = (lineup, seeds = None))]
    fn play_out(&mut self, lineup: &NativeLineup, seeds: Option<Vec<Option<i64>>>) -> PyResult<()> {
        if lineup.specs.len() != 4 {
            return Err(PyValueError::new_err(
                "play_out: the line-up has one entry per seat",
            ));
        }
        let seeds = seeds.unwrap_or_else(|| vec![None; 4]);
        let specs = lineup.specs.clone();
        self.guard(move |h| {
            let rules = h.rules;
            let mut policies: Vec<Policy> = (0..4u8)
                .map(|s| {
                    Policy::new(
                        &specs[s as usize],
                        s,
                        &rules,
                        seeds.get(s as usize).copied().flatten().map(i128::from),
                    )
                })
                .collect();
            play_out(h, &mut policies);
            Ok(())
        })
    }

    /// R12.1/R12.2 now; a ValueError names what is wrong.
    fn check_invariants(&self) -> PyResult<()> {
        self.hand
            .check_invariants()
            .map_err(|e| PyValueError::new_err(e.0))
    }

    /// The phase: "exchange", "void", "turn", "claim" or "over".
    #[getter]
    fn phase(&self) -> &'static str {
        match self.hand.turn.phase {
            Phase::Exchange => "exchange",
            Phase::Void => "void",
            Phase::Turn => "turn",
            Phase::Claim => "claim",
            Phase::Over => "over",
        }
    }
}

/// The seeds of the Python engine (`xuezhan.engine.seeds`), for the tests that compare them.
#[pyfunction]
pub fn native_seeds(seed: i64, seat: u8, option: &str) -> (u8, i64) {
    (
        first_dealer(seed as i128),
        strategy_seed(seed as i128, seat, option) as i64,
    )
}

/// The share of other seats the native determinizer deals ready hands at, with `wall` tiles left.
#[pyfunction]
pub fn native_ready_rate(wall: usize) -> f64 {
    core::hand::sample::ready_rate(wall)
}

/// The ids the native engine fires, in bit order.
pub fn fired_ids() -> Vec<&'static str> {
    core::hand::FIRED.to_vec()
}

// ---------------------------------------------------------------- a Python round's state

fn item<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    d.get_item(key)?
        .ok_or_else(|| PyValueError::new_err(format!("from_state: the state has no {key:?}")))
}

fn get<'py, T: FromPyObjectOwned<'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    item(d, key)?.extract().map_err(|e| {
        PyValueError::new_err(format!("from_state: {key}: {}", Into::<PyErr>::into(e)))
    })
}

fn dict<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyDict>> {
    item(d, key)?
        .cast_into::<PyDict>()
        .map_err(|_| PyValueError::new_err(format!("from_state: {key} is not a dict")))
}

fn kinds(what: &str, v: &[u8]) -> PyResult<()> {
    match v.iter().find(|&&k| k >= 27) {
        Some(k) => Err(PyValueError::new_err(format!(
            "from_state: {what}: {k} is not a tile kind"
        ))),
        None => Ok(()),
    }
}

fn counts27(what: &str, v: Vec<u8>) -> PyResult<core::Counts> {
    let c: core::Counts = v.try_into().map_err(|v: Vec<u8>| {
        PyValueError::new_err(format!("from_state: {what} has {} counts, not 27", v.len()))
    })?;
    if c.iter().any(|&n| n > 4) {
        return Err(PyValueError::new_err(format!(
            "from_state: {what} holds more than four of a kind"
        )));
    }
    Ok(c)
}

fn seat_ok(what: &str, s: u8) -> PyResult<u8> {
    if s < 4 {
        Ok(s)
    } else {
        Err(PyValueError::new_err(format!(
            "from_state: {what}: {s} is not a seat"
        )))
    }
}

type WinTuple = (
    u8,
    Option<u8>,
    u8,
    u8,
    u8,
    u64,
    Vec<(u8, u8)>,
    String,
    bool,
    i64,
);
type KongTuple = (u8, u8, String, Option<u8>, Vec<(u8, i64)>, bool, bool);
type ClaimTuple = (
    u8,
    u8,
    bool,
    u8,
    Option<usize>,
    Vec<u8>,
    usize,
    Vec<u8>,
    Option<(u8, bool)>,
    [u8; 4],
);

/// The hand whose state `state` describes (the layout `xuezhan.native.from_round` writes).
fn hand_from_state(rules: HandRules, state: &Bound<'_, PyDict>, record: bool) -> PyResult<Hand> {
    use core::hand::{
        ClaimWindow, KongHow, KongRecord, Ledger, Melds, Seats, Turn, TurnFlags, Wall, Win, WinHow,
    };
    let dealer = seat_ok("dealer", get(state, "dealer")?)?;
    let exchange_dir: Option<u8> = get(state, "exchange")?;
    // the wall
    let w = dict(state, "wall")?;
    let tiles: Vec<u8> = get(&w, "tiles")?;
    kinds("wall.tiles", &tiles)?;
    let pos: usize = get(&w, "pos")?;
    if pos > tiles.len() {
        return Err(PyValueError::new_err(
            "from_state: wall.pos is past the wall's end",
        ));
    }
    let wall = Wall {
        tiles,
        dealt: counts27("wall.dealt", get(&w, "dealt")?)?,
        pos,
        seen: counts27("wall.seen", get(&w, "seen")?)?,
    };
    // the seats
    let s = dict(state, "seats")?;
    let counts: Vec<Vec<u8>> = get(&s, "counts")?;
    let melds: Vec<Vec<u8>> = get(&s, "melds")?;
    let meld_from: Vec<Vec<Option<u8>>> = get(&s, "meld_from")?;
    let river: Vec<Vec<u8>> = get(&s, "river")?;
    let aside: Vec<Vec<u8>> = get(&s, "aside")?;
    let four = |what: &str, n: usize| -> PyResult<()> {
        if n == 4 {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "from_state: seats.{what} has {n} seats, not 4"
            )))
        }
    };
    for (what, n) in [
        ("counts", counts.len()),
        ("melds", melds.len()),
        ("meld_from", meld_from.len()),
        ("river", river.len()),
        ("aside", aside.len()),
    ] {
        four(what, n)?;
    }
    let mut seats = Seats::deal(
        &[vec![], vec![], vec![], vec![]],
        rules.stay,
        get(&s, "voids_known")?,
    );
    for i in 0..4 {
        seats.counts[i] = counts27("seats.counts", counts[i].clone())?;
        if melds[i].len() > 4 || meld_from[i].len() != melds[i].len() {
            return Err(PyValueError::new_err(
                "from_state: seats.melds: at most four melds, each with its discarder",
            ));
        }
        let mut ms = Melds::default();
        for (&code, &frm) in melds[i].iter().zip(&meld_from[i]) {
            let m = core::Meld::from_code(code)
                .map_err(|e| PyValueError::new_err(format!("from_state: {e}")))?;
            ms.push(m, frm);
        }
        seats.melds[i] = ms;
        kinds("seats.river", &river[i])?;
        kinds("seats.aside", &aside[i])?;
        seats.river[i] = river[i].clone();
        seats.aside[i] = aside[i].clone();
    }
    seats.won = get(&s, "won")?;
    seats.escaped = get(&s, "escaped")?;
    seats.active = get(&s, "active")?;
    seats.n_active = seats.active.iter().filter(|&&a| a).count() as u8;
    seats.void = get(&s, "void")?;
    if seats.void.iter().any(|&v| !(-1..=2).contains(&v)) {
        return Err(PyValueError::new_err(
            "from_state: seats.void: each is -1 or a suit 0-2",
        ));
    }
    seats.mask = get(&s, "mask")?;
    seats.lock = get(&s, "lock")?;
    seats.last_discard = get(&s, "last_discard")?;
    let discarded: Vec<Vec<u8>> = get(&s, "discarded")?;
    four("discarded", discarded.len())?;
    for (i, d) in discarded.into_iter().enumerate() {
        seats.discarded[i] = counts27("seats.discarded", d)?;
    }
    // the ledger
    let l = dict(state, "ledger")?;
    let mut ledger = Ledger::new(record);
    ledger.deltas = get(&l, "deltas")?;
    ledger.fired = get(&l, "fired")?;
    ledger.defaults_used = get(&l, "defaults_used")?;
    let wins: Vec<WinTuple> = get(&l, "wins")?;
    for (seat, frm, tile, fan, raw_fan, points, items, how, forced, group) in wins {
        let mut its = [0u8; core::item::COUNT];
        for (b, f) in items {
            if (b as usize) < its.len() {
                its[b as usize] = f;
            }
        }
        let how = match how.as_str() {
            "self_draw" => WinHow::SelfDraw,
            "discard" => WinHow::Discard,
            "rob" => WinHow::Rob,
            other => {
                return Err(PyValueError::new_err(format!(
                    "from_state: a win's how {other:?}"
                )))
            }
        };
        ledger.wins.push(Win {
            seat: seat_ok("ledger.wins", seat)?,
            frm,
            tile,
            fan,
            raw_fan,
            points,
            items: its,
            how,
            forced,
            group,
        });
    }
    let kongs: Vec<KongTuple> = get(&l, "kongs")?;
    for (seat, kind, how, frm, pay, transferred, refunded) in kongs {
        let how = match how.as_str() {
            "gang" => KongHow::Gang,
            "angang" => KongHow::Angang,
            "jiagang" => KongHow::Jiagang,
            other => {
                return Err(PyValueError::new_err(format!(
                    "from_state: a kong's how {other:?}"
                )))
            }
        };
        ledger.kongs.push(KongRecord {
            seat: seat_ok("ledger.kongs", seat)?,
            kind,
            how,
            frm,
            pay,
            transferred,
            refunded,
        });
    }
    let n_kongs = ledger.kongs.len();
    let kong_ok = |k: Option<usize>| -> PyResult<Option<usize>> {
        match k {
            Some(i) if i >= n_kongs => Err(PyValueError::new_err(
                "from_state: a kong index past the ledger's kongs",
            )),
            _ => Ok(k),
        }
    };
    // the turn
    let t = dict(state, "turn")?;
    let phase = match get::<u8>(&t, "phase")? {
        0 => Phase::Exchange,
        1 => Phase::Void,
        2 => Phase::Turn,
        3 => Phase::Claim,
        4 => Phase::Over,
        p => return Err(PyValueError::new_err(format!("from_state: turn.phase {p}"))),
    };
    let mut actions = Vec::new();
    let raw_legal = item(&t, "legal")?;
    for a in raw_legal.try_iter()? {
        let (seat, verb, arg): (u8, String, Bound<'_, PyAny>) = a?.extract()?;
        actions.push(parse_action(seat_ok("turn.legal", seat)?, &verb, &arg)?);
    }
    let legal = Legal::from_actions(&actions)
        .map_err(|e| PyValueError::new_err(format!("from_state: turn.{e}")))?;
    let (replacement, last_tile, after_peng, heaven, kong): (
        bool,
        bool,
        bool,
        bool,
        Option<usize>,
    ) = get(&t, "flags")?;
    let claims: Option<ClaimTuple> = get(&t, "claims")?;
    let claims = match claims {
        None => None,
        Some((tile, frm, robbing, ctx, kong, queue, asked, hu, meld, fan)) => Some(ClaimWindow {
            tile,
            frm: seat_ok("turn.claims", frm)?,
            robbing,
            ctx,
            kong: kong_ok(kong)?,
            queue,
            asked,
            hu,
            meld,
            fan,
        }),
    };
    let x_choice: [Option<[u8; 3]>; 4] = get(&t, "x_choice")?;
    let turn = Turn {
        phase,
        cur: get::<Option<u8>>(&t, "cur")?
            .map(|c| seat_ok("turn.cur", c))
            .transpose()?,
        legal,
        discard_mask: get(&t, "discard_mask")?,
        drawn: get(&t, "drawn")?,
        flags: TurnFlags {
            replacement,
            last_tile,
            after_peng,
            heaven,
            kong: kong_ok(kong)?,
        },
        any_claim: get(&t, "any_claim")?,
        first_drawn: get(&t, "first_drawn")?,
        claim_group: get(&t, "claim_group")?,
        claims,
        last_phase: get(&t, "last_phase")?,
        x_choice,
        v_choice: get(&t, "v_choice")?,
    };
    let hand = Hand {
        rules,
        dealer,
        exchange_dir,
        hands0: Vec::new(),
        wall,
        seats,
        turn,
        ledger,
    };
    hand.check_invariants()
        .map_err(|e| PyValueError::new_err(format!("from_state: {e}")))?;
    if hand.turn.cur.is_some() == hand.is_over() || (!hand.is_over() && hand.turn.legal.is_empty())
    {
        return Err(PyValueError::new_err(
            "from_state: a hand not over has a pending decision with legal actions",
        ));
    }
    Ok(hand)
}

// ---------------------------------------------------------------- expert in the Python engine

fn phase_of(name: &str) -> PyResult<Phase> {
    Ok(match name {
        "exchange" => Phase::Exchange,
        "void" => Phase::Void,
        "turn" => Phase::Turn,
        "claim" => Phase::Claim,
        "over" => Phase::Over,
        other => return Err(PyValueError::new_err(format!("expert: phase {other:?}"))),
    })
}

/// What `obs` (a Python `Observation`) shows, as the Rust policies read it.
fn sight_of(obs: &Bound<'_, PyAny>) -> PyResult<core::hand::sight::ObsSight> {
    use pyo3::intern;
    let py = obs.py();
    let seat: u8 = seat_ok(
        "expert: obs.seat",
        obs.getattr(intern!(py, "seat"))?.extract()?,
    )?;
    let mut sight = core::hand::sight::ObsSight {
        seat,
        phase: Some(phase_of(
            &obs.getattr(intern!(py, "phase"))?.extract::<String>()?,
        )?),
        hand: counts27("obs.hand", obs.getattr(intern!(py, "hand"))?.extract()?)?,
        seen: counts27("obs.seen", obs.getattr(intern!(py, "seen"))?.extract()?)?,
        wall_count: obs.getattr(intern!(py, "wall_count"))?.extract()?,
        last_tiles: obs.getattr(intern!(py, "last_tiles"))?.extract()?,
        won: obs.getattr(intern!(py, "won"))?.extract()?,
        escaped: obs.getattr(intern!(py, "escaped"))?.extract()?,
        voids: obs.getattr(intern!(py, "voids"))?.extract()?,
        claim_tile: obs.getattr(intern!(py, "claim_tile"))?.extract()?,
        claim_from: obs.getattr(intern!(py, "claim_from"))?.extract()?,
        discard_mask: obs.getattr(intern!(py, "discard_mask"))?.extract()?,
        drawn: obs.getattr(intern!(py, "drawn"))?.extract()?,
        ..Default::default()
    };
    let melds = obs.getattr(intern!(py, "melds"))?;
    let discards = obs.getattr(intern!(py, "discards"))?;
    let wins = obs.getattr(intern!(py, "wins"))?;
    for s in 0..4usize {
        for m in melds.get_item(s)?.try_iter()? {
            let (ty, kind): (u8, u8) = m?.extract()?;
            let code = ty
                .checked_mul(27)
                .and_then(|x| x.checked_add(kind))
                .unwrap_or(255);
            sight.melds[s].push(
                core::Meld::from_code(code)
                    .map_err(|e| PyValueError::new_err(format!("expert: {e}")))?,
            );
        }
        sight.discards[s] = discards.get_item(s)?.extract()?;
        kinds("obs.discards", &sight.discards[s])?;
        sight.wins[s] = wins.get_item(s)?.extract()?;
        kinds("obs.wins", &sight.wins[s])?;
    }
    for a in obs.getattr(intern!(py, "legal_actions"))?.try_iter()? {
        let (s, verb, arg): (u8, String, Bound<'_, PyAny>) = a?.extract()?;
        sight.legal.push(parse_action(
            seat_ok("expert: a legal action", s)?,
            &verb,
            &arg,
        )?);
    }
    if sight.legal.is_empty() {
        return Err(PyValueError::new_err(
            "expert: the observation has no legal action",
        ));
    }
    Ok(sight)
}

/// A round sealed for a searching native policy: Python can read nothing of it (no method, no
/// attribute), so handing it to a seat's strategy reveals nothing; only the policy's
/// determinizer opens it, and reads only what that seat may know (core `hand::sample`).
#[pyclass(frozen, module = "xuezhan._core")]
pub struct SealedHand(Hand);

/// `hand` sealed (see [`SealedHand`]).
#[pyfunction]
pub fn seal(hand: &NativeHand) -> SealedHand {
    SealedHand(hand.hand.clone())
}

/// `expert` for the Python engine: the Rust policy of the native engine, fed each decision's
/// `Observation` (the same decisions in both engines).
#[pyclass(module = "xuezhan._core")]
pub struct ExpertPolicy {
    opts: ExpertOptions,
    seed: u64,
    state: Option<core::hand::policy::Expert>,
}

#[pymethods]
impl ExpertPolicy {
    #[new]
    fn new(options: &Bound<'_, PyDict>, seed: u64) -> PyResult<Self> {
        Ok(ExpertPolicy {
            opts: expert_options("expert", options)?,
            seed,
            state: None,
        })
    }

    /// A new hand: `seat` under `rules`.
    fn reset(&mut self, seat: u8, rules: &NativeRules) -> PyResult<()> {
        seat_ok("expert: seat", seat)?;
        self.state = Some(core::hand::policy::Expert::new(
            &self.opts, seat, &rules.0, self.seed,
        ));
        Ok(())
    }

    /// The index in `obs.legal_actions` of the action it takes; `truth`: the hand sealed by the
    /// seat loop's sampler, for its search to sample what the seat cannot see (None: no search).
    #[pyo3(signature = (obs, truth = None))]
    fn act(
        &mut self,
        py: Python<'_>,
        obs: &Bound<'_, PyAny>,
        truth: Option<PyRef<'_, SealedHand>>,
    ) -> PyResult<usize> {
        let mut sight = sight_of(obs)?;
        sight.truth = truth.map(|t| t.0.clone());
        let Some(state) = self.state.as_mut() else {
            return Err(PyValueError::new_err("expert: act before reset"));
        };
        let seat = sight.seat;
        let chosen = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| {
                use core::hand::sight::Sight;
                let a = state.act(&sight);
                sight.legal().iter().position(|&l| l == a)
            }))
        });
        match chosen {
            Ok(Some(i)) => Ok(i),
            Ok(None) => Err(PyRuntimeError::new_err(format!(
                "expert chose an action that is not legal for seat {seat} (a bug in xuezhan)"
            ))),
            Err(p) => Err(PyRuntimeError::new_err(format!(
                "expert failed on a decision of seat {seat}: {} (a bug in xuezhan)",
                panic_message(&*p)
            ))),
        }
    }
}
