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

The anchor walk (§4.3) is sequential per dataset, but independent across datasets and
bootstrap replicates, so it runs as one numpy loop over entry *positions* with every
(replicate, dataset) pair as a vector lane. The one-tailed Welch t-test is an exact
replica of ``scipy.stats.ttest_ind(anchor, current, equal_var=False,
alternative="greater")`` (same formulas, same ``scipy.special.stdtr``); the Student-t
tail is only evaluated where the statistic lies between the normal and the one-degree-of
-freedom critical values, since outside that band the decision cannot depend on df.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from evaluation.stats import Z95 as STATS_Z95
from evaluation.stats import mean_ci

ALPHA = 0.05
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


# --- the one-tailed Welch t-test, vectorised --------------------------------------------


def _welch(m1, v1, n1, m2, v2, n2):
    """t statistic and Welch–Satterthwaite df exactly as scipy computes them."""
    with np.errstate(divide="ignore", invalid="ignore"):
        vn1 = v1 / n1
        vn2 = v2 / n2
        df = (vn1 + vn2) ** 2 / (vn1**2 / (n1 - 1) + vn2**2 / (n2 - 1))
        df = np.where(np.isnan(df), 1.0, df)  # both variances zero: any df will do
        t = (m1 - m2) / np.sqrt(vn1 + vn2)
    return t, df


def welch_greater_pvalues(m1, v1, n1, m2, v2, n2) -> np.ndarray:
    """p-value of H1 "sample 1 has the greater mean": ``ttest_ind(a, b, equal_var=False,
    alternative="greater").pvalue`` from summary statistics (NaN where scipy gives NaN)."""
    t, df = _welch(*(np.asarray(a, dtype=float) for a in (m1, v1, n1, m2, v2, n2)))
    return special.stdtr(df, -t)


# Welch df ≥ min(n1, n2) − 1 ≥ 1 whenever it is defined (n ≥ 2; with n = 1 the variance
# is NaN and so is p), and the one-tailed critical value falls with df from t₁ to z: a
# statistic below z is never significant, one above t₁ always is, whatever the df.
_T_LOW = float(stats.norm.isf(ALPHA)) * (1 - 1e-9)  # below: p > alpha for every df
_T_HIGH = float(stats.t.isf(ALPHA, 1)) * (1 + 1e-9)  # above: p < alpha for every df ≥ 1


def _t_band(counts: np.ndarray, means: np.ndarray) -> tuple[float, float]:
    """The band of t statistics whose decision depends on the Welch df, for the counts of a
    walk's present entries. Welch's df lies between min(n1, n2) − 1 and n1 + n2 − 2 (a
    statistic with n = 1 is NaN, with both variances zero ±inf or NaN: decided without
    df), and the critical value falls with df: above t(df_min) every pair is significant,
    below t(df_max) none is. Ten iterations everywhere: [1.734, 1.833] rather than
    [1.645, 6.314], so the t tail is evaluated for far fewer steps; the decisions are the
    same as with the tail everywhere."""
    n = counts[~np.isnan(means) & (counts >= 2)]
    if n.size == 0:
        return _T_LOW, _T_HIGH
    lo, hi = float(n.min()), float(n.max())
    return (
        float(stats.t.isf(ALPHA, 2 * hi - 2)) * (1 - 1e-9),
        float(stats.t.isf(ALPHA, lo - 1)) * (1 + 1e-9),
    )


# --- §4: the anchor walk -------------------------------------------------------------------


def anchor_walk(means, variances, counts, *, alpha: float = ALPHA) -> np.ndarray:
    """Rank scores of entries along the last axis (any leading axes are independent lanes).

    Per lane: sort the present entries by mean, best first; σ = population std (ddof=0) of
    their means; the best gets 1 and is the anchor; walking down, an entry significantly
    worse than the anchor (one-tailed Welch, p < alpha) gets ``anchor + (m_anchor − m)/σ``
    and becomes the anchor, otherwise it gets the anchor's score. Missing entries (NaN
    mean) get ``inf``. One entry, or σ = 0 (all means equal): every present entry gets 1.
    """
    means = np.asarray(means, dtype=float)
    shape = means.shape
    if means.ndim == 0:
        raise ValueError("anchor_walk needs at least one axis of entries")
    n_entries = shape[-1]
    if means.size == 0:
        return np.full(shape, np.inf)
    m = means.reshape(-1, n_entries)
    v = np.broadcast_to(np.asarray(variances, dtype=float), shape).reshape(-1, n_entries)
    c = np.broadcast_to(np.asarray(counts, dtype=float), shape).reshape(-1, n_entries)
    return _walk_lanes(m, v, c, alpha).reshape(shape)


