"""Speed of the ranking at scale: 2,000 entries × 60 datasets × 10 iterations, one core.

Pure-function level (no database), synthetic scores with a fixed seed:

* point estimate: §3 dataset scores (mean ± ci of both metrics for every evaluation) and
  §4 rank scores (60 anchor walks with Welch tests, task and language means);
* bootstrap: the 95% interval of the rank score at the default 200 replicates (each
  replicate re-runs all 60 walks), timed separately.

Run: ``OMP_NUM_THREADS=1 python benchmarks/ranking_speed.py [--entries 2000]
[--datasets 60] [--iterations 10] [--replicates 200] [--repeat 3]``. Reports the best of
``--repeat`` runs. BLAS threads are pinned to one so the figure is for one core.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from leaderboard import ranking  # noqa: E402


def synthetic(entries: int, datasets: int, iterations: int, seed: int = 4242):
    rng = np.random.default_rng(seed)
    ability = rng.uniform(0.1, 0.9, entries)
    difficulty = rng.normal(0, 0.1, (datasets, 1))
    mean = np.clip(ability[None, :] + difficulty + rng.normal(0, 0.08, (datasets, entries)), 0, 1)
    noise = rng.uniform(0.005, 0.04, (datasets, entries, 1))
    primary = np.clip(mean[..., None] + noise * rng.standard_normal((datasets, entries, iterations)), 0, 1)
    secondary = np.clip(primary + rng.normal(0.05, 0.01, primary.shape), 0, 1)
    missing = rng.random((datasets, entries)) < 0.002  # 0.2% of evaluations missing
    primary[missing] = np.nan
    secondary[missing] = np.nan
    tasks = [f"task-{d % 7}" for d in range(datasets)]
    return primary, secondary, tasks


def point_estimate(primary, secondary, tasks):
    for metric in (primary, secondary):  # §3: mean ± 1.96·s/√n of both metrics
        mean, var, n = ranking.summary_statistics(metric)
        _ci = ranking.Z95 * np.sqrt(var / n)
    mean, var, n = ranking.summary_statistics(primary)
    ds = ranking.anchor_walk(mean, var, n)  # §4: (D, N) dataset rank scores
    return ranking.aggregate_tasks(ds.T, tasks)


def best_of(repeat, fn):
    """Best wall time and best CPU time (process time: what this process used of its core)."""
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return (min(walls), min(cpus)), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--datasets", type=int, default=60)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--replicates", type=int, default=ranking.DEFAULT_REPLICATES)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    primary, secondary, tasks = synthetic(args.entries, args.datasets, args.iterations)
    print(
        f"{args.entries} entries × {args.datasets} datasets × {args.iterations} iterations; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    (w, c), (_, _, lang) = best_of(args.repeat, lambda: point_estimate(primary, secondary, tasks))
    print(
        f"point estimate (dataset scores + rank scores): wall {w:.3f} s, cpu {c:.3f} s; "
        f"ranked entries: {np.isfinite(lang).sum()}"
    )
    (w, c), board = best_of(
        max(1, args.repeat - 1),
        lambda: ranking.rank_language_board(primary, tasks, replicates=args.replicates),
    )
    print(f"rank_language_board with {args.replicates} bootstrap replicates: wall {w:.3f} s, cpu {c:.3f} s")
    print(f"significance groups: {board.ranks.max()}")
    entries = [(e, True, False) for e in range(args.entries)]
    for method in ranking.all_methods():  # every registered method at its own default replicates
        reps = method.default_replicates or args.replicates
        (w, c), board = best_of(
            max(1, args.repeat - 1),
            lambda m=method, r=reps: m.rank_language_board(primary, tasks, entries, replicates=r, seed=4242),
        )
        print(
            f"method {method.name} v{method.version} with {reps} replicates: wall {w:.3f} s, cpu {c:.3f} s; "
            f"ranked {np.isfinite(board.rank_scores).sum()}, ranks {board.ranks.max()}"
        )


if __name__ == "__main__":
    main()
