"""Metrics against hand-computed values and the reference implementations."""

import math

import pytest

from evaluation import datasets, metrics
from evaluation.errors import DatasetNotFound, EvaluationError


def test_mcc_binary_hand_computed():
    # TP=1 FN=1 TN=2 FP=0 → (1·2 − 0·1) / √(1·2·2·3)
    assert metrics.mcc([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(2 / math.sqrt(12))


def test_mcc_constant_prediction_is_zero():
    assert metrics.mcc(["a", "b", "a"], ["a", "a", "a"]) == 0.0


def test_macro_f1_hand_computed():
    # class 1: P=1 R=1/2 F1=2/3; class 0: P=2/3 R=1 F1=4/5
    assert metrics.macro_f1([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx((2 / 3 + 0.8) / 2)


def test_accuracy():
    assert metrics.accuracy([0, 1, 2, 3], [0, 1, 0, 0]) == 0.5


def test_ner_micro_f1_with_and_without_misc():
    gold = [["B-PER", "I-PER", "O", "B-LOC", "B-MISC"]]
    pred = [["B-PER", "I-PER", "O", "B-ORG", "B-MISC"]]
    assert metrics.micro_f1(gold, pred) == pytest.approx(2 / 3)
    assert metrics.micro_f1_no_misc(gold, pred) == pytest.approx(1 / 2)


def test_ner_partial_span_is_wrong():
    gold = [["B-PER", "I-PER", "O"]]
    pred = [["B-PER", "O", "O"]]
    assert metrics.micro_f1(gold, pred) == 0.0


def test_squad_normalisation_and_scores():
    assert metrics.normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert metrics.squad_em(["the Eiffel Tower"], [["Eiffel Tower"]]) == 1.0
    assert metrics.squad_f1(["big red dog"], [["red dog"]]) == pytest.approx(0.8)
    # best gold answer counts
    assert metrics.squad_f1(["red dog"], [["cat", "red dog"]]) == 1.0
    assert metrics.squad_em(["dog"], [["red dog"]]) == 0.0


def test_rouge_l_hand_computed():
    # LCS 3; P = 3/3, R = 3/6 → F = 2/3
    assert metrics.rouge_l(["the cat sat"], ["the cat sat on the mat"]) == pytest.approx(2 / 3)


def test_chrf3pp_matches_sacrebleu_and_bounds():
    from sacrebleu.metrics import CHRF

    preds = ["The cat sat on the mat.", "A quick brown fox."]
    refs = ["The cat is on the mat.", "The quick brown fox jumps."]
    ref_score = CHRF(word_order=2, beta=3).corpus_score(preds, [refs]).score / 100
    assert metrics.chrf3pp(preds, refs) == pytest.approx(ref_score)
    assert metrics.chrf3pp(["same text here"], ["same text here"]) == pytest.approx(1.0)
    assert 0 < metrics.chrf3pp(preds, refs) < 1


def test_task_metrics_names():
    out = metrics.compute_task_metrics("linguistic-acceptability", ["correct", "incorrect"], ["correct", "correct"])
    assert set(out) == {"mcc", "macro_f1"}
    out = metrics.compute_task_metrics("knowledge", [0, 1, 2], [0, 1, 1])
    assert out["accuracy"] == pytest.approx(2 / 3)
    out = metrics.compute_task_metrics("reading-comprehension", [["x"]], ["x"])
    assert out == {"f1": 1.0, "em": 1.0}


def test_totals_mean_and_ci():
    total = metrics.totals([{"mcc": 0.5}, {"mcc": 0.7}])
    assert total["test_mcc"] == pytest.approx(60.0)
    # s = 0.1414…; 1.96 · s / √2 = 0.196
    assert total["test_mcc_se"] == pytest.approx(19.6)


def test_dataset_not_found_is_evaluation_error():
    assert datasets.DatasetNotFound is DatasetNotFound
    assert issubclass(DatasetNotFound, EvaluationError)
