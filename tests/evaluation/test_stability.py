"""The stability table (evaluation/stability.py, docs/methodology.md §9) against a direct computation
with scipy and against hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evaluation.stability import kendall_tau, pair_separated, stability


def scores_of(matrix: np.ndarray) -> dict[str, dict[str, float]]:
    return {f"m{k}": {f"test:{i}": float(v) for i, v in enumerate(row)} for k, row in enumerate(matrix)}


def test_the_full_size_row_is_scipy_on_all_examples():
    rng = np.random.default_rng(7)
    matrix = (rng.random((4, 300)) < np.array([[0.3], [0.5], [0.55], [0.8]])).astype(float)
    table = stability(scores_of(matrix), sizes=(50, 100), repeats=5)
    assert [row.n for row in table.rows] == [50, 100, 300] and table.rows[-1].repeats == 1
    full = table.rows[-1]
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    expected = np.mean([stats.wilcoxon(matrix[a], matrix[b]).pvalue < 0.05 for a, b in pairs])
    assert full.separated == pytest.approx(expected) and full.tau == 1.0
    # the subsamples: drawn with the fixed seed, each row the mean over its repeats
    rng = np.random.default_rng(4242)
    for row in table.rows[:-1]:
        separated, taus = [], []
        for _ in range(5):
            sample = matrix[:, rng.choice(300, size=row.n, replace=False)]
            separated.append(np.mean([stats.wilcoxon(sample[a], sample[b]).pvalue < 0.05 for a, b in pairs]))
            taus.append(stats.kendalltau(sample.mean(axis=1), matrix.mean(axis=1)).statistic)
        assert row.separated == pytest.approx(np.mean(separated)) and row.tau == pytest.approx(np.mean(taus))
    assert table.stable_size in (50, 100, 300)


def test_hand_cases():
    # two identical models are never separated; their tie is the same ranking (τ = 1)
    same = np.array([[1.0, 0.0] * 30, [1.0, 0.0] * 30])
    table = stability(scores_of(same), sizes=(10,), repeats=3)
    assert [(r.separated, r.tau) for r in table.rows] == [(0.0, 1.0), (0.0, 1.0)]
    assert not pair_separated(same[0], same[1])
    # a model right on every example against one always wrong: separated at any size ≥ 10
    apart = np.array([[1.0] * 40, [0.0] * 40])
    assert stability(scores_of(apart), sizes=(10,), repeats=3).rows[0].separated == 1.0
    assert kendall_tau(np.array([1, 2, 3]), np.array([3, 2, 1])) == pytest.approx(-1.0)
    # only the examples every model answered count
    partial = {"a": {"test:0": 1.0, "test:1": 0.0, "test:2": 1.0}, "b": {"test:1": 1.0, "test:2": 1.0}}
    assert stability(partial, sizes=(), repeats=1).num_examples == 2
    with pytest.raises(ValueError):
        stability({"a": {"test:0": 1.0}})
