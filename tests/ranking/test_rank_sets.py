"""Confidence sets for ranks (``leaderboard.ranking.rank_sets``): coverage on boards whose
true ranks are known, agreement with a literal transcription of ``csranks``' algorithm,
and parity with ``csranks``' own published PISA 2018 example.

Coverage: seeded boards of 20 entries, 4 datasets, 10 iterations each (noise 0.02 per
iteration plus an iteration effect shared by all entries, as a test-set resample is),
through the production path (``contrast.paired_factors`` → ``rank_sets_from_factors``,
t tails with 9 degrees of freedom; 500 multiplier draws instead of 1,000 for speed).
With 120 boards per truth, the Monte-Carlo standard
error of a coverage near 0.95 is at most √(0.95·0.05/120) = 0.020 (boards are the
independent unit), so "≥ 0.95 within Monte-Carlo error" is checked as ≥ 0.93; the
measured coverages are far above (see BENCHMARKS.md).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from leaderboard.ranking import get_method
from leaderboard.ranking.contrast import dataset_weights, paired_factors
from leaderboard.ranking.rank_sets import (
    pair_statistics,
    rank_sets_from_covariance,
    rank_sets_from_factors,
    rank_sets_from_replicates,
)

PISA = Path(__file__).parent / "data" / "csranks" / "pisa2018_math.csv"
TASKS = ["sentiment-classification", "named-entity-recognition", "linguistic-acceptability", "reading-comprehension"]
BOARDS = 120
TRUTHS = {
    "all tied": np.full(20, 0.5),
    "groups of ties": np.repeat([0.60, 0.55, 0.50, 0.45], 5),
    "evenly spaced": 0.70 - 0.01 * np.arange(20),
    "one clear winner": np.r_[0.80, np.full(19, 0.50)],
}


def simulated_board(mu: np.ndarray, rng) -> np.ndarray:
    """``(4, N, 10)`` iteration scores: truth + 0.02 noise + a shared iteration effect."""
    noise = 0.02 * rng.standard_normal((4, mu.size, 10))
    shared = 0.01 * rng.standard_normal((4, 1, 10))
    return mu[None, :, None] + noise + shared


def true_ranks(mu: np.ndarray) -> np.ndarray:
    """1 + the number of entries strictly better (ties share the best rank)."""
    return 1 + (mu[None, :] > mu[:, None]).sum(axis=1)


@pytest.mark.parametrize("truth", sorted(TRUTHS))
def test_coverage_on_boards_with_known_ranks(truth):
    mu = TRUTHS[truth]
    rng = np.random.default_rng(sorted(TRUTHS).index(truth) + 1)
    ranks = true_ranks(mu)
    marginal, joint, widths = [], [], []
    for _ in range(BOARDS):
        theta, factors, df = paired_factors(simulated_board(mu, rng), dataset_weights(TASKS))
        assert df == 9
        sets = rank_sets_from_factors(theta, factors, df=df, draws=500)  # production: 1,000
        marginal.append(np.mean((sets.marginal_low <= ranks) & (ranks <= sets.marginal_high)))
        joint.append(np.all((sets.simultaneous_low <= ranks) & (ranks <= sets.simultaneous_high)))
        widths.append(np.mean(sets.marginal_high - sets.marginal_low + 1))
        # the simultaneous set holds the marginal one
        assert np.all(sets.simultaneous_low <= sets.marginal_low)
        assert np.all(sets.simultaneous_high >= sets.marginal_high)
        if truth == "one clear winner":
            assert sets.marginal(0) == [1, 1] and sets.simultaneous(0) == [1, 1]
    assert np.mean(marginal) >= 0.93, np.mean(marginal)
    assert np.mean(joint) >= 0.93, np.mean(joint)
    if truth == "evenly spaced":
        assert np.mean(widths) <= 3.5, np.mean(widths)  # informative, not just [1, 20]
    if truth == "all tied":
        assert np.mean(widths) > 19  # nobody can be told apart


def test_stepdown_is_never_wider_than_single_step():
    rng = np.random.default_rng(7)
    for truth in TRUTHS.values():
        for _ in range(10):
            theta, factors, df = paired_factors(simulated_board(truth, rng), dataset_weights(TASKS))
            step = rank_sets_from_factors(theta, factors, df=df)
            single = rank_sets_from_factors(theta, factors, df=df, stepdown=False)
            for a, b in (
                (step.marginal_low, single.marginal_low),
                (step.simultaneous_low, single.simultaneous_low),
            ):
                assert np.all(a >= b)
            assert np.all(step.marginal_high <= single.marginal_high)
            assert np.all(step.simultaneous_high <= single.simultaneous_high)


def csranks_literal(x, factors, draws, seed, level=0.95, indices=None):
    """``csranks::csdiffmeans`` + ``csranks_simul`` (two-sided, stepdown) transcribed loop by
    loop, on the same Gaussian draws as the module: the reference the vectorised code must
    match exactly (``indices`` None: simultaneous; one index: that entry's marginal set)."""
    p = x.size
    g = np.random.default_rng(seed).standard_normal((draws, factors.shape[1]))
    z = (factors @ g.T).astype(np.float32).T.astype(float)  # (draws, p)
    stat, w = pair_statistics(x, factors, None)
    chosen = range(p) if indices is None else indices
    family = {(j, k) for j in range(p) for k in range(p) if j != k and (j in chosen or k in chosen)}
    rejected: set = set()
    while True:
        live = sorted(family - rejected)
        maxima = np.zeros(draws)
        for j, k in live:
            maxima = np.maximum(maxima, (z[:, j] - z[:, k]) * float(w[j, k]))
        c = np.quantile(maxima.astype(np.float32), level)
        new = {(j, k) for j, k in live if stat[j, k] > c}
        if not new:
            break
        rejected |= new
    low = [1 + sum((k, j) in rejected for k in range(p)) for j in range(p)]
    high = [p - sum((j, k) in rejected for k in range(p)) for j in range(p)]
    return low, high


def test_vectorised_sets_match_a_literal_transcription_of_csranks():
    rng = np.random.default_rng(11)
    x = np.r_[3.0, 2.9, 2.0, 1.0, 0.95, 0.0]
    factors = np.diag([0.1, 0.12, 0.3, 0.05, 0.06, 0.2]) + 0.02 * rng.standard_normal((6, 6))
    sets = rank_sets_from_factors(x, factors, draws=400, seed=5)
    low, high = csranks_literal(x, factors, 400, 5)
    assert sets.simultaneous_low.tolist() == low and sets.simultaneous_high.tolist() == high
    for j in range(6):
        low, high = csranks_literal(x, factors, 400, 5, indices=[j])
        assert sets.marginal(j) == [low[j], high[j]]


def test_pisa_2018_as_csranks_publishes_it():
    """csranks' vignette (cran/csranks 1.2.3): the UK's 95% marginal set for its mathematics
    rank is [7, 23], and 12 countries are in the 95% confidence set for the top 5
    (``cstaubest``: those whose simultaneous lower end is at most 5)."""
    rows = list(csv.DictReader(PISA.open(encoding="utf-8")))
    x = np.array([float(r["math_score"]) for r in rows])
    cov = np.diag([float(r["math_se"]) ** 2 for r in rows])
    uk = [r["jurisdiction"] for r in rows].index("United Kingdom")
    sets = rank_sets_from_covariance(x, cov)
    low, high = sets.marginal(uk)
    assert abs(low - 7) <= 1 and abs(high - 23) <= 1, (low, high)
    assert 11 <= int((sets.simultaneous_low <= 5).sum()) <= 13


def test_replicates_and_covariance_give_the_same_sets():
    rng = np.random.default_rng(3)
    x = np.linspace(1.0, 0.0, 12)
    cov = np.diag(np.full(12, 0.04**2))
    reps = x + 0.04 * rng.standard_normal((4000, 12))
    by_cov = rank_sets_from_covariance(x, cov)
    by_reps = rank_sets_from_replicates(x, reps)
    assert np.abs(by_cov.marginal_low - by_reps.marginal_low).max() <= 1
    assert np.abs(by_cov.simultaneous_high - by_reps.simultaneous_high).max() <= 1


def test_unranked_entries_and_hostile_inputs():
    sets = rank_sets_from_factors(np.array([1.0, np.nan, 0.0]), np.array([[0.1], [0.1], [np.nan]]))
    assert sets.marginal(1) is None and sets.marginal(2) is None and sets.marginal(0) == [1, 1]
    with pytest.raises(ValueError):
        rank_sets_from_covariance(np.zeros(3), np.eye(2))
    with pytest.raises(ValueError):
        rank_sets_from_replicates(np.zeros(3), np.zeros((5, 2)))
    # two entries with identical scores cannot be told apart, whatever the spread
    same = rank_sets_from_factors(np.array([1.0, 1.0]), np.zeros((2, 1)))
    assert same.marginal(0) == [1, 2] and same.marginal(1) == [1, 2]


def test_every_method_gives_sets_and_the_default_prints_the_marginal_lower_end():
    rng = np.random.default_rng(5)
    scores = simulated_board(TRUTHS["groups of ties"], rng)
    entries = [(k, True, False) for k in range(20)]
    for name in ("euroeval-2024", "euroeval-2026"):
        board = get_method(name).rank_language_board(scores, TASKS, entries, replicates=100, seed=1)
        sets = board.rank_sets
        assert sets is not None and all(sets.marginal(e) for e in range(20))
        assert np.all(sets.simultaneous_low <= sets.marginal_low)
    default = get_method("euroeval-2024").rank_language_board(scores, TASKS, entries, replicates=0, seed=1)
    assert default.ranks.tolist() == default.rank_sets.marginal_low.tolist()
    assert set(default.ranks[:5]) == {1}  # the best group cannot be told apart
