"""EuroEval's new-method board CSVs (``Rank,Model,Rank score,rank_score,ci_lower,ci_upper``)
and how closely a ranking reproduces one.

Since 2026-05-29 EuroEval prints per entry only its tie rank and ``median ± margin`` (then
the unrounded median and the 2.5 / 97.5 percentiles), no per-dataset summaries, so such a
board is reproduced from the records behind it (imported, then aggregated with
``euroeval-2026``), not from the CSV. The measures are those EuroEval's own seed-to-seed
noise bounds (``tests/ranking/data/euroeval-2026/README.md``): mean and max |Δ rank score|,
Spearman, and the share of neighbouring pairs (in the published order) that both rankings
tie or both split. Pure functions: no Django.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

HEADER = ["Rank", "Model", "Rank score", "rank_score", "ci_lower", "ci_upper"]


class MethodBoardFormatError(ValueError):
    pass


@dataclass
class MethodBoard:
    models: list[str]
    ranks: list[int | None]  # printed tie rank; None = not ranked ("-")
    scores: np.ndarray  # unrounded median rank score; NaN = not ranked


@dataclass
class MethodAgreement:
    same_ranked_set: bool
    compared: int
    mean_abs_diff: float
    max_abs_diff: float
    spearman: float
    neighbours_alike: float  # share of neighbouring pairs tied in both or split in both


def is_method_board(text: str) -> bool:
    first = text.lstrip("\ufeff").splitlines()[:1]
    return bool(first) and next(csv.reader(first)) == HEADER


def parse_method_board(text: str) -> MethodBoard:
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if not rows or rows[0] != HEADER:
        raise MethodBoardFormatError(f"expected the header {','.join(HEADER)}")
    models, ranks, scores = [], [], []
    for n, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(HEADER):
            raise MethodBoardFormatError(f"line {n}: {len(row)} cells, expected {len(HEADER)}")
        rank, model, _, score = row[:4]
        try:
            ranks.append(None if rank.strip() in ("", "-") else int(rank))
            value = float(score) if score.strip() else math.nan
        except ValueError:
            raise MethodBoardFormatError(f"line {n}: rank {rank!r} / rank score {score!r} is not a number") from None
        if (ranks[-1] is None) != math.isnan(value):
            raise MethodBoardFormatError(f"line {n}: a rank needs a rank score and the other way round")
        models.append(model)
        scores.append(value)
    return MethodBoard(models, ranks, np.array(scores, dtype=float))


def agreement(board: MethodBoard, ours: dict[str, tuple[int | None, float | None]]) -> MethodAgreement:
    """Compare ``ours`` (entry name → (rank, rank score); None = unranked) with ``board``
    on the entries both rank."""
    theirs = {m: (r, s) for m, r, s in zip(board.models, board.ranks, board.scores) if r is not None}
    mine = {m: v for m, v in ours.items() if v[0] is not None and v[1] is not None}
    common = sorted(set(theirs) & set(mine), key=lambda m: (theirs[m][1], m))
    if len(common) < 2:
        return MethodAgreement(set(theirs) == set(mine), len(common), math.nan, math.nan, math.nan, math.nan)
    a = np.array([mine[m][1] for m in common])
    b = np.array([theirs[m][1] for m in common])
    alike = [(mine[x][0] == mine[y][0]) == (theirs[x][0] == theirs[y][0]) for x, y in zip(common, common[1:])]
    return MethodAgreement(
        same_ranked_set=set(theirs) == set(mine),
        compared=len(common),
        mean_abs_diff=float(np.mean(np.abs(a - b))),
        max_abs_diff=float(np.max(np.abs(a - b))),
        spearman=float(stats.spearmanr(a, b).statistic),
        neighbours_alike=float(np.mean(alike)),
    )
