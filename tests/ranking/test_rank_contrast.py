"""The seed-free rank of ``euroeval-2024`` (``leaderboard.ranking.contrast``): the paired
contrast against hand-computed values and scipy, and the rank it gives (since version 3 the
lower end of the marginal rank set built on the paired contrast scores)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from leaderboard.ranking import rank_group_board, rank_language_board
from leaderboard.ranking.contrast import (
    Z_CRIT,
    Contrast,
    board_contrast,
    combine_contrasts,
    dataset_weights,
    upper_bound_ranks,
)
from leaderboard.ranking.core import summary_statistics
from leaderboard.ranking.rank_sets import rank_sets_from_factors


def test_critical_value_is_the_one_tailed_five_percent_normal_quantile():
    assert pytest.approx(stats.norm.isf(0.05), abs=1e-12) == Z_CRIT


def test_dataset_weights_follow_the_rank_score_means():
    # tasks a (2 datasets), b (1), c (3): dataset → task → language means
    w = dataset_weights(["a", "a", "b", "c", "c", "c"])
    assert np.allclose(w, [1 / 6, 1 / 6, 1 / 3, 1 / 9, 1 / 9, 1 / 9])
    assert w.sum() == pytest.approx(1.0)


def test_one_dataset_contrast_is_welchs_statistic():
    a = [0.61, 0.64, 0.60, 0.66, 0.63]
    b = [0.58, 0.60, 0.57, 0.61, 0.59, 0.62]
    c = [0.50, 0.52, 0.49, 0.51]
    scores = np.full((1, 3, 6), np.nan)
    for e, values in enumerate((a, b, c)):
        scores[0, e, : len(values)] = values
    mean, var, cnt = summary_statistics(scores)
    contrast = board_contrast(mean, var, cnt, dataset_weights(["t"]))
    # by hand: σ = population std of the three means; D and V in σ units
    means = np.array([np.mean(a), np.mean(b), np.mean(c)])
    sigma = np.std(means)
    assert contrast.diff[0, 1] == pytest.approx((means[0] - means[1]) / sigma)
    assert contrast.var[0, 1] == pytest.approx((np.var(a, ddof=1) / 5 + np.var(b, ddof=1) / 6) / sigma**2)
    # with one dataset the σ cancels: z is Welch's t statistic
    t = stats.ttest_ind(a, b, equal_var=False).statistic
    assert contrast.z()[0, 1] == pytest.approx(t)
    assert contrast.z()[1, 0] == pytest.approx(-t)
    assert contrast.z()[0, 0] == 0.0


def test_contrast_weights_datasets_like_the_rank_score():
    rng = np.random.default_rng(3)
    scores = rng.normal([[[0.7]], [[0.5]], [[0.6]]], 0.02, size=(3, 4, 10))
    scores[:, 1] += 0.05  # entry 1 is better everywhere
    tasks = ["a", "a", "b"]
    mean, var, cnt = summary_statistics(scores)
    w = dataset_weights(tasks)
    contrast = board_contrast(mean, var, cnt, w)
    sig = mean.std(axis=1)
    expected_diff = sum(w[d] * (mean[d, 1] - mean[d, 0]) / sig[d] for d in range(3))
    expected_var = sum(w[d] ** 2 * (var[d, 1] / 10 + var[d, 0] / 10) / sig[d] ** 2 for d in range(3))
    assert contrast.diff[1, 0] == pytest.approx(expected_diff)
    assert contrast.var[1, 0] == pytest.approx(expected_var)


def test_upper_bound_rank_counts_significantly_better_entries():
    # four entries: 0 clearly best, 1 and 2 indistinguishable, 3 clearly worst, 4 unranked
    diff = np.array(
        [
            [0, 5, 5, 9, 0],
            [-5, 0, 0.1, 4, 0],
            [-5, -0.1, 0, 4, 0],
            [-9, -4, -4, 0, 0],
            [0, 0, 0, 0, 0],
        ],
        dtype=float,
    )
    var = np.ones((5, 5))
    points = np.array([1.0, 2.0, 2.05, 3.0, np.inf])
    ranks = upper_bound_ranks(points, Contrast(diff, var))
    assert ranks.tolist() == [1, 2, 2, 4, 0]


def test_equal_scores_are_not_significant_and_constant_different_ones_are():
    scores = np.array([[[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.4, 0.4, 0.4]]])
    mean, var, cnt = summary_statistics(scores)
    contrast = board_contrast(mean, var, cnt, dataset_weights(["t"]))
    z = contrast.z()
    assert z[0, 1] == 0.0 and z[1, 0] == 0.0
    assert z[0, 2] > 1e6  # no spread (up to rounding): any difference is significant
    assert upper_bound_ranks(np.array([1.0, 1.0, 2.0]), contrast).tolist() == [1, 1, 3]


def test_one_iteration_cannot_be_tested():
    scores = np.array([[[0.9, np.nan], [0.1, 0.2]]])  # entry 0 has one iteration: no variance
    mean, var, cnt = summary_statistics(scores)
    contrast = board_contrast(mean, var, cnt, dataset_weights(["t"]))
    assert np.isnan(contrast.z()[0, 1])
    assert upper_bound_ranks(np.array([1.0, 2.0]), contrast).tolist() == [1, 1]


def test_board_ranks_do_not_depend_on_the_seed_and_the_winner_ranks_first():
    rng = np.random.default_rng(11)
    base = rng.uniform(0.3, 0.8, size=(5, 40, 1))
    x = base + rng.normal(0, 0.03, size=(5, 40, 10))
    x[:, 7] += 0.5  # a clear winner
    tasks = ["a", "a", "b", "c", "c"]
    boards = [rank_language_board(x, tasks, replicates=100, seed=s) for s in range(4)]
    for other in boards[1:]:
        assert np.array_equal(other.ranks, boards[0].ranks)
        assert not np.array_equal(other.ci_low, boards[0].ci_low)
    ranks = boards[0].ranks
    assert ranks[7] == 1 and (ranks[np.arange(40) != 7] > 1).all()
    # a rank is 1 + the entries significantly better, so never more than its position
    order = boards[0].positions()
    assert all(ranks[e] <= k + 1 for k, e in enumerate(order))


def test_group_ranks_combine_the_languages_contrasts():
    rng = np.random.default_rng(5)
    boards = []
    for _ in range(2):
        x = rng.uniform(0.3, 0.8, size=(3, 12, 1)) + rng.normal(0, 0.02, size=(3, 12, 10))
        boards.append(rank_language_board(x, ["a", "b", "c"], replicates=50, seed=1))
    scores = np.stack([b.rank_scores for b in boards], axis=1)
    group = rank_group_board(scores, [b.replicates for b in boards], [b.contrast for b in boards])
    combined = combine_contrasts([b.contrast for b in boards])
    assert np.allclose(combined.diff, (boards[0].contrast.diff + boards[1].contrast.diff) / 2)
    assert np.allclose(combined.var, (boards[0].contrast.var + boards[1].contrast.var) / 4)
    # the group's paired scores are the languages' mean, its factors both languages' halved
    assert np.allclose(combined.scores, (boards[0].contrast.scores + boards[1].contrast.scores) / 2)
    assert np.allclose(combined.factors, np.hstack([boards[0].contrast.factors, boards[1].contrast.factors]) / 2)
    sets = rank_sets_from_factors(combined.scores, combined.factors, df=combined.df)
    assert np.array_equal(group.ranks, sets.marginal_low)
    # version 3 corrects each entry's comparisons jointly: never a worse rank than pair by pair
    assert np.all(group.ranks <= upper_bound_ranks(group.rank_scores, combined))
