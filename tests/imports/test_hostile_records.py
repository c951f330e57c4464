"""Every hostile record of issue #12 among good records: a line-numbered error (or a
counted skip) for it, nothing half-stored, and every record after it imported."""

from __future__ import annotations

import gzip
import json
import os

import pytest
from django.core.management import call_command
from django.db import connection

from leaderboard.models import Dataset, Evaluation, IterationScore, Language, LanguageModel
from leaderboard.record_fields import InvalidRecord
from leaderboard.services.record_parsing import SkipRecord, parse_record
from leaderboard.services.results_import import import_file


def good(model: str, dataset: str = "scala-da", **extra) -> dict:
    return {
        "dataset": dataset,
        "task": "linguistic-acceptability",
        "dataset_languages": ["da"],
        "model": model,
        "results": {"raw": [{"test_mcc": 0.1 + 0.05 * i, "test_macro_f1": 0.5} for i in range(10)]},
        "few_shot": True,
        "validation_split": False,
        "num_model_parameters": 1000,
        **extra,
    }


def write(tmp_path, lines, name="results.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def one_stray(model: str) -> dict:
    record = good(model)
    record["results"]["raw"][4]["test_mcc"] = 50.0  # one value "in percent" among fractions, no total
    return record


# (what, record, words the error must contain); the value is a record or None for "a good one".
HOSTILE = [
    ("task as a list", good("h/task-list") | {"task": ["linguistic-acceptability"]}, "task must be"),
    ("non-numeric parameters", good("h/params") | {"num_model_parameters": "7B"}, "num_model_parameters"),
    ("over-long precision", good("h/precision") | {"precision": "bfloat16" * 10}, "precision"),
    ("over-long language code", good("h/lang") | {"dataset_languages": ["danish-dk"]}, "language code"),
    ("few_shot as a string", good("h/few-shot") | {"few_shot": "false"}, "few_shot must be true, false or null"),
    ("one stray value", one_stray("h/stray"), "mcc outside [-1, 1]"),
    ("dataset with a slash", good("h/slash", dataset="x/ds"), "dataset must be"),
    ("language with a slash", good("h/lang-slash", dataset="odd-da") | {"dataset_languages": ["x/y"]}, "language code"),
    ("model with a newline", good("h/new\nline"), "model must be"),
    ("generative as a string", good("h/gen") | {"generative": "no"}, "generative must be"),
    ("huge vocabulary", good("h/vocab") | {"vocabulary_size": 10**17}, "vocabulary_size"),
    ("revision too long", good("h/rev") | {"model_revision": "r" * 101}, "model_revision"),
    ("versions as a list", good("h/versions") | {"versions": ["torch"]}, "versions"),
]


@pytest.mark.django_db
def test_each_hostile_record_is_a_numbered_error_and_the_records_after_it_import(tmp_path):
    lines, expected_errors = [], {}
    for number, (what, record, words) in enumerate(HOSTILE):
        lines.append(record)
        expected_errors[len(lines)] = (what, words)
        lines.append(good(f"good/after-{number}"))
    lines.append(good("h/astro") | {"task": "astrology"})
    astrology_line = len(lines)
    lines.append(good("good/last"))

    report = import_file(write(tmp_path, lines))

    errors = dict(report.errors)
    for line, (what, words) in expected_errors.items():
        assert line in errors, f"{what}: no error for line {line}"
        assert words in errors[line], f"{what}: {errors[line]!r}"
    assert "astrology" in errors[astrology_line]
    assert set(errors) == set(expected_errors) | {astrology_line}
    assert report.skipped["invalid record"] == len(HOSTILE)
    assert report.skipped["unknown task astrology"] == 1  # counted as unknown, not as malformed
    assert report.imported == len(HOSTILE) + 1
    stored = set(LanguageModel.objects.values_list("model_id", flat=True))
    assert stored == {f"good/after-{n}" for n in range(len(HOSTILE))} | {"good/last"}
    assert not Dataset.objects.filter(name__in=["x/ds", "odd-da"]).exists()
    assert not Language.objects.filter(code__in=["x/y", "danish-dk"]).exists()
    assert Evaluation.objects.filter(few_shot=True).count() == report.imported


@pytest.mark.django_db
def test_the_command_lists_bad_lines_and_always_prints_its_summary(tmp_path, capsys):
    path = write(tmp_path, [good("a/one"), good("h/x") | {"few_shot": "false"}, "{oops", good("a/two")])
    call_command("import_results", str(path))
    captured = capsys.readouterr()
    summary = "results.jsonl: imported 2, updated 0, unchanged 0, skipped 2 (invalid record: 1, malformed: 1)"
    assert summary in captured.out
    assert f"{path}:2: skipped: few_shot must be true, false or null" in captured.err
    assert f"{path}:3: skipped: not valid JSON" in captured.err


def test_strict_booleans_and_defaults():
    assert parse_record(good("a/b") | {"few_shot": False}).few_shot is False
    assert parse_record(good("a/b") | {"few_shot": None, "validation_split": None}).few_shot is True
    for bad in ("false", "true", 0, 1, []):
        with pytest.raises(InvalidRecord, match="few_shot"):
            parse_record(good("a/b") | {"few_shot": bad})
        with pytest.raises(InvalidRecord, match="validation_split"):
            parse_record(good("a/b") | {"validation_split": bad})


def test_names_and_numbers_real_files_use_are_accepted():
    for model in (
        "claude-sonnet-4-6",
        "org/model#low",
        "PleIAs/Baguettotron@refs/pr/6#no-thinking",
        "ollama_chat/gemma3:12b-it-q4_K_M",
        "/mnt/data/models/my-model",
        "gpt-3.5-turbo-0613",
    ):
        assert parse_record(good(model)).model_id == model
    for dataset in ("scala-da", "wiki-lingua-nl", "mim-gold-ner", "norne-nb", "squad-nl", "dataset.v2"):
        assert parse_record(good("a/b", dataset=dataset)).dataset == dataset
    counts = {"num_model_parameters": -1, "vocabulary_size": 7e9, "max_sequence_length": None}
    parsed = parse_record(good("a/b") | counts)
    assert parsed.record["num_model_parameters"] == -1
    assert parse_record(good("a/b") | {"dataset_languages": ["nb", "nn", "fao"]}).languages == ("nb", "nn", "fao")
    for model in ("", "a b", "x" * 301, "org/../other", "tab\there"):
        with pytest.raises(InvalidRecord, match="model"):
            parse_record(good(model))
    for dataset in ("Scala-DA", "../etc", "x/ds", "", "a" * 101, "-lead"):
        with pytest.raises(InvalidRecord, match="dataset"):
            parse_record(good("a/b", dataset=dataset))
    for count in (True, "12", -2, 1.5, 10**15, float("nan")):
        with pytest.raises(InvalidRecord, match="num_model_parameters"):
            parse_record(good("a/b") | {"num_model_parameters": count})


def test_unknown_tasks_are_skipped_with_a_reason_and_pseudo_tasks_quietly():
    with pytest.raises(SkipRecord) as unknown:
        parse_record(good("a/b") | {"task": "interpretive-dance"})
    assert unknown.value.reason == "unknown task interpretive-dance" and "known tasks" in unknown.value.detail
    with pytest.raises(SkipRecord) as speed:
        parse_record(good("a/b") | {"task": "speed"})
    assert speed.value.reason == "speed pseudo-task" and not speed.value.detail
    for task in (["knowledge"], {"a": 1}, 3, "", "Knowledge", "x" * 61, "a/b"):
        with pytest.raises(InvalidRecord, match="task must be"):
            parse_record(good("a/b") | {"task": task})


@pytest.mark.django_db
def test_a_record_the_database_refuses_is_reported_and_the_rest_import(tmp_path):
    """A real database error (a trigger refusing one model id, as a constraint the
    validation does not know would) costs that record only."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            CREATE FUNCTION glossa_test_refuse() RETURNS trigger AS $$
            BEGIN
              IF NEW.model_id = 'db/refuses' THEN
                RAISE EXCEPTION 'value too long for this test' USING ERRCODE = '22001';
              END IF;
              RETURN NEW;
            END $$ LANGUAGE plpgsql;
            CREATE TRIGGER glossa_test_refuse BEFORE INSERT ON leaderboard_languagemodel
              FOR EACH ROW EXECUTE FUNCTION glossa_test_refuse();
            """
        )
    report = import_file(write(tmp_path, [good("a/before"), good("db/refuses"), good("a/after")]))
    assert report.imported == 2
    assert report.skipped["refused by the database"] == 1
    [(line, message)] = report.errors
    assert line == 2 and "value too long for this test" in message
    assert set(LanguageModel.objects.values_list("model_id", flat=True)) == {"a/before", "a/after"}


