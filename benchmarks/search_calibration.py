"""How ready are the opponents a search samples, against the real ones?

    python benchmarks/search_calibration.py                  # leshan, 300 positions
    python benchmarks/search_calibration.py --preset chengdu --positions 500
    python benchmarks/search_calibration.py --rates          # the ready share by wall length

Four ``value`` seats play seeded hands; at every fifth turn decision with fewer than 45 tiles
in the wall (the middle and end of a hand, where the danger of a discard decides points), the
deciding seat's round is determinized ``--samples`` times under each sampling setting. For
each setting it prints:

- the mean number of other seats holding a ready hand (a non-empty wait mask from the core),
  sampled, against the true round's number;
- the Brier score and the log loss of "some other seat waits on this kind" over the 27 kinds
  (the sampled share against the truth; lower is better), and the mean sampled chance of the
  kinds some opponent really waits on (higher is better), each with the best constant guess's
  for comparison (the share of kinds waited on over all positions, known only afterwards).

It is the measurement behind ``search``'s ``ready`` option (docs/search.md): uniform samples,
even the readiest of 12, are almost never ready, while real players late in a hand often are.
The scores show the other half of the story: where a real opponent waits is barely
predictable from uniform or merely ready samples (none beats the constant guess), so what
``ready`` fixes is how often opponents are ready, not where they wait; ``read_discards``
(ready hands without the suit a seat seems to clear, waiting on tiles it has not thrown) is
the setting that reads where.

``--rates`` prints the share of other seats (waiting for a tile) holding a ready hand by the
number of tiles left in the wall, over ``value`` self-play for each preset: the numbers
:data:`xuezhan.strategies.search.READY_AT_EMPTY_WALL` and ``READY_PER_WALL_TILE`` are fitted to.
Takes a few seconds to a minute.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import defaultdict
from collections.abc import Iterator

from xuezhan.engine import Round, first_dealer, hand_seed
from xuezhan.engine._core_adapter import wait_mask
from xuezhan.engine.determinize import determinize
from xuezhan.engine.observation import Observation
from xuezhan.engine.turn import Phase
from xuezhan.search.clone import clone
from xuezhan.strategies import ValueStrategy
from xuezhan.strategies.search import ready_rate


def _self_play(preset: str, seed: int) -> Iterator[tuple[int, Round]]:
    """Every decision of ``value`` self-play, hand after hand: (step in the hand, live round)."""
    h = 0
    while True:
        hs = hand_seed(seed, h)
        rnd = Round.from_seed(preset, hs, first_dealer(hs))
        bots = [ValueStrategy() for _ in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, rnd.rules)
        step = 0
        while not rnd.over:
            yield step, rnd
            seat = rnd.turn.cur
            assert seat is not None
            rnd.apply(bots[seat].act(Observation(rnd, seat)))
            step += 1
        h += 1


def _waits(rnd: Round, seat: int) -> list[int]:
    """The wait masks of the other seats still playing that wait for a tile."""
    out = []
    for s in range(4):
        if s != seat and not rnd.seats.won[s] and not rnd.seats.escaped[s] and sum(rnd.seats.counts[s]) % 3 == 1:
            void = rnd.seats.void[s] if rnd.seats.voids_known else -1
            out.append(wait_mask(bytes(rnd.seats.counts[s]), bytes(rnd.seats.mbytes[s]), void))
    return out


def calibration(preset: str, positions: int, samples: int) -> None:
    pos: list[tuple[Round, int]] = []
    for step, rnd in _self_play(preset, 11):
        if rnd.turn.phase is Phase.TURN and rnd.wall.count < 45 and step % 5 == 0:
            assert rnd.turn.cur is not None
            pos.append((clone(rnd, (rnd.rules, rnd.core)), rnd.turn.cur))
            if len(pos) >= positions:
                break
    truths = []
    real_ready = 0
    for rnd, seat in pos:
        masks = _waits(rnd, seat)
        real_ready += sum(m != 0 for m in masks)
        any_wait = 0
        for m in masks:
            any_wait |= m
        truths.append(any_wait)
    ys = [t >> k & 1 for t in truths for k in range(27)]
    n_waits = sum(ys)
    base = n_waits / len(ys)
    const = sum((base - y) ** 2 for y in ys) / len(ys)
    const_loss = -sum(math.log(base if y else 1 - base) for y in ys) / len(ys)
    print(f"{preset}: {len(pos)} positions (value self-play, wall under 45), {samples} samples each")
    print(
        f"  real:                         {real_ready / len(pos):.2f} ready opponents; "
        f"Brier of a constant {const:.4f}; its log loss {const_loss:.4f}; its chance on the true waits {base:.3f}"
    )
    settings = [
        ("uniform", 1, False, False),
        ("readiest of 12", 12, False, False),
        ("ready", 1, True, False),
        ("ready, readiest of 12", 12, True, False),
        ("ready, 12, read_discards", 12, True, True),
    ]
    for name, pick, ready, reading in settings:
        rng = random.Random(3)
        sampled = 0
        brier = loss = on_waits = 0.0
        t0 = time.process_time()
        for (rnd, seat), truth in zip(pos, truths, strict=True):
            p = [0] * 27
            rate = ready_rate(rnd.wall.count) if ready else 0.0
            for _ in range(samples):
                d = determinize(rnd, seat, rng, pick=pick, ready=rate, read_discards=reading)
                any_wait = 0
                for m in _waits(d, seat):
                    sampled += m != 0
                    any_wait |= m
                for k in range(27):
                    p[k] += any_wait >> k & 1
            brier += sum((p[k] / samples - (truth >> k & 1)) ** 2 for k in range(27))
            for k in range(27):
                q = (p[k] + 0.5) / (samples + 1)  # kept off 0 and 1 so the log is finite
                loss -= math.log(q if truth >> k & 1 else 1 - q)
                on_waits += p[k] / samples if truth >> k & 1 else 0.0
        ms = (time.process_time() - t0) / len(pos) / samples * 1000
        print(
            f"  {name + ':':29s} {sampled / len(pos) / samples:.2f} ready opponents; "
            f"Brier {brier / len(pos) / 27:.4f}; log loss {loss / len(pos) / 27:.4f}; "
            f"chance on the true waits {on_waits / max(1, n_waits):.3f}; {ms:.2f} ms CPU per sample"
        )


def rates(hands: int) -> None:
    print(f"share of other seats holding a ready hand, by tiles left in the wall ({hands} hands of value self-play)")
    for preset in ("leshan", "chengdu", "xueliu"):
        tab: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        played = 0
        for step, rnd in _self_play(preset, 12):
            if step == 0:
                played += 1
                if played > hands:
                    break
            seat = rnd.turn.cur
            if rnd.turn.phase is not Phase.TURN or seat is None:
                continue
            for m in _waits(rnd, seat):
                row = tab[rnd.wall.count // 5 * 5]
                row[0] += m != 0
                row[1] += 1
        line = " ".join(f"{b}:{tab[b][0] / tab[b][1]:.2f}" for b in sorted(tab))
        print(f"  {preset:8s} {line}")
    fit = " ".join(f"{b}:{ready_rate(b + 2):.2f}" for b in range(0, 60, 5))
    print(f"  {'line':8s} {fit}  (ready_rate at the middle of each bucket)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="leshan")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--rates", action="store_true", help="print the ready share by wall length instead")
    ap.add_argument("--hands", type=int, default=400, help="hands per preset for --rates")
    args = ap.parse_args()
    if args.rates:
        rates(args.hands)
    else:
        calibration(args.preset, args.positions, args.samples)


if __name__ == "__main__":
    main()
