"""The one-tailed Welch test and the anchor walk of the ``euroeval-2024`` method
(docs/methodology.md §4.3): pure functions on numpy arrays, no Django.

The anchor walk is sequential per dataset, but independent across datasets and bootstrap
replicates: every (replicate, dataset) pair is a lane. Single-precision lanes (the
bootstrap's) walk in C (:mod:`leaderboard.ranking.kernels`), the others as one numpy loop
over entry *positions* with the lanes as vectors; both do the same operations in the same
order. The one-tailed Welch t-test is an exact replica of ``scipy.stats.ttest_ind(anchor,
current, equal_var=False, alternative="greater")`` (same formulas, same
``scipy.special.stdtr``); the Student-t tail is only evaluated where the statistic lies
between the normal and the one-degree-of-freedom critical values, since outside that band
the decision cannot depend on df. The compiled walk also leaves out the steps in the band
that a table of exact t tails decides with a margin (:func:`_tail_table`), and it orders a
lane only where a step may change the walk (value buckets, each sorted when a step in it
reaches the band): the decisions, and so the numbers, are the same.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special, stats

from leaderboard.ranking import kernels

ALPHA = 0.05


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
    walk's present entries (:func:`_band_of`)."""
    n = counts[~np.isnan(means) & (counts >= 2)]
    return _band_of((float(n.min()), float(n.max())) if n.size else None)


def _band_of(count_range: tuple[float, float] | None) -> tuple[float, float]:
    """The band from the smallest and largest count of 2 or more of a present entry (None
    without one). Welch's df lies between min(n1, n2) − 1 and n1 + n2 − 2 (a statistic with
    n = 1 is NaN, with both variances zero ±inf or NaN: decided without df), and the
    critical value falls with df: above t(df_min) every pair is significant, below
    t(df_max) none is. Ten iterations everywhere: [1.734, 1.833] rather than
    [1.645, 6.314], so the t tail is evaluated for far fewer steps; the decisions are the
    same as with the tail everywhere."""
    if count_range is None:
        return _T_LOW, _T_HIGH
    lo, hi = count_range
    return (
        float(stats.t.isf(ALPHA, 2 * hi - 2)) * (1 - 1e-9),
        float(stats.t.isf(ALPHA, lo - 1)) * (1 + 1e-9),
    )


TAIL_CELLS = 256  # cells of the df grid of _tail_table
TAIL_MARGIN = 1e-3  # δ: relative margin on p of _tail_table's bounds


