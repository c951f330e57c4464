"""Paired significance tests of two models on the same examples (docs/methodology.md §7a).

Two models answered the same test examples; each example has a score per model. The
scores are paired, so the test looks at the per-example differences:

* **McNemar's exact test** when every score is 0 or 1 (accuracy-like): only the
  discordant examples count (one model right, the other wrong); under the null hypothesis
  each is equally likely to go either way, so the smaller count is binomial(n, 1/2),
  two-sided (``scipy.stats.binomtest``).
* **Wilcoxon's signed-rank test** otherwise (graded scores: F1, chrF, METEOR): the ranks
  of the non-zero differences (``scipy.stats.wilcoxon``, ``zero_method="wilcox"``),
  two-sided, exact for small samples as scipy chooses.

When the two models never differ, nothing separates them: p = 1.

Two models are also compared on their **per-iteration scores** (:func:`iteration_test`),
which every result has, published or not:

* **Paired t-test** when iteration i of both models ran on the same resample of the same
  test set (the same dataset version and protocol: the resamples are drawn from one seed,
  docs/methodology.md §1): the mean of the differences d_i = a_i − b_i over its standard
  error s_d/√n, Student's t with n − 1 degrees of freedom, two-sided;
* **Welch's t-test** otherwise (unpaired, unequal variances, Welch–Satterthwaite degrees
  of freedom), two-sided.

Both give the difference of the means with its 95% interval (the t quantile of the test's
degrees of freedom). Where the spread is zero, any other difference than 0 has p = 0
(as scipy's tests give) and a zero difference p = 1 (scipy leaves it undefined).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MCNEMAR = "McNemar (exact)"
WILCOXON = "Wilcoxon signed-rank"
PAIRED_T = "paired t-test over iterations"
WELCH_T = "Welch's t-test over iterations (unpaired)"
LEVEL = 0.95


@dataclass(frozen=True)
class PairedResult:
    """Two models compared on the examples both answered: their means, the test used, its p-value and the wins."""

    n: int  # examples both models answered
    mean_a: float
    mean_b: float
    test: str
    p_value: float
    a_wins: int  # examples where A scores higher
    b_wins: int
    ties: int

    @property
    def difference(self) -> float:
        """Model A's mean minus model B's."""
        return self.mean_a - self.mean_b


def is_binary(values: Sequence[float]) -> bool:
    """Whether every value is 0 or 1."""
    return all(v in (0.0, 1.0) for v in values)


def paired_test(a: Sequence[float], b: Sequence[float]) -> PairedResult:
    """Compare the paired scores ``a[i]`` and ``b[i]`` of two models on example i."""
    from scipy import stats

    if len(a) != len(b):
        raise ValueError(f"paired scores need the same examples: {len(a)} and {len(b)}")
    if not a:
        raise ValueError("no shared examples to compare")
    a_wins = sum(1 for x, y in zip(a, b, strict=True) if x > y)
    b_wins = sum(1 for x, y in zip(a, b, strict=True) if y > x)
    ties = len(a) - a_wins - b_wins
    binary = is_binary(a) and is_binary(b)
    if a_wins + b_wins == 0:
        p_value = 1.0
    elif binary:
        p_value = float(stats.binomtest(min(a_wins, b_wins), a_wins + b_wins, 0.5).pvalue)
    else:
        p_value = float(stats.wilcoxon(a, b, zero_method="wilcox").pvalue)
    return PairedResult(
        n=len(a),
        mean_a=sum(a) / len(a),
        mean_b=sum(b) / len(b),
        test=MCNEMAR if binary else WILCOXON,
        p_value=min(1.0, p_value),
        a_wins=a_wins,
        b_wins=b_wins,
        ties=ties,
    )


@dataclass(frozen=True)
class IterationResult:
    """Two models' per-iteration scores on one dataset, compared."""

    n_a: int  # iterations
    n_b: int
    mean_a: float
    mean_b: float
    difference: float  # mean_a − mean_b
    ci_low: float  # 95% interval of the difference (NaN without degrees of freedom)
    ci_high: float
    test: str  # PAIRED_T or WELCH_T
    df: float  # NaN when the spread is zero
    p_value: float

    @property
    def paired(self) -> bool:
        """Whether the paired t-test was used (not Welch's)."""
        return self.test == PAIRED_T

    def verdict(self, alpha: float = 1 - LEVEL) -> str:
        """ "a", "b" (which is significantly better at ``alpha``, two-sided) or "" (neither)."""
        if not self.p_value < alpha:
            return ""
        return "a" if self.difference > 0 else "b"


def _t_result(a, b, diff: float, se: float, df: float, test: str) -> IterationResult:
    from scipy import stats

    if se > 0 and df > 0:
        p_value = float(2 * stats.t.sf(abs(diff) / se, df))
        half = float(stats.t.ppf((1 + LEVEL) / 2, df)) * se
    else:  # no spread: the difference is what it is
        p_value, half, df = (1.0 if diff == 0 else 0.0), 0.0, float("nan")
    return IterationResult(
        n_a=len(a),
        n_b=len(b),
        mean_a=sum(a) / len(a),
        mean_b=sum(b) / len(b),
        difference=diff,
        ci_low=diff - half,
        ci_high=diff + half,
        test=test,
        df=df,
        p_value=min(1.0, p_value),
    )


def _variance(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def iteration_test(a: Sequence[float], b: Sequence[float], *, paired: bool) -> IterationResult:
    """Compare the per-iteration scores ``a`` and ``b`` of two models on one dataset:
    paired (``a[i]`` and ``b[i]`` ran on the same resample; needs as many iterations) or
    Welch. Each side needs at least 2 finite scores."""
    a, b = [float(x) for x in a], [float(y) for y in b]
    if not all(math.isfinite(v) for v in a + b):
        raise ValueError("iteration scores must be finite numbers")
    if len(a) < 2 or len(b) < 2:
        raise ValueError("a test over iterations needs at least 2 iterations of each model")
    if paired:
        if len(a) != len(b):
            raise ValueError(f"paired iterations need as many of each: {len(a)} and {len(b)}")
        d = [x - y for x, y in zip(a, b, strict=True)]
        diff = sum(d) / len(d)
        return _t_result(a, b, diff, math.sqrt(_variance(d) / len(d)), len(d) - 1, PAIRED_T)
    qa, qb = _variance(a) / len(a), _variance(b) / len(b)
    se = math.sqrt(qa + qb)
    df = (qa + qb) ** 2 / (qa**2 / (len(a) - 1) + qb**2 / (len(b) - 1)) if se > 0 else 0.0
    return _t_result(a, b, sum(a) / len(a) - sum(b) / len(b), se, df, WELCH_T)
