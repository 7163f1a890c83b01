//! `xuezhan._core`: thin PyO3 bindings of `xuezhan-core` (contract: docs/internals.md).
//!
//! Hands cross as `bytes` of 27 counts, melds as `bytes` of `meld_type * 27 + kind` codes.
//! Every input error becomes a `ValueError` naming the input; nothing panics across the
//! boundary (validation happens before any unchecked core call). Batch functions take
//! `(N, 27)` C-contiguous `uint8` arrays, release the GIL and optionally use rayon.

use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::prelude::*;
use xuezhan_core as core;
use xuezhan_core::{Counts, EvalError, Meld};

mod native;

fn err(func: &str, e: EvalError) -> PyErr {
    PyValueError::new_err(format!("{func}: {e}"))
}

fn counts_arg(func: &str, what: &'static str, b: &[u8]) -> PyResult<Counts> {
    b.try_into()
        .map_err(|_| err(func, EvalError::BadLength { what, len: b.len() }))
}

/// Up to four decoded melds on the stack (no allocation per call on the hot path).
struct Melds {
    buf: [Meld; 4],
    len: usize,
}

impl std::ops::Deref for Melds {
    type Target = [Meld];
    fn deref(&self) -> &[Meld] {
        &self.buf[..self.len]
    }
}

fn melds_arg(func: &str, b: Option<&[u8]>) -> PyResult<Melds> {
    let codes = b.unwrap_or(&[]);
    if codes.len() > 4 {
        return Err(err(func, EvalError::TooManyMelds(codes.len())));
    }
    let mut m = Melds {
        buf: [Meld {
            ty: core::MeldType::Pung,
            kind: 0,
        }; 4],
        len: codes.len(),
    };
    for (slot, &c) in m.buf.iter_mut().zip(codes) {
        *slot = Meld::from_code(c).map_err(|e| err(func, e))?;
    }
    Ok(m)
}

fn void_arg(func: &str, v: i64) -> PyResult<Option<u8>> {
    core::void_from_i64(v).map_err(|e| err(func, e))
}

/// The win context flags (`core::ctx`), or a ValueError naming the bits outside them.
fn context_arg(func: &str, context: i64) -> PyResult<u8> {
    match u8::try_from(context) {
        Ok(c) if u32::from(c) < 1 << core::ctx::COUNT => Ok(c),
        _ => Err(PyValueError::new_err(format!(
            "{func}: context {context:#x} has bits outside the {} context flags",
            core::ctx::COUNT
        ))),
    }
}

/// The part of the rules the core needs (immutable).
#[pyclass(frozen, eq, hash, module = "xuezhan._core")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct CoreRules {
    /// Cap (极品) in fan.
    #[pyo3(get)]
    max_fan: u8,
    /// Points of a 1-fan win.
    #[pyo3(get)]
    base: u32,
    /// Enabled fan items: bit = item id.
    #[pyo3(get)]
    items: u32,
    /// `self_draw_bonus = "fan"`.
    #[pyo3(get)]
    self_draw_fan: bool,
}

impl CoreRules {
    pub(crate) fn core(&self) -> core::RulesCore {
        core::RulesCore {
            max_fan: self.max_fan,
            base: self.base,
            items: self.items,
            self_draw_fan: self.self_draw_fan,
        }
    }
}

/// The constructor arguments of a `CoreRules` (`__reduce__`): max_fan, base, items, self_draw_fan.
type CoreRulesArgs = (u8, u32, u32, bool);

#[pymethods]
impl CoreRules {
    #[new]
    fn new(max_fan: i64, base: i64, items: i64, self_draw_fan: bool) -> PyResult<Self> {
        if !(1..=32).contains(&max_fan) {
            return Err(PyValueError::new_err(format!(
                "CoreRules: max_fan {max_fan} out of range 1..=32"
            )));
        }
        if !(0..=u32::MAX as i64).contains(&base) {
            return Err(PyValueError::new_err(format!(
                "CoreRules: base {base} out of range 0..=4294967295"
            )));
        }
        if !(0..1 << core::item::COUNT).contains(&items) {
            return Err(PyValueError::new_err(format!(
                "CoreRules: items {items:#x} has bits outside the {} fan items",
                core::item::COUNT
            )));
        }
        Ok(CoreRules {
            max_fan: max_fan as u8,
            base: base as u32,
            items: items as u32,
            self_draw_fan,
        })
    }

