"""Speed of the 95% rank confidence sets (``leaderboard.ranking.rank_sets``) at 2,000 entries,
one core.

Boards (synthetic, seed 4242), each through ``contrast.paired_factors`` and
``rank_sets_from_factors`` (both sets, stepdown, 1,000 draws) as ``euroeval-2024`` runs them:

* ``spread``: the 2,000 × 60 × 10 board of ``benchmarks/ranking_speed.py`` (abilities spread
  over [0.1, 0.9]: most of the 4 million pairs are told apart at once);
* ``tied``: 2,000 entries with the same true score on 4 datasets × 10 iterations (the worst
  case: no pair is ever told apart, every pair stays in every family);
* ``groups``: 2,000 entries in 40 groups of 50 tied entries, 4 datasets.

Run: ``OMP_NUM_THREADS=1 python benchmarks/rank_set_speed.py [--entries 2000] [--repeat 2]``.
Prints wall and CPU seconds (best of ``--repeat``), draws used and the mean set widths.
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

from benchmarks.ranking_speed import synthetic  # noqa: E402
from leaderboard.ranking.contrast import dataset_weights, paired_factors  # noqa: E402
from leaderboard.ranking.rank_sets import rank_sets_from_factors  # noqa: E402


def board(kind: str, entries: int, seed: int = 4242):
    rng = np.random.default_rng(seed)
    if kind == "spread":
        primary, _, tasks = synthetic(entries, 60, 10, seed)
        return primary, tasks
    mu = np.full(entries, 0.5) if kind == "tied" else np.repeat(np.linspace(0.8, 0.4, 40), entries // 40)
    scores = mu[None, :, None] + 0.02 * rng.standard_normal((4, mu.size, 10))
    return scores, ["a", "b", "c", "d"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--kinds", default="spread,groups,tied")
    args = parser.parse_args()
    for kind in args.kinds.split(","):
        scores, tasks = board(kind, args.entries)
        walls, cpus = [], []
        for _ in range(args.repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            theta, factors, df = paired_factors(scores, dataset_weights(tasks))
            sets = rank_sets_from_factors(theta, factors, df=df)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        ok = sets.marginal_low > 0
        print(
            f"{kind}: {ok.sum()} entries, wall {min(walls):.2f} s, CPU {min(cpus):.2f} s; mean width "
            f"marginal {np.mean(sets.marginal_high[ok] - sets.marginal_low[ok]):.1f}, "
            f"simultaneous {np.mean(sets.simultaneous_high[ok] - sets.simultaneous_low[ok]):.1f}"
        )


if __name__ == "__main__":
    main()
