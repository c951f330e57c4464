"""Which entries are significantly better than which: a paired, seed-free test, and the
rank it gives (1 + the number of entries significantly better, Arena's "Rank (UB)").

The bootstrap replicates give each entry's interval, but a decision counted from their
tails moves with the seed: an entry has about a hundred pairs, and whichever sits near
the threshold flips from one seed to the next (BENCHMARKS.md, "Ranking"). So the decision
comes from the iteration scores directly.

For two entries A and B on a board, the *contrast* is the difference of their dataset
means in units of each dataset's σ (the population standard deviation of the entries'
means, docs/methodology.md §4 step 2: the rank score's own unit), weighted as the rank score
weights datasets (dataset → task → language means, so a dataset weighs
``1 / (tasks · datasets of its task)``)::

    D(A, B) = Σ_d w_d (m_Ad − m_Bd) / σ_d
    V(A, B) = Σ_d w_d² (s²_Ad / n_Ad + s²_Bd / n_Bd) / σ_d²

``D`` is paired: both entries are compared on the same datasets (whose iterations are
the same resamples of the test set). ``z = D / √V`` is Welch's statistic for that linear
contrast of independent means; A is *significantly better* than B when ``z > Z_CRIT``
(one-tailed, α = 0.05, as the walk's Welch tests). A group board weighs its languages
equally: ``D = Σ_L D_L / L``, ``V = Σ_L V_L / L²``. Nothing is drawn at random, so the
rank is the same for every seed; one borderline pair moves one entry's rank by one.
Pure numpy; no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from leaderboard.ranking.core import task_index

Z_CRIT = 1.6448536269514722  # scipy.stats.norm.isf(0.05)


class Contrast:
    """Pairwise contrasts of a board's N entries: ``diff[a, b]`` = D(a, b) (positive when
    a is better), ``var[a, b]`` = V(a, b); NaN where a variance is unknown.

    The two N × N matrices cost more than the rest of a large board's ranking and are
    only read where an entry has no paired score (and by tests), so they may be given as
    ``pairs``, a function returning ``(diff, var)``, computed when first read."""

    def __init__(
        self,
        diff: np.ndarray | None = None,
        var: np.ndarray | None = None,
        scores: np.ndarray | None = None,
        factors: np.ndarray | None = None,
        df: int | None = None,
        *,
        pairs: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
    ):
        if (diff is None or var is None) and pairs is None:
            raise ValueError("a contrast needs diff and var, or a function giving them")
        self._pairs = (diff, var) if pairs is None else None
        self._later = pairs
        self.scores = scores  # (N,) θ with θ_a − θ_b = diff[a, b] (paired_factors)
        self.factors = factors  # (N, K) paired errors of θ: Cov(θ) = F Fᵀ
        self.df = df  # degrees of freedom of the variances behind the factors

    def _both(self) -> tuple[np.ndarray, np.ndarray]:
        if self._pairs is None:
            self._pairs = self._later()
            self._later = None
        return self._pairs

    @property
    def diff(self) -> np.ndarray:  # (N, N)
        return self._both()[0]

    @property
    def var(self) -> np.ndarray:  # (N, N)
        return self._both()[1]

    def with_factors(self, scores: np.ndarray, factors: np.ndarray, df: int) -> Contrast:
        """The same pairs (computed once, when first read) with paired scores and factors."""
        return Contrast(scores=scores, factors=factors, df=df, pairs=self._both)

    def z(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            z = self.diff / np.sqrt(self.var)
        # equal scores (0/0) are not significant; a difference with no spread at all is
        return np.where(np.isnan(z) & (self.var == 0) & (self.diff == 0), 0.0, z)

    def reindexed(self, positions: np.ndarray, size: int) -> Contrast:
        """The contrast laid out on ``size`` entries, entry ``k`` at ``positions[k]``
        (NaN for entries not on this board)."""

        def pairs():
            diff = np.full((size, size), np.nan)
            var = np.full((size, size), np.nan)
            diff[np.ix_(positions, positions)] = self.diff
            var[np.ix_(positions, positions)] = self.var
            return diff, var

        if self.scores is None or self.factors is None:
            return Contrast(pairs=pairs)
        scores = np.full(size, np.nan)
        scores[positions] = self.scores
        factors = np.zeros((size, self.factors.shape[1]))
        factors[positions] = self.factors
        return Contrast(scores=scores, factors=factors, df=self.df, pairs=pairs)


def dataset_weights(dataset_tasks: Sequence[str]) -> np.ndarray:
    """Each dataset's weight in the language rank score: ``1 / (T · n_task)``."""
    tasks, tix = task_index(dataset_tasks)
    if not tasks:
        return np.zeros(0)
    per_task = np.bincount(tix, minlength=len(tasks)).astype(float)
    return 1.0 / (len(tasks) * per_task[tix])


