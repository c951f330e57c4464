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
    assert names == folders and len(names) == 19
    scala = Dataset.objects.get(name="scala-da")
    assert (scala.task, scala.train_size, scala.val_size, scala.test_size) == ("linguistic-acceptability", 340, 84, 424)
    assert Dataset.objects.get(name="norquad-nb").languages.get().board == "no"
    capsys.readouterr()
    call_command("sync_datasets", "--data-dir", str(shared_datasets_dir))
    assert "created 0, updated 0, unchanged 19" in capsys.readouterr().out


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
def test_broken_dataset_json_is_a_clear_error(tmp_path):
    from django.core.management.base import CommandError

    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "dataset.json").write_text("{oops")
    with pytest.raises(CommandError, match="broken/dataset.json: not valid JSON"):
        call_command("sync_datasets", "--data-dir", str(tmp_path))
