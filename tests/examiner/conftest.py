"""One real exam for the examiner tests: the bundled SmolLM2 and Gemma-3-270M examine
each other and a third examinee, SmolLM2 served under another name by a real
OpenAI-compatible HTTP server, through the engine's CLI (written once per session)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"
GEMMA = "google/gemma-3-270m"
SERVED = "smollm2-served"


@pytest.fixture(scope="session")
def real_exam_file(tmp_path_factory) -> Path:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from evaluation.__main__ import main
    from evaluation.backends.transformers import TransformersBackend
    from evaluation.models import local_weights, resolve_model
    from tests.support.chat_server import serve

    out = tmp_path_factory.mktemp("exam") / "exam-da.jsonl"
    backend = TransformersBackend(local_weights(resolve_model(SMOL)))
    with serve(backend, SERVED) as (url, _):
        status = main(
            [
                "examine",
                "--examiner", SMOL,
                "--examiner", GEMMA,
                "--examinee", SMOL,
                "--examinee", GEMMA,
                "--examinee", f"{SERVED}@openai:{url}",
                "--language", "da",
                "--questions", "1",
                "--follow-ups", "1",
                "--answer-tokens", "48",
                "--seed", "6",
                "--output", str(out),
            ]
        )  # fmt: skip
    backend.close()
    assert status == 0
    return out
