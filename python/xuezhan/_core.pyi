"""Typed stub of the ``xuezhan._core`` extension (Rust, PyO3). Contract: docs/internals.md.

Encodings: a hand's concealed tiles are ``bytes`` of 27 counts (kind 0-26: 1m-9m, 1p-9p, 1s-9s);
melds are ``bytes`` of codes ``meld_type * 27 + kind`` (0 pung, 1 exposed/added kong,
2 concealed kong); ``void`` is a suit 0-2 or -1 for none. Tile totals are
``concealed + 3 * len(melds)``. Every input error raises ``ValueError`` naming the input.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str

UNREACHABLE: int
"""Shanten (127) when no win can be reached (melds in all three suits, or in the void suit)."""

FAN_ITEMS: tuple[str, ...]
"""Fan item ids (R5) in bit order: ``FAN_ITEMS[i]`` is bit ``i`` of ``CoreRules.items`` and the
``item_bit`` of :func:`fan` results. The one definition of the ids."""

FAN_LABELS: tuple[str, ...]
"""Display names (R5 table) of the fan items, beside ``FAN_ITEMS``."""

SHAPE_MASK: int
"""Bits of the shape items (read from the hand; the only ones in a ready-check value, R7.3)."""

CONTEXT_FLAGS: tuple[str, ...]
"""Win context flag names in bit order: ``CONTEXT_FLAGS[i]`` is bit ``i`` of ``context``."""

class CoreRules:
    """The rules the core needs (immutable, hashable).

    ``items`` has bit ``i`` set for each enabled fan item ``FAN_ITEMS[i]``;
    ``self_draw_fan`` is ``self_draw_bonus == "fan"``.
    """

    @property
    def max_fan(self) -> int: ...
    @property
    def base(self) -> int: ...
    @property
    def items(self) -> int: ...
    @property
    def self_draw_fan(self) -> bool: ...
    def __init__(self, max_fan: int, base: int, items: int, self_draw_fan: bool) -> None:
        """``max_fan`` 1-32, ``base`` 0-2**32-1, ``items`` below ``1 << 15``."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[CoreRules], tuple[int, int, int, bool]]:
        """Picklable (e.g. for multiprocessing tournament workers)."""

def is_win(counts: bytes, melds: bytes | None = b"", void: int = -1) -> bool:
    """Whether the 14-tile hand wins (R4.1-R4.2: four sets + pair or seven pairs, at most two
    suits counting melds, none of ``void``)."""

def shanten(counts: bytes, melds: bytes | None = b"", void: int = -1) -> int:
    """Sichuan shanten of a 13- or 14-tile hand: tiles missing from the nearest complete
    two-suit hand minus one (-1 complete, 0 ready); min over allowed void suits of
    min(standard, seven pairs). ``UNREACHABLE`` (127) when no win can be reached."""

def shanten_parts(counts: bytes, melds: bytes | None = b"", void: int = -1) -> tuple[int, int, int | None]:
    """``(total, standard, seven_pairs)``; ``seven_pairs`` is None when melds are present."""

def wait_mask(counts: bytes, melds: bytes | None = b"", void: int = -1) -> int:
    """Bit k set when kind k completes the 13-tile hand (kinds already held four times,
    concealed + melds, excluded)."""

def waits(counts: bytes, melds: bytes | None, rules: CoreRules, void: int = -1) -> list[tuple[int, int, int]]:
    """``[(kind, fan, points)]`` for each wait of the 13-tile hand, ordered by kind; the value
    is R7.3's: shape items and gen only, as a win on a discard, capped."""

def fan(
    counts: bytes,
    melds: bytes | None,
    win_kind: int,
    context: int,
    rules: CoreRules,
    void: int = -1,
) -> tuple[int, int, int, list[tuple[int, int]]] | None:
    """Value of a win: ``counts`` is the 14-tile concealed hand including ``win_kind``;
    ``context`` holds the win context flags (bit ``i`` = ``CONTEXT_FLAGS[i]``).
    Returns ``(raw, capped, points, [(item_bit, fan), ...])`` for the reading with the most
    fan (items with fan > 0, ordered by bit; heaven_earth reports ``max_fan``), or None when
    the hand does not win."""

def best_discards(
    counts: bytes, melds: bytes | None, visible: bytes, void: int = -1, lowest_of: int | None = None
) -> list[tuple[int, int, int]]:
    """``[(kind, shanten, ukeire)]``, one row per distinct kind of the 14-tile hand (ordered by
    kind): the shanten after discarding it and the number of unseen tiles
    (``max(0, 4 - held - visible)`` summed over kinds) whose draw lowers that shanten.
    ``visible``: 27 counts of tiles seen outside the concealed hand (discards, all melds).
    With ``lowest_of`` (bit k = kind k) the ukeire is computed only for its kinds of lowest
    shanten (0 in every other row): all a ranking by shanten then ukeire over that set reads,
    much faster."""

