"""Current EuroEval records import as EuroEval writes them today: chrF as ``chr_f3pp`` /
``chr_f4pp``, the newer tasks (simplification, instruction following, the orthogonal
European values), and the whole Dutch 2026 fixture without one invalid record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.prompts import TaskFormat
from evaluation.tasks import TASKS, UnknownTask, canonical_metric, engine_task, get_task
from leaderboard.models import Dataset, IterationScore, LeaderboardEntry
from leaderboard.services.aggregation import aggregate
from leaderboard.services.results_import import import_file

DUTCH = Path(__file__).resolve().parents[1] / "ranking" / "data" / "euroeval-2026" / "records_dutch.jsonl.gz"


def record(model: str, dataset: str, task: str, raw: list[dict], **extra) -> dict:
    return {
        "dataset": dataset,
        "task": task,
        "dataset_languages": ["nl"],
        "model": model,
        "results": {"raw": raw},
        "few_shot": True,
        "validation_split": False,
        "generative": True,
        "generative_type": "instruction_tuned",
        "num_model_parameters": 7_000_000_000,
        "max_sequence_length": -1,
        "vocabulary_size": -1,
        "euroeval_version": "16.3.0",
        **extra,
    }


def write(tmp_path, records, name="euroeval.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def test_task_table_knows_euroevals_current_metrics_and_orthogonal_tasks():
    assert canonical_metric("test_chr_f3pp") == "chrf3pp" and canonical_metric("test_chr_f4pp") == "chrf4pp"
    assert get_task("summarization").primary_metric == "chrf3pp"
    assert get_task("simplification").metrics == ("meteor", "sari")
    assert get_task("instruction-following").metrics == ("instruction_accuracy",)
    values = get_task("european-values")
    assert values.orthogonal and not values.ranked
    # Orthogonal, or left out of EuroEval's boards (tests/ranking/test_euroeval_boards.py has them all).
    assert [name for name, spec in TASKS.items() if spec.orthogonal] == ["european-values"]
    assert not get_task("instruction-following").ranked and not get_task("translation").ranked
    # Imported and shown, but the engine does not pretend to evaluate them.
    for name in ("instruction-following", "european-values"):
        with pytest.raises(UnknownTask, match="imported from results only"):
            engine_task(name)
        with pytest.raises(UnknownTask):
            TaskFormat(name, "nl")
    assert engine_task("summarization").name == "summarization"
    assert engine_task("simplification").name == "simplification"  # evaluated since issue #18


@pytest.mark.django_db
def test_chr_f_summarization_records_import_and_count(tmp_path):
    records = [
        record(
            f"org/m{q}",
            "wiki-lingua-nl",
            "summarization",
            [{"test_chr_f3pp": 0.1 * q + 0.01 * i, "test_chr_f4pp": 0.1 * q, "test_runtime": 9.0} for i in range(10)],
        )
        for q in (1, 2, 3)
    ] + [
        record(
            f"org/m{q}",
            "dbrd",
            "sentiment-classification",
            [{"test_mcc": 0.2 * q + 0.01 * i, "test_macro_f1": 0.5} for i in range(10)],
        )
        for q in (1, 2, 3)
    ]
    report = import_file(write(tmp_path, records))
    assert (report.imported, report.total_skipped, report.errors) == (6, 0, [])
    summaries = IterationScore.objects.filter(evaluation__dataset__name="wiki-lingua-nl")
    assert set(summaries.values_list("metric", flat=True)) == {"chrf3pp", "chrf4pp"}
    assert summaries.count() == 3 * 10 * 2

    aggregate(replicates=20)
    entries = LeaderboardEntry.objects.filter(leaderboard__code="nl")
    assert entries.count() == 3
    for entry in entries:
        assert "summarization" in entry.task_rank_scores  # counts toward the rank score
        assert entry.scores["wiki-lingua-nl"]["primary"]["metric"] == "chrf3pp"
        assert not entry.missing_datasets


@pytest.mark.django_db
def test_newer_tasks_import_and_unknown_ones_are_counted_skips(tmp_path):
    records = [
        record(
            "org/a",
            "duidelijke-taal",
            "simplification",
            [{"test_meteor": 0.12, "test_sari": 0.47}] * 10,
            validation_split=True,
        ),
        record(
            "org/a", "ifeval-nl", "instruction-following", [{"test_instruction_accuracy": 0.7}] * 10, few_shot=False
        ),
        record("org/a", "valeu-nl", "european-values", [{"test_european_values": 0.8}] * 10, few_shot=False),
        record("org/a", "flores-nl", "translation", [{"test_chr_f3pp": 0.5}] * 10),
        record("org/a", "asr-nl", "speech-recognition", [{"test_wer": 0.5}] * 10),
        record("org/a", "asr-nl", "speech-recognition", [{"test_wer": 0.5}] * 10, few_shot=False),
    ]
    report = import_file(write(tmp_path, records))
    assert report.imported == 4  # translation is EuroEval's: imported, shown, never ranked
    assert report.skipped == {"unknown task speech-recognition": 2}
    assert "invalid record" not in report.skipped
    assert {d.name: d.task for d in Dataset.objects.all()} == {
        "duidelijke-taal": "simplification",
        "ifeval-nl": "instruction-following",
        "valeu-nl": "european-values",
        "flores-nl": "translation",
    }
    assert set(IterationScore.objects.values_list("metric", flat=True)) == {
        "meteor",
        "sari",
        "instruction_accuracy",
        "european_values",
        "chrf3pp",
    }


@pytest.mark.django_db
def test_the_whole_dutch_fixture_imports_with_no_invalid_record(client):
    if not DUTCH.exists():
        pytest.fail(f"fixture missing: {DUTCH}")
    report = import_file(DUTCH)
    assert report.errors == []
    assert (report.imported, report.updated, report.unchanged, report.total_skipped) == (2470, 0, 0, 0)
    assert report.rescaled == 0  # totals say these raw scores are fractions
    tasks = dict(Dataset.objects.values_list("name", "task"))
    assert tasks["wiki-lingua-nl"] == "summarization" and tasks["duidelijke-taal"] == "simplification"
    assert IterationScore.objects.filter(metric="chrf3pp").count() == 151 * 10
    assert IterationScore.objects.filter(value__gt=1).count() == 0
    assert client.get("/datasets/duidelijke-taal/").status_code == 200