@functools.lru_cache(maxsize=64)
def _tail_table(count_range: tuple[float, float] | None, alpha: float = ALPHA) -> np.ndarray:
    """Bounds that decide most steps in the band without their t tail (the compiled walk's
    ``settle``), for the counts of :func:`_band_of`: a ``(3, TAIL_CELLS + 1)`` float64
    array of a grid of df over Welch's range [n_min − 1, 2 n_max − 2], ``sure_sig[k]`` = the
    t whose exact upper tail at df = grid[k] is a·(1 − δ), and ``sure_not[k]`` = the one whose
    tail at df = grid[k + 1] is a·(1 + δ) (a = alpha in single precision, as the walk compares
    it; the last column of both unused). The critical t falls with df, so for a df in cell k
    a t above ``sure_sig[k]`` has an exact tail below a·(1 − δ), and one below ``sure_not[k]``
    above a·(1 + δ). The single-precision ``special.stdtr`` the walk calls is within 3·10⁻⁶
    of the exact tail there (relatively; tests/ranking/test_kernels.py checks 10⁻⁵ = δ/100),
    so it compares with a as the exact tail does: the decision is the same. Without counts
    (None), or for another alpha, no cells: every step in the band takes the t tail."""
    if count_range is None or alpha != ALPHA:
        return np.zeros((3, 0))
    lo, hi = count_range
    a = float(np.float32(alpha))
    grid = np.linspace(lo - 1.0, 2.0 * hi - 2.0, TAIL_CELLS + 1)
    table = np.zeros((3, TAIL_CELLS + 1))
    table[0] = grid
    table[1, :-1] = stats.t.isf(a * (1 - TAIL_MARGIN), grid[:-1])
    table[2, :-1] = stats.t.isf(a * (1 + TAIL_MARGIN), grid[1:])
    table.setflags(write=False)
    return table


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
    """The anchor walk on ``(L, N)`` arrays (lanes × entries) of means, variances, counts
    (``c`` may also be ``(G, N)``, one row for each block of L/G consecutive lanes); returns
    ``(L, N)`` rank scores. Single-precision lanes at the default alpha walk in C
    (:func:`leaderboard.ranking.kernels.walk_lanes_f32`), the others in numpy
    (:func:`_walk_numpy`): the same operations in the same order, the same numbers."""
    lanes, n_entries = m.shape
    dt = m.dtype if m.dtype in (np.float32, np.float64) else np.dtype(float)
    if n_entries == 0 or lanes == 0:
        return np.full((lanes, n_entries), np.inf, dtype=dt)
    k, sigma = _lane_spread(m)
    sigma = np.where(np.isnan(sigma) | (sigma == 0), np.inf, sigma)  # σ = 0: nothing can differ
    inv_sigma = (1.0 / sigma).astype(dt)
    single = all(a.dtype == np.float32 for a in (m, v, c))
    if kernels.AVAILABLE and single and alpha == ALPHA:
        return kernels.walk_lanes_f32(m, v, c, inv_sigma, _band_of, _tail_table, alpha)
    if c.shape[0] != lanes:
        c = np.repeat(c, lanes // max(c.shape[0], 1), axis=0)
    band = _t_band(c, m)
    return _walk_numpy(m, v, c, inv_sigma, int(k.max()), band, alpha, dt)


def _lane_spread(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per lane: the number of present entries and σ, the population standard deviation of
    their means (NaN without one), a block of lanes at a time (so that the temporaries stay
    in cache; each lane's sums are the same). For single precision the elementwise steps run
    in C (:func:`leaderboard.ranking.kernels.present_values`, ``deviations``); the sums are
    numpy's in both."""
    lanes, n = m.shape
    k, sigma = np.empty(lanes, dtype=np.intp), np.empty(lanes)
    step = max(1, _SPREAD_VALUES // max(n, 1))
    compiled = kernels.AVAILABLE and m.dtype == np.float32
    with np.errstate(divide="ignore", invalid="ignore"):
        for r0 in range(0, lanes, step):
            block = m[r0 : r0 + step]
            if compiled:
                values, kb = kernels.present_values(block)
                mu = values.sum(axis=1) / kb
                dev = kernels.deviations(block, mu)
            else:
                present = ~np.isnan(block)
                kb = present.sum(axis=1)
                mu = np.where(present, block, 0.0).sum(axis=1) / kb
                dev = np.where(present, block - mu[:, None], 0.0)
            k[r0 : r0 + step] = kb
            sigma[r0 : r0 + step] = np.sqrt(np.einsum("ij,ij->i", dev, dev) / kb)
    return k, sigma


_SPREAD_VALUES = 1 << 15  # means per block of lanes


def _walk_numpy(m, v, c, inv_sigma, last: int, band: tuple[float, float], alpha: float, dt) -> np.ndarray:
    """The walk in numpy: each lane sorted (:func:`_lane_order`: the stable order), gathered
    and transposed to position-major ``(N, L)`` so that every step reads contiguous lane
    vectors; a step records the significant lanes' increase of the score
    (:func:`_walk_steps`), and the scores are the running sum of the increases."""
    lanes, n_entries = m.shape
    order = _lane_order(np.where(~np.isnan(m), -m, np.inf))
    flat = order + (np.arange(lanes) * n_entries)[:, None]
    del order

    def gathered(x):  # sorted lane by lane, then position-major (N, L): contiguous steps
        return np.ascontiguousarray(x.ravel().take(flat).T)

    ms = gathered(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        vn = v / c  # s²/n and (s²/n)²/(n − 1): Welch's pieces (elementwise: before or after the gather)
        q = gathered(vn * vn / (c - 1))
        vn = gathered(vn)
    # step j's increase of the score (0 where not significant): the scores are their running
    # sum, which numpy adds in order, one position after the other, as the walk did
    scores = np.zeros((n_entries, lanes), dtype=dt)
    scores[0] = 1.0
    _walk_steps(ms, vn, q, inv_sigma, last, band, alpha, scores)
    np.cumsum(scores, axis=0, out=scores)
    scores[np.isnan(ms)] = np.inf
    out = np.full((lanes, n_entries), np.inf, dtype=dt)
    out.ravel()[flat.ravel()] = scores.T.ravel()
    return out


def _walk_steps(ms, vn, q, inv_sigma, last: int, band: tuple[float, float], alpha: float, scores) -> None:
    """Steps 1 to ``last`` of every lane at once: ``scores[j]`` = the increase at step j."""
    lanes, dt = ms.shape[1], ms.dtype
    a_m, a_vn, a_q = ms[0].copy(), vn[0].copy(), q[0].copy()
    exact = alpha != ALPHA
    t_low, t_high = band
    t, gap, s2 = (np.empty(lanes, dtype=dt) for _ in range(3))
    sig, amb_mask = np.empty(lanes, dtype=bool), np.empty(lanes, dtype=bool)
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
                np.greater_equal(t, t_low, out=amb_mask)
                np.logical_xor(amb_mask, sig, out=amb_mask)  # t in [t_low, t_high]: df decides
                amb = amb_mask.nonzero()[0]
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