def greedy_discard(
    counts: bytes, melds: bytes | None, visible: bytes, void: int, legal: int, isolate_void: bool = True
) -> tuple[int, int | None]:
    """The ``greedy`` strategy's discard of a 14-tile hand: ``(kind, shanten)``. ``legal`` has
    bit k set for each kind that may be discarded (all held). Tiles of the ``void`` suit go
    first: with ``isolate_void`` the most isolated of them (see :func:`most_isolated`; shanten
    is then None, not computed); otherwise, and with no void-suit tile, the lowest shanten,
    the most ukeire (as :func:`best_discards`), a terminal, the lowest kind. ``shanten`` is the
    lowest over all the legal discards."""

def most_isolated(counts: bytes, kinds: int) -> int:
    """The most isolated kind of the set ``kinds`` (bit k = kind k, all held): fewest tiles
    within two ranks in its suit, then fewest copies, then a terminal, then the lowest kind."""

def shuffled_tiles(key: bytes) -> tuple[bytes, int]:
    """The 108 tile kinds in the order ``random.Random(seed)`` deals them (R1.4: sorted by 108
    successive ``random()`` draws, stably) and the exchange direction drawn next
    (``randrange(3)``: 0 next, 1 prev, 2 across). ``key`` is ``abs(seed)`` as little-endian
    bytes, a whole number of 32-bit words (at least one)."""

def shuffled_range(key: bytes, n: int) -> bytes:
    """``random.Random(seed).shuffle(list(range(n)))`` (as bytes) for ``n`` at most 32; ``key`` as for
    :func:`shuffled_tiles`."""

def kinds_mask(counts: bytes) -> int:
    """Bit k set for each kind k that ``counts`` (27 counts) holds."""

class ValueParams:
    """The ``value`` strategy's options as the core reads them (see
    :mod:`xuezhan.strategies.value`); ``one_suit_step`` at least 1, ``alpha`` and
    ``max_factor`` finite."""

    def __init__(
        self,
        *,
        defence: bool,
        fan: bool,
        steer: bool,
        fold: bool,
        alpha: float,
        lookahead: bool,
        fold_wall: int,
        one_suit: bool,
        one_suit_min: int,
        one_suit_slack: int,
        one_suit_wall: int,
        one_suit_step: int,
        max_factor: float,
    ) -> None: ...

def value_discard(
    obs: Any,
    counts: bytes,
    melds: bytes | None,
    visible: bytes,
    void: int,
    legal: int,
    rules: CoreRules,
    params: ValueParams,
) -> tuple[int, int | None]:
    """The ``value`` strategy's discard of a 14-tile hand: ``(kind, shanten)``, ``shanten``
    the lowest over the legal discards (None when no legal kind is held). ``obs`` (an
    Observation or any object with its fields) gives the opponents (``seat``, ``discards``,
    ``melds``, ``voids``, ``won``, ``escaped``) and ``wall_count``; ``legal`` has bit k set
    for each kind that may be discarded (all held)."""

def value_one_suit(
    counts: bytes, melds: bytes | None, void: int, wall_count: int, now: int, params: ValueParams
) -> int:
    """The suit ``value`` clears for 清一色 at shanten ``now`` (-1 for none)."""

def value_danger(obs: Any, kind: int, visible: bytes) -> float:
    """How likely a discard of ``kind`` by ``obs``'s seat is to be won on (as ``value`` weighs it)."""

def likely_void(obs: Any, seat: int) -> int:
    """The suit ``seat`` seems to be clearing in ``obs`` (R4.2, R11.2), or -1."""

def triplets_shanten(counts: bytes, melds: bytes | None = b"") -> int:
    """Shanten toward 对对胡 of a 13-tile hand; melds count as triplets (R2.2)."""

def warm_up() -> None:
    """Build the lookup tables now (about 30 ms) instead of on first use."""

def batch_is_win(counts: npt.NDArray[np.uint8], void: int = -1, parallel: bool = False) -> npt.NDArray[np.bool_]:
    """is_win of each row of a C-contiguous ``(N, 27)`` uint8 array of 14-tile hands without
    melds; GIL released, rayon-parallel when ``parallel``. Returns bool ``(N,)``."""

def batch_shanten(counts: npt.NDArray[np.uint8], void: int = -1, parallel: bool = False) -> npt.NDArray[np.int8]:
    """shanten of each row (13 or 14 tiles, no melds). Returns int8 ``(N,)``."""

def batch_wait_mask(counts: npt.NDArray[np.uint8], void: int = -1, parallel: bool = False) -> npt.NDArray[np.uint32]:
    """wait_mask of each row (13 tiles, no melds). Returns uint32 ``(N,)``."""

