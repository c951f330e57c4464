"""Confidence sets for ranks (Mogstad, Romano, Shaikh & Wilhelm, "Inference for ranks",
Review of Economic Studies 2024; the construction of the R package ``csranks``).

Pure numpy/scipy; no Django. Entries are ranked by an estimate θ̂ (higher is better here;
callers pass ``-rank_score``), with the estimation error described by a *factor matrix*
``F`` (N × K) such that ``Cov(θ̂) = F Fᵀ``. Three entry points share one core:

* :func:`rank_sets_from_covariance`: θ̂ and its covariance Σ (csranks' input; ``F`` is a
  symmetric square root of Σ);
* :func:`rank_sets_from_replicates`: θ̂ and ``(B, N)`` paired bootstrap replicates
  (``F`` = the centred replicates / √(B − 1), so Σ is their covariance; the shared draws
  of all entries cancel in every difference);
* :func:`rank_sets_from_factors`: θ̂ and ``F`` directly (``euroeval-2024``: one column
  per (dataset, iteration), see :func:`leaderboard.ranking.contrast.paired_factors`).

The construction, exactly:

1. For every ordered pair (j, k) of ranked entries, σ_jk² = Var(θ̂_j − θ̂_k) =
   ‖F_j − F_k‖², and t_jk = (θ̂_j − θ̂_k) / σ_jk. Where σ_jk rests on n iterations
   (``df`` = n − 1, e.g. 9 for 10 iterations), t_jk is replaced by the normal quantile of
   its Student-t probability, z_jk = Φ⁻¹(F_t,df(t_jk)): a t of 2.26 (the 97.5% point of t₉)
   counts as 1.96. With ``df`` None, z_jk = t_jk.
2. ``draws`` Gaussian multiplier draws g ~ N(0, I_K) (``numpy.random.default_rng(seed)``,
   a fixed seed, so a set never moves with a board's bootstrap seed) give
   Z = F g ~ N(0, Σ) and S_jk = (Z_j − Z_k) / σ_jk, the null distribution of every t.
3. A family I of ordered pairs (hypotheses "j is not better than k") has the critical
   value c(I) = the ``level`` quantile (numpy's linear interpolation, R's type 7) of
   max over (j, k) ∈ I of S_jk; (j, k) is rejected ("j is better than k") when
   z_jk > c(I). *Simultaneous*: I = all ordered pairs. *Marginal for j*: I = the pairs
   (j, k) and (k, j) for every k. *Stepdown*: the rejected pairs leave I and c(I) is
   recomputed until nothing more is rejected (with the same draws, so c only falls).
   Pairs Bonferroni already rejects at the first step (z > Φ⁻¹(1 − (1 − level)/|I|)) are
   rejected before the first quantile is taken: c(I) ≤ the Bonferroni value, so the
   stepdown ends in the same sets (it converges to the largest family whose pairs all
   stay below its own critical value, from either start).
4. Lower end = 1 + the number of entries declared better than j; upper end = p − the
   number declared worse (p = ranked entries). The simultaneous set is widened to contain
   the marginal one (it nearly always does already); widening keeps its coverage.

Cost: the first step evaluates ``draws`` × (pairs in a family) differences in dense row
blocks (:mod:`leaderboard.ranking.family_maxima`); csranks' families keep every ordered
pair not yet rejected, about half of the N² even on a spread-out board. Later steps only
recompute the draws whose maximum sat on a pair that left, which is exact. Boards of more
than about √(``work`` / ``draws``) entries get fewer draws (never under ``MIN_DRAWS``; 2,000
entries: 200 draws, a critical value known to about ±0.05).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from leaderboard.ranking import kernels
from leaderboard.ranking.family_maxima import FamilyMaxima

LEVEL = 0.95
DRAWS = 1000
MIN_DRAWS = 200
SEED = 20240
WORK = 2.5e8  # pair × draw evaluations of the first step before draws are reduced


@dataclass(frozen=True)
class RankSets:
    """Per entry (input order): the marginal and simultaneous sets ``[low, high]``; 0 for
    entries without an estimate."""

    marginal_low: np.ndarray
    marginal_high: np.ndarray
    simultaneous_low: np.ndarray
    simultaneous_high: np.ndarray

    def marginal(self, e: int) -> list[int] | None:
        return [int(self.marginal_low[e]), int(self.marginal_high[e])] if self.marginal_low[e] else None

    def simultaneous(self, e: int) -> list[int] | None:
        return [int(self.simultaneous_low[e]), int(self.simultaneous_high[e])] if self.simultaneous_low[e] else None


def rank_sets_from_covariance(estimates, covariance, **options) -> RankSets:
    """Sets from estimates (higher is better) and their covariance matrix (csranks' input)."""
    cov = np.asarray(covariance, dtype=float)
    est = np.asarray(estimates, dtype=float)
    if cov.shape != (est.size, est.size):
        raise ValueError("the covariance must be N × N for N estimates")
    ok = np.isfinite(est)
    factors = np.zeros_like(cov)
    sub = cov[np.ix_(ok, ok)]
    vals, vecs = np.linalg.eigh((sub + sub.T) / 2)
    factors[np.ix_(ok, ok)] = vecs * np.sqrt(np.clip(vals, 0.0, None))
    return rank_sets_from_factors(est, factors, **options)


def rank_sets_from_replicates(estimates, replicates, *, iterations: int | None = None, **options) -> RankSets:
    """Sets from estimates (higher is better) and ``(B, N)`` paired replicates of them.

    ``iterations``: the number of iterations the replicates resample. A bootstrap of n
    values has n/(n − 1) too little variance, so the factors are scaled by √(n/(n − 1))
    and t tails with n − 1 degrees of freedom are used."""
    est = np.asarray(estimates, dtype=float)
    reps = np.asarray(replicates, dtype=float)
    if reps.ndim != 2 or reps.shape[1] != est.size:
        raise ValueError("replicates must be (B, N) for N estimates")
    ok = np.isfinite(est) & np.isfinite(reps).all(axis=0) if reps.shape[0] > 1 else np.zeros(est.size, bool)
    centred = np.where(ok, reps - np.where(ok, reps, 0.0).mean(axis=0), 0.0)
    factors = centred.T / np.sqrt(max(reps.shape[0] - 1, 1))
    df = None
    if iterations is not None and iterations > 1:
        factors *= np.sqrt(iterations / (iterations - 1))
        df = iterations - 1
    return rank_sets_from_factors(np.where(ok, est, np.nan), factors, df=options.pop("df", df), **options)


def rank_sets_from_factors(
    estimates,
    factors,
    *,
    df: float | None = None,
    level: float = LEVEL,
    draws: int = DRAWS,
    seed: int = SEED,
    stepdown: bool = True,
    work: float = WORK,
) -> RankSets:
    """Sets from estimates (higher is better; NaN = unranked) and ``F`` with Cov = F Fᵀ."""
    est = np.asarray(estimates, dtype=float)
    f = np.asarray(factors, dtype=float)
    n = est.size
    if f.ndim != 2 or f.shape[0] != n:
        raise ValueError("factors must be (N, K) for N estimates")
    ranked = np.flatnonzero(np.isfinite(est) & np.isfinite(f).all(axis=1))
    out = [np.zeros(n, dtype=int) for _ in range(4)]
    if ranked.size:
        sets = _sets(est[ranked], f[ranked], df, level, draws, seed, stepdown, work)
        for arr, values in zip(out, sets):
            arr[ranked] = values
    return RankSets(*out)


def pair_statistics(
    est: np.ndarray, f: np.ndarray, df: float | None, beyond: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(z, w)``: z_jk (t_jk on the normal scale, see the module) and w_jk = 1/σ_jk
    (0 where σ_jk = 0: two entries that cannot differ by chance).

    z is antisymmetric (t_kj = −t_jk: :func:`_pair_t`), so the t tails are taken for one
    triangle only. With ``beyond``, a |t| whose z is surely above ``beyond`` (by 0.5,
    beyond rounding) gets ±inf rather than its z: the caller compares z only with
    critical values below ``beyond``."""
    t, w = _pair_t(est, f)
    if df is not None and np.isfinite(df):
        upper = np.triu_indices(est.size, 1)
        tu = t[upper]
        size = np.abs(tu)
        near = size <= _t_beyond(df, beyond) if beyond is not None else np.ones(size.shape, dtype=bool)
        zu = np.sign(tu) * np.inf
        zu[near] = _z_of_t(df, tu[near])
        t[upper] = zu
        t.T[upper] = -zu
        np.fill_diagonal(t, -np.inf)
    return t, w


def _pair_t(est: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(t, w)``: t_jk = (θ̂_j − θ̂_k)/σ_jk, exactly antisymmetric (the lower triangle is
    the negated upper one), −inf on the diagonal (no entry is compared with itself), and
    w_jk = 1/σ_jk in single precision."""
    sq = np.einsum("ij,ij->i", f, f)
    gram = f @ f.T
    gram *= 2.0
    if kernels.AVAILABLE:  # the same operations, one pass
        return kernels.pair_t(est, sq, gram)
    sd = np.add(sq[:, None], sq[None, :])
    sd -= gram  # ‖F_j − F_k‖² (the same operations as one expression, in place)
    del gram
    np.maximum(sd, 0.0, out=sd)
    np.sqrt(sd, out=sd)
    spread = sd > 0
    t = np.subtract(est[:, None], est[None, :])
    w = np.zeros(sd.shape, dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(1.0, sd, out=w, where=spread, casting="same_kind")
        np.divide(t, sd, out=t, where=spread)
        flat = np.flatnonzero(~spread)  # no spread: any difference is certain
        t.ravel()[flat] = np.sign(t.ravel()[flat]) * np.inf
    np.nan_to_num(t, copy=False, nan=0.0)  # equal estimates with no spread: not different
    upper = np.triu_indices(est.size, 1)
    t.T[upper] = -t[upper]
    np.fill_diagonal(t, -np.inf)
    return t, w


def _z_of_t(df: float, t: np.ndarray) -> np.ndarray:
    """Φ⁻¹ of the t probability, computed from the smaller tail for accuracy."""
    return np.sign(t) * -special.ndtri(special.stdtr(df, -np.abs(t)))


class _Exceeds:
    """``z > c`` for the pairs' z and critical values c, with the t tail taken only where
    t lies within a hair of the t whose z is c (z rises with t): decided by t elsewhere,
    so each decision is the one the full z matrix gives."""

    def __init__(self, t: np.ndarray, df: float | None):
        self.t = t
        self.df = df if df is not None and np.isfinite(df) else None

    def __call__(self, c, back: bool = False) -> np.ndarray:
        """``z > c`` (``back``: z_kj > c for pair (j, k)); ``c`` a scalar or one per row."""
        return self.many([(c, back)])[0]

    def many(self, comparisons) -> list[np.ndarray]:
        """``self(c, back)`` for each ``(c, back)`` of ``comparisons``: in C, in one pass over t."""
        if self.df is None:
            if kernels.AVAILABLE:
                return [out for out, _, _ in kernels.exceeds(self.t, [(c, c, b) for c, b in comparisons], near=False)]
            return [(self.t.T if back else self.t) > c for c, back in comparisons]
        bounds = [(*self._t_bounds(np.asarray(c, dtype=float)), back) for c, back in comparisons]
        if kernels.AVAILABLE:
            found = kernels.exceeds(self.t, bounds, near=True)
        else:
            found = [self._numpy(low, high, back) for low, high, back in bounds]
        for (out, j, k), (c, back) in zip(found, comparisons):
            if j.size:
                t = self.t.T if back else self.t
                out[j, k] = _z_of_t(self.df, t[j, k]) > np.broadcast_to(c, t.shape)[j, k]
        return [out for out, _, _ in found]

    def _t_bounds(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: a t below ``low`` has z ≤ c, a t above ``high`` z > c."""
        tc = -special.stdtrit(self.df, special.ndtr(-c))  # z(tc) = c
        slack = np.abs(tc) * 1e-6 + 1e-9
        while True:  # z below c just under tc, above it just over: t decides outside the slack
            ok = (_z_of_t(self.df, tc - slack) <= c) & (_z_of_t(self.df, tc + slack) > c)
            if np.all(ok):
                return tc - slack, tc + slack
            slack = np.where(ok, slack, slack * 1000)

    def _numpy(self, low, high, back: bool):
        t = self.t.T if back else self.t
        out = t > high
        near = t >= low
        near ^= out
        j, k = np.nonzero(near)
        return out, j, k


def _t_beyond(df: float, z: float) -> float:
    """A t whose z on the normal scale (``df`` degrees of freedom) is above ``z + 0.5``;
    every larger t's z is too (the t tail falls with t)."""
    t = z + 0.5
    while -special.ndtri(special.stdtr(df, -t)) <= z + 0.5:
        t *= 1.25
    return t


def _sets(est, f, df, level, draws, seed, stepdown, work):
    p = est.size
    t, w = _pair_t(est, f)
    above = _Exceeds(t, df)  # above(c)[j, k]: z_jk > c; above(c, back=True)[j, k]: z_kj > c
    rej_sim = np.zeros((p, p), dtype=bool)  # [j, k]: j declared better than k (simultaneous)
    rej_pos = np.zeros((p, p), dtype=bool)  # [j, k]: in j's marginal family, j better than k
    rej_neg = np.zeros((p, p), dtype=bool)  # [j, k]: in j's marginal family, k better than j
    if stepdown and p > 1:
        bonf = -special.ndtri((1.0 - level) / (2 * (p - 1)))
        found = above.many([(-special.ndtri((1.0 - level) / (p * (p - 1))), False), (bonf, False), (bonf, True)])
        rej_sim |= found[0]
        rej_pos |= found[1]
        rej_neg |= found[2]
    off = ~np.eye(p, dtype=bool)
    maxima, new = None, None
    while p > 1:
        fams = (off & ~rej_sim, off & ~rej_pos, off & ~rej_neg)
        if maxima is None:
            b = int(max(MIN_DRAWS, min(draws, work // (p * (p - 1))))) if draws > MIN_DRAWS else draws
            g = np.random.default_rng(seed).standard_normal((b, f.shape[1]))
            maxima = FamilyMaxima(np.ascontiguousarray((f @ g.T).astype(np.float32)), w, *fams)
        else:
            maxima.remove(*new, *fams)
        c_sim, c_marg = maxima.quantiles(level)
        found = above.many([(c_sim, False), (c_marg[:, None], False), (c_marg[:, None], True)])
        new = tuple(fam & out for fam, out in zip(fams, found))
        if not any(x.any() for x in new):
            break
        rej_sim |= new[0]
        rej_pos |= new[1]
        rej_neg |= new[2]
        if not stepdown:
            break
    m_low, m_high = 1 + rej_neg.sum(axis=1), p - rej_pos.sum(axis=1)
    s_low, s_high = 1 + rej_sim.sum(axis=0), p - rej_sim.sum(axis=1)
    return m_low, m_high, np.minimum(s_low, m_low), np.maximum(s_high, m_high)
