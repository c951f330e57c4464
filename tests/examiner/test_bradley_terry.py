"""The Bradley–Terry board of the pairwise verdicts: the fit against scipy's optimiser on
the same likelihood, strengths and covariates recovered from simulated exams, question
resampling, leave-one-examiner-out."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats

from evaluation.examiner.bradley_terry import RIDGE, fit, verdicts_from_records
from evaluation.examiner.pairwise import pairwise_board


def simulate(seed, *, p=8, questions=120, examiners=("e/1", "e/2", "e/3"), position=0.4, length=0.8, hostile=None):
    """Exams with known strengths: each question's examiner compares 4 random pairs of the
    p answers in both orders; verdicts follow the model with a position bias and a
    length effect. ``hostile`` = (examiner, rival): that examiner makes the rival lose."""
    rng = np.random.default_rng(seed)
    names = [f"m/{k}" for k in range(p)]
    truth = np.linspace(-1.5, 1.5, p)
    records = []
    for q in range(questions):
        qid, examiner = f"q{q}", examiners[q % len(examiners)]
        lengths = rng.integers(50, 400, p)
        records += [{"kind": "answer", "question": qid, "examinee": m, "text": "x" * n} for m, n in zip(names, lengths)]
        judgments = []
        order = rng.permutation(p)
        for a, b in zip(order[::2], order[1::2], strict=True):
            verdict = {}
            for key, (f, s) in (("ab", (a, b)), ("ba", (b, a))):
                ell = (lengths[f] - lengths[s]) / (lengths[f] + lengths[s])
                won = rng.random() < 1 / (1 + np.exp(-(truth[f] - truth[s] + position + length * ell)))
                if hostile and examiner == hostile[0] and hostile[1] in (names[f], names[s]):
                    won = names[s] == hostile[1]
                verdict[key] = names[f] if won else names[s]
            judgments.append({"pair": [names[a], names[b]], **verdict})
        records.append({"kind": "ranking", "question": qid, "examiner": examiner, "judgments": judgments})
    return names, truth, records


def test_the_newton_fit_is_the_maximum_of_the_penalised_likelihood():
    names, _, records = simulate(1, p=4, questions=12)
    verdicts = verdicts_from_records(records)
    x, y = verdicts.design(), verdicts.first_won

    def negative(beta):
        eta = x @ beta
        return -(y @ eta - np.logaddexp(0, eta).sum()) + 0.5 * RIDGE * beta @ beta

    best = optimize.minimize(negative, np.zeros(x.shape[1]), method="BFGS", options={"gtol": 1e-10}).x
    ours = fit(verdicts)
    np.testing.assert_allclose(ours.strengths, best[:4] - best[:4].mean(), atol=1e-5)
    assert ours.position == pytest.approx(best[4], abs=1e-5) and ours.length == pytest.approx(best[5], abs=1e-5)
    assert ours.strengths.sum() == pytest.approx(0, abs=1e-12)


def test_a_two_entry_case_by_hand():
    # a wins 3 of the 4 verdicts where it is shown first and 3 of the 4 where b is, equal
    # lengths: σ(d + γ) = 3/4 and σ(γ − d) = 1/4, so d = θa − θb = log 3 and γ = 0 (the
    # ridge shrinks d a little)
    records = [{"kind": "answer", "question": "q", "examinee": m, "text": "same"} for m in ("a", "b")]
    verdicts = [("a", "a"), ("a", "a"), ("a", "b"), ("b", "a")]
    judgments = [{"pair": ["a", "b"], "ab": ab, "ba": ba} for ab, ba in verdicts]
    records.append({"kind": "ranking", "question": "q", "examiner": "e", "judgments": judgments})
    result = fit(verdicts_from_records(records))
    assert result.strengths[0] - result.strengths[1] == pytest.approx(np.log(3), abs=0.02)
    assert result.position == pytest.approx(0, abs=1e-9)


def test_simulated_strengths_and_both_covariates_are_recovered():
    names, truth, records = simulate(0)
    board = pairwise_board(records, {}, replicates=200, seed=0)
    fitted = [board["entries"][m]["strength"] for m in names]
    assert stats.spearmanr(fitted, truth).statistic >= 0.95
    for name, true in (("position", 0.4), ("length", 0.8)):
        assert abs(board[name]["estimate"] - true) <= 2 * board[name]["se"], (name, board[name])
    for m in names:
        entry = board["entries"][m]
        low, high = entry["rank_set"]
        assert low <= entry["marginal_rank_set"][0] <= entry["rank"] <= entry["marginal_rank_set"][1] <= high
        assert entry["strength_ci"][0] <= entry["strength"] <= entry["strength_ci"][1]


def test_an_examiners_own_family_and_unreadable_verdicts_are_left_out():
    records = [{"kind": "answer", "question": "q", "examinee": m, "text": "x"} for m in ("org/a", "b", "c")]
    judgments = [
        {"pair": ["org/a", "b"], "ab": "org/a", "ba": "org/a"},
        {"pair": ["b", "c"], "ab": "b", "ba": "?"},
    ]
    records.append({"kind": "ranking", "question": "q", "examiner": "org/e", "judgments": judgments})
    verdicts = verdicts_from_records(records, {"org/e": "org", "org/a": "org"})
    assert len(verdicts) == 1 and verdicts.entries == ("b", "c")


def test_leaving_out_an_examiner_that_sinks_a_rival_shows_the_rival_rising():
    names, _, records = simulate(1, examiners=("e/1", "e/2", "e/3", "e/h"), hostile=("e/h", "m/7"))
    board = pairwise_board(records, {}, replicates=100, seed=1)
    rival = board["entries"]["m/7"]
    moves = {m["examiner"]: m for m in rival["left_out"]}
    assert moves["e/h"]["move"] < 0 and moves["e/h"]["move"] == min(m["move"] for m in rival["left_out"])
    assert rival["largest_move"] == abs(moves["e/h"]["move"])
    assert rival["flagged"] == any(m["outside"] for m in rival["left_out"])
