"""Per-example evidence stored with its evaluation (issue #16.1): with a worker's record,
and from beside a results file; examples that are not the record's are refused with the
reason while the record's scores are stored."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from evaluation.examples import decode_examples, encode_examples
from evaluation.models import ModelInfo
from evaluation.runner import EvaluationSettings, evaluate_model
from leaderboard.models import Evaluation, EvaluationExamples
from leaderboard.services import example_store
from leaderboard.services.dataset_registry import sync_datasets
from leaderboard.services.example_store import InvalidExamples, check_examples
from leaderboard.services.results_import import import_file, import_record

from .conftest import copy_dataset
from .test_engine_records import FirstLabelBackend


@pytest.fixture
def engine_output(data_dir, scala, tmp_path, monkeypatch):
    """A record and its examples file as the engine's CLI writes them: FILE and
    FILE-stem.predictions/ beside it (a fake first-label backend: no model weights)."""
    copy_dataset(scala, data_dir, "scala-da")
    sync_datasets(data_dir)
    monkeypatch.setattr("evaluation.runner.resolve_model", lambda *a, **k: ModelInfo("test-org/first", "a" * 40))
    monkeypatch.setattr("evaluation.runner.local_weights", lambda info: None)
    monkeypatch.setattr("evaluation.runner.load_backend", lambda *a, **k: FirstLabelBackend())
    results = tmp_path / "out" / "results.jsonl"
    (record,) = evaluate_model(
        "test-org/first",
        ["scala-da"],
        EvaluationSettings(
            iterations=3,
            limit=10,
            few_shot=False,
            data_dir=data_dir,
            output_dir=results.with_name("results.predictions"),
        ),
    )
    results.write_text(json.dumps(record) + "\n")
    return results, record


@pytest.mark.django_db
def test_a_worker_record_is_stored_with_its_examples(engine_output):
    _, record = engine_output
    data = Path(record["examples_file"]).read_bytes()
    assert import_record(record, source="worker", examples=data) == "imported"
    stored = EvaluationExamples.objects.get()
    assert (stored.num_examples, stored.score_keys) == (len(decode_examples(data)), ["correct"])
    assert stored.num_invalid == 0 and bytes(stored.data) == data  # scored labels are always answers
    # the same again changes nothing; new examples for the same record update it
    assert import_record(record, source="worker", examples=data) == "unchanged"
    examples = decode_examples(data)
    examples[0]["output"] = "changed"
    assert import_record(record, source="worker", examples=encode_examples(examples)) == "updated"


@pytest.mark.django_db
def test_examples_that_are_not_the_records_are_refused(engine_output):
    _, record = engine_output
    examples = decode_examples(Path(record["examples_file"]).read_bytes())
    draws = 3 * 10
    wrong = {
        "one example missing": examples[1:],
        "an example twice": [examples[0], *examples],
        "a row beyond the limit": [{**examples[0], "example_id": "test:10"}, *examples[1:]],
        "another split": [{**examples[0], "example_id": "val:0"}, *examples[1:]],
        "a draw in iteration 7": [{**examples[0], "iterations": [7]}, *examples[1:]],
    }
    for what, bad in wrong.items():
        with pytest.raises(InvalidExamples):
            check_examples(encode_examples(bad), record)
            pytest.fail(what)
    assert sum(len(e["iterations"]) for e in examples) == draws
    for garbage in (b"", b"plain text", gzip.compress(b"[1, 2]\n")):
        with pytest.raises(InvalidExamples):
            check_examples(garbage, record)
    with pytest.raises(InvalidExamples):  # refused before anything is stored
        import_record(record, source="worker", examples=encode_examples(examples[1:]))
    assert not Evaluation.objects.exists()


@pytest.mark.django_db
def test_a_gzip_bomb_is_refused_without_being_inflated(engine_output, monkeypatch):
    _, record = engine_output
    monkeypatch.setattr("evaluation.examples.MAX_DECOMPRESSED_BYTES", 10_000)
    monkeypatch.setattr(
        example_store, "decode_examples", lambda data, **kw: decode_examples(data, max_bytes=10_000, **kw)
    )
    bomb = gzip.compress(b" " * 5_000_000)
    with pytest.raises(InvalidExamples, match="more than 10000 bytes"):
        check_examples(bomb, record)


@pytest.mark.django_db
def test_import_results_reads_the_examples_beside_the_file(engine_output, tmp_path):
    results, record = engine_output
    report = import_file(results)
    assert (report.imported, report.with_examples) == (1, 1) and "with examples: 1" in report.summary()
    written = decode_examples(Path(record["examples_file"]).read_bytes())
    assert EvaluationExamples.objects.get().num_examples == len(written) <= 10  # the rows some iteration drew

    # a record can only name a file beside the results file, by its name: never a path elsewhere
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.examples.jsonl.gz").write_bytes(Path(record["examples_file"]).read_bytes())
    moved = {**record, "few_shot": True, "examples_file": "../elsewhere/x.examples.jsonl.gz"}
    other = tmp_path / "out" / "other.jsonl"
    other.write_text(json.dumps(moved) + "\n")
    report = import_file(other)
    assert report.imported == 1 and report.examples_missing == {"examples not found": 1}
    assert "without their examples (examples not found: 1)" in report.summary()
    assert Evaluation.objects.count() == 2 and EvaluationExamples.objects.count() == 1

    # examples that do not match their record: the record imports, the examples do not
    examples = written
    (results.with_name("results.predictions") / "bad.examples.jsonl.gz").write_bytes(encode_examples(examples[:3]))
    bad = tmp_path / "out" / "results.jsonl"
    bad.write_text(json.dumps({**record, "examples_file": "/worker/tmp/bad.examples.jsonl.gz", "limit": 10}) + "\n")
    report = import_file(bad)
    assert report.examples_missing == {"examples refused": 1} and report.errors[0][0] == 1
    assert "bad.examples.jsonl.gz" in report.errors[0][1]