    /// Pickle support (tournament workers receive rules across processes).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, CoreRulesArgs)> {
        let r = slf.get();
        Ok((
            slf.get_type().into_any(),
            (r.max_fan, r.base, r.items, r.self_draw_fan),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "CoreRules(max_fan={}, base={}, items={:#x}, self_draw_fan={})",
            self.max_fan,
            self.base,
            self.items,
            if self.self_draw_fan { "True" } else { "False" }
        )
    }
}

/// Does the 14-tile hand win (R4)?
#[pyfunction]
#[pyo3(signature = (counts, melds = None, void = -1))]
fn is_win(counts: &[u8], melds: Option<&[u8]>, void: i64) -> PyResult<bool> {
    const F: &str = "is_win";
    let c = counts_arg(F, "counts", counts)?;
    core::is_win(&c, &melds_arg(F, melds)?, void_arg(F, void)?).map_err(|e| err(F, e))
}

/// Sichuan shanten of a 13/14-tile hand (-1 = complete; 127 = no win reachable).
#[pyfunction]
#[pyo3(signature = (counts, melds = None, void = -1))]
fn shanten(counts: &[u8], melds: Option<&[u8]>, void: i64) -> PyResult<i8> {
    const F: &str = "shanten";
    let c = counts_arg(F, "counts", counts)?;
    core::shanten(&c, &melds_arg(F, melds)?, void_arg(F, void)?).map_err(|e| err(F, e))
}

/// (total, standard, seven_pairs or None when melds are present).
#[pyfunction]
#[pyo3(signature = (counts, melds = None, void = -1))]
fn shanten_parts(counts: &[u8], melds: Option<&[u8]>, void: i64) -> PyResult<(i8, i8, Option<i8>)> {
    const F: &str = "shanten_parts";
    let c = counts_arg(F, "counts", counts)?;
    let m = melds_arg(F, melds)?;
    let p = core::shanten_parts(&c, &m, void_arg(F, void)?).map_err(|e| err(F, e))?;
    let sp = if m.is_empty() {
        Some(p.seven_pairs)
    } else {
        None
    };
    Ok((p.total, p.standard, sp))
}

/// Bit k set when kind k completes the 13-tile hand.
#[pyfunction]
#[pyo3(signature = (counts, melds = None, void = -1))]
fn wait_mask(counts: &[u8], melds: Option<&[u8]>, void: i64) -> PyResult<u32> {
    const F: &str = "wait_mask";
    let c = counts_arg(F, "counts", counts)?;
    core::wait_mask(&c, &melds_arg(F, melds)?, void_arg(F, void)?).map_err(|e| err(F, e))
}

/// [(kind, fan, points)] for each wait of the 13-tile hand (R7.3 values).
#[pyfunction]
#[pyo3(signature = (counts, melds, rules, void = -1))]
fn waits(
    counts: &[u8],
    melds: Option<&[u8]>,
    rules: &CoreRules,
    void: i64,
) -> PyResult<Vec<(u8, u8, u64)>> {
    const F: &str = "waits";
    let c = counts_arg(F, "counts", counts)?;
    let w = core::waits(&c, &melds_arg(F, melds)?, &rules.core(), void_arg(F, void)?)
        .map_err(|e| err(F, e))?;
    Ok(w.into_iter().map(|w| (w.kind, w.fan, w.points)).collect())
}

/// `(raw, capped, points, [(item_bit, fan)])` as returned to Python.
type FanTuple = (u8, u8, u64, Vec<(u8, u8)>);

/// (raw, capped, points, [(item_bit, fan)]) of a win, or None when the hand does not win.
#[pyfunction]
#[pyo3(signature = (counts, melds, win_kind, context, rules, void = -1))]
fn fan(
    counts: &[u8],
    melds: Option<&[u8]>,
    win_kind: i64,
    context: i64,
    rules: &CoreRules,
    void: i64,
) -> PyResult<Option<FanTuple>> {
    const F: &str = "fan";
    let c = counts_arg(F, "counts", counts)?;
    if !(0..27).contains(&win_kind) {
        return Err(err(F, EvalError::BadKind(win_kind)));
    }
    let ctx = context_arg(F, context)?;
    let r = core::fan(
        &c,
        &melds_arg(F, melds)?,
        win_kind as u8,
        ctx,
        &rules.core(),
        void_arg(F, void)?,
    )
    .map_err(|e| err(F, e))?;
    Ok(r.map(|f| {
        let items = f
            .items
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(i, &v)| (i as u8, v))
            .collect();
        (f.raw, f.capped, f.points, items)
    }))
}

