"""schedlab/PolicySelection-v0's speed (issue 44): periods per second of a
whole episode on a trace -- a random agent stepping day by day (or week by
week) through a resampled trace under bandit feedback (the environment
alone: the engine steps and the observation), and the reset's cost under
full feedback (the per-policy period costs, 12 one-shot simulations of the
window).  Before timing, the same episode's always-FCFS rewards are checked
against the study's stepped fixed policy (run_strategy), so a fast wrong
environment is not reported.  The issue asks for CEA-Curie; time it on a
quiet machine, best of --repeat.

Usage: python bench/bench_gym_selection.py [TRACE] [--weeks W] [--period day|week] [--repeat R]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from schedlab.engine import metrics
from schedlab.gym.selection import PolicySelectionEnv
from schedlab.science.online_selection import PERIODS, POLICIES, WEEK, period_edges, run_strategy


def episode(env: PolicySelectionEnv, agent, sample: int = 0) -> tuple[int, float, float]:
    """(periods, rewards' sum, seconds stepping) of one episode on resample ``sample``."""
    env.reset(seed=0, options={"sample": sample})
    rng = np.random.default_rng(0)
    n, total, t0 = 0, 0.0, time.perf_counter()
    while True:
        _, r, term, _, _ = env.step(agent(rng))
        n, total = n + 1, total + r
        if term:
            return n, total, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default="CEA-Curie")
    ap.add_argument("--weeks", type=int, default=104, help="resampled trace length (the paper: 104)")
    ap.add_argument("--period", default="day", choices=tuple(PERIODS))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    env = PolicySelectionEnv(a.trace, weeks=a.weeks, period=a.period, feedback="bandit")
    # correctness first: always FCFS through the env = the study's stepped FCFS on the same resample
    n, total, _ = episode(env, lambda rng: 0)
    edges = period_edges(a.weeks * WEEK // PERIODS[a.period], PERIODS[a.period])
    want = float(np.nansum(metrics.wait(run_strategy("FCFS", env.jobs, env.m, edges).schedule)))
    if -total != want:
        print(f"MISMATCH: env always-FCFS total wait {-total} != run_strategy {want}")
        return 1
    best = min(episode(env, lambda rng: int(rng.integers(len(POLICIES))))[2] for _ in range(a.repeat))
    full = PolicySelectionEnv(a.trace, weeks=a.weeks, period=a.period, feedback="full")
    resets = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        full.reset(seed=0, options={"sample": 0})
        resets.append(time.perf_counter() - t0)
    print(f"PolicySelection-v0 {a.trace}: {a.weeks} weeks, {len(env.jobs)} jobs, m={env.m}, {n} {a.period}s; "
          f"always-FCFS total wait = run_strategy's ({want:.0f} s)")
    print(f"  random agent, bandit feedback: {n / best:.0f} periods/s ({best:.3f} s per episode, best of {a.repeat})")
    print(f"  full-feedback reset (the {len(POLICIES)} policies' period costs): {min(resets):.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
