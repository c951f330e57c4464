"""The examiner through a real OpenAI-compatible server: ``vllm serve`` (vLLM's CPU build,
``make test-vllm``) serves the bundled SmolLM2 under another name; it writes, grades and
ranks an exam that the bundled models sit through the transformers backend. The grade and
comparison JSON is constrained by the server's structured outputs (``response_format``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("vllm", reason="vLLM runs in the .venv-vllm environment: make test-vllm")

from evaluation.__main__ import main  # noqa: E402
from evaluation.examiner.merge_sort import comparison_bound  # noqa: E402
from evaluation.examiner.records import read_exam  # noqa: E402
from evaluation.models import local_weights, resolve_model  # noqa: E402

pytestmark = [pytest.mark.vllm, pytest.mark.slow]
SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"
GEMMA = "google/gemma-3-270m"
SERVED = "smollm2-vllm"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    weights = local_weights(resolve_model(SMOL))
    log = (tmp_path_factory.mktemp("vllm") / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(weights)]
        + ["--served-model-name", SERVED, "--port", str(port), "--max-model-len", "2048", "--seed", "0"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1")},
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 420
    while True:
        try:
            with urllib.request.urlopen(url + "/models", timeout=2) as response:
                assert SERVED in response.read().decode()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("vllm serve did not start; see " + log.name) from None
            time.sleep(2)
    yield url
    process.terminate()
    process.wait(timeout=60)


def test_an_exam_written_graded_and_ranked_by_a_vllm_server(server, tmp_path):
    out = tmp_path / "exam.jsonl"
    status = main(
        ["examine", "--examiner", f"{SERVED}@openai:{server}", "--examinee", SMOL, "--examinee", GEMMA]
        + ["--language", "sv", "--questions", "3", "--follow-ups", "1", "--answer-tokens", "48", "--output", str(out)]
    )
    assert status == 0
    document = read_exam(out.read_text().splitlines())  # valid, every reference resolves
    assert len(document.questions) >= 2 and all(q["examiner"] == SERVED for q in document.questions)
    assert all(q["language"] == "sv" for q in document.questions)
    assert document.grades and all(g["valid"] for g in document.grades)  # the server's JSON always parses
    assert {a["examinee"] for a in document.answers} == {SMOL, GEMMA}
    assert document.rankings
    for r in document.rankings:
        assert set(r["order"]) == {SMOL, GEMMA} and r["comparisons"] == 1 <= comparison_bound(2)
        (j,) = r["judgments"]
        assert {j["ab"], j["ba"]} <= {SMOL, GEMMA}  # both orders judged and read
    records = [json.loads(line) for line in out.read_text().splitlines()]
    cost = next(r for r in records if r["kind"] == "cost")
    served = cost["models"][SERVED]
    # one request per question slot attempt, per grade and two per comparison
    assert served["calls"] >= len(document.questions) + len(document.grades) + 2 * len(document.rankings)