/// [(kind, shanten, ukeire)] for each distinct kind of the 14-tile hand; with `lowest_of`
/// (bit k = kind k) the ukeire only of its kinds of lowest shanten (0 elsewhere).
#[pyfunction]
#[pyo3(signature = (counts, melds, visible, void = -1, lowest_of = None))]
fn best_discards(
    counts: &[u8],
    melds: Option<&[u8]>,
    visible: &[u8],
    void: i64,
    lowest_of: Option<u32>,
) -> PyResult<Vec<(u8, i8, u32)>> {
    const F: &str = "best_discards";
    let c = counts_arg(F, "counts", counts)?;
    let v = counts_arg(F, "visible", visible)?;
    let (m, vd) = (melds_arg(F, melds)?, void_arg(F, void)?);
    let d = match lowest_of {
        None => core::best_discards(&c, &m, &v, vd),
        Some(set) => core::best_discards_lowest(&c, &m, &v, vd, set),
    }
    .map_err(|e| err(F, e))?;
    Ok(d.into_iter()
        .map(|d| (d.kind, d.shanten, d.ukeire))
        .collect())
}

/// `greedy`'s discard: (kind, lowest shanten over the legal discards or None); `legal` has
/// bit k set for each kind that may be discarded.
#[pyfunction]
#[pyo3(signature = (counts, melds, visible, void, legal, isolate_void = true))]
fn greedy_discard(
    counts: &[u8],
    melds: Option<&[u8]>,
    visible: &[u8],
    void: i64,
    legal: u32,
    isolate_void: bool,
) -> PyResult<(u8, Option<i8>)> {
    const F: &str = "greedy_discard";
    let c = counts_arg(F, "counts", counts)?;
    let v = counts_arg(F, "visible", visible)?;
    let g = core::greedy_discard(
        &c,
        &melds_arg(F, melds)?,
        &v,
        void_arg(F, void)?,
        legal,
        isolate_void,
    )
    .map_err(|e| err(F, e))?;
    Ok((g.kind, g.shanten))
}

/// The most isolated kind of the set `kinds` (bit k) in `counts` (as `greedy` ranks tiles
/// of a suit it clears).
#[pyfunction]
fn most_isolated(counts: &[u8], kinds: u32) -> PyResult<u8> {
    const F: &str = "most_isolated";
    let c = counts_arg(F, "counts", counts)?;
    core::check_legal(&c, kinds).map_err(|e| err(F, e))?;
    Ok(core::most_isolated(&c, kinds))
}

/// The 108 tiles in the order `random.Random(seed)` deals them (R1.4) and the exchange direction
/// drawn next (0 next, 1 prev, 2 across). `key`: `abs(seed)` as little-endian bytes, a multiple
/// of four long (Python's seeding key, 32-bit words least significant first).
#[pyfunction]
fn shuffled_tiles<'py>(
    py: Python<'py>,
    key: &[u8],
) -> PyResult<(Bound<'py, pyo3::types::PyBytes>, u8)> {
    let (tiles, direction) = core::shuffled_tiles(&key_words("shuffled_tiles", key)?);
    Ok((pyo3::types::PyBytes::new(py, &tiles), direction))
}

/// `random.Random(seed).shuffle(list(range(n)))` (n at most 32); `key` as for `shuffled_tiles`.
#[pyfunction]
fn shuffled_range(key: &[u8], n: usize) -> PyResult<Vec<u8>> {
    if n > 32 {
        return Err(PyValueError::new_err(format!(
            "shuffled_range: n is at most 32 ({n} given)"
        )));
    }
    Ok(core::shuffled_range(&key_words("shuffled_range", key)?, n))
}

