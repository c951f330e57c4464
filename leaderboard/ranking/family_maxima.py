"""Per-draw maxima of standardised differences over families of ordered pairs: the bootstrap
distributions behind the critical values of :mod:`leaderboard.ranking.rank_sets`.

For draws Z ``(p, B)`` and weights w_jk = 1/σ_jk, S_jk = (Z_j − Z_k)·w_jk. Three kinds of
family: the simultaneous one (a set of ordered pairs (j, k)), and per entry j its marginal
family, in two parts: ``pos[j, k]`` (the pair (j, k), value S_jk) and ``neg[j, k]`` (the
pair (k, j), value S_kj = −S_jk). A pair outside a family counts as 0, which never moves a
quantile above 0 (every non-empty family's is).

The maxima are computed once for every draw, in dense row blocks (one subtraction and
three masked products per block: streaming numpy, no gathers). On large boards most
pairs cannot hold a maximum, and :func:`sorted_maxima` skips them: in each draw, with the
entries sorted by Z, row j's values S_jk fall along the sorted order once multiplied by
the row's largest weight, so only a prefix (pos) and a suffix (neg) of that order can
beat the maximum found so far. Float rounding is monotone, so the bound holds for the
computed values too; the values evaluated are the same products as the dense pass', so
the maxima are the same to the bit. The stepdown then only removes pairs; a draw's
maximum can only change if it sat on a removed pair, so only those draws are recomputed,
exactly, for the family that is left.
"""

from __future__ import annotations

import numpy as np

from leaderboard.ranking import kernels

CHUNK_VALUES = 1 << 22  # floats per block buffer (16 MB in float32)
SORTED_FROM = 256  # boards of fewer entries take the dense pass
FIRST = 4  # candidates per row and draw evaluated before the bounds
GATHER_COST = 4  # a gathered candidate costs about as much as this many members in a row


