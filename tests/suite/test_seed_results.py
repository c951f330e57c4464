"""The suite's seed results (data/results/suite/) are what the engine produces: one of them,
re-run with the command that made it, gives the same numbers; all of them load, and each
carries the dataset version of the folder it ran on and the demo's protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.datasets import discover
from evaluation.runner import EvaluationSettings, evaluate_model

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "data" / "results" / "suite"
DATA_DIR = REPO / "data" / "datasets"


def seed_records() -> list[dict]:
    return [json.loads(line) for path in sorted(SUITE.glob("*.jsonl")) for line in path.read_text().splitlines()]


def test_every_seed_record_matches_the_folder_it_ran_on_and_the_demo_protocol():
    records = seed_records()
    folders = {info.name: info for info in discover(DATA_DIR)}
    assert {r["model"] for r in records} == {"google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2"}
    for model in ("google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2"):
        names = [r["dataset"] for r in records if r["model"] == model]
        assert len(names) == len(set(names)) and "scala-da" in names, model  # once each; the demo's browser path
    for record in records:
        info = folders[record["dataset"]]
        assert record["dataset_version"] == info.fingerprint, record["dataset"]
        assert (record["iterations"], record["limit"]) == (3, 32)
        assert record["model_commit"].startswith("bundled:")


@pytest.mark.slow
def test_a_seed_record_rerun_gives_the_same_numbers(tmp_path):
    """Gemma-3-270M on scala-da, as scripts/seed_suite.py ran it (3 iterations × 32 rows)."""
    [seed] = [r for r in seed_records() if r["model"] == "google/gemma-3-270m" and r["dataset"] == "scala-da"]
    settings = EvaluationSettings(iterations=3, limit=32, max_train_steps=20, data_dir=DATA_DIR, output_dir=tmp_path)
    [again] = evaluate_model(seed["model"], ["scala-da"], settings)
    assert again["dataset_version"] == seed["dataset_version"] and again["model_commit"] == seed["model_commit"]
    assert again["shot_ids"] == seed["shot_ids"]
    assert again["results"]["raw"] == seed["results"]["raw"]
