"""The ranking's compiled loops (``_kernels.c``, built by ``pip install -e .``), with the
same arithmetic as the numpy code they stand in for: the same results to the bit.

Each caller keeps its numpy version and uses it where ``AVAILABLE`` is false (no compiler
at install time, a build of another version, or ``GLOSSA_RANKING_KERNELS=0`` in the
environment); the tests compare the two. Arrays are passed C-contiguous, in the dtypes the C code reads.
"""

from __future__ import annotations

import os
import threading

import numpy as np
from scipy import special

VERSION = 6  # _kernels.c's KERNELS_VERSION: a build of another version is not used

try:
    from leaderboard.ranking import _kernels  # type: ignore[attr-defined]  # optional: a C build
except ImportError:  # not built: the numpy versions run
    _kernels = None
if getattr(_kernels, "VERSION", None) != VERSION:  # stale: rebuilt by pip install -e . (make install)
    _kernels = None

AVAILABLE = _kernels is not None and os.environ.get("GLOSSA_RANKING_KERNELS", "1") != "0"


def _c(a: np.ndarray, dtype) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=dtype)


_local = threading.local()


def _workspace(size: int) -> tuple[np.ndarray, ...]:
    """The walk's scratch arrays (order, sorted means, s²/n) of at least
    ``size`` values, kept per thread from one call to the next: a bootstrap walks blocks of
    the same size, and fresh arrays cost a page fault per 4 kB."""
    work = getattr(_local, "walk", None)
    if work is None or work[0].size < size:
        work = (np.empty(size, np.int32), np.empty(size, np.float32), np.empty(size, np.float32))
        _local.walk = work
    return work


