"""Every Eval Ever records in: EuroEval ≥ 17's results files import as its older records do.

The EEE lines are what EuroEval's own writer makes of a record (``tests/support/euroeval_eee.py``
ports it line for line); the Dutch fixture's 2,470 records, written so, import to the same
scores and the same Dutch board as the records themselves. EuroEval's quirks are read;
hostile lines are errors with their line numbers and the rest import.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
from pathlib import Path

import pytest

from leaderboard.eee import files as eee_files
from leaderboard.eee.records import as_legacy, legacy_record
from leaderboard.eee.schema import schema_errors
from leaderboard.models import Dataset, DatasetVersion, Evaluation, IterationScore, LanguageModel, Leaderboard
from leaderboard.record_fields import InvalidRecord
from leaderboard.services.aggregation import aggregate
from leaderboard.services.record_parsing import parse_record
from leaderboard.services.results_import import import_file
from tests.support.euroeval_eee import legacy_to_eee

DUTCH = Path(__file__).resolve().parents[1] / "ranking" / "data" / "euroeval-2026" / "records_dutch.jsonl.gz"
SAMPLE = Path(__file__).parent / "data" / "eee" / "euroeval_dutch_sample.jsonl"


def dutch_records() -> list[dict]:
    with gzip.open(DUTCH, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def stored_scores() -> list[tuple]:
    """Every stored score with the identity of its evaluation."""
    return sorted(
        IterationScore.objects.values_list(
            "evaluation__model__model_id",
            "evaluation__dataset__name",
            "evaluation__dataset_version__fingerprint",
            "evaluation__commit_sha",
            "evaluation__few_shot",
            "evaluation__validation_split",
            "evaluation__num_iterations",
            "evaluation__test_limit",
            "iteration",
            "metric",
            "value",
        )
    )


def without_row_ids(scores: dict) -> str:
    """A board row's scores without the counted evaluations' database ids (another import
    numbers its rows anew)."""
    cells = {name: {k: v for k, v in cell.items() if k != "evaluation"} for name, cell in scores.items()}
    return json.dumps(cells, sort_keys=True)


def board(code: str) -> list[tuple]:
    aggregate([code], replicates=0)
    lb = Leaderboard.objects.get(code=code)
    return sorted(
        (e.model.model_id, e.few_shot, e.validation_split, e.rank, e.rank_score, without_row_ids(e.scores))
        for e in lb.entries.select_related("model")
    )


def wipe_results() -> None:
    """A fresh database's results: no evaluations, datasets, models or boards."""
    Evaluation.objects.all().delete()
    DatasetVersion.objects.all().delete()
    Dataset.objects.all().delete()
    LanguageModel.objects.all().delete()
    Leaderboard.objects.all().delete()


def write_lines(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def test_every_dutch_record_written_by_euroeval_reads_back_to_the_same_scores():
    """Pure: the converter gives the importer what the record itself gives it, for all 2,470."""
    for record in dutch_records():
        eee = json.loads(json.dumps(legacy_to_eee(record)))
        legacy, converted = parse_record(copy.deepcopy(record)), parse_record(as_legacy(eee))
        assert converted.iterations == legacy.iterations and converted.key == legacy.key
        assert (converted.task, converted.languages) == (legacy.task, legacy.languages)
        for key in ("num_model_parameters", "max_sequence_length", "vocabulary_size", "generative_type"):
            assert converted.record.get(key) == record[key]  # null: left out, as unknown
        assert converted.record["euroeval_version"] == record["euroeval_version"]
        total = dict(converted.record["results"]["total"])
        assert total.pop("num_failed_instances") == 0.0  # EuroEval writes "0.0" when the record has none
        assert total == pytest.approx(record["results"]["total"], abs=1e-9)


@pytest.mark.django_db
def test_the_dutch_fixture_as_euroeval_writes_it_gives_the_same_dutch_board(tmp_path):
    """Every eighth model of the fixture; ``GLOSSA_EEE_PARITY_ALL=1``: all 2,470 records (two
    full imports take minutes; the test above checks the scores of all of them in seconds)."""
    step = 1 if os.environ.get("GLOSSA_EEE_PARITY_ALL") == "1" else 8
    models = sorted({r["model"] for r in dutch_records()})[::step]
    records = [r for r in dutch_records() if r["model"] in models]
    assert import_file(write_lines(tmp_path / "legacy.jsonl", records)).imported == len(records) > 250
    legacy_scores, legacy_board = stored_scores(), board("nl")
    wipe_results()
    eee_file = write_lines(tmp_path / "euroeval_benchmark_results.jsonl", [legacy_to_eee(r) for r in records])
    report = import_file(eee_file)
    assert report.errors == [] and report.imported == len(records), report.summary()
    assert stored_scores() == legacy_scores
    assert board("nl") == legacy_board and len(legacy_board) >= len(models)


@pytest.mark.django_db
def test_the_kept_euroeval_sample_imports_with_euroevals_quirks(tmp_path):
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    # EuroEval writes null into additional_details and languages as a JSON string: the
    # schema refuses the first, Glossa reads both.
    assert first["eval_library"]["additional_details"]["transformers_version"] is None
    assert first["eval_library"]["additional_details"]["languages"] == '["nl"]'
    assert any("None is not of type 'string'" in e for e in schema_errors(first))
    report = import_file(SAMPLE)
    assert report.errors == [] and report.imported == len(lines) == 28, report.summary()
    sample_scores = stored_scores()
    wipe_results()
    models = {json.loads(line)["model_info"]["name"] for line in lines}
    legacy = write_lines(tmp_path / "legacy.jsonl", [r for r in dutch_records() if r["model"] in models])
    assert import_file(legacy).imported == 28
    assert stored_scores() == sample_scores


def eee_line(**changes) -> dict:
    record = json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[1])
    for path, value in changes.items():
        *parents, last = path.split("__")
        target = record
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return record


