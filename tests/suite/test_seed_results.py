"""The suite's seed results (data/results/suite/) are what the engine produces: one of them,
re-run with the command that made it, gives the same numbers; all of them load, and each
carries the dataset version of the folder it ran on and the demo's protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.datasets import discover
from evaluation.runner import EvaluationSettings, evaluate_model
from leaderboard.registry.languages import default_board
from scripts.seed_suite import datasets_for

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "data" / "results" / "suite"
DATA_DIR = REPO / "data" / "datasets"
SMOLLM2 = "HuggingFaceTB/SmolLM2-135M-Instruct"


def seed_records() -> list[dict]:
    return [json.loads(line) for path in sorted(SUITE.glob("*.jsonl")) for line in path.read_text().splitlines()]


def test_every_seed_record_matches_the_folder_it_ran_on_and_the_demo_protocol():
    records = seed_records()
    folders = {info.name: info for info in discover(DATA_DIR)}
    models = {r["model"] for r in records}
    assert {"google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2"} <= models
    assert models <= {"google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2", SMOLLM2}
    for model in ("google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2"):
        names = [r["dataset"] for r in records if r["model"] == model]
        assert "scala-da" in names, model  # the demo's browser path
    assert "scala-da" not in {r["dataset"] for r in records if r["model"] == SMOLLM2}  # the demo submits it there
    pairs = [(r["model"], r["dataset"]) for r in records]
    assert len(pairs) == len(set(pairs))  # once each
    for record in records:
        info = folders[record["dataset"]]
        assert record["dataset_version"] == info.fingerprint, record["dataset"]
        assert (record["iterations"], record["limit"]) == (3, 32)
        assert record["model_commit"].startswith("bundled:")
        # float32 on every CPU (scripts/seed_suite.py): bfloat16, which a CPU with AMX would
        # pick, gives other numbers; records older than the efficiency fields say nothing
        dtype = record.get("efficiency", {}).get("hardware", {}).get("dtype", "float32")
        assert dtype == "float32", (record["model"], record["dataset"], dtype)


def test_every_seeded_model_of_a_suite_board_has_every_dataset_of_that_board_it_can_run():
    """A board never lists a seeded model with a hole: a model seeded on one of a board's
    datasets is seeded on every dataset of the data pack on that board (but the tasks
    scripts/seed_suite.py leaves out for it, e.g. extractive QA for the encoder)."""
    folders = {info.name: info for info in discover(DATA_DIR)}
    boards: dict[str, dict[str, set[str]]] = {}
    for record in seed_records():
        for board in {default_board(code) for code in folders[record["dataset"]].languages}:
            boards.setdefault(board, {}).setdefault(record["model"], set()).add(record["dataset"])
    holes = {}
    for board, seeded in boards.items():
        # every folder of the data pack on the board, seeded or not: a new set no model ran is a hole too
        on_board = {name for name, info in folders.items() if board in {default_board(c) for c in info.languages}}
        for model, names in seeded.items():
            lacking = (on_board & set(datasets_for(model))) - names
            if lacking:
                holes[(board, model)] = sorted(lacking)
    assert holes == {}


def test_seed_records_made_since_per_example_evidence_ship_their_examples():
    """Records written since the engine writes examples (2026-11-24) carry them, and every
    examples file a record names is committed; the compare page shows them."""
    records = seed_records()
    for record in records:
        if record.get("examples_file"):
            assert (REPO / record["examples_file"]).is_file(), record["examples_file"]
    assert not [
        (r["model"], r["dataset"]) for r in records if r["created_at"] >= "2026-11-24" and not r.get("examples_file")
    ]


@pytest.mark.slow
def test_a_seed_record_rerun_gives_the_same_numbers(tmp_path):
    """Gemma-3-270M on scala-da, as scripts/seed_suite.py ran it (3 iterations × 32 rows)."""
    [seed] = [r for r in seed_records() if r["model"] == "google/gemma-3-270m" and r["dataset"] == "scala-da"]
    settings = EvaluationSettings(iterations=3, limit=32, max_train_steps=20, data_dir=DATA_DIR, output_dir=tmp_path)
    [again] = evaluate_model(seed["model"], ["scala-da"], settings)
    assert again["dataset_version"] == seed["dataset_version"] and again["model_commit"] == seed["model_commit"]
    assert again["shot_ids"] == seed["shot_ids"]
    assert again["results"]["raw"] == seed["results"]["raw"]
