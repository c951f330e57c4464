"""Scores from exam records, against hand-computed values and scipy."""

import numpy as np
import pytest
from scipy import stats

from evaluation.examiner.voting import bootstrap_intervals, kendall_tau, summarise

E1, E2 = "org/examiner-one", "org/examiner-two"
A, B, C = "org/a", "org/b", "org/c"


def exam(examiners, examinees):
    return {
        "kind": "exam",
        "exam": "da-round1-seed0",
        "examiners": [{"model": m} for m in examiners],
        "examinees": [{"model": m} for m in examinees],
    }


def question(qid, examiner, level="memorisation", depth=0, parent=None, examinee=None):
    return {
        "kind": "question",
        "id": qid,
        "examiner": examiner,
        "level": level,
        "depth": depth,
        "parent": parent,
        "examinee": examinee,
    }


def answer(qid, model, counted=True):
    return {"kind": "answer", "id": f"{qid}:{model}", "question": qid, "examinee": model, "counted": counted}


def grade(qid, model, examiner, overall, accuracy=2, counted=True, **dims):
    scores = {"accuracy": accuracy, "coherence": 2, "factuality": 2, "comprehensiveness": 2, **dims}
    return {
        "kind": "grade",
        "answer": f"{qid}:{model}",
        "examiner": examiner,
        "counted": counted,
        "valid": True,
        "overall": overall,
        **scores,
    }


@pytest.fixture
def records():
    rs = [exam([E1, E2], [A, B, C, E1])]
    # E1 asks q1, q2 to A, B, C; E2 asks q3 to A, B, C and E1.
    rs += [question("q1", E1), question("q2", E1, "analysis"), question("q3", E2)]
    overall = {("q1", A): 5, ("q1", B): 3, ("q1", C): 1, ("q2", A): 4, ("q2", B): 4, ("q2", C): 2}
    overall |= {("q3", A): 2, ("q3", B): 5, ("q3", C): 3, ("q3", E1): 4}
    for (qid, model), value in overall.items():
        examiner = E1 if qid in ("q1", "q2") else E2
        rs += [answer(qid, model), grade(qid, model, examiner, value, accuracy=3 if value >= 4 else 1)]
    # E1 answers its own q1: graded by itself (5) and by E2 (2), never counted
    rs += [answer("q1", E1, counted=False)]
    rs += [grade("q1", E1, E1, 5, counted=False), grade("q1", E1, E2, 2, counted=False)]
    # A follow-up after A's correct answer to q1, answered correctly; B's follow-up to q2 wrong
    rs += [question("q1.f1", E1, depth=1, parent="q1", examinee=A), answer("q1.f1", A)]
    rs += [grade("q1.f1", A, E1, 4, accuracy=3)]
    rs += [question("q2.f2", E1, depth=1, parent="q2", examinee=B), answer("q2.f2", B)]
    rs += [grade("q2.f2", B, E1, 2, accuracy=1)]
    # Rankings: E1 on q1: A > B > C; E2 on q3: B > {C, A tied}... plus E1
    rs += [{"kind": "ranking", "question": "q1", "examiner": E1, "tiers": [[A], [B], [C]]}]
    rs += [{"kind": "ranking", "question": "q3", "examiner": E2, "tiers": [[B], [E1], [C, A]]}]
    return rs


def by_model(summary):
    return {s["examinee"]: s for s in summary if s["kind"] == "summary"}


