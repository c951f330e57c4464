"""Rank confidence sets (evaluation/rank_sets.py): coverage on simulated boards with known
truth, a clear winner, stepdown never wider than the single step, exact differences."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.rank_sets import rank_confidence_sets


def true_rank_ranges(truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Under ties every rank between 1 + (strictly better) and p − (strictly worse) is true."""
    better = (truth[None, :] > truth[:, None]).sum(axis=1)
    worse = (truth[None, :] < truth[:, None]).sum(axis=1)
    return 1 + better, len(truth) - worse


def covers(truth, sets) -> np.ndarray:
    """Per entry: the set contains a rank the entry truly has (overlaps its true range)."""
    low_true, high_true = true_rank_ranges(truth)
    low, high = sets
    return (low <= high_true) & (high >= low_true)


@pytest.mark.parametrize(
    "truth",
    [np.zeros(6), np.repeat([0.0, 1.0, 2.0], 2), np.linspace(0, 2.5, 6), np.array([3.0, 0, 0, 0, 0, 0])],
    ids=["all tied", "groups of ties", "evenly spaced", "one clear winner"],
)
def test_marginal_and_simultaneous_coverage_on_known_boards(truth):
    rng = np.random.default_rng(7)
    sims, replicates, noise = 150, 200, 0.3
    marginal, joint, widths = [], [], []
    for _ in range(sims):
        estimates = truth + rng.normal(0, noise, truth.size)
        boot = estimates + rng.normal(0, noise, (replicates, truth.size))
        sets = rank_confidence_sets(estimates, boot)
        marginal.append(covers(truth, sets))
        widths.append(np.mean(sets[1] - sets[0]))
        joint.append(covers(truth, rank_confidence_sets(estimates, boot, simultaneous=True)).all())
    # 95% within Monte-Carlo error of 150 draws (2 standard errors ≈ 0.036)
    assert np.mean(marginal, axis=0).min() >= 0.95 - 0.036
    assert np.mean(joint) >= 0.95 - 0.036
    if len(set(truth)) == truth.size:  # spaced: informative, not the whole board
        assert np.mean(widths) <= 3


def test_a_clear_winner_gets_one_and_stepdown_is_never_wider():
    rng = np.random.default_rng(1)
    truth = np.array([5.0, 1.0, 0.9, 0.8, 0.0, -0.1])
    for _ in range(20):
        estimates = truth + rng.normal(0, 0.3, 6)
        boot = estimates + rng.normal(0, 0.3, (300, 6))
        for simultaneous in (False, True):
            low, high = rank_confidence_sets(estimates, boot, simultaneous=simultaneous)
            single = rank_confidence_sets(estimates, boot, simultaneous=simultaneous, stepdown=False)
            assert (low[0], high[0]) == (1, 1)
            assert (low >= single[0]).all() and (high <= single[1]).all()
            assert (low >= 1).all() and (low <= high).all() and (high <= 6).all()


def test_differences_that_never_vary_are_exact_and_bad_input_is_refused():
    estimates = np.array([3.0, 2.0, 2.0])
    boot = np.tile(estimates, (50, 1))
    low, high = rank_confidence_sets(estimates, boot, simultaneous=True)
    assert list(low) == [1, 2, 2] and list(high) == [1, 3, 3]
    with pytest.raises(ValueError):
        rank_confidence_sets(estimates, boot[:, :2])
    with pytest.raises(ValueError):
        rank_confidence_sets([1.0, np.nan], np.zeros((5, 2)))