def _walk_lanes(m: np.ndarray, v: np.ndarray, c: np.ndarray, alpha: float) -> np.ndarray:
    """The anchor walk on ``(L, N)`` arrays (lanes × entries) of means, variances, counts.

    Each lane is sorted (:func:`_lane_order`: the stable order), gathered and transposed to
    position-major ``(N, L)`` so that every step of the walk reads contiguous lane
    vectors; a step records the significant lanes' increase of the score, and the scores
    are the running sum of the increases. Returns ``(L, N)`` rank scores.
    """
    lanes, n_entries = m.shape
    dt = m.dtype if m.dtype in (np.float32, np.float64) else np.dtype(float)
    out = np.full((lanes, n_entries), np.inf, dtype=dt)
    if n_entries == 0 or lanes == 0:
        return out
    present = ~np.isnan(m)
    k = present.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(present, m, 0.0).sum(axis=1) / k
        dev = np.where(present, m - mu[:, None], 0.0)
        sigma = np.sqrt(np.einsum("ij,ij->i", dev, dev) / k)
    del dev
    sigma = np.where(np.isnan(sigma) | (sigma == 0), np.inf, sigma)  # σ = 0: nothing can differ

    order = _lane_order(np.where(present, -m, np.inf))
    del present
    flat = order + (np.arange(lanes) * n_entries)[:, None]
    del order

    def gathered(x):  # sorted lane by lane, then position-major (N, L): contiguous steps
        return np.ascontiguousarray(x.ravel().take(flat).T)

    ms = gathered(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        vn = v / c  # s²/n and (s²/n)²/(n − 1): Welch's pieces (elementwise: before or after the gather)
        q = gathered(vn * vn / (c - 1))
        vn = gathered(vn)
    ok = ~np.isnan(ms)
    t_low, t_high = _t_band(c, m)
    last = int(k.max())
    inv_sigma = (1.0 / sigma).astype(dt)
    # step j's increase of the score (0 where not significant): the scores are their running
    # sum, which numpy adds in order, one position after the other, as the walk did
    scores = np.zeros((n_entries, lanes), dtype=dt)
    scores[0] = 1.0
    a_m, a_vn, a_q = ms[0].copy(), vn[0].copy(), q[0].copy()
    exact = alpha != ALPHA
    t = np.empty(lanes, dtype=dt)
    gap = np.empty(lanes, dtype=dt)
    s2 = np.empty(lanes, dtype=dt)
    sig = np.empty(lanes, dtype=bool)
    band = np.empty(lanes, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(1, last):
            mj, vnj, qj = ms[j], vn[j], q[j]
            np.add(a_vn, vnj, out=s2)
            np.subtract(a_m, mj, out=gap)
            np.sqrt(s2, out=s2)
            np.divide(gap, s2, out=t)  # NaN for a missing entry: never significant
            if exact:
                np.multiply(s2, s2, out=s2)
                df = s2 * s2 / (a_q + qj)
                df[np.isnan(df)] = 1.0
                np.less(special.stdtr(df, -t), alpha, out=sig)
            else:
                np.greater(t, t_high, out=sig)
                np.greater_equal(t, t_low, out=band)
                np.logical_xor(band, sig, out=band)  # t in [t_low, t_high]: df decides
                amb = band.nonzero()[0]
                if amb.size:
                    se2 = s2[amb] ** 2
                    df = se2 * se2 / (a_q[amb] + qj[amb])
                    df[np.isnan(df)] = 1.0  # both variances zero, as scipy does
                    sig[amb] = special.stdtr(df, -t[amb]) < alpha
            # significant lanes move on: a new anchor, the score down by the gap in σ
            np.multiply(gap, inv_sigma, out=scores[j], where=sig)
            np.copyto(a_m, mj, where=sig)
            np.copyto(a_vn, vnj, where=sig)
            np.copyto(a_q, qj, where=sig)
    np.cumsum(scores, axis=0, out=scores)
    scores[~ok] = np.inf
    out.ravel()[flat.ravel()] = scores.T.ravel()
    return out


def _lane_order(key: np.ndarray) -> np.ndarray:
    """``np.argsort(key, axis=1, kind="stable")`` for ``(L, N)`` keys without NaN.

    For single precision the order comes from one sort of unique 64-bit integers: the
    key's bits mapped to an unsigned integer of the same order (−0 and +0 first made
    equal, as they compare), the entry's index below them, so that equal keys keep their
    input order. The same permutation as the stable argsort, about twice as fast."""
    lanes, n = key.shape
    if key.dtype != np.float32 or n >= 1 << 32:
        return np.argsort(key, axis=1, kind="stable")
    key = key + np.float32(0.0)  # −0.0 + 0.0 = +0.0
    bits = key.view(np.uint32)
    flip = (key.view(np.int32) >> 31).view(np.uint32)  # all ones for a negative key
    flip |= np.uint32(0x80000000)
    bits ^= flip  # negative: every bit flipped; positive: the sign bit set
    packed = bits.astype(np.uint64)
    packed <<= np.uint64(32)
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort(axis=1)
    packed &= np.uint64(0xFFFFFFFF)
    return packed.astype(np.intp)


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
