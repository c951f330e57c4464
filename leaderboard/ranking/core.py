"""Shared ranking math (docs/methodology.md §3-4): pure functions on numpy arrays, no Django.

Every ranking method (:mod:`leaderboard.ranking.methods`) builds on these: dataset
scores, summary statistics, the one-tailed Welch test, the anchor walk of the
``euroeval-2024`` method, the dataset → task → language means and the
:class:`BoardRanking` a method returns.

Vocabulary used throughout:

* An *entry* is one (model, few_shot, validation_split) triple; boards rank entries.
* ``scores`` arrays have shape ``(D, N, I)``: datasets × entries × iterations, the primary
  metric per iteration in [0, 1]; ``NaN`` pads missing iterations and marks a missing
  dataset (all iterations ``NaN``).
* A rank score is 1 for the best entry of a dataset and grows by one per (population)
  standard deviation of the entries' means below it, counted only at significant steps.
  ``inf`` means "no score": the entry is unranked wherever that dataset counts.

The one-tailed Welch test and the anchor walk are in :mod:`leaderboard.ranking.walk`
(imported here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evaluation.stats import Z95 as STATS_Z95
from evaluation.stats import mean_ci
from leaderboard.ranking.walk import ALPHA, _walk_lanes, anchor_walk, welch_greater_pvalues  # noqa: F401

Z95 = STATS_Z95
DEFAULT_REPLICATES = 200
DEFAULT_SEED = 4242

__all__ = [
    "ALPHA",
    "BoardRanking",
    "DatasetScore",
    "anchor_walk",
    "dataset_rank_scores",
    "dataset_rank_scores_from_summaries",
    "dataset_score",
    "entry_display_name",
    "entry_token",
    "mean_of_rank_scores",
    "summary_statistics",
    "welch_greater_pvalues",
]


# --- §3: one dataset score with its confidence interval --------------------------------


@dataclass(frozen=True)
class DatasetScore:
    mean: float
    ci: float | None  # 95% half-width 1.96·s/√n (s with ddof=1); None with fewer than 2 iterations
    n: int


def dataset_score(values: Sequence[float]) -> DatasetScore:
    """Mean and 95% half-width ``1.96 · s / √n`` of one metric's iteration scores
    (:func:`evaluation.stats.mean_ci`, the one implementation)."""
    values = [v for v in values if v is not None and not np.isnan(v)]
    if not values:
        raise ValueError("a dataset score needs at least one iteration score")
    mean, ci = mean_ci(values)
    return DatasetScore(mean, ci, len(values))


def entry_display_name(model_id: str, few_shot: bool, validation_split: bool) -> str:
    """``org/model`` plus ``(zero-shot)``, ``(val)`` or ``(zero-shot, val)``."""
    tags = [tag for tag, on in (("zero-shot", not few_shot), ("val", validation_split)) if on]
    return f"{model_id} ({', '.join(tags)})" if tags else model_id


def entry_token(key: tuple) -> str:
    """The key of an entry ``(model pk, few_shot, validation_split)`` in a stored ranking's
    ``entries`` (``LeaderboardRanking``): ``"<model pk>:<0/1>:<0/1>"``."""
    return f"{key[0]}:{int(bool(key[1]))}:{int(bool(key[2]))}"


# --- summary statistics ------------------------------------------------------------------


def pad_scores(score_lists: Sequence[Sequence[float] | None]) -> np.ndarray:
    """Ragged per-entry iteration scores (``None`` = missing) → ``(N, I)`` NaN-padded array."""
    width = max((len(s) for s in score_lists if s is not None), default=0)
    out = np.full((len(score_lists), max(width, 1)), np.nan)
    for i, s in enumerate(score_lists):
        if s is not None and len(s):
            out[i, : len(s)] = np.asarray(s, dtype=float)
    return out


def summary_statistics(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, variance (ddof=1) and count along the last axis, ignoring NaN padding.

    Values are sorted first so that two entries with the same multiset of scores get
    bit-identical means and variances: identical score lists are then never significant
    (t = 0 or 0/0), whatever order their iterations were stored in.
    """
    x = np.sort(np.asarray(scores, dtype=float), axis=-1)  # NaN sorts last
    valid = ~np.isnan(x)
    n = valid.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, x, 0.0).sum(axis=-1) / n
        dev = np.where(valid, x - mean[..., None], 0.0)
        var = (dev * dev).sum(axis=-1) / (n - 1)
    mean = np.where(n > 0, mean, np.nan)
    var = np.where(n > 1, var, np.nan)
    return mean, var, n.astype(float)