@pytest.mark.django_db
def test_gzip_files_are_read_and_a_truncated_one_still_completes(tmp_path):
    path = tmp_path / "results.jsonl.gz"
    payload = "\n".join(json.dumps(good(f"gz/{i}")) for i in range(30)).encode()
    path.write_bytes(gzip.compress(payload))
    assert import_file(path).imported == 30

    # Incompressible padding, so that the archive's first records decompress before its cut end.
    noisy = "\n".join(json.dumps(good(f"cut/{i}") | {"pad": os.urandom(2000).hex()}) for i in range(60)).encode()
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(gzip.compress(noisy)[:-5000])
    report = import_file(truncated)
    assert report.skipped["malformed"] >= 1
    assert any("unreadable" in message or "not valid JSON" in message for _, message in report.errors)
    assert report.imported == Evaluation.objects.filter(model__model_id__startswith="cut/").count() > 0


@pytest.mark.django_db
def test_summary_counts_records_rescaled_from_percent(tmp_path):
    percent = good("p/c")
    for i, scores in enumerate(percent["results"]["raw"]):
        scores.update(test_mcc=40.0 + i, test_macro_f1=60.0)
    report = import_file(write(tmp_path, [percent, good("f/r")]))
    assert report.imported == 2 and report.rescaled == 1
    assert report.summary().endswith("; rescaled from percent: 1")
    mcc = IterationScore.objects.filter(evaluation__model__model_id="p/c", metric="mcc")
    assert sorted(mcc.values_list("value", flat=True)) == pytest.approx([0.40 + i / 100 for i in range(10)])
