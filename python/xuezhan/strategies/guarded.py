"""Pre-emptible Python strategies: a ``module:Class`` strategy played in a worker process.

A Python strategy running in the engine's own process cannot be stopped: a thread cannot be
killed, so an ``act()`` that sleeps or loops would hold the whole tournament past its time
limit (docs/rules.md R10). :class:`GuardedStrategy` runs the strategy in a worker process instead,
``python -m xuezhan.strategies.guarded module:Class``, which speaks the external-bot protocol
of ``docs/protocol.md`` (JSON lines) through :class:`~xuezhan.strategies.external.ExternalStrategy`.
So every guarantee of external bots holds for it: a decision past its limit takes the default
action and counts a timeout, past ``max_timeouts`` an escape (R10.3); an exception is an escape
(R8); the worker and anything it starts form one process group, ended as a whole.

Which strategies are guarded (the tournament's choice, :mod:`xuezhan.tournament.play`): every
``module:Class`` entry, unless the entry says ``trusted = true``; the built-in ``random``,
``greedy`` and ``value`` are trusted and stay in-process, at full speed.

The worker rebuilds each :class:`~xuezhan.engine.observation.Observation` from its JSON form
(:func:`observation_from_dict`), so a guarded strategy sees the same values as in-process and
plays the same actions: results are identical unless a decision runs out of time.
``start_hand`` carries one extra field for the worker, ``options``: the keyword arguments of
the strategy's constructor for that hand (with the hand's ``seed`` for seeded strategies); the
worker builds a new strategy object whenever they change, as the tournament does in-process.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from xuezhan.engine.actions import parse_action
from xuezhan.engine.observation import Observation, discard_mask_of, seen_counts
from xuezhan.strategies.external import ExternalStrategy

__all__ = ["GuardedFactory", "GuardedStrategy", "load_target", "observation_from_dict"]

_SUITS = "mps"
# Actions are immutable values from a small set: parse each text once.
_action = functools.lru_cache(maxsize=8192)(parse_action)


def _kind(tile: str) -> int:
    return _SUITS.index(tile[1]) * 9 + int(tile[0]) - 1


def _kinds(tiles: str) -> tuple[int, ...]:
    return tuple(_kind(tiles[i : i + 2]) for i in range(0, len(tiles), 2))


def observation_from_dict(d: Mapping[str, Any]) -> Observation:
    """The :class:`Observation` whose :meth:`~Observation.to_dict` is ``d`` (its exact inverse).

    >>> from xuezhan.engine.round import Round
    >>> from xuezhan.rules import Rules
    >>> obs = Round.from_seed(Rules.preset("leshan"), 3, 0).observation(0)
    >>> back = observation_from_dict(obs.to_dict())
    >>> all(getattr(back, f) == getattr(obs, f) for f in Observation.__slots__)
    True
    """
    obs = Observation.__new__(Observation)
    counts = bytearray(27)
    for k in _kinds(d["hand"]):
        counts[k] += 1
    values: dict[str, Any] = {
        "seat": d["seat"],
        "dealer": d["dealer"],
        "phase": d["phase"],
        "hand": bytes(counts),
        "drawn": _kind(d["drawn"]) if d["drawn"] else -1,
        "melds": tuple(tuple((t, _kind(tile)) for t, tile in ms) for ms in d["melds"]),
        "discards": tuple(_kinds(r) for r in d["discards"]),
        "wall_count": d["wall_count"],
        "last_tiles": d["last_tiles"],
        "scores": tuple(d["scores"]),
        "deltas": tuple(d["deltas"]),
        "won": tuple(d["won"]),
        "escaped": tuple(d["escaped"]),
        "wins": tuple(_kinds(w) for w in d["wins"]),
        "aside": tuple(_kinds(a) for a in d["aside"]),
        "voids": tuple(_SUITS.index(v) if v else -1 for v in d["voids"]),
        "claim_tile": _kind(d["claim_tile"]) if d["claim_tile"] else None,
        "claim_from": d["claim_from"],
        "robbing": d["robbing"],
        "legal_actions": tuple(_action(a) for a in d["legal_actions"]),
    }
    values["seen"] = seen_counts(values["discards"], values["melds"], values["aside"])  # not in the dict
    values["discard_mask"] = discard_mask_of(values["legal_actions"])  # nor this
    for name in Observation.__slots__:
        setattr(obs, name, values[name])
    return obs


def load_target(target: str, base_dir: str | None = None) -> Callable[..., Any]:
    """The class (or factory) named by ``module:Class`` (``Class`` may be dotted).

    Raises :class:`ValueError` naming the target when it cannot be imported or called.

    >>> load_target("xuezhan.strategies.greedy:GreedyStrategy").__name__
    'GreedyStrategy'
    """
    import importlib
    import sys

    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ValueError(f"strategy {target!r}: write 'module:Class'")
    # The tournament file's folder first; it stays on sys.path, so that the module's own imports
    # of its neighbours keep working (and a guarded worker inherits it).
    if base_dir is not None and base_dir not in sys.path:
        sys.path.insert(0, base_dir)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        where = f" (looked in {base_dir} and on sys.path)" if base_dir else ""
        raise ValueError(f"strategy {target!r}: cannot import module {module_name!r}{where}: {exc}") from None
    except Exception as exc:  # the user's module fails while it is imported
        raise ValueError(
            f"strategy {target!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"strategy {target!r}: module {module_name!r} has no {attr!r}") from None
    if not callable(obj):
        raise ValueError(f"strategy {target!r} is not a class or factory")  # noqa: TRY004 - a config error
    return obj


class GuardedStrategy(ExternalStrategy):
    """The ``module:Class`` strategy ``target``, played in a worker process (see the module doc).

    ``options`` are the constructor's keyword arguments (JSON values); :meth:`configure`
    changes them from the next hand on. ``observes`` (default: whether the class has an
    ``observe`` method) says whether events are sent to the worker at all.
    """

    def __init__(
        self,
        target: str,
        *,
        options: Mapping[str, Any] | None = None,
        name: str | None = None,
        observes: bool | None = None,
        stderr: str | None = None,
        margin: float = 0.05,
    ) -> None:
        super().__init__(
            [sys.executable, "-m", "xuezhan.strategies.guarded", target],
            name=name or target,
            # the worker imports what this process can import, wherever its path came from
            env={"PYTHONPATH": os.pathsep.join(p for p in sys.path if isinstance(p, str) and p)},
            stderr=stderr,
            margin=margin,
        )
        self.target = target
        self.options: dict[str, Any] = dict(options or {})
        if observes is None:
            observes = callable(getattr(load_target(target), "observe", None))
        self.observes = observes

    def configure(self, options: Mapping[str, Any]) -> None:
        """Constructor options for the next hand (sent with its ``start_hand``)."""
        self.options = dict(options)

    def _start_hand(self, seat: int, rules: Any) -> dict:
        msg = super()._start_hand(seat, rules)
        msg["options"] = self.options
        return msg

    def observe(self, event: dict) -> None:
        if self.observes:
            super().observe(event)
        elif event.get("type") == "escape" and event.get("seat") == self.seat:
            self._broken = True

    def __repr__(self) -> str:
        return f"GuardedStrategy({self.target!r}, name={self.name!r})"


class GuardedFactory:
    """Builds the guarded strategy of one tournament entry: one worker process, reused.

    Called like the class it guards (its signature is the class's, so a tournament sees
    whether it takes a ``seed``); each call sets the options of the next hand and returns the
    same :class:`GuardedStrategy`. :meth:`close` stops its worker.
    """

    def __init__(self, target: str, *, name: str | None = None) -> None:
        cls = load_target(target)
        try:
            self.__signature__ = inspect.signature(cls)
        except (TypeError, ValueError):
            self.__signature__ = inspect.Signature([inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD)])
        self.target = target
        self.name = name
        self._observes = callable(getattr(cls, "observe", None))
        self.strategy: GuardedStrategy | None = None

    def __call__(self, **options: Any) -> GuardedStrategy:
        if self.strategy is None:
            self.strategy = GuardedStrategy(self.target, options=options, name=self.name, observes=self._observes)
        else:
            self.strategy.configure(options)
        return self.strategy

    def close(self) -> None:
        if self.strategy is not None:
            self.strategy.close()


# ---------------------------------------------------------------------- the worker process


def _worker(target: str) -> int:
    """Play ``target`` over the JSON-lines protocol on the original stdin/stdout."""
    from xuezhan.rules import Rules

    # The protocol keeps the original pipes; the strategy's own prints go to stderr and its
    # reads see an empty input, so nothing it does can corrupt the protocol.
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        factory = load_target(target)
    except ValueError as exc:
        print(f"xuezhan guarded worker: {exc}", file=sys.stderr)
        return 1
    strategy: Any = None
    built_with: Any = None
    observe: Any = None
    failed = False  # observe() raised: escape at the next request (R8)
    rules_cache: dict[str, Any] = {}
    for line in proto_in:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "start_hand":
            key = json.dumps(msg["rules"], sort_keys=True)
            rules = rules_cache.get(key)
            if rules is None:
                rules = rules_cache[key] = Rules.from_dict(msg["rules"])
            options = msg.get("options", {})
            failed = False
            try:
                if strategy is None or options != built_with:
                    strategy, built_with = factory(**options), options
                strategy.reset(msg["seat"], rules)
                observe = getattr(strategy, "observe", None)
            except Exception:  # noqa: BLE001 - reported, then an escape at the first request
                traceback.print_exc()
                strategy, failed = None, True
        elif kind == "event":
            if observe is not None and not failed:
                try:
                    observe(msg["event"])
                except Exception:  # noqa: BLE001
                    traceback.print_exc()
                    failed = True
        elif kind == "request":
            text = "escape"
            if not failed and strategy is not None:
                try:
                    text = str(strategy.act(observation_from_dict(msg["observation"])))
                except Exception:  # noqa: BLE001 - R10.3: an exception is an escape (R8)
                    traceback.print_exc()
            proto_out.write(json.dumps({"id": msg["id"], "action": text}) + "\n")
            proto_out.flush()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m xuezhan.strategies.guarded module:Class", file=sys.stderr)
        sys.exit(2)
    sys.exit(_worker(sys.argv[1]))