def walk_lanes_f32(m, v, c, inv_sigma, band_of, tails_of, alpha: float) -> np.ndarray:
    """:func:`leaderboard.ranking.walk._walk_lanes` on single-precision ``(L, N)`` lanes:
    each lane grouped by value and walked in C; a step whose t lies in ``[t_low, t_high]``
    is decided by the table of ``tails_of`` where that is sure, and otherwise waits for its
    t tail, which ``scipy.special.stdtr`` gives for all waiting lanes at once (the same call,
    on the same single-precision values, as the numpy walk). ``band_of`` gives that band and
    ``tails_of`` the table from the smallest and largest count of 2 or more of a present entry
    (None: no such entry). ``c`` may have one row per block of lanes (``L`` a multiple of
    its rows)."""
    lanes, n = m.shape
    f32 = np.float32
    m, v, c = _c(m, f32), _c(v, f32), _c(c, f32)
    per = lanes // c.shape[0]  # lanes per row of counts
    counts = _kernels.walk_counts(m, c, lanes, n, per)
    band = tuple(f32(x) for x in band_of(counts))  # numpy compares in f32
    tails = _c(tails_of(counts, alpha), np.float64)
    out = np.full((lanes, n), np.inf, dtype=f32)
    inv = _c(inv_sigma, f32)
    block = per * max(1, _BLOCK_LANES // per)  # lanes walked together: their arrays stay in cache
    for l0 in range(0, lanes, block):
        lanes_ = slice(l0, l0 + block)
        rows = c[l0 // per : (l0 + block) // per]
        _walk_block(m[lanes_], v[lanes_], rows, inv[lanes_], out[lanes_], per, band, tails, alpha)
    return out


_BLOCK_LANES = 256


def _walk_block(m, v, c, inv, out, per: int, band, tails, alpha: float) -> None:
    """Walk a block of lanes into ``out``: each lane grouped, gathered and walked up to its first
    undecided t tail in one pass, then the waiting lanes settled and walked on, round by round."""
    lanes, n = m.shape
    f32, i32 = np.float32, np.int32
    order, ms, vn = (a[: lanes * n].reshape(lanes, n) for a in _workspace(lanes * n))
    walk = (ms, vn, c, inv, order, np.empty(lanes, i32), np.empty(lanes, i32), np.empty(lanes, i32))
    walk += (np.empty(lanes, f32), out, np.empty(lanes, i32), np.empty(lanes, f32), np.empty(lanes, f32))
    waiting = _kernels.walk_start(m, v, *walk, tails, lanes, n, per, *band)
    sig = np.zeros(lanes, dtype=np.uint8)
    while waiting:
        t, df = walk[11][:waiting], walk[12][:waiting]
        sig[:waiting] = special.stdtr(df, -t) < alpha
        waiting = _kernels.walk_run(*walk, tails, sig, lanes, n, per, waiting, *band)


def present_values(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(where(present, m, 0), present.sum(axis=1))`` for ``(R, N)`` single-precision ``m``
    (present: not NaN), as float32 and int64: the steps of :func:`leaderboard.ranking.walk._lane_spread`."""
    m = _c(m, np.float32)
    rows, n = m.shape
    values, counts = np.empty((rows, n), dtype=np.float32), np.empty(rows, dtype=np.int64)
    _kernels.present_values(m, values, counts, rows, n)
    return values, counts


def deviations(m: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """``where(present, m − mu[:, None], 0)`` in double precision for ``(R, N)`` single-precision
    ``m`` and ``(R,)`` double ``mu`` (numpy's float32 − float64: each value converted, then subtracted)."""
    m = _c(m, np.float32)
    rows, n = m.shape
    dev = np.empty((rows, n))
    _kernels.deviations(m, _c(mu, np.float64), dev, rows, n)
    return dev


def family_maxima(zt, w, fam_sim, fam_pos, fam_neg):
    """``(sim (B,), marg (p, B))``: per draw, the largest S_jk = (Z_j − Z_k)·w_jk over each
    family, at least 0 (:func:`leaderboard.ranking.family_maxima.dense_maxima`)."""
    p, b = zt.shape
    sim, marg = np.zeros(b, dtype=np.float32), np.zeros((p, b), dtype=np.float32)
    none = np.zeros((1, 1), dtype=bool)
    _maxima(zt, w, (fam_sim, fam_pos, fam_neg), sim, marg, np.ones(p, dtype=bool), True, (none, none), False)
    return sim, marg


def update_maxima(zt, w, fams, sim, marg, gone, redo_sim: bool) -> None:
    """The pairs ``gone`` (sim, pos, neg masks) left the families, which are now ``fams``:
    recompute ``marg`` for the rows that lost pairs (only in the draws where one of those
    may have held the maximum) and, with ``redo_sim``, ``sim``, in place."""
    rows = gone[1].any(axis=1) | gone[2].any(axis=1)
    _maxima(zt, w, fams, sim, marg, rows, redo_sim, gone[1:], True)


def _maxima(zt, w, fams, sim, marg, rows, redo_sim: bool, gone, check: bool) -> None:
    p, b = zt.shape
    u8 = [_c(f, np.bool_).view(np.uint8) for f in (*fams, rows, *gone)]
    zd, w = _c(zt.T, np.float32), _c(w, np.float32)
    _kernels.maxima(zd, w, *u8[:4], sim, marg, *u8[4:], p, b, int(redo_sim), int(check))


_WORD = (1 << 64) - 1


def bootstrap_draws(x, counts, members, best, sd, replicates: int, rng: np.random.Generator) -> np.ndarray | None:
    """``(B, P)`` replicates of :func:`leaderboard.ranking.methods.euroeval_2026.bootstrap_scores`
    (``x`` (D, P, I) sorted iteration scores, ``counts`` (D, P) ≥ 1, ``members`` each task's
    datasets), their random integers drawn in C from ``rng``'s PCG64 stream exactly as
    ``rng.integers`` draws them, ``rng`` left in the state numpy would leave it in. None
    where ``rng`` is not a PCG64 or the build has no 128-bit integers: the caller draws."""
    bits = rng.bit_generator
    if type(bits) is not np.random.PCG64 or not hasattr(_kernels, "bootstrap"):
        return None
    state = bits.state
    pcg = state["state"]
    words = [pcg["state"] >> 64, pcg["state"] & _WORD, pcg["inc"] >> 64, pcg["inc"] & _WORD]
    words = np.array([*words, state["has_uint32"], state["uinteger"]], dtype=np.uint64)
    start = np.cumsum([0] + [m.size for m in members], dtype=np.int64)
    flat = np.concatenate(members).astype(np.int64) if members else np.zeros(0, np.int64)
    reps = np.empty((replicates, x.shape[1]))
    args = (_c(x, np.float64), _c(counts, np.int32), flat, start, _c(best, np.float64), _c(sd, np.float64), reps, words)
    _kernels.bootstrap(*args, replicates, x.shape[1], x.shape[2], len(members))
    hi, lo = int(words[0]), int(words[1])
    pcg = {"state": (hi << 64) | lo, "inc": (int(words[2]) << 64) | int(words[3])}
    bits.state = {**state, "state": pcg, "has_uint32": int(words[4]), "uinteger": int(words[5])}
    return reps


def moments(s1: np.ndarray, s2: np.ndarray, cnt: np.ndarray, mu0: np.ndarray, m_out, var_out) -> None:
    """``m_out = mu0 + s1/cnt`` and ``var_out = max((s2 − s1²/cnt)/(cnt − 1), 0)``, rounded to
    single precision, for ``(D', B, N)`` sums and ``(D', N)`` counts and means (the same
    operations as :func:`leaderboard.ranking.methods.euroeval_2024._moments`, in place)."""
    d, b, n = s1.shape
    f64 = np.float64
    _kernels.moments(_c(s1, f64), _c(s2, f64), _c(cnt, f64), _c(mu0, f64), m_out, var_out, d, b, n)


def task_means(rs: np.ndarray, inv: np.ndarray, picks: list[np.ndarray], lang: np.ndarray) -> None:
    """``lang[r] += `` each task's mean over its drawn datasets ``picks[t][r]`` of the
    dataset rank scores ``rs`` ``(D, B, N)`` (single precision, dataset k's entries in its own
    order: entry e at ``inv[k, e]``), task by task, in place: the scatter of
    ``euroeval_2024._bootstrap_language_scores`` to entry order, its gather and its mean."""
    start = np.cumsum([0] + [p.shape[1] for p in picks], dtype=np.int64)
    flat = _c(np.concatenate(picks, axis=1), np.int64)
    b, n = lang.shape
    _kernels.task_means(_c(rs, np.float32), _c(inv, np.int32), flat, start, lang, b, n, flat.shape[1], len(picks))


def pair_t(est: np.ndarray, sq: np.ndarray, gram2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(t, w)`` of :func:`leaderboard.ranking.rank_sets._pair_t` from ‖F_j‖² and 2·F Fᵀ."""
    p = est.size
    t, w = np.empty((p, p)), np.empty((p, p), dtype=np.float32)
    _kernels.pair_t(_c(est, np.float64), _c(sq, np.float64), _c(gram2, np.float64), t, w, p)
    return t, w


def exceeds(t: np.ndarray, bounds, near: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per ``(low, high, back)`` of ``bounds`` (all in one pass over t): ``(out, j, k)``,
    out[j, k] = x > high[j] with x = t[j, k] (``back``: t[k, j]), and with ``near`` the pairs
    with low[j] ≤ x ≤ high[j] (else empty); ``low``, ``high`` scalars or one per row. ``t``
    must be exactly antisymmetric with −inf on its diagonal, as ``rank_sets._pair_t`` makes
    it: t[k, j] is read as −t[j, k]."""
    p, m = t.shape[0], len(bounds)

    def rows(x):
        return np.broadcast_to(np.asarray(x, dtype=np.float64).reshape(-1), (p,))

    low = _c([rows(b[0]) for b in bounds], np.float64).reshape(m, p)
    high = _c([rows(b[1]) for b in bounds], np.float64).reshape(m, p)
    back = np.array([bool(b[2]) for b in bounds], dtype=np.uint8)
    out = np.empty((m, p, p), dtype=bool)
    cap, count = max(1024, p * p // 64), np.zeros(m, dtype=np.int64)
    while True:
        j, k = np.empty((m, cap), dtype=np.int64), np.empty((m, cap), dtype=np.int64)
        _kernels.exceeds(_c(t, np.float64), low, high, back, out.view(np.uint8), j, k, count, m, p, cap, int(near))
        if count.max(initial=0) <= cap:
            return [(out[c], j[c, : count[c]], k[c, : count[c]]) for c in range(m)]
        cap = int(count.max())