def test_likert_means_ranks_levels_and_dimensions_by_hand(records):
    out = by_model(summarise(records, bootstrap=200))
    assert out[A]["overall"] == pytest.approx((5 + 4 + 2) / 3, abs=1e-4)
    assert out[B]["overall"] == pytest.approx(4.0, abs=1e-4)
    assert out[C]["overall"] == pytest.approx(2.0, abs=1e-4)
    assert out[E1]["overall"] == 4.0 and out[E1]["questions"] == 1
    # the rank is the peer score's: z-scores per examiner, median over examiners
    e1 = np.array([5, 3, 1, 4, 4, 2])  # E1's grades: q1 A B C, q2 A B C
    e2 = np.array([2, 5, 3, 4])  # E2's grades: q3 A B C E1
    z1 = lambda *g: (np.mean(g) - e1.mean()) / e1.std()  # noqa: E731
    z2 = lambda g: (g - e2.mean()) / e2.std()  # noqa: E731
    expected = {A: (z1(5, 4) + z2(2)) / 2, B: (z1(3, 4) + z2(5)) / 2, C: (z1(1, 2) + z2(3)) / 2, E1: z2(4)}
    for model, value in expected.items():
        assert out[model]["peer_score"] == pytest.approx(value, abs=1e-4)
    assert [out[m]["rank"] for m in (B, E1, A, C)] == [1, 2, 3, 4]
    for model in (A, B, C, E1):
        low, high = out[model]["rank_set"]
        assert 1 <= low <= out[model]["rank"] <= high <= 4
    assert out[A]["levels"] == {"analysis": 4.0, "memorisation": 3.5}
    assert out[A]["accuracy"] == pytest.approx((3 + 3 + 1) / 3, abs=1e-4)
    assert out[A]["coherence"] == 2.0


def test_borda_follow_ups_depth_and_self_preference_by_hand(records):
    out = by_model(summarise(records, bootstrap=50))
    # q1: A 1, B 0.5, C 0; q3 (4 ranked): B 1, E1 2/3, C and A (0 + 1/3)/2... tiers [[B],[E1],[C,A]]
    assert out[A]["borda"] == pytest.approx((1 + 1 / 6) / 2, abs=1e-4)
    assert out[B]["borda"] == pytest.approx((0.5 + 1) / 2, abs=1e-4)
    assert out[E1]["borda"] == pytest.approx(2 / 3, abs=1e-4) and out[E1]["rankings"] == 1
    assert out[A]["follow_ups"] == {"1": {"asked": 1, "correct": 1}}
    assert out[B]["follow_ups"] == {"1": {"asked": 1, "correct": 0}}
    # A: q1 correct then follow-up correct (2), q2 correct without a follow-up (1), q3 wrong (0)
    assert out[A]["depth"] == pytest.approx(1.0, abs=1e-4)
    assert out[E1]["self_preference"] == {"self": 5.0, "peers": 2.0, "difference": 3.0, "answers": 1}
    assert out[A]["self_preference"] is None


def test_bootstrap_interval_matches_a_direct_resampling():
    rng = np.random.default_rng(3)
    matrix = rng.integers(1, 6, size=(40, 3)).astype(float)
    matrix[5, 1] = np.nan  # one examinee without a grade on one question
    mean_ci, rank_ci = bootstrap_intervals(matrix, 500, seed=11)
    draws = np.random.default_rng(11)
    means = []
    for _ in range(500):
        rows = matrix[draws.integers(0, 40, 40)]
        means.append(np.nanmean(rows, axis=0))
    expected = np.percentile(np.array(means), [2.5, 97.5], axis=0)
    np.testing.assert_allclose(mean_ci, expected)
    assert (rank_ci >= 1).all() and (rank_ci <= 3).all()
    assert (mean_ci[0] <= np.nanmean(matrix, axis=0)).all() and (np.nanmean(matrix, axis=0) <= mean_ci[1]).all()


def test_kendall_tau_between_examiners_is_scipys_on_the_examinees_in_common():
    a = {A: 4.0, B: 3.0, C: 1.0, "x": 2.0}
    b = {A: 3.0, B: 4.0, C: 2.0}
    tau, common = kendall_tau(a, b)
    assert common == 3 and tau == pytest.approx(stats.kendalltau([4, 3, 1], [3, 4, 2]).statistic, abs=1e-4)
    assert kendall_tau({A: 1.0}, {A: 2.0, B: 1.0}) == (None, 1)


def test_agreement_record_names_each_pair_of_examiners(records):
    agreement = summarise(records, bootstrap=10)[-1]
    assert agreement["kind"] == "agreement"
    (pair,) = agreement["pairs"]
    # E1 graded A, B, C; E2 graded A, B, C, E1: three in common
    e1 = [np.mean([5, 4]), np.mean([3, 4]), np.mean([1, 2])]
    e2 = [2, 5, 3]
    assert pair["examinees_in_common"] == 3
    assert pair["tau"] == pytest.approx(stats.kendalltau(e1, e2).statistic, abs=1e-4)
