"""The ranking math, without a database: hand-computed cases and agreement with scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from leaderboard import ranking
from leaderboard.ranking import (
    anchor_walk,
    dataset_rank_scores,
    dataset_rank_scores_from_summaries,
    dataset_score,
    entry_display_name,
    rank_group_board,
    rank_language_board,
    significance_groups,
    welch_greater_pvalues,
)


def reference_rank_scores(lists, alpha=0.05):
    """docs/methodology.md §4 written literally, one scipy call per comparison."""
    present = [i for i, s in enumerate(lists) if s is not None and len(s)]
    out = np.full(len(lists), np.inf)
    if not present:
        return out
    means = {i: float(np.mean(lists[i])) for i in present}
    sigma = float(np.std([means[i] for i in present]))
    order = sorted(present, key=lambda i: -means[i])
    anchor = order[0]
    out[anchor] = 1.0
    for cur in order[1:]:
        if sorted(lists[anchor]) == sorted(lists[cur]):
            p = math.nan  # identical score lists are not significant
        else:
            p = stats.ttest_ind(lists[anchor], lists[cur], equal_var=False, alternative="greater").pvalue
        if p < alpha:
            out[cur] = out[anchor] + (means[anchor] - means[cur]) / sigma
            anchor = cur
        else:
            out[cur] = out[anchor]
    return out


# --- §3 dataset score -------------------------------------------------------------------


def test_dataset_score_by_hand():
    # mean = 0.6; s = sqrt(((-.1)² + .1² + 0²) / 2) = 0.1; ci = 1.96 · 0.1 / √3 = 0.113161
    score = dataset_score([0.5, 0.7, 0.6])
    assert score.mean == pytest.approx(0.6)
    assert score.ci == pytest.approx(0.1131607, abs=1e-7)
    assert score.n == 3


def test_dataset_score_single_iteration_has_no_interval():
    assert dataset_score([0.4]).ci is None
    with pytest.raises(ValueError):
        dataset_score([])


def test_display_names():
    assert entry_display_name("org/m", True, False) == "org/m"
    assert entry_display_name("org/m", False, False) == "org/m (zero-shot)"
    assert entry_display_name("org/m", True, True) == "org/m (val)"
    assert entry_display_name("org/m", False, True) == "org/m (zero-shot, val)"


# --- §4 the anchor walk -------------------------------------------------------------------


def test_walk_by_hand():
    a = [0.80, 0.82, 0.84]  # mean .82, s = .02
    b = [0.70, 0.72, 0.74]  # mean .72, s = .02
    c = [0.69, 0.71, 0.73]  # mean .71, s = .02
    # σ = pop. std of (.82, .72, .71): mean .75, squares .0049 + .0009 + .0016 = .0074,
    #     /3 = .0024667, σ = .0496655.
    # a vs b: se = sqrt(.0004/3 + .0004/3) = .0163299, t = .10/.0163299 = 6.1237, df = 4,
    #     one-tailed p ≈ .0018 < .05 → b = 1 + .10/.0496655 = 3.013468; b is the anchor.
    # b vs c: t = .01/.0163299 = .6124, p ≈ .287 → c gets b's score.
    scores = dataset_rank_scores([a, b, c])
    assert scores == pytest.approx([1.0, 3.013468, 3.013468], abs=1e-6)
    p_ab = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
    p_bc = stats.ttest_ind(b, c, equal_var=False, alternative="greater").pvalue
    assert p_ab == pytest.approx(0.0018, abs=2e-4) and p_bc == pytest.approx(0.287, abs=2e-3)


def test_walk_input_order_does_not_matter():
    a, b, c = [0.80, 0.82, 0.84], [0.70, 0.72, 0.74], [0.69, 0.71, 0.73]
    assert dataset_rank_scores([c, a, b]) == pytest.approx([3.013468, 1.0, 3.013468], abs=1e-6)


def test_non_significant_step_keeps_anchor_then_significant_step_uses_anchor_mean():
    # b is not significantly below a, but c is: c's score adds (mean_a − mean_c)/σ to a's.
    a = [0.80, 0.70, 0.90, 0.85, 0.75]
    b = [0.78, 0.68, 0.88, 0.83, 0.73]
    c = [0.30, 0.32, 0.31, 0.29, 0.33]
    means = np.array([np.mean(a), np.mean(b), np.mean(c)])
    sigma = np.std(means)
    out = dataset_rank_scores([a, b, c])
    assert out[0] == 1.0 and out[1] == 1.0
    assert out[2] == pytest.approx(1 + (means[0] - means[2]) / sigma)
    assert np.allclose(out, reference_rank_scores([a, b, c]))


def test_ties_and_identical_lists_are_not_significant():
    a = [0.5, 0.6, 0.7]
    shuffled = [0.7, 0.5, 0.6]  # same multiset, other order
    assert list(dataset_rank_scores([a, list(a), shuffled])) == [1.0, 1.0, 1.0]
    # scipy gives NaN for two constant identical lists; we treat that as not significant.
    assert math.isnan(stats.ttest_ind([0.5] * 3, [0.5] * 3, equal_var=False, alternative="greater").pvalue)
    assert list(dataset_rank_scores([[0.5] * 3, [0.5] * 3])) == [1.0, 1.0]


def test_constant_lists_with_different_means_are_significant_like_scipy():
    # Zero variance on both sides: t = +inf, scipy's df falls back to 1, p = 0.
    assert stats.ttest_ind([0.6] * 3, [0.5] * 3, equal_var=False, alternative="greater").pvalue == 0.0
    out = dataset_rank_scores([[0.6] * 3, [0.5] * 3])
    # σ = pop. std of (.6, .5) = .05, so the step is .1/.05 = 2.
    assert out == pytest.approx([1.0, 3.0])


def test_sigma_zero_single_entry_and_missing():
    assert list(dataset_rank_scores([[0.5, 0.6], [0.6, 0.5]])) == [1.0, 1.0]  # equal means: σ = 0
    assert list(dataset_rank_scores([[0.3, 0.4, 0.5]])) == [1.0]
    out = dataset_rank_scores([None, [0.3, 0.4, 0.5], []])
    assert out[1] == 1.0 and np.isinf(out[0]) and np.isinf(out[2])
    assert np.isinf(dataset_rank_scores([None, None])).all()
    assert anchor_walk(np.zeros((2, 0)), np.zeros((2, 0)), np.zeros((2, 0))).shape == (2, 0)


def test_single_iteration_entries_are_never_significant():
    # n = 1 has no variance (scipy: NaN p-value), so it shares the anchor's score.
    out = dataset_rank_scores([[0.9, 0.91, 0.92], [0.1]])
    assert list(out) == [1.0, 1.0]
    assert math.isnan(stats.ttest_ind([0.9, 0.91, 0.92], [0.1], equal_var=False, alternative="greater").pvalue)


@pytest.mark.parametrize("seed", range(6))
def test_walk_agrees_with_scipy_reference(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(1, 25))
        lists = []
        for _ in range(n):
            kind = rng.random()
            if kind < 0.08:
                lists.append(None)
            elif kind < 0.15 and lists and lists[-1] is not None:
                lists.append(list(rng.permutation(lists[-1])))  # an identical list
            else:
                k = int(rng.integers(2, 12))
                lists.append(list(np.round(rng.normal(rng.uniform(0.3, 0.7), rng.uniform(0.0, 0.06), k), 4)))
        expected = reference_rank_scores(lists)
        got = dataset_rank_scores(lists)
        assert np.array_equal(np.isinf(got), np.isinf(expected))
        fin = np.isfinite(expected)
        assert np.allclose(got[fin], expected[fin], rtol=0, atol=1e-9)


def test_nondefault_alpha_uses_exact_p_values():
    rng = np.random.default_rng(3)
    lists = [list(rng.normal(0.5 + 0.01 * k, 0.03, 10)) for k in range(15)]
    for alpha in (0.01, 0.2):
        assert np.allclose(dataset_rank_scores(lists, alpha=alpha), reference_rank_scores(lists, alpha=alpha))


def test_pvalues_agree_with_scipy():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n1, n2 = rng.integers(2, 15, 2)
        a = rng.normal(0.5, rng.uniform(0.001, 0.1), n1)
        b = rng.normal(0.5, rng.uniform(0.001, 0.1), n2)
        expected = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
        got = welch_greater_pvalues(a.mean(), a.var(ddof=1), n1, b.mean(), b.var(ddof=1), n2)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_summary_path_agrees_with_scipy_from_stats_and_raw_path():
    rng = np.random.default_rng(11)
    lists = [list(rng.normal(rng.uniform(0.2, 0.8), 0.04, 10)) for _ in range(40)]
    means = np.array([np.mean(x) for x in lists])
    cis = np.array([1.96 * np.std(x, ddof=1) / np.sqrt(10) for x in lists])
    assert np.allclose(dataset_rank_scores_from_summaries(means, cis, 10), dataset_rank_scores(lists), atol=1e-9)
    # the reconstruction is ttest_ind_from_stats with s = ci·√n/1.96
    s = cis * np.sqrt(10) / 1.96
    p = stats.ttest_ind_from_stats(
        means[0], s[0], 10, means[1], s[1], 10, equal_var=False, alternative="greater"
    ).pvalue
    assert p == pytest.approx(
        stats.ttest_ind(lists[0], lists[1], equal_var=False, alternative="greater").pvalue, rel=1e-9
    )


def test_summaries_mixing_standard_errors_and_half_widths():
    # Half the entries publish the 95% half-width 1.96·s/√n (z = 1.96), the others the
    # standard error s/√n (z = 1): with z per summary both agree with the raw scores.
    rng = np.random.default_rng(12)
    lists = [list(rng.normal(rng.uniform(0.2, 0.8), 0.05, 10)) for _ in range(30)]
    means = np.array([np.mean(x) for x in lists])
    se = np.array([np.std(x, ddof=1) / np.sqrt(10) for x in lists])
    z = np.where(np.arange(30) % 2 == 0, 1.96, 1.0)
    published = z * se
    expected = dataset_rank_scores(lists)
    assert np.allclose(dataset_rank_scores_from_summaries(means, published, 10, z=z), expected, atol=1e-9)
    # read as if every ± were a half-width, the standard-error entries look 1.96x surer
    assert not np.allclose(dataset_rank_scores_from_summaries(means, published, 10), expected, atol=1e-3)


def test_summary_path_constructed_case():
    # Two datasets-worth of summaries worked by hand: means 80, 70, 69 (×100 scale),
    # ci 1.96·s/√10 with s = 2 → ci = 1.23961. σ = pop. std(80, 70, 69) = 4.96655.
    # 80 vs 70: t = 10/sqrt(.4+.4) = 11.18 → significant: 1 + 10/4.96655 = 3.013468.
    # 70 vs 69: t = 1/.8944 = 1.118, df = 18, p ≈ .139 → same score.
    ci = 1.96 * 2 / np.sqrt(10)
    out = dataset_rank_scores_from_summaries([80, 70, 69, np.nan], [ci, ci, ci, np.nan], 10)
    assert out[:3] == pytest.approx([1.0, 3.013468, 3.013468], abs=1e-6)
    assert np.isinf(out[3])


def test_lanes_are_independent():
    rng = np.random.default_rng(5)
    m = rng.uniform(0.3, 0.7, (4, 30))
    v = rng.uniform(1e-4, 4e-3, (4, 30))
    m[2, 5:] = np.nan
    stacked = anchor_walk(m, v, np.full((4, 30), 10.0))
    for k in range(4):
        assert np.array_equal(stacked[k], anchor_walk(m[k], v[k], np.full(30, 10.0)))


# --- aggregation, uncertainty, groups --------------------------------------------------


def test_task_then_language_means():
    # entry 0: sentiment datasets 1.0 and 2.0 → task 1.5; NER 3.0 → language (1.5+3)/2 = 2.25
    ds = np.array([[1.0, 2.0, 3.0], [1.0, np.inf, 1.0]])
    tasks, task_scores, lang = ranking.aggregate_tasks(ds, ["sent", "sent", "ner"])
    assert tasks == ["sent", "ner"]
    assert task_scores[0] == pytest.approx([1.5, 3.0])
    assert lang[0] == pytest.approx(2.25)
    assert np.isinf(task_scores[1, 0]) and np.isinf(lang[1])


def test_significance_groups_by_hand():
    points = np.array([1.0, 1.1, 1.5, 1.6, 2.5, np.inf])
    lows = np.array([0.9, 1.0, 1.25, 1.3, 2.2, np.nan])
    highs = np.array([1.2, 1.3, 1.8, 1.9, 2.8, np.nan])
    # 1.0 opens group 1 (anchor high 1.2); 1.1 low 1.0 ≤ 1.2 → 1; 1.5 low 1.25 > 1.2 → 2
    # (anchor high 1.8); 1.6 low 1.3 ≤ 1.8 → 2; 2.5 low 2.2 > 1.8 → 3; inf unranked → 0.
    assert list(significance_groups(points, lows, highs)) == [1, 1, 2, 2, 3, 0]


def test_groups_compare_with_anchor_not_previous_entry():
    # b overlaps a, c overlaps b but not a → c opens group 2 (no chaining through b).
    points = np.array([1.0, 1.2, 1.4])
    lows = np.array([0.9, 1.05, 1.25])
    highs = np.array([1.1, 1.35, 1.6])
    assert list(significance_groups(points, lows, highs)) == [1, 1, 2]


def _synthetic(d=6, n=25, i=10, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.8, n)
    x = np.clip(base[None, :, None] + rng.normal(0, 0.05, (d, n, 1)) + rng.normal(0, 0.03, (d, n, i)), 0, 1)
    return x


def test_language_board_point_estimate_is_the_dataset_walk_averaged():
    x = _synthetic()
    tasks = ["a", "a", "b", "c", "c", "c"]
    board = rank_language_board(x, tasks, replicates=50, seed=1)
    ds = np.stack([dataset_rank_scores(list(map(list, x[d]))) for d in range(6)], axis=1)
    expected = np.mean([ds[:, :2].mean(1), ds[:, 2], ds[:, 3:].mean(1)], axis=0)
    assert np.allclose(board.rank_scores, expected)
    assert np.allclose(board.dataset_rank_scores, ds)


def test_language_board_interval_and_ranks():
    x = _synthetic(n=30)
    x[1, 4, :] = np.nan  # entry 4 misses dataset 1 → unranked
    board = rank_language_board(x, ["a", "a", "b", "c", "c", "c"], replicates=120, seed=9)
    ranked = np.isfinite(board.rank_scores)
    assert not ranked[4] and ranked.sum() == 29
    assert (board.rank_scores[ranked] >= 1).all()
    assert (board.ci_low[ranked] <= board.rank_scores[ranked]).all()
    assert (board.rank_scores[ranked] <= board.ci_high[ranked]).all()
    assert np.isnan(board.ci_low[4]) and board.ranks[4] == 0
    order = board.positions()
    r = board.ranks[order][: ranked.sum()]
    assert r[0] == 1 and all(1 <= rank <= k + 1 for k, rank in enumerate(r))
    assert (np.diff(r) >= 0).all() and order[-1] == 4  # printed ranks in order, the unranked last
    assert board.replicates.shape == (120, 30)
    # reproducible with the same seed, different with another
    again = rank_language_board(x, ["a", "a", "b", "c", "c", "c"], replicates=120, seed=9)
    assert np.array_equal(again.ci_low, board.ci_low, equal_nan=True)
    other = rank_language_board(x, ["a", "a", "b", "c", "c", "c"], replicates=120, seed=10)
    assert not np.array_equal(other.ci_low, board.ci_low, equal_nan=True)


def test_ragged_iterations_are_handled():
    x = _synthetic(d=3, n=8)
    x[0, 2, 6:] = np.nan  # entry 2 has 6 iterations on dataset 0
    board = rank_language_board(x, ["a", "b", "c"], replicates=60, seed=2)
    assert np.isfinite(board.rank_scores).all()
    assert np.isfinite(board.ci_low).all()
    lists = [list(v[~np.isnan(v)]) for v in x[0]]
    assert np.allclose(board.dataset_rank_scores[:, 0], reference_rank_scores(lists))


def test_one_entry_board():
    board = rank_language_board(_synthetic(d=2, n=1), ["a", "b"], replicates=30)
    assert list(board.rank_scores) == [1.0] and list(board.ranks) == [1]
    assert board.ci_low[0] == 1.0 and board.ci_high[0] == 1.0


def test_group_board_is_mean_of_languages():
    scores = np.array([[1.0, 2.0], [1.5, np.inf], [2.0, 1.0]])
    reps = [np.array([[1.0, 1.5, 2.0], [1.2, 1.4, 2.2]]), np.array([[2.0, 9.0, 1.0], [2.2, 9.0, 1.1]])]
    board = rank_group_board(scores, reps)
    assert board.rank_scores[0] == pytest.approx(1.5) and board.rank_scores[2] == pytest.approx(1.5)
    assert np.isinf(board.rank_scores[1]) and board.ranks[1] == 0
    assert board.replicates[:, 0] == pytest.approx([1.5, 1.7])
    assert board.ci_low[0] <= 1.5 <= board.ci_high[0]


def test_display_order_follows_the_printed_rank_then_the_rank_score():
    """A method's rank need not follow its rank score (issue #27: Danish rows read 10, 9,
    10, 11, 10): rows go by rank, ties by rank score, input order after that, unranked last."""
    inf = np.inf
    board = ranking.BoardRanking(
        rank_scores=np.array([1.0, 2.0, 1.5, inf, 1.8, 1.8, 2.5]),
        ci_low=np.zeros(7),
        ci_high=np.zeros(7),
        ranks=np.array([1, 2, 3, 0, 2, 2, 0]),  # entry 6: a score but no rank (a method without one)
        replicates=np.zeros((0, 7)),
    )
    assert board.positions().tolist() == [0, 4, 5, 1, 2, 6, 3]
