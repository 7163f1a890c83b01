#!/usr/bin/env python3
"""Learn a mahjong policy on the xuezhan environment with numpy alone, then prove it in a
duplicate match against ``random``.

    python examples/train_imitation.py                      # about three minutes on one core
    python examples/train_imitation.py --budget 20 --eval-seeds 100 --out result.json

What it does:

1. **Imitation (behaviour cloning).** Four ``greedy`` bots play hands in the PettingZoo AEC
   environment (``xuezhan.env.aec_env``); every decision gives one example: the observation
   tensor (64 planes x 27 kinds), the action mask and the id ``greedy`` chose. A linear softmax
   policy over the flattened tensor (logits = W x + b, illegal ids masked out) is trained on
   each fresh batch of hands with Adam, for ``--budget`` seconds in all. The exchange of the
   chengdu rules is three picks, so the policy picks too.
2. **Evaluation.** A duplicate match on ``--eval-seeds`` walls: each wall is played twice, with
   the seatings ``learned, random, learned, random`` and ``random, learned, random, learned``,
   so both strategies hold every hand. The result is the learned policy's mean points per hand
   with a 95% interval over walls (the walls are independent; the two seatings of a wall are
   not, so they are averaged first). The untrained policy (small random weights: an arbitrary
   legal action) is measured the same way, as the baseline, and the trained policy also meets
   the untrained one directly.

The result (accuracy before and after, the two intervals) is printed and, with ``--out``,
written as JSON. Everything is seeded: the same arguments give the same numbers, except that
``--budget`` is wall-clock time, so a faster machine trains on more hands.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from xuezhan.engine import play_hand
from xuezhan.engine.actions import EXCHANGE, act
from xuezhan.env import aec_env
from xuezhan.env.actions import EXCHANGE0, N_ACTIONS, id_action, legal_mask
from xuezhan.env.encoding import N_PLANES, Encoder
from xuezhan.strategies import GreedyStrategy, RandomStrategy

N_FEATURES = N_PLANES * 27


class LinearPolicy:
    """A masked linear softmax policy; also a ``Strategy`` (``reset``, ``act``) for matches."""

    name = "learned"

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.W = (rng.standard_normal((N_FEATURES, N_ACTIONS)) * 0.01).astype(np.float32)
        self.b = np.zeros(N_ACTIONS, np.float32)
        self._adam = [
            np.zeros_like(self.W),
            np.zeros_like(self.W),
            np.zeros_like(self.b),
            np.zeros_like(self.b),
        ]
        self._t = 0
        self.seat = 0
        self.encoder = Encoder()

    # -------------------------------------------------------------- learning
    def logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = x @ self.W + self.b
        return np.where(mask > 0, z, -1e9)

    def accuracy(self, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> float:
        return float((self.logits(x, mask).argmax(axis=1) == y).mean())

    def train_step(self, x: np.ndarray, mask: np.ndarray, y: np.ndarray, lr: float = 1e-2) -> float:
        """One Adam step on the masked cross-entropy; returns the loss."""
        z = self.logits(x, mask)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z) * (mask > 0)
        p /= p.sum(axis=1, keepdims=True)
        n = len(y)
        loss = float(-np.log(p[np.arange(n), y] + 1e-12).mean())
        g = p
        g[np.arange(n), y] -= 1.0
        g /= n
        grads = (x.T @ g, g.sum(axis=0))
        self._t += 1
        b1, b2 = 0.9, 0.999
        for i, (param, grad) in enumerate(zip((self.W, self.b), grads, strict=True)):
            m, v = self._adam[2 * i], self._adam[2 * i + 1]
            m *= b1
            m += (1 - b1) * grad
            v *= b2
            v += (1 - b2) * grad * grad
            mhat = m / (1 - b1**self._t)
            vhat = v / (1 - b2**self._t)
            param -= (lr * mhat / (np.sqrt(vhat) + 1e-8)).astype(np.float32)
        return loss

    # -------------------------------------------------------------- playing (Strategy protocol)
    def reset(self, seat: int, rules: Any) -> None:
        self.seat = seat
        self.encoder = Encoder(stay=rules.stay)

    def _choose(self, obs: Any, picks: list[int]) -> int:
        x = self.encoder.encode(obs, picks).reshape(1, -1)
        return int(self.logits(x, legal_mask(obs, picks)[None, :]).argmax())

    def act(self, obs: Any) -> Any:
        if obs.phase == "exchange":
            picks: list[int] = []
            while len(picks) < 3:
                picks.append(self._choose(obs, picks) - EXCHANGE0)
            return act(obs.seat, EXCHANGE, tuple(picks))
        return id_action(obs.seat, self._choose(obs, []))


def collect(hands: int, seed: int, rules: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Examples from ``hands`` hands of four greedy bots in the AEC environment."""
    env = aec_env(rules, seed=seed)
    xs, ms, ys = [], [], []
    for _ in range(hands):
        env.reset()
        rnd = env.round
        bots = [GreedyStrategy() for _ in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, env.rules)
        triple: dict[int, list[int]] = {}
        for agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent[-1])
            view = rnd.observation(seat)
            if view.phase == "exchange":
                picks = env.exchange_picks
                if not picks:
                    triple[seat] = list(bots[seat].act(view).arg)
                label = EXCHANGE0 + triple[seat][len(picks)]
            else:
                label = _id_of(bots[seat].act(view))
            xs.append(obs["observation"].reshape(-1))
            ms.append(obs["action_mask"])
            ys.append(label)
            env.step(label)
    return np.array(xs, np.float32), np.array(ms, np.int8), np.array(ys, np.int64)