@pytest.mark.django_db
def test_hostile_eee_lines_are_numbered_errors_and_the_rest_imports(tmp_path):
    good = eee_line()
    legacy = dutch_records()[0]
    huge = json.dumps(eee_line(eval_library__additional_details__raw_results="[" + "1," * 6_000_000 + "1]"))
    lines = [
        good,  # 1
        eee_line(evaluation_results__0__score_details__score="66.3"),  # 2: a string for a number
        eee_line(eval_library__additional_details__raw_results=KeyError),  # 3: no raw results
        eee_line(schema_version="9.9"),  # 4: a schema version this site does not read
        eee_line(eval_library__additional_details__raw_results="[{not json"),  # 5
        huge,  # 6: longer than a line may be
        legacy,  # 7: a EuroEval record of the old format, in the same file
        eee_line(model_info__additional_details__num_model_parameters="many"),  # 8
        eee_line(eval_library__additional_details__few_shot="maybe"),  # 9
        eee_line(eval_library__additional_details__task="tool-calling-2099"),  # 10: unknown task
        eee_line(eval_library__additional_details__languages='["nl", 7]'),  # 11
        eee_line(eval_library__additional_details__raw_results='[{"test_mcc": "0.5"}]'),  # 12
        {"schema_version": "instance_level_eval_0.2.1", "sample_id": "test:0"},  # 13: a sidecar's row
    ]
    report = import_file(write_lines(tmp_path / "mixed.jsonl", lines))
    assert report.imported == 2, report.summary()
    errors = dict(report.errors)
    assert "evaluation_results[0].score_details.score must be a finite number" in errors[2]
    assert "raw_results is missing" in errors[3]
    assert 'schema_version "9.9"' in errors[4]
    assert "raw_results is not valid JSON" in errors[5]
    assert 6 in errors  # the line reader's bound (12 MB here)
    assert "num_model_parameters must be a whole number" in errors[8]
    assert "few_shot must be 'true' or 'false'" in errors[9]
    assert report.skipped["unknown task tool-calling-2099"] == 1  # skipped and counted, as any unknown task
    assert "not a two- or three-letter language code" in errors[11]
    assert "not a finite number" in errors[12]
    assert "instance-level row" in errors[13]
    assert {1, 7} & set(errors) == set()


@pytest.mark.django_db
def test_a_pretty_printed_json_log_is_one_record_and_an_oversized_one_is_not_read(tmp_path, monkeypatch):
    log = tmp_path / "run.json"
    log.write_text(json.dumps(eee_line(), indent=2), encoding="utf-8")
    report = import_file(log)
    assert report.imported == 1 and report.errors == [], report.summary()
    jsonl_named_json = write_lines(tmp_path / "two.json", [eee_line(), dutch_records()[5]])
    report = import_file(jsonl_named_json)  # JSON lines under a .json name: read line by line
    assert (report.imported, report.unchanged, report.errors) == (1, 1, [])  # the log's record again: unchanged
    monkeypatch.setattr(eee_files, "MAX_LOG_BYTES", 1000)
    report = import_file(log)
    assert report.imported == 0 and "larger than 1000 bytes" in str(report.errors)


def test_numbers_written_as_strings_where_the_schema_wants_strings_are_read():
    record = legacy_record(eee_line())
    assert isinstance(record["num_model_parameters"], int) and record["generative"] in (True, False)
    assert record["dataset_languages"] == ["nl"] and record["few_shot"] in (True, False)
    with pytest.raises(InvalidRecord, match="must encode a list"):
        legacy_record(eee_line(eval_library__additional_details__languages='{"nl": 1}'))
    bare = legacy_record(eee_line(eval_library__additional_details__languages="nl"))
    assert bare["dataset_languages"] == ["nl"]  # EuroEval's fallback: one bare code
