import json
import math

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.db.models import Count

from leaderboard.models import Dataset, Evaluation, IterationScore, LanguageModel, ModelType
from leaderboard.services.results_import import import_file, import_record


def record(model="org/model", dataset="scala-da", task="linguistic-acceptability", scores=None, **extra):
    scores = scores or [0.1 * i for i in range(10)]
    return {
        "dataset": dataset,
        "task": task,
        "dataset_languages": ["da"],
        "model": model,
        "results": {"raw": [{"mcc": s, "macro_f1": s / 2, "runtime": 3.0} for s in scores]},
        "num_model_parameters": 1000,
        **extra,
    }


def write_jsonl(tmp_path, lines, name="results.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


@pytest.mark.django_db
def test_shared_results_file_imports_exactly_and_reimport_is_a_no_op(shared_results_file, capsys):
    call_command("import_results", str(shared_results_file))
    out = capsys.readouterr().out
    # the speed pseudo-task is efficiency data of its own kind (issue #26.4), never scores;
    # one model's speed record appears twice, the later wins
    assert (
        "imported 1881, updated 0, unchanged 0, skipped 1 (superseded by a newer record in the file: 1); "
        "speed records (EuroEval's own kind, not scores): imported 138" in out
    )

    assert not Dataset.objects.filter(name="speed").exists()
    assert not IterationScore.objects.filter(metric__contains="speed").exists()
    counts = {
        (row["evaluation"], row["metric"]): row["n"]
        for row in IterationScore.objects.values("evaluation", "metric").annotate(n=Count("id"))
    }
    assert counts and set(counts.values()) == {10}
    assert IterationScore.objects.count() == 1881 * 2 * 10
    # Old name of reading comprehension, normalised; metric prefixes stripped.
    assert Dataset.objects.get(name="scandiqa-da").task == "reading-comprehension"
    assert set(IterationScore.objects.values_list("metric", flat=True).distinct()) == {
        "mcc",
        "macro_f1",
        "micro_f1",
        "micro_f1_no_misc",
        "f1",
        "em",
    }
    # Model names are kept as the file writes them (local paths included).
    assert LanguageModel.objects.filter(model_id__startswith="/mnt/").exists()
    # Old files write question-answering scores in percent; stored scores are in [0, 1].
    qa = Evaluation.objects.filter(dataset__name="scandiqa-da").first()
    f1 = list(qa.scores.filter(metric="f1").values_list("value", flat=True))
    assert min(f1) > 0 and max(f1) <= 1
    assert sum(f1) / len(f1) * 100 == pytest.approx(qa.record["results"]["total"]["test_f1"])
    assert IterationScore.objects.filter(value__gt=1).count() == 0
    # Old files do not say which models are encoders; a training loss per iteration does.
    assert LanguageModel.objects.get(model_id="vesteinn/DanskBERT").model_type == ModelType.ENCODER
    assert LanguageModel.objects.get(model_id="gpt-3.5-turbo-0613").model_type == ModelType.UNKNOWN
    nn = Dataset.objects.get(name="norec")
    assert sorted(lang.board for lang in nn.languages.all()) == ["no", "no"]

    call_command("import_results", str(shared_results_file))
    assert "imported 0, updated 0, unchanged 1881" in capsys.readouterr().out
    assert IterationScore.objects.count() == 1881 * 2 * 10


@pytest.mark.django_db
def test_malformed_lines_are_reported_with_line_numbers_and_nothing_is_lost(tmp_path):
    import_record(record(model="kept/model"), source="earlier")
    before = IterationScore.objects.count()
    bad_value = record(model="a/b")
    bad_value["results"]["raw"][3]["mcc"] = "NaN-ish"
    path = write_jsonl(
        tmp_path,
        [
            record(model="good/one"),
            "",
            "{not json",
            {"task": "linguistic-acceptability"},
            bad_value,
            record(model="good/two", raw_missing=True) | {"results": {"raw": []}},
            record(model="kept/model", scores=[float("nan")] * 10) | {},
        ],
    )
    # json.dumps writes NaN, which Python's json accepts but we refuse as not finite.
    report = import_file(path)
    assert report.imported == 1
    lines = dict(report.errors)
    assert set(lines) == {3, 4, 5, 6, 7}
    assert "not valid JSON" in lines[3]
    assert "missing key 'dataset'" in lines[4]
    assert "not a finite number" in lines[5]
    assert "no per-iteration scores" in lines[6]
    assert IterationScore.objects.count() == before + 20
    kept = Evaluation.objects.get(model__model_id="kept/model")
    assert all(math.isfinite(v) for v in kept.scores.values_list("value", flat=True))


@pytest.mark.django_db
def test_duplicates_in_a_file_newest_wins_and_changes_update(tmp_path):
    path = write_jsonl(tmp_path, [record(scores=[0.2] * 10), record(scores=[0.3] * 10)])
    report = import_file(path)
    assert (report.imported, report.skipped["superseded by a newer record in the file"]) == (1, 1)
    evaluation = Evaluation.objects.get()
    assert set(evaluation.scores.filter(metric="mcc").values_list("value", flat=True)) == {0.3}

    report = import_file(write_jsonl(tmp_path, [record(scores=[0.4] * 10)], "newer.jsonl"))
    assert report.updated == 1
    assert evaluation.scores.count() == 20
    assert set(evaluation.scores.filter(metric="mcc").values_list("value", flat=True)) == {0.4}


@pytest.mark.django_db
def test_variants_api_models_reasoning_efforts_and_new_format(tmp_path):
    lines = [
        record(
            model="claude-sonnet-4-6",
            few_shot=True,
            validation_split=False,
            generative=True,
            generative_type="instruction_tuned",
        ),
        record(model="claude-sonnet-4-6", few_shot=False, validation_split=False),
        record(model="claude-sonnet-4-6", few_shot=True, validation_split=True),
        record(model="org/thinker#low", generative=True),
        {
            "dataset": "new-qa-da",
            "task": "question-answering",
            "dataset_languages": ["da"],
            "model": "org/enc",
            "generative": False,
            "results": {"raw": {"test": [{"test_f1": 0.5, "test_em": 0.25}] * 10}},
        },
    ]
    report = import_file(write_jsonl(tmp_path, lines))
    assert report.imported == 5, report.summary()
    assert Evaluation.objects.filter(model__model_id="claude-sonnet-4-6").count() == 3
    assert LanguageModel.objects.get(model_id="claude-sonnet-4-6").model_type == ModelType.INSTRUCTION_TUNED
    assert LanguageModel.objects.get(model_id="org/thinker#low").model_type == ModelType.REASONING
    assert LanguageModel.objects.get(model_id="org/enc").model_type == ModelType.ENCODER
    created = Dataset.objects.get(name="new-qa-da")
    assert (created.task, created.origin, created.counts_toward_leaderboard) == (
        "reading-comprehension",
        "results",
        True,
    )
    assert list(created.languages.values_list("code", flat=True)) == ["da"]


@pytest.mark.django_db
def test_task_mismatch_for_known_dataset_is_refused(tmp_path):
    import_record(record(), source="x")
    report = import_file(write_jsonl(tmp_path, [record(task="sentiment-classification", model="x/y")]))
    assert report.imported == 0 and "is a linguistic-acceptability dataset" in report.errors[0][1]


@pytest.mark.django_db
def test_a_refused_record_rolls_back_what_it_created_and_the_next_record_of_its_model_still_imports(tmp_path):
    """The import looks a model up once per file; a record refused after its model was
    created rolls that model back, and the next record of the same model creates it again."""
    import_record(record(), source="x")
    lines = [
        record(model="new/model", task="sentiment-classification"),  # scala-da is acceptability: refused
        record(model="new/model", dataset="other-da"),
        record(model="new/model", dataset="third-da"),
    ]
    report = import_file(write_jsonl(tmp_path, lines))
    assert report.imported == 2 and len(report.errors) == 1, report.summary()
    model = LanguageModel.objects.get(model_id="new/model")
    assert sorted(Evaluation.objects.filter(model=model).values_list("dataset__name", flat=True)) == [
        "other-da",
        "third-da",
    ]


@pytest.mark.django_db
def test_iteration_scores_are_unique_in_the_database():
    import_record(record(), source="x")
    evaluation = Evaluation.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        IterationScore.objects.create(evaluation=evaluation, iteration=0, metric="mcc", value=0.9)


@pytest.mark.django_db
def test_missing_file_is_a_clear_error(tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no such file"):
        call_command("import_results", str(tmp_path / "nope.jsonl"))


@pytest.mark.django_db
def test_percent_scores_without_a_total_are_scaled_and_nonsense_is_refused(tmp_path):
    percent = record(model="p/c", scores=[50.0 + i for i in range(10)])
    nonsense = record(model="n/s", scores=[0.5] * 10)
    nonsense["results"]["raw"][0]["macro_f1"] = 350.0  # no scale makes this a score
    report = import_file(write_jsonl(tmp_path, [percent, nonsense]))
    assert report.imported == 1
    assert "macro_f1 outside [-1, 1]" in report.errors[0][1]
    values = sorted(
        Evaluation.objects.get(model__model_id="p/c").scores.filter(metric="mcc").values_list("value", flat=True)
    )
    assert values == pytest.approx([0.50 + i / 100 for i in range(10)])


@pytest.mark.django_db
def test_a_file_is_written_in_bulk_and_stores_what_each_record_stored_alone_would(
    tmp_path, django_assert_max_num_queries
):
    """Records without examples are written a run at a time (``results_import.CHUNK``) with a
    few queries; the outcome is the one-record-at-a-time path's: new, unchanged and changed
    records counted as such, a refused record reported with its line and the rest kept."""
    from leaderboard.services import results_import

    import_record(record(model="kept/same"), source="x")
    import_record(record(model="kept/changed"), source="x")
    lines = [record(model=f"org/m{i // 30}", dataset=f"set{i % 30}-da") for i in range(600)]
    lines[10] = record(model="kept/same")
    lines[20] = record(model="kept/changed", scores=[0.5] * 10)
    lines[300] = record(model="org/m10", task="sentiment-classification")  # scala-da is acceptability
    lines[300]["dataset"] = "scala-da"
    with django_assert_max_num_queries(600):  # one record at a time: about 8 queries each, 4,800
        report = import_file(write_jsonl(tmp_path, lines))
    assert (report.imported, report.unchanged, report.updated) == (597, 1, 1), report.summary()
    [(line, error)] = report.errors
    assert line == 301 and "is a linguistic-acceptability dataset" in error
    assert results_import.CHUNK < 600  # the file spans more than one run
    assert Evaluation.objects.count() == 2 + 597 and IterationScore.objects.count() == 599 * 20
    changed = Evaluation.objects.get(model__model_id="kept/changed")
    assert set(changed.scores.filter(metric="mcc").values_list("value", flat=True)) == {0.5}
    alone = tmp_path / "alone"
    alone.mkdir()
    again = import_file(write_jsonl(alone, lines[:5]))
    assert (again.imported, again.unchanged) == (0, 5)
