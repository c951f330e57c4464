"""``euroeval-2024``: the Welch-test mean rank score of docs/methodology.md §4 (the default).

Point estimate: per dataset the anchor walk (:func:`leaderboard.ranking.walk.anchor_walk`),
then dataset → task → language (→ group) means. Interval: a bootstrap over iterations and
datasets (:func:`rank_language_board`); rank sets: 95% marginal and simultaneous confidence
sets for ranks (:mod:`leaderboard.ranking.rank_sets`) from the paired contrast scores
(:func:`leaderboard.ranking.contrast.paired_factors`); rank: the marginal set's lower end
(version 3; version 2 counted the entries significantly better pair by pair, one-tailed at
1.645, and version 1 used dense groups of overlapping intervals, :func:`significance_groups`).
Version 4 puts the rows in the order of that rank, ties by rank score (version 3 ordered them
by rank score, so a rank could read 10, 9, 10), which also changes ``p_above_next``.
EuroEval published boards with this method until 2026-05-29;
``tests/ranking/test_published_board_reproduction.py`` reproduces their rank scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leaderboard.ranking import kernels
from leaderboard.ranking.contrast import (
    Contrast,
    board_contrast,
    combine_contrasts,
    dataset_weights,
    paired_factors,
    upper_bound_ranks,
)
from leaderboard.ranking.core import (
    ALPHA,
    DEFAULT_REPLICATES,
    DEFAULT_SEED,
    BoardRanking,
    aggregate_tasks,
    anchor_walk,
    mean_of_rank_scores,
    summary_statistics,
    task_index,
)
from leaderboard.ranking.rank_sets import rank_sets_from_factors
from leaderboard.ranking.registry import RankingMethod, register
from leaderboard.ranking.walk import _walk_lanes

# --- uncertainty of the rank score ------------------------------------------------------


def _bootstrap_language_scores(
    scores: np.ndarray, dataset_tasks: Sequence[str], replicates: int, seed: int, alpha: float
) -> np.ndarray:
    """``(B, N)`` language rank scores under the bootstrap described in ``rank_language_board``."""
    d, n, i = scores.shape
    b = replicates
    rng = np.random.default_rng(seed)

    # Work in each dataset's point-estimate order: resampled orders are then nearly sorted.
    mean0, var0, count0 = summary_statistics(scores)
    perm = np.argsort(np.where(np.isnan(mean0), np.inf, -mean0), axis=1, kind="stable")  # (D, N)
    x = np.take_along_axis(scores, perm[:, :, None], axis=1)
    mean0, var0, count0 = (np.take_along_axis(a, perm, axis=1) for a in (mean0, var0, count0))
    valid = ~np.isnan(x)
    mu0 = np.where(count0 > 0, mean0, 0.0)
    centred = np.where(valid, x - mu0[..., None], 0.0).transpose(0, 2, 1)  # (D, I, N); exact variances

    # Iteration resampling: per replicate and dataset, one draw of I iteration indices
    # shared by every entry (iteration k is the same test resample for all models).
    draws = rng.integers(0, i, size=(d, b, i))
    w = np.zeros((d, b, i))
    np.add.at(w, (np.arange(d)[:, None, None], np.arange(b)[None, :, None], draws), 1.0)
    ragged = bool((valid.any(axis=2) & ~valid.all(axis=2)).any())
    tasks, tix = task_index(dataset_tasks)
    picks = []
    for k in range(len(tasks)):
        members = np.flatnonzero(tix == k)
        picks.append(members[rng.integers(0, members.size, size=(b, members.size))])  # (B, k)

    # Replicates in chunks of about _LANES_PER_CHUNK walk lanes: bounded memory, warm caches.
    lang = np.zeros((b, n))
    chunk = max(1, _LANES_PER_CHUNK // max(d, 1))
    for r0 in range(0, b, chunk):
        r1 = min(b, r0 + chunk)
        rs = _resampled_dataset_rank_scores(
            w[:, r0:r1], centred, mu0, mean0, var0, count0, valid, i, ragged, alpha
        )  # (D, b', N), entries in each dataset's point-estimate order
        _task_means(rs, perm, [pick[r0:r1] for pick in picks], lang[r0:r1])
    return lang / len(tasks)


def _task_means(rs: np.ndarray, perm: np.ndarray, picks: list[np.ndarray], lang: np.ndarray) -> None:
    """``lang[r] +=`` each task's mean of its drawn datasets' rank scores ``rs`` ``(D, B, N)``
    (dataset k's entries in the order ``perm[k]``), task by task (in C where it is built:
    the same sums)."""
    d, b, n = rs.shape
    if kernels.AVAILABLE and rs.dtype == np.float32:
        inv = np.empty((d, n), dtype=np.int32)
        np.put_along_axis(inv, perm, np.arange(n, dtype=np.int32)[None, :], axis=1)
        kernels.task_means(rs, inv, picks, lang)
        return
    rs_bdn = np.empty((b, d, n))
    for k in range(d):
        rs_bdn[:, k, perm[k]] = rs[k]
    rows = np.arange(b)[:, None]
    for pick in picks:
        lang += rs_bdn[rows, pick].mean(axis=1)


_LANES_PER_CHUNK = 1500


def _resampled_dataset_rank_scores(w, centred, mu0, mean0, var0, count0, valid, i, ragged, alpha):
    """Dataset rank scores ``(D, B, N)`` for the iteration weights ``w`` ``(D, B, I)``.

    Means and variances are computed in double precision, a few datasets at a time (so
    that their arrays stay in cache), and rounded once to single precision as they are
    stored (ample for an interval; it halves the walk's memory traffic)."""
    d, b, _ = w.shape
    n = mu0.shape[1]
    f32 = np.float32
    m, var = np.empty((d, b, n), f32), np.empty((d, b, n), f32)
    cnt = np.empty((d, b, n), f32) if ragged else None
    squares = centred * centred
    step = max(1, _MOMENT_VALUES // max(b * n, 1))
    for k0 in range(0, d, step):
        k = slice(k0, min(d, k0 + step))
        parts = (w, centred, squares, mu0, mean0, var0, count0, valid)
        _moments(*(a[k] for a in parts), i, m[k], var[k], cnt[k] if ragged else None)
    if ragged:
        cnt = cnt.reshape(d * b, n)
    else:  # every replicate has every iteration of a present entry: one row of counts per dataset
        cnt = np.where(count0 > 0, f32(i), f32(0))
    rs = _walk_lanes(m.reshape(d * b, n), var.reshape(d * b, n), cnt, alpha)
    return rs.reshape(d, b, n)


_MOMENT_VALUES = 1 << 18  # resampled values per block of datasets


def _moments(w, centred, squares, mu0, mean0, var0, count0, valid, i, m_out, var_out, cnt_out) -> None:
    """Resampled means and variances (ddof 1) of a few datasets into single-precision
    ``m_out`` and ``var_out``, and their counts into ``cnt_out`` where iterations are
    ragged (``None`` otherwise: the counts are the entries' own)."""
    ragged = cnt_out is not None
    s1 = np.matmul(w, centred)  # (D', B, N)
    s2 = np.matmul(w, squares)
    if ragged:
        cnt = np.matmul(w, valid.astype(float).transpose(0, 2, 1))
    else:
        cnt = np.where(count0 > 0, float(i), 0.0)[:, None, :]  # (D', 1, N)
    if not ragged and kernels.AVAILABLE and m_out.flags.c_contiguous and var_out.flags.c_contiguous:
        kernels.moments(s1, s2, cnt[:, 0, :], mu0, m_out, var_out)  # the same operations, one pass
    else:
        _finish_moments(s1, s2, cnt, mu0, mean0, var0, count0, m_out, var_out, cnt_out)
    absent = count0[:, None, :] == 0
    if absent.any():
        np.copyto(m_out, np.nan, where=absent)


def _finish_moments(s1, s2, cnt, mu0, mean0, var0, count0, m_out, var_out, cnt_out) -> None:
    """The moments from the sums ``s1``, ``s2`` and counts (see :func:`_moments`)."""
    ragged = cnt_out is not None
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.add(mu0[:, None, :], s1 / cnt, out=None if ragged else m_out, casting="same_kind")
        s1 *= s1
        s1 /= cnt
        np.subtract(s2, s1, out=s2)
        s2 /= cnt - 1
        var = np.maximum(s2, 0.0, out=None if ragged else var_out, casting="same_kind")
    if ragged:  # a present entry whose resample hit only padding keeps its own statistics
        lost = (cnt == 0) & (count0[:, None, :] > 0)
        m_out[...] = np.where(lost, mean0[:, None, :], m)
        var_out[...] = np.where(lost, var0[:, None, :], np.where(cnt > 1, var, np.nan))
        cnt_out[...] = np.where(lost, count0[:, None, :], cnt)


def percentile_interval(
    replicates: np.ndarray, point: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval per column, widened to contain the point estimate.

    Near the floor of 1.0 the percentile interval of the best entries can sit entirely
    above the point estimate (the resampled best is often someone else); an interval that
    does not contain its own estimate would be misleading, so it is extended to it.
    Columns with a non-finite point estimate (unranked entries) get NaN.
    """
    tail = (1 - level) / 2 * 100
    finite = np.isfinite(point)
    low = np.full(point.shape, np.nan)
    high = np.full(point.shape, np.nan)
    if finite.any() and replicates.shape[0]:
        lo, hi = np.percentile(replicates[:, finite], [tail, 100 - tail], axis=0)
        low[finite] = np.minimum(lo, point[finite])
        high[finite] = np.maximum(hi, point[finite])
    return low, high


def significance_groups(points: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """Dense ranks that put entries not significantly different into the same group.

    Rule: take the ranked entries (finite point estimate) in order of rank score, best
    first (ties keep their input order). The first entry opens group 1 and is its
    *anchor*. Each next entry joins the current group when its interval overlaps the
    anchor's interval (``low ≤ anchor_high``); otherwise it opens the next group (rank +1)
    and becomes the new anchor. Comparing with the anchor rather than the previous entry
    keeps groups from chaining indefinitely; ranks are dense (1, 2, 3, ...), monotone in
    the rank score, and unranked entries get 0.
    """
    points = np.asarray(points, dtype=float)
    ranks = np.zeros(points.shape, dtype=int)
    ranked = np.flatnonzero(np.isfinite(points))
    if ranked.size == 0:
        return ranks
    order = ranked[np.argsort(points[ranked], kind="stable")]
    group, anchor_high = 1, highs[order[0]]
    ranks[order[0]] = 1
    for e in order[1:]:
        if lows[e] > anchor_high:
            group += 1
            anchor_high = highs[e]
        ranks[e] = group
    return ranks


def rank_language_board(
    scores: np.ndarray,
    dataset_tasks: Sequence[str],
    *,
    replicates: int = DEFAULT_REPLICATES,
    seed: int = DEFAULT_SEED,
    alpha: float = ALPHA,
) -> BoardRanking:
    """Rank N entries on a language board from ``(D, N, I)`` primary iteration scores.

    Point estimate: dataset rank scores (anchor walk) → task (mean) → language (mean).

    Interval: ``replicates`` bootstrap replicates with ``numpy.random.default_rng(seed)``.
    Each replicate (1) resamples the iterations of every dataset with replacement, using
    one index draw per dataset shared by all entries (iteration k is the same resample of
    the test set for every model, docs/methodology.md §1, so the pairing is kept), recomputing
    means, variances, σ and the whole anchor walk; and (2) resamples the board's datasets
    with replacement within each task (the same number per task), then averages dataset →
    task → language. The 2.5th and 97.5th percentiles of the replicates, widened to contain
    the point estimate, give the 95% interval; :func:`significance_groups` gives the rank.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 3:
        raise ValueError("scores must have shape (datasets, entries, iterations)")
    d, n, _ = scores.shape
    if len(dataset_tasks) != d:
        raise ValueError("one task per dataset is required")
    if d == 0:
        empty = np.full(n, np.inf)
        return BoardRanking(empty, np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, int), np.zeros((0, n)))
    mean, var, cnt = summary_statistics(scores)
    ds = anchor_walk(mean, var, cnt, alpha=alpha)  # (D, N)
    tasks, task_scores, lang = aggregate_tasks(ds.T, dataset_tasks)
    reps = (
        _bootstrap_language_scores(scores, dataset_tasks, replicates, seed, alpha)
        if replicates > 0 and n > 0
        else np.zeros((0, n))
    )
    weights = dataset_weights(dataset_tasks)
    theta, factors, df = paired_factors(scores, weights)
    contrast = board_contrast(mean, var, cnt, weights).with_factors(theta, factors, df)
    return _with_interval(lang, reps, contrast, tasks=tasks, task_rank_scores=task_scores, dataset_rank_scores=ds.T)


def rank_group_board(
    language_scores: np.ndarray,
    language_replicates: Sequence[np.ndarray],
    language_contrasts: Sequence[Contrast] | None = None,
) -> BoardRanking:
    """A group board from its language boards, entries aligned across them.

    ``language_scores`` is ``(N, L)`` (``inf`` where the entry is unranked or absent on a
    language board); ``language_replicates`` holds each language's ``(B, N)`` replicates
    (columns of absent entries may be anything). The group rank score is the mean of the
    language rank scores; its replicates are the mean of the languages' replicates, which
    were drawn independently per language. ``language_contrasts`` (each laid out on the
    group's N entries) give the ranks; without them, overlapping intervals do (version 1).
    """
    language_scores = np.asarray(language_scores, dtype=float)
    n = language_scores.shape[0]
    points = mean_of_rank_scores(language_scores, axis=1) if language_scores.shape[1] else np.full(n, np.inf)
    if language_replicates and all(r.shape[0] for r in language_replicates):
        reps = np.mean(np.stack([np.where(np.isfinite(r), r, np.inf) for r in language_replicates]), axis=0)
    else:
        reps = np.zeros((0, n))
    contrast = combine_contrasts(language_contrasts) if language_contrasts else None
    return _with_interval(points, reps, contrast, part_rank_scores=language_scores)


def _with_interval(points: np.ndarray, reps: np.ndarray, contrast: Contrast | None, **parts) -> BoardRanking:
    """A board's ranking from its point rank scores, bootstrap replicates and pairwise
    contrasts: the 95% interval of each entry's rank score (from the replicates), its 95%
    rank sets (:mod:`leaderboard.ranking.rank_sets`, from the paired contrast scores) and
    its rank, the lower end of its marginal set: 1 + the number of entries better than it
    with the multiplicity of its own comparisons accounted for. Without paired contrast
    scores, 1 + the number significantly better pair by pair (one-tailed); without a
    contrast, the significance groups of overlapping intervals (version 1)."""
    low, high = percentile_interval(reps, points)
    sets = None
    if contrast is not None and contrast.scores is not None:
        theta = np.where(np.isfinite(points), contrast.scores, np.nan)
        sets = rank_sets_from_factors(theta, contrast.factors, df=contrast.df)
        # an entry ranked without a paired score (an iteration too few): pair by pair
        ranks = sets.marginal_low.copy()
        if (np.isfinite(points) & (ranks == 0)).any():  # pair by pair only where it is needed
            ranks = np.where(ranks > 0, ranks, upper_bound_ranks(points, contrast))
    elif contrast is not None:
        ranks = upper_bound_ranks(points, contrast)
    else:
        ranks = significance_groups(points, low, high)
    return BoardRanking(
        rank_scores=points,
        ci_low=low,
        ci_high=high,
        ranks=ranks,
        replicates=reps,
        contrast=contrast,
        rank_sets=sets,
        **parts,
    )


class EuroEval2024(RankingMethod):
    name = "euroeval-2024"
    version = "4"
    label = "EuroEval 2024: Welch-test mean rank score"
    description = (
        "Per dataset, entries sorted by mean; walking down, an entry significantly worse than the "
        "anchor (one-tailed Welch test, p < 0.05) moves the rank score by the difference in "
        "standard deviations of the means. Dataset → task → language means; a bootstrap over "
        "iterations and datasets gives the 95% interval. Rank: the lower end of the entry's 95% marginal "
        "confidence set for its rank (Mogstad et al. 2024), from paired contrasts over the board's "
        "datasets: 1 + the number of entries better than it, its own comparisons corrected jointly."
    )
    rank_text = "1 + the number of entries significantly better (95%, its own comparisons corrected together)"

    def rank_language_board(self, scores, dataset_tasks, entries, *, replicates, seed):
        return rank_language_board(scores, dataset_tasks, replicates=replicates, seed=seed)

    def rank_group_board(self, language_scores, language_replicates, language_contrasts=None):
        return rank_group_board(language_scores, language_replicates, language_contrasts)


METHOD = register(EuroEval2024())
