"""Bit-identity of the ranking before and after a change: every array of both methods'
``BoardRanking`` on four boards, saved by one tree and compared by another.

Boards: the speed benchmark's 2,000-entry board and a 300-entry one
(``ranking_speed.synthetic``), each as generated and with 3% of iterations missing
(``default_rng(7)``, missing values sorted last). Arrays: rank scores, interval, ranks,
replicates, task and dataset rank scores, tasks, the four rank-set arrays, the contrast's
scores, factors, df, diff and var, and ``extra``; compared with ``numpy.array_equal``
(NaN equal to NaN in float arrays; dtypes compared too).

Run: ``python benchmarks/ranking_identity.py save /tmp/before.pkl`` in the tree before the
change (a ``git archive`` of it), then ``python benchmarks/ranking_identity.py compare
/tmp/before.pkl`` in the tree after it; the tree is the one the script is run from.
"""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

sys.path.insert(0, str(Path.cwd()))
sys.path.insert(0, str(Path.cwd() / "benchmarks"))

import numpy as np  # noqa: E402
from ranking_speed import synthetic  # noqa: E402

from leaderboard import ranking  # noqa: E402

FIELDS = ("rank_scores", "ci_low", "ci_high", "ranks", "replicates", "task_rank_scores", "dataset_rank_scores")
SET_FIELDS = ("marginal_low", "marginal_high", "simultaneous_low", "simultaneous_high")


def boards():
    for n in (2000, 300):
        scores, _, tasks = synthetic(n, 60, 10)
        yield f"{n}", scores, tasks
        holes = scores.copy()
        holes[np.random.default_rng(7).random(holes.shape) < 0.03] = np.nan
        yield f"{n}-missing", np.sort(holes, axis=2), tasks


def arrays(board) -> dict[str, np.ndarray]:
    out = {f: getattr(board, f) for f in (*FIELDS, "part_rank_scores")}
    out["tasks"] = np.array(board.tasks)
    if board.rank_sets is not None:
        out.update({f"sets.{f}": getattr(board.rank_sets, f) for f in SET_FIELDS})
    if board.contrast is not None:
        out.update({f"contrast.{f}": getattr(board.contrast, f) for f in ("scores", "factors", "df", "diff", "var")})
    out["extra"] = np.array(repr(board.extra))
    return {k: np.asarray(v) for k, v in out.items() if v is not None}


def all_arrays() -> dict[str, np.ndarray]:
    result = {}
    for name, scores, tasks in boards():
        entries = [(e, True, False) for e in range(scores.shape[1])]
        for method in ranking.all_methods():
            reps = method.default_replicates or ranking.DEFAULT_REPLICATES
            board = method.rank_language_board(scores, tasks, entries, replicates=reps, seed=4242)
            result.update({f"{name}/{method.name}/{k}": v for k, v in arrays(board).items()})
    return result


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    result = all_arrays()
    if mode == "save":
        Path(path).write_bytes(pickle.dumps(result))
        print(f"saved {len(result)} arrays")
        return
    old = pickle.loads(Path(path).read_bytes())
    differ = [
        k
        for k, v in old.items()
        if k not in result
        or v.dtype != result[k].dtype
        or not np.array_equal(v, result[k], equal_nan=v.dtype.kind in "fc")
    ]
    print(f"{len(old) - len(differ)} of {len(old)} arrays equal; {len(set(result) - set(old))} new")
    for k in differ:
        print("DIFFERENT", k)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
