"""Bad dataset folders are skipped with their reason; everything else keeps working:
discovery, loading, /submit/ and the sync command (issue #12, "Boundaries that hold")."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from evaluation.datasets import discover, load_dataset
from evaluation.errors import InvalidDataset
from leaderboard.models import Dataset
from leaderboard.services import submissions
from leaderboard.services.dataset_registry import sync_datasets

from .conftest import copy_dataset, write_hostile

GOOD = ("lcc-europarl-sentiment-da", "scala-da")


@pytest.fixture
def hostile_dir(data_dir, scala, shared_datasets_dir):
    """Two good Danish datasets plus every hostile folder; returns folder → expected reason."""
    for name in GOOD:
        copy_dataset(shared_datasets_dir / name, data_dir, name)
    expected = write_hostile(data_dir, scala)
    copy_dataset(scala, data_dir, "Bad Folder")
    expected["Bad Folder"] = "folder name 'Bad Folder' is not a dataset name"
    copy_dataset(scala, data_dir, "innocent-folder")
    meta = json.loads((data_dir / "innocent-folder" / "dataset.json").read_text())
    meta.update(name="angry-tweets", task="knowledge")
    (data_dir / "innocent-folder" / "dataset.json").write_text(json.dumps(meta))
    expected["innocent-folder"] = "names the dataset 'angry-tweets' but its folder is 'innocent-folder'"
    copy_dataset(scala, data_dir, "no-test-split")
    (data_dir / "no-test-split" / "test.jsonl").unlink()
    expected["no-test-split"] = "missing split file test.jsonl"
    return expected


def test_discover_returns_the_good_folders_and_the_reason_for_each_bad_one(data_dir, hostile_dir):
    found = discover(data_dir)
    assert [info.name for info in found] == list(GOOD)
    reasons = {refusal.folder: refusal.reason for refusal in found.refused}
    assert set(reasons) == set(hostile_dir)
    for folder, expected in hostile_dir.items():
        assert expected in reasons[folder], (folder, reasons[folder])


@pytest.mark.parametrize("folder", ["bad-json", "utf-sixteen", "splits-many", "innocent-folder"])
def test_loading_a_bad_folder_is_a_clear_error(data_dir, hostile_dir, folder):
    with pytest.raises(InvalidDataset, match=f"dataset '{folder}'"):
        load_dataset(folder, data_dir)
    assert load_dataset("scala-da", data_dir).info.name == "scala-da"  # the good ones still load


@pytest.mark.django_db
def test_sync_registers_the_good_folders_and_reports_the_bad_ones(data_dir, hostile_dir, capsys):
    call_command("sync_datasets", "--data-dir", str(data_dir))  # exit status 0: the good ones are registered
    out, err = capsys.readouterr()
    assert sorted(Dataset.objects.values_list("name", flat=True)) == list(GOOD)
    assert f"created 2, new version 0, updated 0, unchanged 0, refused {len(hostile_dir)}" in out
    for folder, reason in hostile_dir.items():
        assert f"refused {folder}: " in err and reason in err
    assert not Dataset.objects.filter(name="angry-tweets").exists()

    with pytest.raises(CommandError, match=f"{len(hostile_dir)} folder"):
        call_command("sync_datasets", "--data-dir", str(data_dir), "--strict")


@pytest.mark.django_db
def test_submit_answers_200_with_every_hostile_dataset_json(client, settings, data_dir, hostile_dir):
    settings.DATA_DIR = data_dir
    sync_datasets(data_dir)
    response = client.get(reverse("submit"))
    assert response.status_code == 200
    assert 'value="da"' in response.content.decode()  # the good Danish datasets are offered
    assert submissions.plan_datasets(["da"]) == (sorted(GOOD), [])

    # A registered dataset whose folder turns bad afterwards: the page still answers, the
    # dataset is no longer offered for evaluation.
    (data_dir / "scala-da" / "dataset.json").write_text(
        (data_dir / "scala-da" / "dataset.json").read_text(encoding="utf-8"), encoding="utf-16"
    )
    response = client.get(reverse("submit"))
    assert response.status_code == 200
    assert submissions.plan_datasets(["da"]) == (["lcc-europarl-sentiment-da"], ["scala-da"])
    response = client.post(reverse("submit"), {"model_id": "<bad>", "revision": "main", "few_shot": "few"})
    assert response.status_code == 400  # the form's own answer, not a crash
    page = client.get(reverse("dataset", args=["scala-da"]))
    assert page.status_code == 200
