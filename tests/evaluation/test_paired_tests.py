"""Paired tests of two models on the same examples (evaluation/paired_tests.py), against
hand-computed values and scipy."""

from __future__ import annotations

import pytest
from scipy import stats

from evaluation.paired_tests import MCNEMAR, PAIRED_T, WELCH_T, WILCOXON, iteration_test, paired_test


def test_mcnemar_exact_by_hand():
    # 8 examples only A gets right, 2 only B, 5 both, 5 neither:
    # p = 2 · P(X ≤ 2), X ~ Binomial(10, 1/2) = 2 · (1 + 10 + 45) / 1024 = 0.109375
    a = [1.0] * 8 + [0.0] * 2 + [1.0] * 5 + [0.0] * 5
    b = [0.0] * 8 + [1.0] * 2 + [1.0] * 5 + [0.0] * 5
    result = paired_test(a, b)
    assert result.test == MCNEMAR and result.p_value == pytest.approx(112 / 1024)
    assert (result.n, result.a_wins, result.b_wins, result.ties) == (20, 8, 2, 10)
    assert result.difference == pytest.approx(13 / 20 - 7 / 20)


def test_wilcoxon_for_graded_scores_by_hand_and_against_scipy():
    # five positive differences: exact two-sided p = 2 / 2^5 = 0.0625
    a, b = [0.9, 0.8, 0.7, 0.6, 0.5], [0.8, 0.6, 0.4, 0.2, 0.0]
    result = paired_test(a, b)
    assert result.test == WILCOXON and result.p_value == pytest.approx(0.0625)
    a = [0.31, 0.52, 0.77, 0.12, 0.95, 0.44, 0.61, 0.28, 0.83, 0.5, 0.5]
    b = [0.29, 0.61, 0.70, 0.20, 0.90, 0.40, 0.66, 0.21, 0.80, 0.45, 0.5]
    assert paired_test(a, b).p_value == pytest.approx(stats.wilcoxon(a, b, zero_method="wilcox").pvalue)
    assert paired_test(a, b).ties == 1


def test_identical_answers_are_not_separated_and_bad_input_is_refused():
    assert paired_test([1.0, 0.0], [1.0, 0.0]).p_value == 1.0
    assert paired_test([0.4, 0.7], [0.4, 0.7]).p_value == 1.0
    with pytest.raises(ValueError):
        paired_test([1.0], [1.0, 0.0])
    with pytest.raises(ValueError):
        paired_test([], [])


# --- per-iteration scores (iteration_test) -----------------------------------------------


def test_paired_t_over_iterations_by_hand_and_against_scipy():
    # differences 0.1, 0.2, 0.3: mean 0.2, s_d = 0.1, se = 0.1/√3, t = 2√3 = 3.4641, df = 2
    a, b = [0.6, 0.7, 0.8], [0.5, 0.5, 0.5]
    result = iteration_test(a, b, paired=True)
    assert result.test == PAIRED_T and result.paired and result.df == 2
    assert result.difference == pytest.approx(0.2)
    assert result.p_value == pytest.approx(2 * stats.t.sf(2 * 3**0.5, 2))  # 0.0742
    assert result.p_value == pytest.approx(0.074180, abs=1e-6)
    half = stats.t.ppf(0.975, 2) * 0.1 / 3**0.5  # 4.3027 · 0.0577 = 0.2484
    assert (result.ci_low, result.ci_high) == pytest.approx((0.2 - half, 0.2 + half))
    assert result.verdict() == ""  # p = 0.074: not significant at 5%
    a = [0.61, 0.58, 0.66, 0.63, 0.60, 0.64, 0.59, 0.62, 0.65, 0.57]
    b = [0.55, 0.56, 0.57, 0.60, 0.52, 0.58, 0.50, 0.61, 0.59, 0.56]
    result = iteration_test(a, b, paired=True)
    expected = stats.ttest_rel(a, b)
    assert result.p_value == pytest.approx(expected.pvalue) and result.df == expected.df
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(expected.confidence_interval(0.95)))
    assert result.verdict() == "a" and iteration_test(b, a, paired=True).verdict() == "b"


def test_welch_over_iterations_by_hand_and_against_scipy():
    # a: mean 0.6, s² = 0.01; b: mean 0.4, s² = 0.04; n = 3 each: se² = 0.05/3,
    # df = (0.05/3)² / ((0.01/3)²/2 + (0.04/3)²/2) = 0.0025 / 0.00085 = 2.9412
    a, b = [0.5, 0.6, 0.7], [0.2, 0.4, 0.6]
    result = iteration_test(a, b, paired=False)
    assert result.test == WELCH_T and not result.paired
    assert result.df == pytest.approx(0.0025 / 0.00085)
    assert result.p_value == pytest.approx(2 * stats.t.sf(0.2 / (0.05 / 3) ** 0.5, 0.0025 / 0.00085))
    expected = stats.ttest_ind(a, b, equal_var=False)
    assert result.p_value == pytest.approx(expected.pvalue) and result.df == pytest.approx(expected.df)
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(expected.confidence_interval(0.95)))
    # unequal numbers of iterations (a published 10 against a local 3)
    a = [0.71, 0.69, 0.74, 0.70, 0.72, 0.68, 0.73, 0.70, 0.71, 0.69]
    b = [0.52, 0.60, 0.55]
    result = iteration_test(a, b, paired=False)
    expected = stats.ttest_ind(a, b, equal_var=False)
    assert result.p_value == pytest.approx(expected.pvalue) and (result.n_a, result.n_b) == (10, 3)
    assert result.verdict() == "a"


def test_iterations_without_spread_and_bad_input():
    same = iteration_test([0.5, 0.5, 0.5], [0.5, 0.5, 0.5], paired=True)
    assert same.p_value == 1.0 and same.verdict() == "" and (same.ci_low, same.ci_high) == (0.0, 0.0)
    shifted = iteration_test([0.75, 0.5, 0.25], [0.5, 0.25, 0.0], paired=True)  # every difference 0.25
    assert shifted.p_value == stats.ttest_rel([0.75, 0.5, 0.25], [0.5, 0.25, 0.0]).pvalue == 0.0
    assert shifted.verdict() == "a"
    for a, b, paired in (
        ([0.5], [0.4, 0.3], False),  # one iteration: no spread to test with
        ([0.5, 0.6, 0.7], [0.4, 0.3], True),  # paired needs as many
        ([0.5, float("nan")], [0.4, 0.3], False),
    ):
        with pytest.raises(ValueError):
            iteration_test(a, b, paired=paired)
