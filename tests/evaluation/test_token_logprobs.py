"""Token log-probabilities of real models (TransformersBackend.token_logprobs), checked
against the model's own language-modelling loss, and the record fields built from them."""

from __future__ import annotations

import json

import pytest

from evaluation.datasets import load_dataset
from evaluation.intrinsic import budget
from evaluation.runner import EvaluationSettings, evaluate_dataset

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("fixture", ["smol", "gemma"])
def test_token_logprobs_are_the_models_loss(fixture, request):
    _, backend = request.getfixturevalue(fixture)
    torch = backend.torch
    texts = ["Hunden løb over vejen.", "Der var engang en konge, som havde tre døtre."]
    logprobs = backend.token_logprobs(texts)
    for text, lp in zip(texts, logprobs, strict=True):
        bos = backend.tokenizer.bos_token_id
        ids = ([bos] if bos is not None else []) + backend.tokenizer(text, add_special_tokens=False)["input_ids"]
        assert len(lp) == len(ids) - 1 and all(v <= 0 for v in lp)
        with torch.inference_mode():
            tensor = torch.tensor([ids])
            loss = backend.model(input_ids=tensor, labels=tensor).loss  # mean NLL of tokens 2..n
        assert -sum(lp) / len(lp) == pytest.approx(float(loss), rel=1e-3)


def test_a_decoder_record_carries_bits_per_byte_and_the_probe(smol):
    info, backend = smol
    record, _, _ = evaluate_dataset(backend, info, load_dataset("scala-da"), EvaluationSettings(iterations=1, limit=6))
    assert json.loads(json.dumps(record)) == record  # plain JSON, as it travels to the site
    intrinsic, probe = record["intrinsic"], record["contamination"]
    assert intrinsic["texts"] == 2 and 0.3 < intrinsic["bits_per_byte"] < 6 and intrinsic["perplexity"] > 1
    assert probe["n_test"] == probe["n_train"] == 2 and 0 <= probe["auc"] <= 1 and 0 <= probe["p_value"] <= 1
    assert (intrinsic["max_texts"], intrinsic["max_chars"]) == budget(6) == (2, 300)  # a small evaluation: 2 a split
    assert 0 < intrinsic["bits_per_byte_se"] < 1 and 0 < probe["auc_se"] < 0.5
    from leaderboard.record_fields import CONTAMINATION_FIELDS, INTRINSIC_FIELDS, evidence_field

    assert evidence_field(record, "intrinsic", INTRINSIC_FIELDS) == intrinsic  # the site takes every field
    assert evidence_field(record, "contamination", CONTAMINATION_FIELDS) == probe
    quiet, _, _ = evaluate_dataset(
        backend, info, load_dataset("scala-da"), EvaluationSettings(iterations=1, limit=6, intrinsic=False)
    )
    assert "intrinsic" not in quiet and "contamination" not in quiet