class FamilyMaxima:
    def __init__(self, zt: np.ndarray, w: np.ndarray, fam_sim, fam_pos, fam_neg):
        self.zt = zt  # (p, B) float32
        self.w = w  # (p, p) float32
        if kernels.AVAILABLE:
            self.sim, self.marg = kernels.family_maxima(zt, w, fam_sim, fam_pos, fam_neg)
            return
        maxima = sorted_maxima if zt.shape[0] >= SORTED_FROM else dense_maxima
        self.sim, self.marg = maxima(zt, w, fam_sim, fam_pos, fam_neg)

    def quantiles(self, level: float) -> tuple[float, np.ndarray]:
        return float(np.quantile(self.sim, level)), np.quantile(self.marg, level, axis=1)

    def remove(self, gone_sim, gone_pos, gone_neg, fam_sim, fam_pos, fam_neg) -> None:
        """Pairs ``gone_*`` left the families, which are now ``fam_*``: update the maxima."""
        if kernels.AVAILABLE:  # the maxima over what is left, where a pair that left may have held one
            fams, gone = (fam_sim, fam_pos, fam_neg), (gone_sim, gone_pos, gone_neg)
            kernels.update_maxima(self.zt, self.w, fams, self.sim, self.marg, gone, bool(gone_sim.any()))
            return
        if gone_sim.any():
            hit = np.flatnonzero(self._pair_max(gone_sim) >= self.sim * (1 - 1e-6))
            if hit.size:
                self.sim[hit], _ = dense_maxima(self.zt[:, hit], self.w, fam_sim, None, None)
        rows = np.flatnonzero(gone_pos.any(axis=1) | gone_neg.any(axis=1))
        for j in rows:
            values = np.concatenate([self._row_values(j, gone_pos[j]), -self._row_values(j, gone_neg[j])], axis=0).max(
                axis=0
            )
            hit = np.flatnonzero(values >= self.marg[j] * (1 - 1e-6))
            if hit.size:
                d = self.zt[j, hit][None, :] - self.zt[:, hit]  # (p, |hit|): S_jk before weights
                pos = (d * (self.w[j] * fam_pos[j])[:, None]).max(axis=0)
                neg = (d * -(self.w[j] * fam_neg[j])[:, None]).max(axis=0)
                self.marg[j, hit] = np.maximum(np.maximum(pos, neg), 0.0)

    def _pair_max(self, pairs: np.ndarray) -> np.ndarray:
        """Per draw, the largest S_jk over ``pairs`` (in blocks of pairs: bounded memory)."""
        a, k = np.nonzero(pairs)
        top = np.full(self.zt.shape[1], -np.inf, dtype=np.float32)
        per = max(1, CHUNK_VALUES // max(self.zt.shape[1], 1))
        for s0 in range(0, a.size, per):
            aa, kk = a[s0 : s0 + per], k[s0 : s0 + per]
            values = self.zt[aa] - self.zt[kk]
            values *= self.w[aa, kk][:, None]
            np.maximum(top, values.max(axis=0), out=top)
        return top

    def _row_values(self, j: int, cols: np.ndarray) -> np.ndarray:
        k = np.flatnonzero(cols)
        if k.size == 0:
            return np.zeros((1, self.zt.shape[1]), np.float32)
        return (self.zt[j] - self.zt[k]) * self.w[j, k][:, None]


def dense_maxima(zt, w, fam_sim, fam_pos, fam_neg) -> tuple[np.ndarray, np.ndarray | None]:
    """``(sim (B,), marg (p, B) or None)``: the maxima over the families for every draw
    (``fam_pos`` None: the simultaneous family only). A block whose pairs are all in a
    family is reduced without masking it."""
    p, b = zt.shape
    sim = np.zeros(b, dtype=np.float32)
    marg = np.zeros((p, b), dtype=np.float32) if fam_pos is not None else None
    rows = max(1, CHUNK_VALUES // max(p * b, 1))
    s = np.empty((min(rows, p), p, b), dtype=np.float32)
    buf = np.empty_like(s)
    for r0 in range(0, p, rows):
        r1 = min(p, r0 + rows)
        sv = s[: r1 - r0]
        np.subtract(zt[r0:r1, None, :], zt[None, :, :], out=sv)
        np.multiply(sv, w[r0:r1, :, None], out=sv)  # S_jk
        np.maximum(sim, _masked(sv, fam_sim[r0:r1], buf, np.max, axis=(0, 1)), out=sim)
        if marg is not None:
            top = _masked(sv, fam_pos[r0:r1], buf, np.max, axis=1)
            np.maximum(top, -_masked(sv, fam_neg[r0:r1], buf, np.min, axis=1), out=top)
            marg[r0:r1] = np.maximum(top, 0.0)
    return sim, marg


def _masked(values, mask, buf, reduce, axis):
    """``reduce`` of ``values`` with the pairs outside ``mask`` counted as 0."""
    if mask.all():
        return reduce(values, axis=axis)
    out = buf[: values.shape[0]]
    np.multiply(values, mask[:, :, None], out=out)
    return reduce(out, axis=axis)


def sorted_maxima(zt, w, fam_sim, fam_pos, fam_neg) -> tuple[np.ndarray, np.ndarray]:
    """:func:`dense_maxima` (both kinds of family), bit for bit, evaluating per row and draw
    only the entries whose bound beats the maximum found so far (the module's docstring)."""
    p, b = zt.shape
    order = np.argsort(zt, axis=0, kind="stable")  # (p, b): entries by Z, per draw
    z_sorted = np.take_along_axis(zt, order, axis=0)
    weights = np.empty((p, p, 3), dtype=np.float32)  # w_jk in the (sim, pos, neg) families, else 0
    for f, fam in enumerate((fam_sim, fam_pos, fam_neg)):
        np.multiply(w, fam, out=weights[:, :, f])
    w_top = weights.max(axis=1).T  # (3, p): a row's largest weight in each family
    rows = np.repeat(np.arange(p), b)
    draws = np.tile(np.arange(b), p)
    # the FIRST lowest (pos) and highest (neg) entries of each draw give a first maximum
    marg = np.zeros((p, b), dtype=np.float32)
    sim = np.zeros(b, dtype=np.float32)
    ends = np.r_[np.arange(min(FIRST, p)), np.arange(max(p - FIRST, 0), p)]
    for d in range(b):
        k = order[ends, d]
        values = (zt[:, d, None] - zt[k, d])[:, :, None] * weights[:, k]  # (p, 2·FIRST, 3)
        sim[d] = max(0.0, values[:, :, 0].max())
        marg[:, d] = np.maximum(values[:, :, 1].max(axis=1), -values[:, :, 2].min(axis=1))
    marg = marg.reshape(-1)
    # then every entry whose gap to the row, times the row's largest weight, beats it
    z = zt.ravel()
    low_z = z - _reach(marg, np.repeat(w_top[1], b), z)  # pos: entries at or below it may count
    high_z = z + _reach(marg, np.repeat(w_top[2], b), z)  # neg: entries at or above it
    low = np.empty(p * b, dtype=np.int64)
    high = np.empty(p * b, dtype=np.int64)
    for d in range(b):
        lane = slice(d, None, b)
        low[lane] = np.searchsorted(z_sorted[:, d], low_z[lane], side="right")
        high[lane] = np.searchsorted(z_sorted[:, d], high_z[lane], side="left")
    pos_len = np.clip(low - FIRST, 0, None)
    neg_start = np.maximum(high, FIRST)
    neg_len = np.clip(p - FIRST - neg_start, 0, None)
    # a row with a small family (a clear leader's pos, a clear laggard's neg) has few
    # members among many candidates: its members in every draw cost less
    for lengths, fam, sign in ((pos_len, fam_pos, 1.0), (neg_len, fam_neg, -1.0)):
        few = np.flatnonzero(fam.sum(axis=1) * b < GATHER_COST * lengths.reshape(p, b).sum(axis=1))
        lengths.reshape(p, b)[few] = 0
        _members(zt, w, fam, few, sign, marg.reshape(p, b))
    _evaluate(zt, z_sorted, weights, order, rows, draws, np.full(p * b, FIRST), pos_len, marg, sim)
    _evaluate(zt, z_sorted, weights, order, rows, draws, neg_start, neg_len, marg, sim)
    # the simultaneous family: rows and entries that may beat the final maximum of the draw
    z_low = z_sorted[0]
    bound = np.maximum(zt - z_low, 0.0) * w_top[0][:, None]  # (p, b)
    j, d = np.nonzero(bound > sim)
    if j.size:
        low_z = zt[j, d] - _reach(sim[d], w_top[0][j], zt[j, d])
        cut = np.empty(j.size, dtype=np.int64)
        by_draw = np.argsort(d, kind="stable")
        bounds = np.searchsorted(d[by_draw], np.arange(b + 1))
        for dd in np.flatnonzero(np.diff(bounds)):  # one search per draw
            at = by_draw[bounds[dd] : bounds[dd + 1]]
            cut[at] = np.searchsorted(z_sorted[:, dd], low_z[at], side="right")
        _evaluate(zt, z_sorted, weights, order, j, d, np.zeros(j.size, dtype=np.int64), cut, None, sim)
    return sim, np.maximum(marg.reshape(p, b), 0.0)


def _reach(found, weight, z):
    """How far below (pos) or above (neg) a row's own Z an entry must lie for its value,
    at most the gap times ``weight``, to beat ``found``: a little less, so that no rounding
    of the products can leave out an entry that counts (more candidates change nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = np.asarray(found, dtype=np.float64) / weight * (1 - 1e-5) - np.abs(z) * 1e-6 - 1e-30
    return np.where(weight > 0, reach, np.inf)


def _evaluate(zt, z_sorted, weights, order, rows, draws, starts, lengths, marg, sim) -> None:
    """Raise ``marg[row·b + draw]`` and ``sim[draw]`` to the maxima of the values of the
    entries at sorted positions ``starts`` to ``starts + lengths`` of each (row, draw):
    the products of :func:`dense_maxima`. ``weights[j, k]`` holds w_jk times the pair's
    membership of the (sim, pos, neg) families: ``(d·w)·m`` and ``d·(w·m)`` are the same
    number for m = 1 and a zero for m = 0, which never moves a maximum that starts at 0."""
    some = lengths > 0
    rows, draws, starts, lengths = rows[some], draws[some], starts[some], lengths[some]
    p, b = zt.shape
    flat_order, flat_sorted, flat_weights = order.reshape(-1), z_sorted.reshape(-1), weights.reshape(p * p, 3)
    per = max(1, CHUNK_VALUES // 4)
    ends = np.cumsum(lengths)
    g0 = 0
    while g0 < rows.size:  # groups in chunks of about ``per`` values
        g1 = max(int(np.searchsorted(ends, (ends[g0 - 1] if g0 else 0) + per, side="right")), g0 + 1)
        ln = lengths[g0:g1]
        offsets = np.concatenate(([0], np.cumsum(ln)[:-1]))
        r, d = rows[g0:g1], draws[g0:g1]
        at = np.repeat((starts[g0:g1] - offsets) * b + d, ln) + np.arange(int(ln.sum())) * b  # (position, draw)
        k = flat_order.take(at)
        values = np.repeat(zt[r, d], ln) - flat_sorted.take(at)
        values = values[:, None] * flat_weights.take(np.repeat(r * p, ln) + k, axis=0)  # S_jk in each family
        np.maximum.at(sim, d, np.maximum.reduceat(values[:, 0], offsets))
        if marg is not None:
            top = np.maximum.reduceat(values[:, 1], offsets)
            np.maximum(top, -np.minimum.reduceat(values[:, 2], offsets), out=top)
            cell = r * b + d
            marg[cell] = np.maximum(marg[cell], top)
        g0 = g1


def _members(zt, w, fam, rows, sign, marg) -> None:
    """Raise ``marg[j]`` to the maximum over row j's family members of S_jk (``sign`` 1) or
    of S_kj = −S_jk (``sign`` −1) in every draw, for the ``rows`` given."""
    b = zt.shape[1]
    j, k = np.nonzero(fam[rows])
    if j.size == 0:
        return
    j = rows[j]
    per = max(1, CHUNK_VALUES // b)
    for s0 in range(0, j.size, per):
        jj, kk = j[s0 : s0 + per], k[s0 : s0 + per]
        values = zt[jj] - zt[kk]
        values *= w[jj, kk][:, None]  # S_jk, (n, b)
        starts = np.flatnonzero(np.r_[True, jj[1:] != jj[:-1]])
        top = np.maximum.reduceat(values, starts) if sign > 0 else -np.minimum.reduceat(values, starts)
        marg[jj[starts]] = np.maximum(marg[jj[starts]], top)
