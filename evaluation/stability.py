"""How many examples a dataset needs to rank models (docs/methodology.md §9; the GEM paper:
a benchmark should know whether its test set can separate the systems it ranks).

Input: per model, its per-example scores on the same examples (the task's first
per-example score). For each subsample size n (50, 100, 200, 500, 1000 and all the shared
examples), drawn ``repeats`` times without replacement with a fixed seed:

* **separated**: the share of model pairs that Wilcoxon's signed-rank test (paired on the
  same examples, two-sided, ``zero_method="wilcox"``) separates at p < 0.05; a pair whose
  scores never differ on the subsample is not separated;
* **τ**: Kendall's τ (``scipy.stats.kendalltau``, τ-b) between the models' ranking by
  mean score on the subsample and on all the shared examples.

Each is the mean over the repeats. The dataset's **stable size** is the smallest n whose
mean τ is at least 0.9 (None when no size reaches it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

SIZES = (50, 100, 200, 500, 1000)
DEFAULT_REPEATS = 20
STABLE_TAU = 0.9
ALPHA = 0.05
SEED = 4242


@dataclass(frozen=True)
class StabilityRow:
    """At ``n`` examples: how many model pairs a subsample separates and how well it keeps the full ranking."""

    n: int
    repeats: int
    separated: float  # mean share of model pairs separated at p < ALPHA
    tau: float  # mean Kendall τ against the full ranking


@dataclass(frozen=True)
class Stability:
    """How stable a ranking of models is as examples are left out."""

    models: tuple[str, ...]
    num_examples: int  # examples every model answered
    rows: tuple[StabilityRow, ...]

    @property
    def stable_size(self) -> int | None:
        """The smallest number of examples whose ranking keeps Kendall's τ ≥ STABLE_TAU, or None."""
        return next((row.n for row in self.rows if row.tau >= STABLE_TAU), None)


def shared_matrix(scores: Mapping[str, Mapping[str, float]]) -> tuple[tuple[str, ...], np.ndarray]:
    """(models, array of shape (models, examples)) over the examples every model answered."""
    models = tuple(sorted(scores))
    shared = set.intersection(*(set(scores[m]) for m in models)) if models else set()
    ids = sorted(shared, key=lambda i: (len(i), i))
    return models, np.array([[scores[m][i] for i in ids] for m in models], dtype=float).reshape(len(models), len(ids))


def pair_separated(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether the Wilcoxon signed-rank test separates two models' paired scores at ``ALPHA``."""
    from scipy import stats

    if not np.any(x != y):
        return False
    return bool(stats.wilcoxon(x, y, zero_method="wilcox").pvalue < ALPHA)


def kendall_tau(subsample_means: np.ndarray, full_means: np.ndarray) -> float:
    """τ-b of two rankings; 1.0 when neither ranking orders anything (all tied)."""
    from scipy import stats

    tau = stats.kendalltau(subsample_means, full_means).statistic
    return 1.0 if np.isnan(tau) else float(tau)


def stability(
    scores: Mapping[str, Mapping[str, float]],
    *,
    sizes: Sequence[int] = SIZES,
    repeats: int = DEFAULT_REPEATS,
    seed: int = SEED,
) -> Stability:
    """The stability table of one dataset from ``scores`` (model → example id → score)."""
    if len(scores) < 2:
        raise ValueError("the stability of a ranking needs at least two models")
    models, matrix = shared_matrix(scores)
    total = matrix.shape[1]
    if total < 2:
        raise ValueError(f"the models share {total} examples; at least two are needed")
    full_means = matrix.mean(axis=1)
    pairs = list(combinations(range(len(models)), 2))
    rng = np.random.default_rng(seed)
    rows = []
    for n in sorted({size for size in sizes if size < total} | {total}):
        draws = 1 if n == total else repeats
        separated, taus = [], []
        for _ in range(draws):
            columns = np.arange(total) if n == total else rng.choice(total, size=n, replace=False)
            sample = matrix[:, columns]
            separated.append(sum(pair_separated(sample[a], sample[b]) for a, b in pairs) / len(pairs))
            taus.append(kendall_tau(sample.mean(axis=1), full_means))
        rows.append(StabilityRow(n=n, repeats=draws, separated=float(np.mean(separated)), tau=float(np.mean(taus))))
    return Stability(models=models, num_examples=total, rows=tuple(rows))