/// A seeding key given as little-endian bytes, as 32-bit words (a ValueError unless whole).
fn key_words(func: &str, key: &[u8]) -> PyResult<Vec<u32>> {
    if !key.len().is_multiple_of(4) {
        return Err(PyValueError::new_err(format!(
            "{func}: the key is {} bytes, not a whole number of 32-bit words",
            key.len()
        )));
    }
    Ok(key
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

/// Bit k set for each kind k that `counts` holds (27 counts): the engine's legal discards.
#[pyfunction]
fn kinds_mask(counts: &[u8]) -> PyResult<u32> {
    let c = counts_arg("kinds_mask", "counts", counts)?;
    Ok(c.iter()
        .enumerate()
        .fold(0u32, |m, (k, &n)| if n != 0 { m | 1 << k } else { m }))
}

/// The options of the `value` strategy, built once per hand (see `xuezhan.strategies.value`).
#[pyclass(frozen, module = "xuezhan._core")]
struct ValueParams(core::ValueParams);

#[pymethods]
impl ValueParams {
    #[new]
    #[pyo3(signature = (*, defence, fan, steer, fold, alpha, lookahead, fold_wall, one_suit,
        one_suit_min, one_suit_slack, one_suit_wall, one_suit_step, max_factor))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        defence: bool,
        fan: bool,
        steer: bool,
        fold: bool,
        alpha: f64,
        lookahead: bool,
        fold_wall: i64,
        one_suit: bool,
        one_suit_min: i64,
        one_suit_slack: i64,
        one_suit_wall: i64,
        one_suit_step: i64,
        max_factor: f64,
    ) -> PyResult<Self> {
        if one_suit_step < 1 {
            return Err(PyValueError::new_err(format!(
                "ValueParams: one_suit_step must be at least 1 (got {one_suit_step})"
            )));
        }
        if !alpha.is_finite() || !max_factor.is_finite() {
            return Err(PyValueError::new_err(
                "ValueParams: alpha and max_factor must be finite numbers",
            ));
        }
        Ok(ValueParams(core::ValueParams {
            defence,
            fan,
            steer,
            fold,
            alpha,
            lookahead,
            fold_wall,
            one_suit,
            one_suit_min,
            one_suit_slack,
            one_suit_wall,
            one_suit_step,
            max_factor,
        }))
    }

    fn __repr__(&self) -> String {
        format!("ValueParams({:?})", self.0)
    }
}

/// What an observation shows of one opponent: (pile, meld count, meld suits, declared void).
type OpponentFacts = (Vec<u8>, u8, u8, Option<u8>);

/// What `obs` (an Observation, or any object with its fields) shows of seat `o`.
fn opponent_facts(func: &str, obs: &Bound<'_, PyAny>, o: usize) -> PyResult<OpponentFacts> {
    let py = obs.py();
    let river: Vec<u8> = obs
        .getattr(pyo3::intern!(py, "discards"))?
        .get_item(o)?
        .extract()?;
    if let Some(&k) = river.iter().find(|&&k| k >= 27) {
        return Err(err(func, EvalError::BadKind(k as i64)));
    }
    let melds = obs.getattr(pyo3::intern!(py, "melds"))?.get_item(o)?;
    let mut n = 0u8;
    let mut suits = 0u8;
    for m in melds.try_iter()? {
        let (_, kind): (u8, u8) = m?.extract()?;
        if kind >= 27 {
            return Err(err(func, EvalError::BadKind(kind as i64)));
        }
        n = n.saturating_add(1);
        suits |= 1 << (kind / 9);
    }
    let declared: i64 = obs
        .getattr(pyo3::intern!(py, "voids"))?
        .get_item(o)?
        .extract()?;
    Ok((river, n, suits, void_arg(func, declared)?))
}

/// The opponents still in the hand (not won, not escaped) of the observing seat, in seat order.
fn opponents_of(func: &str, obs: &Bound<'_, PyAny>) -> PyResult<Vec<OpponentFacts>> {
    let py = obs.py();
    let seat: usize = obs.getattr(pyo3::intern!(py, "seat"))?.extract()?;
    let won = obs.getattr(pyo3::intern!(py, "won"))?;
    let escaped = obs.getattr(pyo3::intern!(py, "escaped"))?;
    let mut out = Vec::with_capacity(3);
    for o in 0..4 {
        if o == seat || won.get_item(o)?.is_truthy()? || escaped.get_item(o)?.is_truthy()? {
            continue;
        }
        out.push(opponent_facts(func, obs, o)?);
    }
    Ok(out)
}

