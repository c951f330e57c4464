"""Confidence sets for ranks from bootstrap replicates (Mogstad, Romano, Shaikh & Wilhelm,
"Inference for ranks", Review of Economic Studies 2024; the R package ``csranks``).

For every ordered pair (j, k) the hypothesis "j is no better than k" is tested with the
standardised difference t_jk = (θ̂_j − θ̂_k) / se_jk, where se_jk is the bootstrap standard
deviation of the difference (entries that share the same resampled draws cancel in it).
The critical value is the (1 − α) quantile of the bootstrap distribution of the *largest*
centred statistic over a family of pairs: all pairs for a simultaneous set, the pairs
that involve j for j's marginal set. A stepdown removes the pairs already declared
different and recomputes the quantile over the rest, until nothing changes (never wider
than the single step). The lower end of j's set is 1 + the number of entries declared
better than j, the upper end p − the number declared worse.

Pure numpy; higher estimates are better. A pair whose difference does not vary over the
replicates (se = 0) is declared different when its estimates differ and equal otherwise.
"""

from __future__ import annotations

import numpy as np


def _standardised(estimates: np.ndarray, boot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """t[j, k] of the estimates, se[j, k], and the replicates' centred statistics (B, p, p)."""
    diff = estimates[:, None] - estimates[None, :]
    boot_diff = boot[:, :, None] - boot[:, None, :]
    se = boot_diff.std(axis=0, ddof=1) if boot.shape[0] > 1 else np.zeros_like(diff)
    exact = se <= 1e-12 * (1 + np.abs(diff))
    safe = np.where(exact, 1.0, se)
    t = np.where(exact, np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0)), diff / safe)
    centred = np.where(exact[None], 0.0, (boot_diff - diff[None]) / safe[None])
    return t, se, centred


def _critical(centred: np.ndarray, family: np.ndarray, level: float) -> float:
    """The ``level`` quantile of the replicates' largest statistic over ``family`` (a p×p mask)."""
    if not family.any():
        return np.inf
    largest = np.where(family[None], centred, -np.inf).reshape(centred.shape[0], -1).max(axis=1)
    return float(np.quantile(largest, level))


def _declared(t: np.ndarray, centred: np.ndarray, family: np.ndarray, level: float, stepdown: bool) -> np.ndarray:
    """rejected[j, k]: j declared better than k, among the pairs of ``family``."""
    rejected = np.zeros_like(family)
    remaining = family.copy()
    while True:
        critical = _critical(centred, remaining, level)
        new = remaining & (t > critical)
        if not new.any():
            return rejected
        rejected |= new
        remaining &= ~new
        if not stepdown:
            return rejected


def rank_confidence_sets(
    estimates,
    boot_estimates,
    *,
    level: float = 0.95,
    simultaneous: bool = False,
    stepdown: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) integer rank bounds (1 = best) for each of p entries.

    ``estimates``: shape (p,), higher is better. ``boot_estimates``: shape (B, p), the same
    entries' estimates on B bootstrap replicates that share their resampled draws.
    ``simultaneous``: one family of all pairs, so all p sets hold at once with probability
    ``level``; otherwise each entry's marginal set holds with probability ``level`` on its own.
    """
    estimates = np.asarray(estimates, dtype=float)
    boot = np.asarray(boot_estimates, dtype=float)
    p = estimates.shape[0]
    if boot.ndim != 2 or boot.shape[1] != p:
        raise ValueError("boot_estimates must have shape (replicates, entries)")
    if not np.isfinite(estimates).all() or not np.isfinite(boot).all():
        raise ValueError("estimates and replicates must be finite")
    if p == 0:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    t, _, centred = _standardised(estimates, boot)
    off_diagonal = ~np.eye(p, dtype=bool)
    if simultaneous:
        better = _declared(t, centred, off_diagonal, level, stepdown)
    else:
        better = np.zeros((p, p), dtype=bool)
        for j in range(p):
            others = np.arange(p) != j
            # j's family: (j, k) and (k, j) for every k, as one row of 2(p - 1) statistics
            t_j = np.concatenate([t[j, others], t[others, j]])[None, :]
            centred_j = np.concatenate([centred[:, j, others], centred[:, others, j]], axis=1)[:, None, :]
            decided = _declared(t_j, centred_j, np.ones_like(t_j, dtype=bool), level, stepdown)[0]
            better[j, others] = decided[: p - 1]
            better[others, j] = decided[p - 1 :]
    lower = 1 + better.sum(axis=0)  # entries declared better than j: better[k, j]
    upper = p - better.sum(axis=1)  # entries j is declared better than
    return lower.astype(int), upper.astype(int)
