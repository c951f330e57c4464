"""Efficiency measured on the real bundled SmolLM2-135M-Instruct: a tiny evaluation writes a
complete efficiency object, and the speed command runs on it (few repetitions)."""

from __future__ import annotations

import json

import pytest

from evaluation.__main__ import main
from evaluation.efficiency import validate_efficiency, validate_speed_report
from evaluation.intrinsic import TEXTS
from evaluation.speed import SpeedSettings, benchmark

pytestmark = pytest.mark.slow


def test_a_tiny_evaluation_writes_a_complete_efficiency_object(tmp_path):
    out = tmp_path / "records.jsonl"
    code = main(
        [
            "run",
            "--model",
            "HuggingFaceTB/SmolLM2-135M-Instruct",
            "--dataset",
            "scala-da",
            "--limit",
            "4",
            "--iterations",
            "1",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    eff = record["efficiency"]
    assert validate_efficiency(eff) == eff
    hw = eff["hardware"]
    assert hw["device"] == "cpu" and hw["backend"] == "transformers" and hw["dtype"] in ("float32", "bfloat16")
    assert hw["torch"] and hw["transformers"] and hw["cpu_threads"] >= 1
    # the distinct prompts of the iteration's resample of the four rows, plus the intrinsic
    # measures' texts unless an earlier run of the same weights left them to reuse
    assert 1 <= eff["examples"] <= 4 + 2 * TEXTS
    assert eff["prompt_tokens"] > 0 and eff["reference_prompt_tokens"] > 0
    assert eff["generated_tokens"] == 0  # acceptability is scored by label log-probabilities
    assert eff["prompt_tokens_per_second"] > 0 and 0 < eff["latency_ms"]["median"] <= eff["latency_ms"]["p95"]
    assert eff["load_seconds"] > 0 and eff["wall_seconds"] > 0
    assert eff["peak_memory_kind"] == "resident" and eff["peak_memory_bytes"] > 100 * 2**20


def test_the_speed_benchmark_on_a_bundled_model(smol):
    info, backend = smol
    settings = SpeedSettings(lengths=(100,), batch=2, repetitions=2, min_seconds=0.0, new_tokens=2)
    report = benchmark(backend, info.model_id, info.commit_sha, settings)
    assert validate_speed_report(report) == report
    assert [(r["prompt_reference_tokens"], r["batch_size"]) for r in report["runs"]] == [(100, 1), (100, 2)]
    for run in report["runs"]:
        assert run["repetitions"] == 2 and run["median_seconds"] > 0
        assert run["prompt_tokens_per_second"] > 0 and run["generated_tokens_per_second"] > 0
        assert run["peak_memory_bytes"] > 100 * 2**20
    assert report["model_commit"].startswith("bundled:") and report["hardware"]["batch_size"] == 2


def test_an_encoder_evaluation_writes_its_efficiency_too(tmp_path):
    out = tmp_path / "records.jsonl"
    args = ["run", "--model", "sentence-transformers/all-MiniLM-L6-v2", "--dataset", "scala-da"]
    assert main([*args, "--limit", "4", "--iterations", "2", "--max-train-steps", "2", "--output", str(out)]) == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    eff = record["efficiency"]
    assert validate_efficiency(eff) == eff
    assert eff["hardware"]["backend"] == "transformers (fine-tuned)" and eff["generated_tokens"] == 0
    assert 2 <= eff["examples"] <= 8  # each iteration predicts the distinct rows of its resample of 4
    assert 1 <= eff["hardware"]["batch_size"] <= 4
    assert eff["prompt_tokens"] > 0 and eff["reference_prompt_tokens"] > 0 and eff["load_seconds"] > 0
    assert eff["wall_seconds"] > eff["load_seconds"]
