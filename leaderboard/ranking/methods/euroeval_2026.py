"""``euroeval-2026``: EuroEval's ranking since 2026-05-29 (EuroEval PR #1846).

As EuroEval's generator at ``f37841c8d`` computes it (``tests/ranking/data/euroeval-2026/
README.md``):

* The population P of a board is the set of eligible entries: those with a score on every
  ranked dataset (orthogonal tasks never count: the caller leaves them out). A "(val)"
  entry is left out when the same model has a test-split entry with the same few-shot
  setting.
* Per dataset d: ``r(m, d) = 1 + (best_mean_d − mean(m, d)) / pooled_sd_d``, with the best
  mean in P and the population standard deviation (ddof 0) of every iteration score of P
  on d.
* ``replicates`` bootstrap replicates (EuroEval: 100, ``default_rng(42)``): per task the
  datasets are drawn with replacement, and per drawn dataset each entry's iteration scores
  are resampled with replacement; best mean and pooled spread stay fixed. Task = mean of
  its drawn datasets, language = mean of tasks, group = mean of languages.
* The rank score is the median over replicates, its interval the 2.5th and 97.5th
  percentiles. Glossa adds 95% confidence sets for the rank from the replicates
  (:func:`leaderboard.ranking.rank_sets.rank_sets_from_replicates`, version 2); the
  printed rank stays EuroEval's tie rank below, so that the published boards reproduce.
  Tie ranks (dense): sorted by median, an entry opens a new rank when the
  2.5th percentile of (entry − anchor) over the replicates is above 0, the anchor being
  the first entry of the current rank.

Besides the board's own ranking (all ranked tasks: EuroEval's ``generative`` board), each
language board carries EuroEval's ``all_models`` ranking in the entries' ``extra``: the NLU
tasks only, where encoders are eligible too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaluation.tasks import UnknownTask, get_task
from leaderboard.ranking import kernels
from leaderboard.ranking.core import BoardRanking, task_index
from leaderboard.ranking.rank_sets import rank_sets_from_replicates
from leaderboard.ranking.registry import RankingMethod, register

EUROEVAL_SEED = 42
EUROEVAL_REPLICATES = 100
EUROEVAL_ITERATIONS = 10  # what a group board's replicates resample (EuroEval runs 10)
VAL_DROPPED = "validation-split entry left out: the model has a test-split entry"


def is_nlu(task: str) -> bool:
    """EuroEval's task category (its task_config.yaml): the ``all_models`` board counts NLU tasks."""
    try:
        return get_task(task).category == "nlu"
    except UnknownTask:
        return False


def dropped_validation_entries(entries: Sequence[tuple]) -> np.ndarray:
    """``(N,)`` mask of "(val)" entries whose model has a test-split entry (same few-shot)."""
    test = {(key[0], key[1]) for key in entries if not key[2]}
    return np.array([bool(key[2]) and (key[0], key[1]) in test for key in entries], dtype=bool)