def batch_fan(
    counts: npt.NDArray[np.uint8],
    win_kinds: npt.NDArray[np.integer],
    context: int,
    rules: CoreRules,
    void: int = -1,
    parallel: bool = False,
) -> npt.NDArray[np.uint8]:
    """Capped fan of each row (14 tiles incl. the winning tile, no melds) won on
    ``win_kinds[i]`` (1-D, uint8/int8/int32/int64, length N); 0 when the row does not win.
    Returns uint8 ``(N,)``."""

# ---------------------------------------------------------------- native hand play (xuezhan.native)

#: The rule ids the native engine fires, in bit order (the Python registry's, tested).
NATIVE_FIRED: tuple[str, ...]

class NativeRules:
    """The rules of a hand as the native engine reads them (build it with
    ``xuezhan.native.native_rules``)."""

    def __init__(
        self,
        *,
        core: CoreRules,
        self_draw_bonus: str,
        rob_kong: bool,
        pass_win_lock: bool,
        last_tiles_forced: bool,
        kong_transfer: bool,
        kong_draw_discarder_pays: bool,
        pig_penalty: bool,
        kong_refund: bool,
        declare_void: bool,
        exchange_three: bool,
        escape_penalty: int,
        after_win: str,
    ) -> None: ...

class NativeLineup:
    """Built-in strategies, one per line-up entry: ``[(name, options, seed_option)]``."""

    def __init__(self, entries: list[tuple[str, dict[str, Any], str]]) -> None: ...
    def __len__(self) -> int: ...

class NativeHand:
    """One hand in the native engine, stepped from Python (actions as ``(seat, verb, arg)``)."""

    @staticmethod
    def from_seed(rules: NativeRules, seed: int, dealer: int, record: bool = True) -> NativeHand: ...
    @staticmethod
    def deal(
        rules: NativeRules,
        hands: list[list[int]],
        wall: list[int],
        dealer: int,
        exchange: int | None = None,
        record: bool = True,
    ) -> NativeHand: ...
    @staticmethod
    def from_state(rules: NativeRules, state: dict[str, Any], record: bool = False) -> NativeHand:
        """The hand a Python round's state describes (``xuezhan.native.round_state``)."""
    def copy(self) -> NativeHand: ...
    def estimate(
        self, actions: list[tuple[int, str, Any]], rollouts: int, seed: int, pick: int = 12
    ) -> list[list[int]]:
        """The expert's estimate of each action: the deciding seat's points on every sample."""
    def rollouts(self, actions: list[tuple[int, str, Any]], lineup: NativeLineup, seed: int) -> list[list[int]]:
        """Each action played on a copy and the hand played out by ``lineup`` (fresh policies,
        seat ``s``'s random seeded ``seed + s``): each copy's final deltas."""
    @property
    def cur(self) -> int | None: ...
    @property
    def over(self) -> bool: ...
    @property
    def phase(self) -> str: ...
    @property
    def deltas(self) -> list[int]: ...
    @property
    def next_dealer(self) -> int | None: ...
    def legal(self) -> list[tuple[int, str, Any]]: ...
    def default_action(self) -> tuple[int, str, Any] | None: ...
    def apply(self, seat: int, verb: str, arg: Any = None, default: bool = False) -> None: ...
    def events(self) -> list[str]: ...
    def play_out(self, lineup: NativeLineup, seeds: list[int | None] | None = None) -> None: ...
    def check_invariants(self) -> None: ...

def play_hands(
    rules: NativeRules,
    lineup: NativeLineup,
    seeds: npt.NDArray[np.int64],
    seatings: npt.NDArray[np.uint8],
    threads: int = 1,
    logs: bool = False,
) -> dict[str, Any]:
    """One hand per seed (dealer drawn from it), ``seatings[i][s]`` the entry in seat ``s``;
    numpy columns per (hand, seat) and per hand (``end``, ``fired``, ``lines`` with ``logs``).
    The GIL is released; ``threads`` > 1 spreads the hands over a rayon pool."""

def native_seeds(seed: int, seat: int, option: str) -> tuple[int, int]:
    """``(first_dealer(seed), derive_seed(seed, "strategy", seat, option))`` as the native
    engine computes them (the tests compare them with ``xuezhan.engine.seeds``)."""

class ExpertPolicy:
    """``expert``'s Rust policy for the Python engine: ``reset`` per hand, ``act(obs)`` gives the
    index of its action in ``obs.legal_actions``."""

    def __init__(self, options: dict[str, Any], seed: int) -> None: ...
    def reset(self, seat: int, rules: NativeRules) -> None: ...
    def act(self, obs: Any, truth: SealedHand | None = None) -> int: ...

class SealedHand:
    """A round sealed for a searching native policy: nothing of it is readable from Python."""

def seal(hand: NativeHand) -> SealedHand:
    """``hand`` sealed: only a native policy's determinizer opens it (``Sampler.sealed``)."""

def native_ready_rate(wall: int) -> float:
    """The share of other seats the native determinizer deals ready hands at (``search``'s rate)."""
