"""Per-draw maxima of standardised differences over families of ordered pairs: the bootstrap
distributions behind the critical values of :mod:`leaderboard.ranking.rank_sets`.

For draws Z ``(p, B)`` and weights w_jk = 1/σ_jk, S_jk = (Z_j − Z_k)·w_jk. Three kinds of
family: the simultaneous one (a set of ordered pairs (j, k)), and per entry j its marginal
family, in two parts: ``pos[j, k]`` (the pair (j, k), value S_jk) and ``neg[j, k]`` (the
pair (k, j), value S_kj = −S_jk). A pair outside a family counts as 0, which never moves a
quantile above 0 (every non-empty family's is).

The maxima are computed once for every draw, in dense row blocks (one subtraction and
three masked products per block: streaming numpy, no gathers). The stepdown then only
removes pairs; a draw's maximum can only change if it sat on a removed pair, so only those
draws are recomputed, exactly, for the family that is left.
"""

from __future__ import annotations

import numpy as np

CHUNK_VALUES = 1 << 22  # floats per block buffer (16 MB in float32)


class FamilyMaxima:
    def __init__(self, zt: np.ndarray, w: np.ndarray, fam_sim, fam_pos, fam_neg):
        self.zt = zt  # (p, B) float32
        self.w = w  # (p, p) float32
        self.sim, self.marg = dense_maxima(zt, w, fam_sim, fam_pos, fam_neg)

    def quantiles(self, level: float) -> tuple[float, np.ndarray]:
        return float(np.quantile(self.sim, level)), np.quantile(self.marg, level, axis=1)

    def remove(self, gone_sim, gone_pos, gone_neg, fam_sim, fam_pos, fam_neg) -> None:
        """Pairs ``gone_*`` left the families, which are now ``fam_*``: update the maxima."""
        if gone_sim.any():
            hit = np.flatnonzero(self._pair_values(gone_sim).max(axis=0) >= self.sim * (1 - 1e-6))
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

    def _pair_values(self, pairs: np.ndarray) -> np.ndarray:
        a, k = np.nonzero(pairs)
        return (self.zt[a] - self.zt[k]) * self.w[a, k][:, None]

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