def pooled_scales(scores: np.ndarray, population: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per dataset: the best mean in the population and the ddof-0 spread of its iterations."""
    x = scores[:, population, :]
    means = np.nanmean(x, axis=2)  # (D, P)
    best = means.max(axis=1)
    flat = x.reshape(x.shape[0], -1)
    sd = np.nanstd(flat, axis=1)
    return best, np.where(sd > 0, sd, np.inf)


def bootstrap_scores(
    scores: np.ndarray, dataset_tasks: Sequence[str], population: np.ndarray, replicates: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point dataset rank scores ``(D, P)``, task scores ``(T, P)`` and ``(B, P)`` replicates."""
    x = scores[:, population, :]  # (D, P, I); iteration scores first, NaN padding last
    x = np.ascontiguousarray(np.sort(x, axis=2))
    counts = (~np.isnan(x)).sum(axis=2)  # (D, P), all ≥ 1 in the population
    best, sd = pooled_scales(scores, population)
    point = 1 + (best[:, None] - np.nanmean(x, axis=2)) / sd[:, None]
    tasks, tix = task_index(dataset_tasks)
    members = [np.flatnonzero(tix == k) for k in range(len(tasks))]
    task_point = np.stack([point[m].mean(axis=0) for m in members])
    rng = np.random.default_rng(seed)
    reps = kernels.bootstrap_draws(x, counts, members, best, sd, replicates, rng) if kernels.AVAILABLE else None
    if reps is None:
        reps = _bootstrap_numpy(x, counts, members, best, sd, replicates, rng)
    return point, task_point, reps


def _bootstrap_numpy(x, counts, members, best, sd, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """``(B, P)`` replicates: per task the datasets drawn with replacement, per drawn dataset
    each entry's iteration indices (``counts`` of them), task terms averaged."""
    reps = np.empty((replicates, x.shape[1]))
    # Every entry has every iteration on a board without gaps: one scalar bound draws the
    # same stream as the per-entry bounds, four times faster (tests/ranking pins the numbers).
    same = counts.size and bool((counts == counts.flat[0]).all())
    flat_x = x.reshape(-1)  # a view
    _, entries, iterations = x.shape
    for b in range(replicates):
        total = np.zeros(x.shape[1])
        for m in members:
            drawn = m[rng.integers(0, m.size, size=m.size)]
            # One call draws every drawn dataset's iteration indices: the same stream as one
            # call per dataset, in one vector operation.
            high = int(counts.flat[0]) if same else counts[drawn][:, :, None]
            idx = rng.integers(0, high, size=(drawn.size, *x.shape[1:]))
            idx += (np.arange(entries) * iterations)[None, :, None] + (drawn * (entries * iterations))[:, None, None]
            means = flat_x.take(idx).mean(axis=2)  # (k, P): each drawn dataset's resampled means
            total += (1 + (best[drawn][:, None] - means) / sd[drawn][:, None]).sum(axis=0) / m.size
        reps[b] = total / len(members)
    return reps


def tie_ranks(medians: np.ndarray, reps: np.ndarray) -> np.ndarray:
    """Dense ranks of the finite ``medians``: a new rank when the 2.5th percentile of
    (entry − anchor) over the replicates is above 0; 0 for the others."""
    ranks = np.zeros(medians.shape, dtype=int)
    ranked = np.flatnonzero(np.isfinite(medians))
    if ranked.size == 0:
        return ranks
    order = ranked[np.argsort(medians[ranked], kind="stable")]
    if reps.shape[0] == 0:
        ranks[order] = 1
        return ranks
    # the next entries' percentiles against the anchor, a block at a time (numpy's
    # percentile along an axis is its 1-D percentile of each column): the first above 0
    # opens the next rank and becomes the anchor
    group, anchor, at, block = 1, order[0], 1, 16
    ranks[anchor] = 1
    while at < order.size:
        following = order[at : at + block]
        low = np.percentile(reps[:, following] - reps[:, anchor][:, None], 2.5, axis=0)
        above = np.flatnonzero(low > 0)
        if above.size == 0:
            ranks[following] = group
            at += following.size
            block = min(2 * block, 512)
            continue
        first = int(above[0])
        ranks[following[:first]] = group
        group += 1
        anchor = following[first]
        ranks[anchor] = group
        at += first + 1
        block = max(16, 2 * (first + 1))
    return ranks


def _summarise(reps: np.ndarray, eligible: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Median, 2.5 and 97.5 percentiles and tie ranks of ``(B, N)`` replicates (eligible columns)."""
    n = eligible.size
    median, low, high = np.full(n, np.inf), np.full(n, np.nan), np.full(n, np.nan)
    if eligible.any() and reps.shape[0]:
        median[eligible] = np.median(reps[:, eligible], axis=0)
        low[eligible], high[eligible] = np.percentile(reps[:, eligible], [2.5, 97.5], axis=0)
    return median, low, high, tie_ranks(median, reps)


def _rank_sets(median: np.ndarray, reps: np.ndarray, iterations: int):
    """95% rank sets from the replicates (lower rank score is better), t tails for the
    iterations they resample; None without replicates. The printed rank stays EuroEval's
    tie rank: this method reproduces EuroEval's published boards."""
    if reps.shape[0] < 2 or not np.isfinite(median).any():
        return None
    return rank_sets_from_replicates(-median, -np.where(np.isfinite(reps), reps, np.nan), iterations=iterations)


def rank_category(
    scores: np.ndarray, dataset_tasks: Sequence[str], eligible: np.ndarray, replicates: int, seed: int
) -> BoardRanking:
    """One EuroEval category board over ``(D, N, I)`` scores; ``eligible`` before the
    every-dataset requirement."""
    d, n, _ = scores.shape
    present = ~np.isnan(scores).all(axis=2)  # (D, N)
    population = eligible & present.all(axis=0) if d else np.zeros(n, dtype=bool)
    tasks, _ = task_index(dataset_tasks)
    ds = np.full((n, d), np.inf)
    ts = np.full((n, len(tasks)), np.inf)
    reps = np.full((max(replicates, 0), n), np.inf)
    if population.any():
        point, task_point, r = bootstrap_scores(scores, dataset_tasks, population, max(replicates, 0), seed)
        ds[population] = point.T
        ts[population] = task_point.T
        reps[:, population] = r
    if replicates <= 0:  # no bootstrap: the point estimate, no interval, no ties
        lang = np.where(population, ts.mean(axis=1) if tasks else np.inf, np.inf)
        ranks = np.zeros(n, dtype=int)
        finite = np.flatnonzero(np.isfinite(lang))
        ranks[finite[np.argsort(lang[finite], kind="stable")]] = np.arange(1, finite.size + 1)
        nan = np.full(n, np.nan)
        return BoardRanking(lang, nan, nan.copy(), ranks, np.zeros((0, n)), tasks, ts, ds)
    median, low, high, ranks = _summarise(reps, population)
    board = BoardRanking(median, low, high, ranks, reps, tasks, ts, ds)
    board.rank_sets = _rank_sets(median, reps, scores.shape[2])
    return board


def _view(board: BoardRanking, e: int) -> dict | None:
    if not np.isfinite(board.rank_scores[e]):
        return None
    ci = [float(board.ci_low[e]), float(board.ci_high[e])] if np.isfinite(board.ci_low[e]) else None
    return {"rank": int(board.ranks[e]), "rank_score": float(board.rank_scores[e]), "rank_score_ci": ci}


class EuroEval2026(RankingMethod):
    name = "euroeval-2026"
    version = "2"
    label = "EuroEval 2026: pooled-spread z-scores with bootstrap ties"
    description = (
        "Per dataset, 1 + (best mean − mean) / pooled standard deviation of all iteration scores "
        "of the eligible entries (those with every ranked dataset); dataset → task → language "
        "means. The rank score is the median of 100 bootstrap replicates over datasets and "
        "iterations (seed 42); an entry opens a new rank when the 2.5th percentile of its "
        "difference to the first entry of the current rank is above 0. A validation-split "
        "entry is left out when the model has a test-split entry."
    )
    rank_text = "EuroEval's tie rank: a new rank where the bootstrap puts an entry below the first of the current one"
    default_replicates = EUROEVAL_REPLICATES
    fixed_seed = EUROEVAL_SEED

    def rank_language_board(self, scores, dataset_tasks, entries, *, replicates, seed):
        scores = np.asarray(scores, dtype=float)
        eligible = ~dropped_validation_entries(entries)
        board = rank_category(scores, dataset_tasks, eligible, replicates, seed)
        nlu = [k for k, task in enumerate(dataset_tasks) if is_nlu(task)]
        all_models = (
            rank_category(scores[nlu], [dataset_tasks[k] for k in nlu], eligible, replicates, seed) if nlu else None
        )
        board.extra = [
            {
                **({"all_models": _view(all_models, e)} if all_models is not None else {}),
                **({} if eligible[e] else {"note": VAL_DROPPED}),
            }
            for e in range(len(entries))
        ]
        return board

    def rank_group_board(self, language_scores, language_replicates, language_contrasts=None):
        language_scores = np.asarray(language_scores, dtype=float)
        n = language_scores.shape[0]
        eligible = np.isfinite(language_scores).all(axis=1) if language_scores.shape[1] else np.zeros(n, bool)
        if language_replicates and all(r.shape[0] for r in language_replicates):
            reps = np.mean(np.stack([np.where(np.isfinite(r), r, np.inf) for r in language_replicates]), axis=0)
            median, low, high, ranks = _summarise(reps, eligible)
        else:
            reps = np.zeros((0, n))
            median = np.where(eligible, language_scores.mean(axis=1) if language_scores.shape[1] else np.inf, np.inf)
            low, high, ranks = np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=int)
        board = BoardRanking(median, low, high, ranks, reps, part_rank_scores=language_scores)
        board.rank_sets = _rank_sets(median, reps, EUROEVAL_ITERATIONS)
        return board


METHOD = register(EuroEval2026())