def summaries_from_ci(
    means, cis, n: int | np.ndarray = 10, z: float | np.ndarray = Z95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Published ``mean ± x`` → (mean, s², n); NaN mean = missing.

    ``x = z·s/√n``: ``z`` = 1.96 (the default) for a 95% half-width, ``z`` = 1 for a
    standard error; a scalar or one value per summary.
    """
    means = np.asarray(means, dtype=float)
    cis = np.asarray(cis, dtype=float)
    counts = np.broadcast_to(np.asarray(n, dtype=float), means.shape).copy()
    s = cis * np.sqrt(counts) / np.broadcast_to(np.asarray(z, dtype=float), means.shape)
    counts = np.where(np.isnan(means), 0.0, counts)
    return means, s * s, counts


def dataset_rank_scores(score_lists: Sequence[Sequence[float] | None], *, alpha: float = ALPHA) -> np.ndarray:
    """Rank scores of N entries on one dataset from their raw iteration scores (None = missing)."""
    mean, var, n = summary_statistics(pad_scores(score_lists))
    return anchor_walk(mean, var, n, alpha=alpha)


def dataset_rank_scores_from_summaries(
    means, cis, n: int | np.ndarray = 10, *, z: float | np.ndarray = Z95, alpha: float = ALPHA
) -> np.ndarray:
    """Rank scores from published summaries: ``mean ± ci`` with ci = z·s/√n.

    The Welch test only needs (mean, s², n), so s = ci·√n/z reconstructs it: this is
    ``scipy.stats.ttest_ind_from_stats(..., equal_var=False, alternative="greater")``.
    ``z`` is 1.96 where ``ci`` is a 95% half-width and 1 where it is a standard error
    (per summary, see :func:`summaries_from_ci`). NaN means are missing entries
    (rank score ``inf``).
    """
    m, v, c = summaries_from_ci(means, cis, n, z)
    return anchor_walk(m, v, c, alpha=alpha)


# --- aggregation: dataset → task → language → group ------------------------------------


def mean_of_rank_scores(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Unweighted mean; any ``inf`` (missing) makes the result ``inf``."""
    return np.mean(np.asarray(values, dtype=float), axis=axis)


def task_index(dataset_tasks: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Distinct tasks in first-seen order and each dataset's task number."""
    tasks: list[str] = []
    for t in dataset_tasks:
        if t not in tasks:
            tasks.append(t)
    return tasks, np.array([tasks.index(t) for t in dataset_tasks], dtype=int)


def aggregate_tasks(
    dataset_scores: np.ndarray, dataset_tasks: Sequence[str]
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(..., N, D)`` dataset rank scores → tasks, ``(..., N, T)`` task scores, ``(..., N)`` language."""
    tasks, tix = task_index(dataset_tasks)
    task_scores = np.stack([mean_of_rank_scores(dataset_scores[..., tix == k]) for k in range(len(tasks))], axis=-1)
    return tasks, task_scores, mean_of_rank_scores(task_scores)


# --- boards ----------------------------------------------------------------------------


@dataclass
class BoardRanking:
    """One board's numbers, entries in input order. ``rank`` 0 = unranked."""

    rank_scores: np.ndarray  # (N,) inf = unranked
    ci_low: np.ndarray  # (N,) NaN when unranked
    ci_high: np.ndarray
    ranks: np.ndarray  # (N,) int
    replicates: np.ndarray  # (B, N) bootstrap language/group rank scores
    tasks: list[str] = field(default_factory=list)
    task_rank_scores: np.ndarray | None = None  # (N, T)
    dataset_rank_scores: np.ndarray | None = None  # (N, D)
    part_rank_scores: np.ndarray | None = None  # group boards: (N, L) language rank scores
    extra: list[dict] | None = None  # per entry: what the method adds (other views, notes)
    contrast: object | None = None  # ranking.contrast.Contrast, where the method's ranks come from one
    rank_sets: object | None = None  # ranking.rank_sets.RankSets: 95% marginal and simultaneous sets

    def positions(self) -> np.ndarray:
        """Display order: ranked entries by their printed rank, ties by rank score (stable),
        then unranked. A method's rank need not follow its rank score (``euroeval-2024``'s is
        the lower end of the entry's own rank set, which a wide interval keeps low), and a
        reader takes the rank column for the order, so the order follows the rank."""
        ranked = np.isfinite(self.rank_scores) & (np.asarray(self.ranks) > 0)
        ranks = np.where(ranked, self.ranks, np.iinfo(np.int64).max)
        return np.lexsort((self.rank_scores, ranks))  # stable; the last key sorts first


# --- what the replicates say about ranks (any method) ---------------------------------


def replicate_ranks(replicates: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(B, N)`` rank of each ranked entry (finite point estimate) within each replicate:
    1 + the number of ranked entries with a lower (better) replicate rank score; 0 for the
    others."""
    reps = np.asarray(replicates, dtype=float)
    ranked = np.flatnonzero(np.isfinite(points))
    out = np.zeros(reps.shape, dtype=int)
    if ranked.size == 0 or reps.shape[0] == 0:
        return out
    sub = np.where(np.isfinite(reps[:, ranked]), reps[:, ranked], np.inf)
    ordered = np.sort(sub, axis=1)
    out[:, ranked] = 1 + np.stack([np.searchsorted(ordered[b], sub[b], side="left") for b in range(sub.shape[0])])
    return out


def rank_intervals(replicates: np.ndarray, points: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The ``level`` interval of each ranked entry's rank over the replicates (lowest and
    highest rank after dropping the tails), widened to contain its rank by point estimate;
    0 for unranked entries and without replicates."""
    points = np.asarray(points, dtype=float)
    n = points.shape[0]
    low, high = np.zeros(n, dtype=int), np.zeros(n, dtype=int)
    ranked = np.flatnonzero(np.isfinite(points))
    if ranked.size == 0 or np.asarray(replicates).shape[0] == 0:
        return low, high
    ranks = replicate_ranks(replicates, points)[:, ranked]
    tail = (1 - level) / 2 * 100
    lo = np.percentile(ranks, tail, axis=0, method="lower")
    hi = np.percentile(ranks, 100 - tail, axis=0, method="higher")
    own = 1 + np.searchsorted(np.sort(points[ranked]), points[ranked], side="left")
    low[ranked] = np.minimum(lo, own)
    high[ranked] = np.maximum(hi, own)
    return low, high


def win_probability(replicates: np.ndarray, a: int, b: int) -> float:
    """P(entry ``a`` ranks above entry ``b``): the share of replicates in which ``a`` has
    the lower rank score (ties count half); NaN without replicates."""
    reps = np.asarray(replicates, dtype=float)
    if reps.shape[0] == 0:
        return float("nan")
    x, y = reps[:, a], reps[:, b]
    return float(np.mean((x < y) + 0.5 * (x == y)))
