"""The pairwise board of an exam: Bradley–Terry strengths with their intervals, rank
sets, the position and length coefficients, and the ranks with each examiner left out.

Strengths and coefficients come from :mod:`evaluation.examiner.bradley_terry`; their
uncertainty from resampling whole questions (seeded); the rank sets from
:func:`evaluation.rank_sets.rank_confidence_sets` on the same replicates: the
simultaneous set (all entries at once, the one the board shows) and each entry's
marginal set. The rank is the order of the strengths (1 + the number of entries with a
higher one), always inside both sets. Leaving out one examiner's verdicts and refitting
shows how far each rank moves; a move outside the entry's simultaneous set is flagged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evaluation.examiner.bradley_terry import RIDGE, Verdicts, bootstrap, fit, verdicts_from_records
from evaluation.examiner.peer_scores import point_ranks
from evaluation.rank_sets import rank_confidence_sets

LEVEL = 0.95


def _round(value: float, digits: int = 4) -> float | None:
    return round(float(value), digits) if np.isfinite(value) else None


def _coefficient(estimate: float, replicates: np.ndarray) -> dict:
    se = float(replicates.std(ddof=1)) if replicates.size > 1 else float("nan")
    return {"estimate": _round(estimate), "se": _round(se)}


def leave_one_out(verdicts: Verdicts, start: np.ndarray) -> dict[str, np.ndarray]:
    """Per examiner: every entry's rank when its verdicts are left out (0 for an entry
    no other examiner compared)."""
    out = {}
    for e, name in enumerate(verdicts.examiners):
        weights = (verdicts.examiner != e).astype(float)
        seen = verdicts.seen(weights)
        strengths = fit(verdicts, weights, start=start).strengths
        out[name] = point_ranks(np.where(seen, strengths, np.nan))
    return out


def pairwise_board(records: list[dict], families: dict[str, str], *, replicates: int, seed: int) -> dict:
    """The ``pairwise`` record: ``entries`` maps each compared examinee to its strength,
    interval, rank, rank sets and leave-one-examiner-out moves."""
    verdicts = verdicts_from_records(records, families)
    board = {"kind": "pairwise", "verdicts": len(verdicts), "questions": len(verdicts.questions), "ridge": RIDGE}
    board["replicates"] = replicates
    if len(verdicts.entries) < 2 or len(verdicts) == 0:
        return {**board, "entries": {}, "position": None, "length": None}
    p = len(verdicts.entries)
    point = fit(verdicts)
    boot = bootstrap(verdicts, point, replicates, seed) if replicates > 1 else np.empty((0, p + 2))
    ranks = point_ranks(point.strengths)
    if boot.shape[0] > 1:
        simultaneous = rank_confidence_sets(point.strengths, boot[:, :p], level=LEVEL, simultaneous=True)
        marginal = rank_confidence_sets(point.strengths, boot[:, :p], level=LEVEL)
        tails = [100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2]
        interval = np.percentile(boot[:, :p], tails, axis=0)
    else:
        simultaneous = marginal = (np.ones(p, dtype=int), np.full(p, p))
        interval = np.full((2, p), np.nan)
    left_out = leave_one_out(verdicts, point.parameters)
    entries = {}
    for j, name in enumerate(verdicts.entries):
        low, high = int(simultaneous[0][j]), int(simultaneous[1][j])
        moves: list[dict[str, Any]] = [
            {"examiner": e, "rank": int(r[j]), "move": int(r[j]) - int(ranks[j]), "outside": not low <= r[j] <= high}
            for e, r in left_out.items()
            if r[j] > 0
        ]
        entries[name] = {
            "strength": _round(point.strengths[j]),
            "strength_ci": [_round(interval[0, j]), _round(interval[1, j])] if np.isfinite(interval[0, j]) else None,
            "rank": int(ranks[j]),
            "rank_set": [low, high],
            "marginal_rank_set": [int(marginal[0][j]), int(marginal[1][j])],
            "left_out": moves,
            "largest_move": max((abs(m["move"]) for m in moves), default=0),
            "flagged": any(m["outside"] for m in moves),
        }
    return {
        **board,
        "entries": entries,
        "position": _coefficient(point.position, boot[:, p]),
        "length": _coefficient(point.length, boot[:, p + 1]),
    }
