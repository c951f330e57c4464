"""Bits per byte and the Min-K% Prob membership probe (evaluation/intrinsic.py) against
hand-computed values and scipy."""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats

from evaluation.intrinsic import (
    auc_se,
    bits_per_byte,
    bits_per_byte_se,
    budget,
    intrinsic_scores,
    membership_probe,
    min_k_prob,
)


def test_min_k_prob_by_hand():
    assert min_k_prob([-1.0, -5.0, -0.1, -3.0, -0.2], k=0.4) == pytest.approx((-5.0 - 3.0) / 2)
    assert min_k_prob([-2.0, -1.0], k=0.2) == -2.0  # at least one token
    with pytest.raises(ValueError):
        min_k_prob([])


def test_bits_per_byte_and_perplexity_by_hand():
    # two texts, 3 + 2 bytes, 4 tokens each of probability 1/2: 4 · ln 2 nats over 5 bytes
    logprobs = [[math.log(0.5)] * 2, [math.log(0.5)] * 2]
    scores = intrinsic_scores(["abc", "de"], logprobs)
    assert scores["bits_per_byte"] == pytest.approx(4 / 5) == bits_per_byte(4 * math.log(0.5), 5)
    assert scores["perplexity"] == pytest.approx(2.0) and (scores["bytes"], scores["tokens"]) == (5, 4)
    assert intrinsic_scores(["ø"], [[math.log(0.25)]])["bits_per_byte"] == pytest.approx(1.0)  # "ø": 2 bytes


def test_the_standard_errors_by_hand():
    # documents of 2 and 4 bytes, 2 and 2 nats: ratio 4/6; residuals 2 - 4/3 and 2 - 8/3
    spread = (2 - 4 / 3) ** 2 + (2 - 8 / 3) ** 2
    assert bits_per_byte_se([-2.0, -2.0], [2, 4]) == pytest.approx(math.sqrt(2 * spread) / 6 / math.log(2))
    assert bits_per_byte_se([-1.0, -2.0], [1, 2]) == 0.0  # every document at the pooled rate
    assert bits_per_byte_se([-1.0], [3]) is None
    scores = intrinsic_scores(["ab", "abcd"], [[-1.0, -1.0], [-2.0]])
    assert scores["bits_per_byte_se"] == pytest.approx(bits_per_byte_se([-2.0, -2.0], [2, 4]))
    # AUC 0.75: 3 beats both, 1 beats one; DeLong's components 1, 1/2 and 1/2, 1 (variances 1/8)
    assert auc_se([3.0, 1.0], [2.0, 0.0]) == pytest.approx(math.sqrt(0.125 / 2 + 0.125 / 2))
    assert auc_se([1.0, 1.0], [1.0, 1.0]) == 0.0  # ties count a half, alike everywhere


def test_the_probe_is_mann_whitney_on_min_k_scores():
    test = [[-0.1, -0.2, -0.3, -0.2, -0.1], [-0.5, -0.1, -0.2, -0.1, -0.3], [-0.2, -0.2, -0.4, -0.1, -0.1]]
    train = [[-2.0, -1.0, -3.0, -0.5, -1.5], [-1.0, -0.7, -2.5, -0.5, -1.0], [-0.3, -0.2, -0.4, -0.1, -0.2]]
    result = membership_probe(test, train)
    a, b = [min_k_prob(x) for x in test], [min_k_prob(x) for x in train]
    expected = stats.mannwhitneyu(a, b, alternative="greater")
    assert result["auc"] == pytest.approx(expected.statistic / 9) and result["p_value"] == pytest.approx(
        expected.pvalue
    )
    assert result["auc"] > 0.6 and result["statistic"] == "Min-20% Prob"
    assert result["auc_se"] == pytest.approx(auc_se(a, b))
    assert all(type(v) in (str, float, int, bool) for v in result.values())  # plain JSON values
    same = membership_probe(train, train)
    assert same["auc"] == pytest.approx(0.5) and same["flag"] is False
    with pytest.raises(ValueError):
        membership_probe(test[:1], train)


def test_the_evidence_of_an_evaluation_from_a_scorer():
    from evaluation.intrinsic import intrinsic_evidence

    seen = []

    def scorer(texts):  # every byte one token of probability 1/2
        seen.append(list(texts))
        return [[math.log(0.5)] * len(t.encode()) for t in texts]

    tests = ["abc", "x" * 400, "  "]
    evidence = intrinsic_evidence(scorer, tests, ["one", "two", "three", "four"], texts=8, chars=300)
    assert evidence["intrinsic"]["bits_per_byte"] == pytest.approx(1.0)
    assert evidence["intrinsic"]["texts"] == 2 and len(seen[0][1]) == 300  # cut; blank left out
    assert (evidence["intrinsic"]["max_texts"], evidence["intrinsic"]["max_chars"]) == (8, 300)  # the budget, said
    assert seen[1] == ["one", "two"]  # as many train documents as test ones
    assert evidence["contamination"]["n_test"] == evidence["contamination"]["n_train"] == 2
    assert intrinsic_evidence(scorer, [], ["a"]) == {}