fn as_opponents(facts: &[OpponentFacts]) -> Vec<core::Opponent<'_>> {
    facts
        .iter()
        .map(|(river, n, suits, declared)| core::Opponent {
            melds: *n,
            meld_suits: *suits,
            declared_void: *declared,
            river,
        })
        .collect()
}

/// `value`'s discard: (kind, lowest shanten over the legal discards or None). `obs` gives
/// the opponents (its `seat`, `discards`, `melds`, `voids`, `won`, `escaped`) and the
/// `wall_count`; `legal` has bit k set for each kind that may be discarded.
#[pyfunction]
#[pyo3(signature = (obs, counts, melds, visible, void, legal, rules, params))]
#[allow(clippy::too_many_arguments)]
fn value_discard(
    obs: &Bound<'_, PyAny>,
    counts: &[u8],
    melds: Option<&[u8]>,
    visible: &[u8],
    void: i64,
    legal: u32,
    rules: &CoreRules,
    params: &ValueParams,
) -> PyResult<(u8, Option<i8>)> {
    const F: &str = "value_discard";
    let c = counts_arg(F, "counts", counts)?;
    let v = counts_arg(F, "visible", visible)?;
    let m = melds_arg(F, melds)?;
    let facts = opponents_of(F, obs)?;
    let wall_count: i64 = obs
        .getattr(pyo3::intern!(obs.py(), "wall_count"))?
        .extract()?;
    let opponents = as_opponents(&facts);
    let turn = core::ValueTurn {
        counts: &c,
        melds: &m,
        visible: &v,
        void: void_arg(F, void)?,
        legal,
        wall_count,
        opponents: &opponents,
        rules: &rules.core(),
    };
    let choice = core::value_discard(&turn, &params.0).map_err(|e| err(F, e))?;
    Ok((choice.kind, choice.shanten))
}

/// The suit `value` clears for 清一色 (or -1): see `xuezhan_core::one_suit_target`.
#[pyfunction]
fn value_one_suit(
    counts: &[u8],
    melds: Option<&[u8]>,
    void: i64,
    wall_count: i64,
    now: i64,
    params: &ValueParams,
) -> PyResult<i64> {
    const F: &str = "value_one_suit";
    let c = counts_arg(F, "counts", counts)?;
    let m = melds_arg(F, melds)?;
    let vd = void_arg(F, void)?;
    Ok(core::one_suit_target(&c, &m, vd, wall_count, now, &params.0).map_or(-1, i64::from))
}

/// How dangerous a discard of `kind` is for `obs`'s seat (as `value` weighs it), seeing
/// `visible` outside its hand.
#[pyfunction]
fn value_danger(obs: &Bound<'_, PyAny>, kind: i64, visible: &[u8]) -> PyResult<f64> {
    const F: &str = "value_danger";
    if !(0..27).contains(&kind) {
        return Err(err(F, EvalError::BadKind(kind)));
    }
    let v = counts_arg(F, "visible", visible)?;
    let hand: Vec<u8> = obs.getattr(pyo3::intern!(obs.py(), "hand"))?.extract()?;
    let c = counts_arg(F, "hand", &hand)?;
    let facts = opponents_of(F, obs)?;
    Ok(core::danger(kind as u8, &c, &v, &as_opponents(&facts)))
}

/// The suit seat `seat` of `obs` seems to be clearing (R4.2), or -1.
#[pyfunction]
fn likely_void(obs: &Bound<'_, PyAny>, seat: usize) -> PyResult<i64> {
    const F: &str = "likely_void";
    if seat >= 4 {
        return Err(PyValueError::new_err(format!(
            "{F}: seat {seat} is not 0-3"
        )));
    }
    let (river, n, suits, declared) = opponent_facts(F, obs, seat)?;
    let o = core::Opponent {
        melds: n,
        meld_suits: suits,
        declared_void: declared,
        river: &river,
    };
    Ok(core::likely_void(&o).map_or(-1, i64::from))
}

