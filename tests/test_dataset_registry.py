import json
import shutil

import pytest
from django.core.management import call_command

from leaderboard.models import Dataset


@pytest.mark.django_db
def test_sync_registers_every_shared_dataset_and_is_idempotent(shared_datasets_dir, capsys):
    call_command("sync_datasets", "--data-dir", str(shared_datasets_dir))
    names = set(Dataset.objects.values_list("name", flat=True))
    folders = {p.parent.name for p in shared_datasets_dir.glob("*/dataset.json")}
    assert names == folders and len(names) == 125
    scala = Dataset.objects.get(name="scala-da")
    assert (scala.task, scala.train_size, scala.val_size, scala.test_size) == ("linguistic-acceptability", 340, 84, 424)
    assert Dataset.objects.get(name="norquad-nb").languages.get().board == "no"
    version = scala.board_version
    assert (version.origin, version.train_size, version.val_size, version.test_size) == ("data-dir", 340, 84, 424)
    assert version.fingerprint.startswith("sha256:") and len(version.fingerprint) == 71
    capsys.readouterr()
    call_command("sync_datasets", "--data-dir", str(shared_datasets_dir))
    assert "created 0, new version 0, updated 0, unchanged 125, refused 0" in capsys.readouterr().out


@pytest.mark.django_db
def test_a_new_folder_is_a_new_dataset_and_one_official_dataset_per_task(tmp_path, shared_datasets_dir):
    shutil.copytree(shared_datasets_dir / "scala-da", tmp_path / "scala-da")
    meta = json.loads((tmp_path / "scala-da" / "dataset.json").read_text())
    shutil.copytree(tmp_path / "scala-da", tmp_path / "scala-da-extra")
    meta["name"] = "scala-da-extra"
    (tmp_path / "scala-da-extra" / "dataset.json").write_text(json.dumps(meta))
    call_command("sync_datasets", "--data-dir", str(tmp_path))
    assert Dataset.objects.get(name="scala-da").counts_toward_leaderboard
    # Same task, same board: listed and evaluable, but not counted until an admin says so.
    assert not Dataset.objects.get(name="scala-da-extra").counts_toward_leaderboard

    Dataset.objects.filter(name="scala-da-extra").update(counts_toward_leaderboard=True)
    call_command("sync_datasets", "--data-dir", str(tmp_path))
    assert Dataset.objects.get(name="scala-da-extra").counts_toward_leaderboard  # the admin's choice stays


@pytest.mark.django_db
def test_broken_dataset_json_is_reported_and_the_rest_registered(tmp_path, shared_datasets_dir, capsys):
    from django.core.management.base import CommandError

    shutil.copytree(shared_datasets_dir / "scala-da", tmp_path / "scala-da")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "dataset.json").write_text("{oops")
    call_command("sync_datasets", "--data-dir", str(tmp_path))
    captured = capsys.readouterr()
    assert "refused broken: dataset.json is not valid JSON" in captured.err
    assert "created 1, new version 0, updated 0, unchanged 0, refused 1" in captured.out
    assert list(Dataset.objects.values_list("name", flat=True)) == ["scala-da"]
    with pytest.raises(CommandError, match="1 folder"):
        call_command("sync_datasets", "--data-dir", str(tmp_path), "--strict")


@pytest.mark.django_db
def test_a_board_of_published_results_keeps_its_columns(tmp_path, shared_datasets_dir):
    """A data-pack dataset of a task the published Danish board lacks (topic classification)
    does not become a column of it: nobody published has it, so nobody would be ranked.
    A language whose board has no published results gets it as a column."""
    from leaderboard.services.results_import import import_record

    import_record(
        {
            "dataset": "angry-tweets",
            "task": "sentiment-classification",
            "dataset_languages": ["da"],
            "model": "org/published",
            "results": {"raw": [{"mcc": 0.3, "macro_f1": 0.5}] * 10},
            "few_shot": True,
        },
        source="published.jsonl",
    )
    for name in ("sib200-da", "sib200-pl"):
        shutil.copytree(shared_datasets_dir / name, tmp_path / name)
    call_command("sync_datasets", "--data-dir", str(tmp_path))
    assert Dataset.objects.get(name="angry-tweets").counts_toward_leaderboard
    assert not Dataset.objects.get(name="sib200-da").counts_toward_leaderboard
    assert Dataset.objects.get(name="sib200-pl").counts_toward_leaderboard