def board_contrast(means: np.ndarray, variances: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> Contrast:
    """The contrast of every pair from ``(D, N)`` means, variances (ddof 1) and counts
    (the pairs computed when first read)."""
    return Contrast(pairs=lambda: _board_pairs(means, variances, counts, weights))


def _board_pairs(means, variances, counts, weights) -> tuple[np.ndarray, np.ndarray]:
    means = np.asarray(means, dtype=float)
    d_count, n = means.shape if means.ndim == 2 else (0, 0)
    diff = np.zeros((n, n))
    var = np.zeros((n, n))
    for d in range(d_count):
        m = means[d]
        present = np.isfinite(m)
        if present.sum() < 2:
            continue
        sigma = float(np.std(m[present]))
        if not sigma > 0:  # every entry has the same mean: the dataset separates nobody
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            scaled = np.where(present, m / sigma, np.nan)
            se2 = np.where(present, variances[d] / counts[d] / sigma**2, np.nan)
        w = float(weights[d])
        diff += w * (scaled[:, None] - scaled[None, :])
        var += w * w * (se2[:, None] + se2[None, :])
    return diff, var


def paired_factors(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Each entry's contrast score and its error as factors, from ``(D, N, I)`` scores.

    Score: ``θ_j = Σ_d a_d m_jd`` with ``a_d = w_d / σ_d`` (so ``θ_A − θ_B = D(A, B)``);
    factors: one column per (dataset, iteration), ``a_d (x_jdi − m_jd) / √(n_jd (n_jd − 1))``,
    so that ``‖F_A − F_B‖²`` is the variance of ``D(A, B)`` from the *paired* differences
    ``x_Adi − x_Bdi`` (iteration i is the same resample of dataset d for every entry, so
    what the entries share cancels). Returns ``(θ (N,), F (N, D·I), df)`` with df the
    fewest iterations of any entry and dataset minus one; θ is NaN for an entry missing a
    dataset or with fewer than two iterations on one.
    """
    scores = np.asarray(scores, dtype=float)
    d_count, n, i = scores.shape
    theta = np.zeros(n)
    factors = np.zeros((n, d_count, i))
    fewest = i
    for d in range(d_count):
        x = scores[d]
        valid = ~np.isnan(x)
        cnt = valid.sum(axis=1)
        present = cnt > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.where(present, np.where(valid, x, 0.0).sum(axis=1) / np.maximum(cnt, 1), np.nan)
        theta = theta + np.where(present, 0.0, np.nan)
        fewest = min(fewest, int(cnt[present].min())) if present.any() else fewest
        sigma = float(np.std(m[present])) if present.sum() >= 2 else 0.0
        if not sigma > 0:
            continue
        a = float(weights[d]) / sigma
        theta = theta + a * np.where(present, m, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = a / np.sqrt(cnt * (cnt - 1.0))
        factors[:, d, :] = np.where(valid & (cnt[:, None] > 1), (x - m[:, None]) * scale[:, None], 0.0)
        theta = np.where(cnt > 1, theta, np.where(present, np.nan, theta))
    return theta, factors.reshape(n, d_count * i), max(fewest - 1, 1)


def combine_contrasts(parts: Sequence[Contrast]) -> Contrast:
    """A group board's contrast: the mean of its languages' (entries already aligned)."""
    k = len(parts)
    paired = all(p.scores is not None and p.factors is not None for p in parts)
    pairs = lambda: (sum(p.diff for p in parts) / k, sum(p.var for p in parts) / (k * k))  # noqa: E731
    if not paired:
        return Contrast(pairs=pairs)
    return Contrast(
        scores=sum(p.scores for p in parts) / k,
        factors=np.hstack([p.factors for p in parts]) / k,
        df=min(p.df or 1 for p in parts),
        pairs=pairs,
    )


def upper_bound_ranks(points: np.ndarray, contrast: Contrast, z_crit: float = Z_CRIT) -> np.ndarray:
    """1 + the number of ranked entries significantly better (``z > z_crit``), for each
    ranked entry (finite point rank score); 0 for unranked ones."""
    points = np.asarray(points, dtype=float)
    ranks = np.zeros(points.shape, dtype=int)
    ranked = np.flatnonzero(np.isfinite(points))
    if ranked.size == 0:
        return ranks
    z = contrast.z()[np.ix_(ranked, ranked)]
    with np.errstate(invalid="ignore"):
        better = z > z_crit  # better[j, i]: j significantly better than i
    ranks[ranked] = 1 + better.sum(axis=0)
    return ranks
