"""Workers of the standings race tests: each runs in a thread or in a process of its own (spawned,
so a module-level function) against one database file, starting together at a barrier."""

from __future__ import annotations

from typing import Any

from xuezhan.serve.standings import Standings, StandingsError

#: Seconds a worker waits at the start barrier before it gives up (the tests stay bounded).
BARRIER_WAIT = 60.0


def _outcome(fn: Any) -> tuple[str, Any]:
    """("ok", value), ("refused", message) for a clear refusal, ("error", repr) for anything else."""
    try:
        return "ok", fn()
    except StandingsError as exc:
        return "refused", str(exc)
    except Exception as exc:  # noqa: BLE001 - the tests assert there is none
        return "error", f"{type(exc).__name__}: {exc}"


def start(dbs: list[str], barrier: Any) -> list[tuple[str, Any]]:
    """For each database of ``dbs`` (one per trial): open it (a server starting) at the same
    moment as the others."""

    def opened(db: str) -> None:
        Standings(db).close()

    out = []
    for db in dbs:
        barrier.wait(BARRIER_WAIT)
        out.append(_outcome(lambda db=db: opened(db)))
    return out


def claim(dbs: list[str], name: str, secret: str, barrier: Any) -> list[tuple[str, Any]]:
    """For each database of ``dbs`` (one per trial): claim ``name`` with this browser's
    ``secret`` at the same moment as the others."""
    out = []
    for db in dbs:
        led = Standings(db)
        try:
            barrier.wait(BARRIER_WAIT)
            out.append(_outcome(lambda led=led: led.identify(name, secret)))
        finally:
            led.close()
    return out


def book(db: str, players: list[int], hands: int, rounds: int, barrier: Any) -> tuple[str, Any]:
    """In each of ``rounds`` rounds (all workers starting each round together), book ``hands``
    hands giving +1 to the first of ``players`` and -1 to the second."""
    led = Standings(db)
    try:

        def booked() -> int:
            seats = [players[0], players[1], None, None]
            for r in range(rounds):
                barrier.wait(BARRIER_WAIT)
                for i in range(hands):
                    led.book_hand("T", "leshan", r * hands + i, "c", ["{}"], seats, [1, -1, 0, 0], [0] * 4)
            return rounds * hands

        return _outcome(booked)
    finally:
        led.close()


def reset(db: str, rounds: int, barrier: Any) -> tuple[str, Any]:
    """In each of ``rounds`` rounds, reset the standings (清零) while the others book; how many
    resets found something to reset."""
    led = Standings(db)
    try:

        def resets() -> int:
            done = 0
            for _ in range(rounds):
                barrier.wait(BARRIER_WAIT)
                done += led.reset() > 0
            return done

        return _outcome(resets)
    finally:
        led.close()


def book_or_reset(db: str, what: str, players: list[int], hands: int, rounds: int, barrier: Any) -> tuple[str, Any]:
    """:func:`book` or :func:`reset`, by ``what`` (one race mixes both)."""
    return book(db, players, hands, rounds, barrier) if what == "book" else reset(db, rounds, barrier)


def reported(queue: Any, index: int, fn: Any, args: tuple) -> None:
    """Run ``fn(*args)`` in a process and put ``(index, outcome)`` on ``queue``."""
    queue.put((index, fn(*args)))
