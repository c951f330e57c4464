"""The ranking's compiled loops (``_kernels.c``, built by ``pip install -e .``), with the
same arithmetic as the numpy code they stand in for: the same results to the bit.

Each caller keeps its numpy version and uses it where ``AVAILABLE`` is false (no compiler
at install time, or ``GLOSSA_RANKING_KERNELS=0`` in the environment, which the tests use
to compare the two). Arrays are passed C-contiguous, in the dtypes the C code reads.
"""

from __future__ import annotations

import os

import numpy as np
from scipy import special

try:
    from leaderboard.ranking import _kernels  # type: ignore[attr-defined]
except ImportError:  # not built: the numpy versions run
    _kernels = None

AVAILABLE = _kernels is not None and os.environ.get("GLOSSA_RANKING_KERNELS", "1") != "0"


def _c(a: np.ndarray, dtype) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=dtype)


def walk_lanes_f32(m, v, c, inv_sigma, band_of, alpha: float) -> np.ndarray:
    """:func:`leaderboard.ranking.core._walk_lanes` on single-precision ``(L, N)`` lanes:
    each lane sorted and walked in C; a step whose t lies in ``[t_low, t_high]`` waits
    for its t tail, which ``scipy.special.stdtr`` gives for all waiting lanes at once
    (the same call, on the same single-precision values, as the numpy walk). ``band_of``
    gives that band from the smallest and largest count of 2 or more of a present entry
    (None: no such entry)."""
    lanes, n = m.shape
    f32, i32 = np.float32, np.int32
    m, v, c = _c(m, f32), _c(v, f32), _c(c, f32)
    order = np.empty((lanes, n), i32)
    ms, vn, q = (np.empty((lanes, n), f32) for _ in range(3))
    kept = np.empty(lanes, i32)
    t_low, t_high = band_of(_kernels.walk_prepare(m, v, c, order, ms, vn, q, kept, lanes, n))
    out = np.full((lanes, n), np.inf, dtype=f32)
    state = (np.empty(lanes, i32), np.empty(lanes, i32), np.empty(lanes, f32), out)
    pend = (np.empty(lanes, i32), np.empty(lanes, f32), np.empty(lanes, f32))
    inv = _c(inv_sigma, f32)
    low, high = f32(t_low), f32(t_high)  # numpy compares single-precision t with them so
    sig = np.zeros(lanes, dtype=np.uint8)
    waiting = _kernels.walk_run(ms, vn, q, inv, order, kept, *state, *pend, sig, lanes, n, -1, low, high)
    while waiting:
        t, df = pend[1][:waiting], pend[2][:waiting]
        sig[:waiting] = special.stdtr(df, -t) < alpha
        waiting = _kernels.walk_run(ms, vn, q, inv, order, kept, *state, *pend, sig, lanes, n, waiting, low, high)
    return out


def family_maxima(zt, w, fam_sim, fam_pos, fam_neg):
    """``(sim (B,), marg (p, B))``: per draw, the largest S_jk = (Z_j − Z_k)·w_jk over each
    family, at least 0 (:func:`leaderboard.ranking.family_maxima.dense_maxima`)."""
    p, b = zt.shape
    sim, marg = np.zeros(b, dtype=np.float32), np.zeros((p, b), dtype=np.float32)
    update_maxima(zt, w, (fam_sim, fam_pos, fam_neg), sim, marg, np.ones(p, dtype=bool), True)
    return sim, marg


def update_maxima(zt, w, fams, sim, marg, rows, redo_sim: bool) -> None:
    """Recompute ``marg`` for the ``rows`` set (a ``(p,)`` mask) and, with ``redo_sim``,
    ``sim``, in place, over the families ``fams`` (sim, pos, neg)."""
    p, b = zt.shape
    fams = [_c(f, np.bool_).view(np.uint8) for f in fams]
    rows = _c(rows, np.bool_).view(np.uint8)
    _kernels.maxima(_c(zt.T, np.float32), _c(w, np.float32), *fams, rows, sim, marg, p, b, int(redo_sim))


def dataset_terms(flat_x, idx, drawn, best, sd, entries: int, iterations: int) -> np.ndarray:
    """``(P,)``: the sum over the drawn datasets of ``1 + (best − resampled mean) / sd``
    (``euroeval_2026.bootstrap_scores``' take, mean and sum)."""
    out = np.empty(entries)
    _kernels.terms(flat_x, _c(idx, np.int32), _c(drawn, np.int64), best, sd, out, entries, iterations, drawn.size)
    return out


def pair_t(est: np.ndarray, sq: np.ndarray, gram2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(t, w)`` of :func:`leaderboard.ranking.rank_sets._pair_t` from ‖F_j‖² and 2·F Fᵀ."""
    p = est.size
    t, w = np.empty((p, p)), np.empty((p, p), dtype=np.float32)
    _kernels.pair_t(_c(est, np.float64), _c(sq, np.float64), _c(gram2, np.float64), t, w, p)
    return t, w


def exceeds(t: np.ndarray, low, high, back: bool, near: bool):
    """``(out, j, k)``: out[j, k] = x > high[j] with x = t[j, k] (``back``: t[k, j]), and with
    ``near`` the pairs with low[j] ≤ x ≤ high[j] (else empty); ``low``, ``high`` scalars
    or one per row."""
    p = t.shape[0]
    low = _c(np.broadcast_to(np.asarray(low, dtype=np.float64).reshape(-1), (p,)), np.float64)
    high = _c(np.broadcast_to(np.asarray(high, dtype=np.float64).reshape(-1), (p,)), np.float64)
    out = np.empty((p, p), dtype=bool)
    cap = max(1024, p * p // 64)
    while True:
        j, k = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)
        count = _kernels.exceeds(t, low, high, int(back), out.view(np.uint8), j, k, p, cap, int(near))
        if count <= cap:
            return out, j[:count], k[:count]
        cap = count