/// Shanten toward 对对胡 of a 13-tile hand (melds count as triplets).
#[pyfunction]
#[pyo3(signature = (counts, melds = None))]
fn triplets_shanten(counts: &[u8], melds: Option<&[u8]>) -> PyResult<i8> {
    const F: &str = "triplets_shanten";
    let c = counts_arg(F, "counts", counts)?;
    Ok(core::triplets_shanten(&c, melds_arg(F, melds)?.len()))
}

/// Builds the lookup tables now (they are otherwise built on first use).
#[pyfunction]
fn warm_up(py: Python<'_>) {
    py.detach(core::warm_up);
}

// ---------------------------------------------------------------- batch

/// Borrows an `(N, 27)` C-contiguous uint8 array as a flat slice, or a ValueError saying why not.
fn rows_arg<'py>(
    func: &str,
    name: &str,
    obj: &Bound<'py, PyAny>,
) -> PyResult<numpy::PyReadonlyArray2<'py, u8>> {
    let arr = obj.cast::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{func}: {name} must be a numpy array of shape (N, 27) and dtype uint8, got {}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    if arr.ndim() != 2 || arr.shape()[1] != 27 {
        return Err(PyValueError::new_err(format!(
            "{func}: {name} must have shape (N, 27), got {:?}",
            arr.shape()
        )));
    }
    let py = obj.py();
    if !arr.dtype().is_equiv_to(&numpy::dtype::<u8>(py)) {
        return Err(PyTypeError::new_err(format!(
            "{func}: {name} must have dtype uint8, got {}",
            arr.dtype().str().map(|s| s.to_string()).unwrap_or_default()
        )));
    }
    if !arr.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "{func}: {name} must be C-contiguous (use numpy.ascontiguousarray)"
        )));
    }
    let typed = obj
        .cast::<numpy::PyArray2<u8>>()
        .map_err(|e| PyValueError::new_err(format!("{func}: {name}: {e}")))?;
    typed
        .try_readonly()
        .map_err(|e| PyValueError::new_err(format!("{func}: {name}: {e}")))
}

/// Which tile totals a batch row may hold.
#[derive(Clone, Copy)]
enum RowSize {
    Is(u32),
    ThirteenOrFourteen,
}

/// Checks one row (27 counts ≤ 4, right total) so the unchecked core calls are safe.
fn check_row(i: usize, row: &[u8], size: RowSize) -> Result<Counts, String> {
    let mut total = 0u32;
    for (k, &x) in row.iter().enumerate() {
        if x > 4 {
            return Err(format!(
                "row {i}: tile {} has count {x} (at most 4)",
                core::tile_name(k as u8)
            ));
        }
        total += x as u32;
    }
    let ok = match size {
        RowSize::Is(n) => total == n,
        RowSize::ThirteenOrFourteen => total == 13 || total == 14,
    };
    if !ok {
        let want = match size {
            RowSize::Is(n) => n.to_string(),
            RowSize::ThirteenOrFourteen => "13 or 14".to_string(),
        };
        return Err(format!(
            "row {i} holds {total} tiles; this call needs {want}"
        ));
    }
    // rows come from chunks_exact(27): the conversion cannot fail (and needs no unwrap)
    row.try_into()
        .map_err(|_| format!("row {i} has {} counts, not 27", row.len()))
}

/// Runs `f` over every row (serially or with rayon), GIL released; first row error wins.
fn run_rows<T: Send + Copy + Default>(
    py: Python<'_>,
    func: &str,
    data: &[u8],
    size: RowSize,
    parallel: bool,
    f: impl Fn(usize, &Counts) -> Result<T, String> + Sync,
) -> PyResult<Vec<T>> {
    let res: Result<Vec<T>, String> = py.detach(|| {
        let one = |(i, row): (usize, &[u8])| -> Result<T, String> {
            let c = check_row(i, row, size)?;
            f(i, &c)
        };
        if parallel {
            data.par_chunks_exact(27).enumerate().map(one).collect()
        } else {
            data.chunks_exact(27).enumerate().map(one).collect()
        }
    });
    res.map_err(|e| PyValueError::new_err(format!("{func}: counts {e}")))
}