def test_the_budget_scores_the_first_documents_cut_short():
    from evaluation.intrinsic import intrinsic_evidence

    seen = []

    def scorer(texts):
        seen.append(list(texts))
        return [[-1.0] * len(t) for t in texts]

    tests, trains = [f"test {k} " * 100 for k in range(40)], [f"train {k} " * 100 for k in range(40)]
    texts, chars = budget(48)  # 48 rows scored: 3 documents a split of 300 characters
    evidence = intrinsic_evidence(scorer, tests, trains, texts=texts, chars=chars)
    assert seen == [[t[:300] for t in tests[:3]], [t[:300] for t in trains[:3]]]
    assert evidence["intrinsic"]["texts"] == 3 and evidence["intrinsic"]["bytes"] == 3 * 300
    assert evidence["contamination"]["n_test"] == evidence["contamination"]["n_train"] == 3
    seen.clear()
    wider = intrinsic_evidence(scorer, tests, trains, texts=32, chars=600)  # the budget before the setting
    assert [len(s) for s in seen] == [32, 32] and {len(t) for t in seen[0]} == {600}
    assert (wider["intrinsic"]["max_texts"], wider["intrinsic"]["max_chars"]) == (32, 600)


def test_the_budget_follows_the_evaluations_work_within_bounds(monkeypatch):
    from evaluation.intrinsic import CHARS_ENV, SHARE_ENV, TEXTS_ENV

    for env in (SHARE_ENV, TEXTS_ENV, CHARS_ENV):
        monkeypatch.delenv(env, raising=False)
    # a document per split for every 16 rows scored, 2 to 32, 300 characters each
    assert [budget(rows) for rows in (0, 4, 32, 59, 160, 512, 20_480)] == [  # 59: the demo protocol
        (2, 300), (2, 300), (2, 300), (3, 300), (10, 300), (32, 300), (32, 300),
    ]  # fmt: skip
    monkeypatch.setenv(SHARE_ENV, "0.5")
    monkeypatch.setenv(TEXTS_ENV, "8")
    monkeypatch.setenv(CHARS_ENV, " 600 ")
    assert budget(10) == (5, 600) and budget(100) == (8, 600)
    for env, value in ((SHARE_ENV, "-1"), (SHARE_ENV, "nan"), (TEXTS_ENV, "1"), (TEXTS_ENV, "many"), (CHARS_ENV, "0")):
        monkeypatch.setenv(env, value)
        with pytest.raises(ValueError, match=env):
            budget(10)
        monkeypatch.setenv(env, "9")


def test_the_evidence_is_reused_for_the_same_weights_and_documents(tmp_path, monkeypatch):
    from evaluation.intrinsic import CACHE_ENV, intrinsic_evidence

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    seen = []

    def scorer(texts):  # a different probability per call: a recomputation would show
        seen.append(list(texts))
        return [[-0.1 * len(seen)] * len(t) for t in texts]

    weights = ("org/model", "a" * 40, "transformers", "torch.float32")
    docs = (["first test", "second test"], ["first train", "second train"])
    first = intrinsic_evidence(scorer, *docs, weights=weights)
    assert len(seen) == 2 and intrinsic_evidence(scorer, *docs, weights=weights) == first and len(seen) == 2
    other = intrinsic_evidence(scorer, *docs, weights=(*weights[:3], "torch.bfloat16"))  # another dtype
    assert len(seen) == 4 and other != first
    intrinsic_evidence(scorer, ["first test", "another"], docs[1], weights=weights)  # other documents
    assert len(seen) == 6
    intrinsic_evidence(scorer, *docs, weights=weights, texts=32, chars=600)  # another budget, the same texts
    assert len(seen) == 8 and intrinsic_evidence(scorer, *docs, weights=weights) == first
    for _ in range(2):  # weights without a commit are never reused
        intrinsic_evidence(scorer, *docs, weights=("org/model", None, "transformers", "torch.float32"))
    assert len(seen) == 12
    (stored,) = [p for p in tmp_path.iterdir() if p.read_text() == json.dumps(first)]
    stored.write_text("{not json")  # a damaged file is recomputed, not trusted
    assert intrinsic_evidence(scorer, *docs, weights=weights)["intrinsic"]["nats"] != first["intrinsic"]["nats"]


def test_a_malformed_budget_setting_stops_the_evaluation_before_any_model_is_loaded(monkeypatch):
    from evaluation import runner
    from evaluation.errors import EvaluationError

    def no_weights(*args, **kwargs):
        raise AssertionError("the model was loaded before the budget setting was checked")

    monkeypatch.setattr(runner, "local_weights", no_weights)
    monkeypatch.setattr(runner, "load_backend", no_weights)
    monkeypatch.setenv("GLOSSA_INTRINSIC_TEXTS", "many")
    with pytest.raises(EvaluationError, match="GLOSSA_INTRINSIC_TEXTS must be a whole number of at least 2"):
        runner.evaluate_model(
            "HuggingFaceTB/SmolLM2-135M-Instruct", ["scala-da"], runner.EvaluationSettings(iterations=1)
        )