def _id_of(action: Any) -> int:
    from xuezhan.env import action_id

    return action_id(action)


def duplicate(a: Any, b: Any, seeds: int, rules: str, base: int) -> dict[str, float]:
    """Mean points per hand of ``a`` against ``b`` over ``seeds`` walls, each played with both
    seatings; a 95% interval over walls (normal approximation)."""
    per_wall = []
    for i in range(seeds):
        seed = base + i
        total = 0.0
        for seating in ((a, b, a, b), (b, a, b, a)):
            res = play_hand(list(seating), rules, seed=seed)
            total += sum(d for d, s in zip(res["deltas"], seating, strict=True) if s is a) / 2
        per_wall.append(total / 2)  # a's mean per hand on this wall
    arr = np.array(per_wall)
    mean = float(arr.mean())
    half = 1.96 * float(arr.std(ddof=1)) / math.sqrt(len(arr)) if len(arr) > 1 else float("inf")
    return {"mean": mean, "low": mean - half, "high": mean + half, "walls": len(arr)}


def main(argv: list[str] | None = None) -> int:
    # the docstring's first paragraph, whole (its first line alone stops mid-sentence)
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--budget", type=float, default=180.0, help="seconds of training (default 180)")
    ap.add_argument(
        "--batch-hands",
        type=int,
        default=40,
        help="hands per batch of examples (default 40)",
    )
    ap.add_argument(
        "--eval-seeds",
        type=int,
        default=300,
        help="walls in the duplicate match (default 300)",
    )
    ap.add_argument("--epochs", type=int, default=2, help="passes over each batch (default 2)")
    ap.add_argument("--max-batches", type=int, default=10**9, help="stop after this many batches")
    ap.add_argument("--rules", default="leshan", help="preset (default leshan)")
    ap.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    ap.add_argument("--out", type=Path, default=None, help="write the result here as JSON")
    args = ap.parse_args(argv)
    if args.budget <= 0 or args.batch_hands < 1 or args.epochs < 1 or args.max_batches < 1 or args.eval_seeds < 2:
        ap.error(
            "--budget must be positive, --batch-hands, --epochs and --max-batches at least 1, --eval-seeds at least 2"
        )

    policy = LinearPolicy(args.seed)
    # Held-out hands, never trained on, measure the imitation accuracy.
    held_x, held_m, held_y = collect(20, args.seed + 1_000_000, args.rules)
    acc0 = policy.accuracy(held_x, held_m, held_y)
    print(f"held-out examples: {len(held_y)}; accuracy of the untrained policy: {acc0:.3f}")
    before = duplicate(
        LinearPolicy(args.seed),
        RandomStrategy(args.seed),
        args.eval_seeds,
        args.rules,
        10**9,
    )

    t0 = time.perf_counter()
    batches = examples = 0
    while time.perf_counter() - t0 < args.budget and batches < args.max_batches:
        x, m, y = collect(args.batch_hands, args.seed + batches, args.rules)
        rng = np.random.default_rng(batches)
        for _ in range(args.epochs):
            order = rng.permutation(len(y))
            for start in range(0, len(y), 128):
                idx = order[start : start + 128]
                loss = policy.train_step(x[idx], m[idx], y[idx])
        batches += 1
        examples += len(y)
        acc = policy.accuracy(held_x, held_m, held_y)
        print(
            f"batch {batches}: {examples} examples, loss {loss:.3f}, held-out accuracy {acc:.3f}",
            flush=True,
        )
    seconds = time.perf_counter() - t0
    acc1 = policy.accuracy(held_x, held_m, held_y)

    after = duplicate(policy, RandomStrategy(args.seed), args.eval_seeds, args.rules, 10**9)
    gain = duplicate(policy, LinearPolicy(args.seed), args.eval_seeds, args.rules, 2 * 10**9)
    result = {
        "rules": args.rules,
        "train_seconds": round(seconds, 1),
        "batches": batches,
        "examples": examples,
        "accuracy_before": acc0,
        "accuracy_after": acc1,
        "vs_random_before": before,
        "vs_random_after": after,
        "vs_untrained": gain,
        "beats_random": after["low"] > 0,
    }
    print(
        f"duplicate match vs random on {after['walls']} walls (points per hand, 95% interval):\n"
        f"  untrained: {before['mean']:+.2f} [{before['low']:+.2f}, {before['high']:+.2f}]\n"
        f"  trained:   {after['mean']:+.2f} [{after['low']:+.2f}, {after['high']:+.2f}]"
        f"  -> {'beats random' if result['beats_random'] else 'no clear difference'}\n"
        f"trained vs untrained: {gain['mean']:+.2f} [{gain['low']:+.2f}, {gain['high']:+.2f}]"
    )
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