/// is_win over rows of 14 tiles (no melds) → bool (N,).
#[pyfunction]
#[pyo3(signature = (counts, void = -1, parallel = false))]
fn batch_is_win<'py>(
    py: Python<'py>,
    counts: &Bound<'py, PyAny>,
    void: i64,
    parallel: bool,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    const F: &str = "batch_is_win";
    let v = void_arg(F, void)?;
    let arr = rows_arg(F, "counts", counts)?;
    let data = arr
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{F}: {e}")))?;
    let out = run_rows(py, F, data, RowSize::Is(14), parallel, |_, c| {
        Ok(core::is_win_unchecked(c, &[], v))
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// shanten over rows of 13 or 14 tiles (no melds) → int8 (N,).
#[pyfunction]
#[pyo3(signature = (counts, void = -1, parallel = false))]
fn batch_shanten<'py>(
    py: Python<'py>,
    counts: &Bound<'py, PyAny>,
    void: i64,
    parallel: bool,
) -> PyResult<Bound<'py, PyArray1<i8>>> {
    const F: &str = "batch_shanten";
    let v = void_arg(F, void)?;
    let arr = rows_arg(F, "counts", counts)?;
    let data = arr
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{F}: {e}")))?;
    let out = run_rows(
        py,
        F,
        data,
        RowSize::ThirteenOrFourteen,
        parallel,
        |_, c| Ok(core::shanten_unchecked(c, &[], v)),
    )?;
    Ok(PyArray1::from_vec(py, out))
}

/// wait_mask over rows of 13 tiles (no melds) → uint32 (N,).
#[pyfunction]
#[pyo3(signature = (counts, void = -1, parallel = false))]
fn batch_wait_mask<'py>(
    py: Python<'py>,
    counts: &Bound<'py, PyAny>,
    void: i64,
    parallel: bool,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    const F: &str = "batch_wait_mask";
    let v = void_arg(F, void)?;
    let arr = rows_arg(F, "counts", counts)?;
    let data = arr
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{F}: {e}")))?;
    let out = run_rows(py, F, data, RowSize::Is(13), parallel, |_, c| {
        Ok(core::wait_mask_unchecked(c, &[], v))
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// Reads win kinds from a 1-D integer array of length n as u8 values.
fn win_kinds_arg(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<u8>> {
    const F: &str = "batch_fan";
    let arr = obj.cast::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!("{F}: win_kinds must be a 1-D numpy integer array"))
    })?;
    if arr.ndim() != 1 || arr.shape()[0] != n {
        return Err(PyValueError::new_err(format!(
            "{F}: win_kinds must have shape ({n},), got {:?}",
            arr.shape()
        )));
    }
    let vals: Vec<i64> = if let Ok(a) = obj.cast::<numpy::PyArray1<u8>>() {
        a.to_vec()
            .map_err(|e| PyValueError::new_err(format!("{F}: win_kinds: {e}")))?
            .into_iter()
            .map(i64::from)
            .collect()
    } else if let Ok(a) = obj.cast::<numpy::PyArray1<i64>>() {
        a.to_vec()
            .map_err(|e| PyValueError::new_err(format!("{F}: win_kinds: {e}")))?
    } else if let Ok(a) = obj.cast::<numpy::PyArray1<i32>>() {
        a.to_vec()
            .map_err(|e| PyValueError::new_err(format!("{F}: win_kinds: {e}")))?
            .into_iter()
            .map(i64::from)
            .collect()
    } else if let Ok(a) = obj.cast::<numpy::PyArray1<i8>>() {
        a.to_vec()
            .map_err(|e| PyValueError::new_err(format!("{F}: win_kinds: {e}")))?
            .into_iter()
            .map(i64::from)
            .collect()
    } else {
        return Err(PyTypeError::new_err(format!(
            "{F}: win_kinds must have dtype uint8, int8, int32 or int64, got {}",
            arr.dtype().str().map(|s| s.to_string()).unwrap_or_default()
        )));
    };
    vals.into_iter()
        .enumerate()
        .map(|(i, k)| {
            if (0..27).contains(&k) {
                Ok(k as u8)
            } else {
                Err(PyValueError::new_err(format!(
                    "{F}: win_kinds[{i}] = {k} is not a tile kind 0..=26"
                )))
            }
        })
        .collect()
}

