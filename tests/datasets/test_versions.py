"""Datasets register by folder name; a folder may add a version to a dataset, never re-type
it or merge into another version's scores (issue #12, items 2 and 5)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from django.utils import timezone

from evaluation.datasets import discover
from leaderboard.admin.datasets import DatasetAdminForm
from leaderboard.identity import PUBLISHED
from leaderboard.models import Dataset, DatasetVersion, Evaluation, IterationScore
from leaderboard.services.dataset_registry import sync_datasets
from leaderboard.services.results_import import import_record

from .conftest import change_row, copy_dataset

pytestmark = pytest.mark.django_db

MODEL = "test-org/test-model"


def record(dataset: str, task: str, mcc: list[float], **extra) -> dict:
    raw = [{"mcc": value, "macro_f1": 0.5} for value in mcc]
    return {
        "dataset": dataset,
        "task": task,
        "dataset_languages": ["da"],
        "model": MODEL,
        "results": {"raw": raw},
        "few_shot": True,
        **extra,
    }


def state(name: str) -> dict:
    """Everything a sync could change about a dataset, its versions and its scores."""
    dataset = Dataset.objects.get(name=name)
    return {
        "row": {f.attname: getattr(dataset, f.attname) for f in Dataset._meta.concrete_fields},
        "languages": sorted(dataset.languages.values_list("code", flat=True)),
        "versions": list(dataset.versions.values_list("fingerprint", "train_size", "val_size", "test_size", "path")),
        "scores": sorted(
            IterationScore.objects.filter(evaluation__dataset=dataset).values_list(
                "evaluation__dataset_version__fingerprint", "iteration", "metric", "value"
            )
        ),
    }


@pytest.fixture
def published_angry_tweets():
    assert (
        import_record(record("angry-tweets", "sentiment-classification", [0.4, 0.5]), source="published") == "imported"
    )
    return state("angry-tweets")


def test_innocent_folder_cannot_retype_a_published_dataset(data_dir, scala, published_angry_tweets):
    copy_dataset(scala, data_dir, "innocent-folder")
    meta_file = data_dir / "innocent-folder" / "dataset.json"
    meta_file.write_text(json.dumps({**json.loads(meta_file.read_text()), "name": "angry-tweets", "task": "knowledge"}))
    copy_dataset(scala, data_dir, "scala-da")

    report = sync_datasets(data_dir)

    assert report.created == ["scala-da"]
    (refusal,) = report.refused
    assert refusal.folder == "innocent-folder"
    assert "names the dataset 'angry-tweets' but its folder is 'innocent-folder'" in refusal.reason
    assert state("angry-tweets") == published_angry_tweets
    # The published file still imports as before (the issue: 137 records were then rejected).
    assert (
        import_record(record("angry-tweets", "sentiment-classification", [0.4, 0.5]), source="published") == "unchanged"
    )


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"task": "knowledge"}, "'angry-tweets' is a sentiment-classification dataset; the folder declares knowledge"),
        ({"language": "sv"}, "'angry-tweets' is in da; the folder declares sv"),
        ({"language": None, "languages": ["da", "sv"]}, "the folder declares da, sv"),
    ],
)
def test_a_folder_with_an_existing_name_and_another_task_or_languages_is_refused(
    data_dir, shared_datasets_dir, published_angry_tweets, changes, reason
):
    copy_dataset(shared_datasets_dir / "lcc-europarl-sentiment-da", data_dir, "angry-tweets", **changes)
    report = sync_datasets(data_dir)
    (refusal,) = report.refused
    assert refusal.folder == "angry-tweets" and reason in refusal.reason
    assert not report.created and not report.new_version
    assert state("angry-tweets") == published_angry_tweets


def test_other_content_is_a_new_version_never_merged_into_the_old_scores(data_dir, scala):
    folder = copy_dataset(scala, data_dir, "scala-da")
    assert sync_datasets(data_dir).created == ["scala-da"]
    dataset = Dataset.objects.get(name="scala-da")
    first = dataset.board_version
    assert first.fingerprint == discover(data_dir).datasets[0].fingerprint
    assert (first.origin, first.train_size, first.val_size, first.test_size, first.path) == (
        "data-dir",
        340,
        84,
        424,
        str(folder),
    )
    assert (
        import_record(
            record("scala-da", "linguistic-acceptability", [0.3, 0.4], dataset_version=first.fingerprint),
            source="run-1",
        )
        == "imported"
    )
    before = state("scala-da")

    change_row(folder, "test", 7)
    report = sync_datasets(data_dir)

    assert report.new_version == ["scala-da"] and not report.refused
    assert "boards count " + first.short in report.notes["scala-da"]
    dataset.refresh_from_db()
    second = dataset.versions.exclude(pk=first.pk).get()
    assert second.fingerprint == discover(data_dir).datasets[0].fingerprint != first.fingerprint
    assert dataset.board_version_id == first.pk  # the first version stays counted
    assert (dataset.train_size, dataset.val_size, dataset.test_size) == (340, 84, 424)
    after = state("scala-da")
    assert after["scores"] == before["scores"]  # the old version's evaluations are untouched

    # A score on the new version is another evaluation; the old one keeps its numbers.
    assert (
        import_record(
            record("scala-da", "linguistic-acceptability", [0.9, 0.9], dataset_version=second.fingerprint),
            source="run-2",
        )
        == "imported"
    )
    evaluations = Evaluation.objects.filter(dataset=dataset)
    assert sorted(evaluations.values_list("dataset_version__fingerprint", flat=True)) == sorted(
        [first.fingerprint, second.fingerprint]
    )
    old = evaluations.get(dataset_version=first)
    assert sorted(old.scores.filter(metric="mcc").values_list("value", flat=True)) == [0.3, 0.4]

    report = sync_datasets(data_dir)
    assert report.unchanged == ["scala-da"] and not report.new_version and not report.created


def test_published_dataset_keeps_its_board_version_when_the_folder_arrives(data_dir, scala):
    assert import_record(record("scala-da", "linguistic-acceptability", [0.3]), source="published") == "imported"
    published = Dataset.objects.get(name="scala-da").board_version
    assert published.fingerprint == PUBLISHED

    folder = copy_dataset(scala, data_dir, "scala-da")
    report = sync_datasets(data_dir)

    assert report.new_version == ["scala-da"]
    dataset = Dataset.objects.get(name="scala-da")
    assert dataset.board_version_id == published.pk
    added = dataset.versions.get(origin="data-dir")
    assert (added.train_size, added.test_size, added.path) == (340, 424, str(folder))
    assert dataset.description.startswith("ScaLA-style")  # empty fields are filled from the folder
    assert dataset.test_size is None  # the sizes are the counted version's, which has none recorded


def test_admin_picks_the_board_version_among_the_datasets_own_versions(data_dir, scala, admin_client):
    folder = copy_dataset(scala, data_dir, "scala-da")
    sync_datasets(data_dir)
    change_row(folder)
    sync_datasets(data_dir)
    other = copy_dataset(scala, data_dir / "elsewhere", "scala-de", language="de")
    sync_datasets(other.parent)
    dataset = Dataset.objects.get(name="scala-da")

    form = DatasetAdminForm(instance=dataset)
    assert set(form.fields["board_version"].queryset) == set(dataset.versions.all())
    assert len(form.fields["board_version"].queryset) == 2

    newer = dataset.versions.exclude(pk=dataset.board_version_id).get()
    Dataset.objects.filter(pk=dataset.pk).update(board_version=newer, updated_at=timezone.now())
    sync_datasets(data_dir)
    assert Dataset.objects.get(pk=dataset.pk).board_version_id == newer.pk  # a sync never undoes the admin

    bad = DatasetAdminForm(data={"board_protocol": "iterations=ten"}, instance=dataset)
    assert not bad.is_valid() and "not a protocol" in str(bad.errors["board_protocol"])
    foreign = DatasetVersion.objects.get(dataset__name="scala-de")
    wrong = DatasetAdminForm(data={"board_version": foreign.pk}, instance=dataset)
    assert not wrong.is_valid() and "board_version" in wrong.errors

    assert admin_client.get(reverse("admin:leaderboard_dataset_change", args=[dataset.pk])).status_code == 200
    versions = admin_client.get(reverse("admin:leaderboard_datasetversion_changelist"))
    assert versions.status_code == 200 and newer.short in versions.content.decode()
