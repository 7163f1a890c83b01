"""``expert`` (高手): ``value``'s play, searched on determinized samples played out by the
native engine under the rules in force (see docs/strength.md for how strong, and which of its
steps gained what).

The policy is written once, in Rust (``rust/core/src/hand/policy/expert.rs``), against what a
seat may know: the native engine plays it directly, and this class hands it each decision's
:class:`~xuezhan.engine.observation.Observation` in the Python engine (the room, the
environments, matches against external bots), so it decides the same in both
(tests/test_expert.py).

What it adds to ``value`` (each an option, for ablations in tournament files):

- ``avoid_locked`` (default true): under 血流成河 (R14) a winner that stays in keeps its waits,
  and the tiles it won on are public: it never throws one of them while another legal discard
  exists;
- ``samples`` (default 0: off; it gained less than the search and nothing on top of it,
  docs/strength.md), ``width`` (4), ``margin`` (0.5), ``danger_cost`` (0.3),
  ``survival`` (0.8), ``ready_weight`` (1.0), ``fan_play`` (true): at a turn, ``value``'s
  discard and the next ``width − 1`` of lowest shanten are each played ``samples`` times in a
  simulation of its own hand (the unseen tiles in random orders, the others throwing one each
  per round, its draws and throws by ``value``'s ranking, a win a round later worth
  ``survival`` times less, each win scored under the rules in force: the cap, the fan items,
  the self-draw bonus; the ready check, R7, at the end of the wall), and one beats ``value``'s
  choice only by more than ``margin`` points after its danger to ready-looking opponents
  costs ``danger_cost`` points per unit of ``value``'s reading;
- ``pass_wins`` (default false, winners leave only): a win on a discard is passed when waiting
  (with R4.3's lock until its next draw) is worth more in the same simulation (measured:
  it loses points, docs/strength.md);
- ``rollouts`` (default 64), ``search_width`` (4), ``z`` (1.5), ``pick`` (12): the search.
  At a turn, a claim, the exchange or the void (R11) with a choice, ``rollouts`` samples of
  the hidden tiles are drawn (the readiest of ``pick`` deals, consistent with what the seat
  knows: the seat loop's sampler hands the native engine the round sealed, and only its
  determinizer reads it), each candidate (at the exchange, ``greedy``'s three tiles of each
  suit held three times or more; at the void, every suit) is
  played on every sample and the hand finished by ``value`` at all four seats; an alternative
  replaces the choice above only when it gains ``z`` standard errors more than nothing;
- ``void_plans`` (default false: under leshan it lost points, docs/strength.md): where no
  void is declared (``leshan``, R11.2 off), the suit to clear is searched too: while the seat
  holds all three suits, ``value``'s discard for clearing each other suit is a candidate, whose
  rollouts keep the seat clearing that suit;
- ``read_voids`` (default false): where no void is declared, the samples deal a seat none of
  the suit it has plainly been clearing (at least three of its discards, two more than of
  either other suit, no meld of it, its last discard of another suit), as a declared void;
- ``search_turns``, ``search_claims`` (default true): the search of its turns (discards,
  kongs) and of its answers to a discard (peng, kong, pass) can each be turned off, their
  decisions then ``value``'s: what each gains is measured in docs/strength.md;
- ``search_wins`` (``True``, ``False`` or ``"auto"``, the default: on where a self-draw earns
  a bonus, ``self_draw_bonus`` ``"point"`` or ``"fan"``, where it measured a gain; off under
  leshan's plain self-draw, where it did not, docs/strength.md): a win
  is searched too, against passing it (a discard or a robbed kong, R4.3's lock included) or, on
  the seat's own draw, against the turn ``value`` would play without it (``value`` always
  wins); not in the last tiles, where every win is forced (R4.4);
- ``nest`` (default 0: off), ``nest_width`` (3), ``nest_depth`` (1), ``nest_z`` (1.5): nested
  search. In each rollout the acting seat is an ``expert`` of its own that searches its next
  ``nest_depth`` decisions again, on ``nest`` samples of its ``nest_width`` best candidates
  (an alternative taken when it gains ``nest_z`` standard errors), inside what is left of the
  decision's budget, before ``value`` finishes the hand; at ``nest = 8`` it costs about 21
  times the CPU (what it gained: docs/strength.md);
- ``budget`` (default 1.0 s): past it a decision answers with its best so far (never a
  timeout, R10); only then do its decisions depend on the machine's speed;
- every option of ``value`` (``defence``, ``one_suit``, ``kong_slack``, …) for its base play.

Its simulations draw from their own generator, seeded from the strategy's ``seed``: the same
seed, rules and observations give the same decisions.

    >>> from xuezhan.engine import play_hand
    >>> from xuezhan.strategies import ValueStrategy
    >>> seats = [ExpertStrategy(seed=1), ValueStrategy(), ExpertStrategy(seed=2), ValueStrategy()]
    >>> sum(play_hand(seats, "leshan", seed=3)["deltas"])  # R12.2
    0
"""

from __future__ import annotations

from typing import Any

from xuezhan import _core
from xuezhan.engine.actions import Action

__all__ = ["ExpertStrategy"]


class ExpertStrategy:
    """``value`` refined by simulations of its own hand; see the module doc."""

    name = "expert"
    #: The seat loop gives it a sampler (its search samples the hand's hidden information).
    uses_sampler = True

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.seed = 0 if seed is None else seed
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TypeError(f"seed: expected an integer, got {seed!r}")
        self.options = dict(options)
        try:
            self._policy = _core.ExpertPolicy(self.options, self.seed & (2**64 - 1))
        except ValueError as exc:
            raise TypeError(str(exc).removeprefix("expert: ")) from None
        self.seat = 0
        self._sampler: Any = None
        self._searches = self.options.get("rollouts") != 0  # its search samples the hand (default on)

    def reset(self, seat: int, rules: Any) -> None:
        from xuezhan.native import native_rules

        self.seat = seat
        self._policy.reset(seat, native_rules(rules, timed=False))  # its own decisions need no clock
        self._sampler = None  # bound again for each hand by the seat loop

    def bind_sampler(self, sampler: Any) -> None:
        """The seat loop's sampler of this hand (:func:`xuezhan.engine.decisions.bind_samplers`)."""
        self._sampler = sampler

    def act(self, obs: Any) -> Action:
        legal = obs.legal_actions
        truth = None
        searched = obs.phase in ("turn", "claim", "exchange", "void")
        if self._searches and self._sampler is not None and len(legal) > 1 and searched:
            truth = self._sampler.sealed()
        return legal[self._policy.act(obs, truth)]