/// Capped fan over rows of 14 tiles (no melds) with their winning kinds → uint8 (N,), 0 = no win.
#[pyfunction]
#[pyo3(signature = (counts, win_kinds, context, rules, void = -1, parallel = false))]
fn batch_fan<'py>(
    py: Python<'py>,
    counts: &Bound<'py, PyAny>,
    win_kinds: &Bound<'py, PyAny>,
    context: i64,
    rules: &CoreRules,
    void: i64,
    parallel: bool,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    const F: &str = "batch_fan";
    let v = void_arg(F, void)?;
    let ctx = context_arg(F, context)?;
    let arr = rows_arg(F, "counts", counts)?;
    let data = arr
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{F}: {e}")))?;
    let kinds = win_kinds_arg(win_kinds, data.len() / 27)?;
    let r = rules.core();
    let out = run_rows(py, F, data, RowSize::Is(14), parallel, |i, c| {
        // kinds has one entry per row (checked by win_kinds_arg), each below 27.
        let k = *kinds
            .get(i)
            .ok_or_else(|| format!("row {i} has no winning tile"))?;
        if c[usize::from(k)] == 0 {
            return Err(format!(
                "row {i}: winning tile {} is not in the hand",
                core::tile_name(k)
            ));
        }
        Ok(core::fan_unchecked(c, &[], k, ctx, &r, v).map_or(0, |f| f.capped))
    })?;
    Ok(PyArray1::from_vec(py, out))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", core::version())?;
    m.add_class::<CoreRules>()?;
    m.add_function(wrap_pyfunction!(is_win, m)?)?;
    m.add_function(wrap_pyfunction!(shanten, m)?)?;
    m.add_function(wrap_pyfunction!(shanten_parts, m)?)?;
    m.add_function(wrap_pyfunction!(wait_mask, m)?)?;
    m.add_function(wrap_pyfunction!(waits, m)?)?;
    m.add_function(wrap_pyfunction!(fan, m)?)?;
    m.add_function(wrap_pyfunction!(best_discards, m)?)?;
    m.add_function(wrap_pyfunction!(greedy_discard, m)?)?;
    m.add_function(wrap_pyfunction!(most_isolated, m)?)?;
    m.add_function(wrap_pyfunction!(kinds_mask, m)?)?;
    m.add_function(wrap_pyfunction!(shuffled_tiles, m)?)?;
    m.add_function(wrap_pyfunction!(shuffled_range, m)?)?;
    m.add_class::<ValueParams>()?;
    m.add_function(wrap_pyfunction!(value_discard, m)?)?;
    m.add_function(wrap_pyfunction!(value_one_suit, m)?)?;
    m.add_function(wrap_pyfunction!(value_danger, m)?)?;
    m.add_function(wrap_pyfunction!(likely_void, m)?)?;
    m.add_function(wrap_pyfunction!(triplets_shanten, m)?)?;
    m.add_function(wrap_pyfunction!(warm_up, m)?)?;
    m.add_function(wrap_pyfunction!(batch_is_win, m)?)?;
    m.add_function(wrap_pyfunction!(batch_shanten, m)?)?;
    m.add_function(wrap_pyfunction!(batch_wait_mask, m)?)?;
    m.add_function(wrap_pyfunction!(batch_fan, m)?)?;
    m.add_class::<native::NativeRules>()?;
    m.add_class::<native::NativeLineup>()?;
    m.add_class::<native::NativeHand>()?;
    m.add_class::<native::ExpertPolicy>()?;
    m.add_class::<native::SealedHand>()?;
    m.add_function(wrap_pyfunction!(native::seal, m)?)?;
    m.add_function(wrap_pyfunction!(native::play_hands, m)?)?;
    m.add_function(wrap_pyfunction!(native::native_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(native::native_ready_rate, m)?)?;
    m.add("NATIVE_FIRED", PyTuple::new(m.py(), native::fired_ids())?)?;
    m.add("UNREACHABLE", core::UNREACHABLE)?;
    // The one definition of the fan item ids, shape items and context flags (R5): Python's
    // rules, evaluator and engine read these instead of repeating them.
    m.add("FAN_ITEMS", PyTuple::new(m.py(), core::item::IDS)?)?;
    m.add("FAN_LABELS", PyTuple::new(m.py(), core::item::LABELS)?)?;
    m.add("SHAPE_MASK", core::item::SHAPE_MASK)?;
    m.add("CONTEXT_FLAGS", PyTuple::new(m.py(), core::ctx::NAMES)?)?;
    Ok(())
}
