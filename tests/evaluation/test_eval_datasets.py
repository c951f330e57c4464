"""Dataset loading: every shared folder, a new folder without code, clear errors."""

import json
import shutil

import pytest

from evaluation.datasets import discover, load_dataset
from evaluation.errors import DatasetNotFound, InvalidDataset
from evaluation.prompts import TaskFormat


def test_every_shared_dataset_loads_and_renders(shared_datasets_dir):
    infos = discover(shared_datasets_dir)
    assert len(infos) >= 19
    for info in infos:
        ds = load_dataset(info.name, shared_datasets_dir)
        assert set(ds.splits) == {"train", "val", "test"}
        for split, rows in ds.splits.items():
            assert len(rows) == info.splits[split]
        fmt = TaskFormat(info.task, info.languages[0], info.labels)
        assert fmt.render_base(ds.splits["train"][:2], ds.splits["test"][0])


def test_new_folder_works_without_code(tmp_path, shared_datasets_dir):
    shutil.copytree(shared_datasets_dir / "scala-da", tmp_path / "my-new-set")
    meta = json.loads((tmp_path / "my-new-set" / "dataset.json").read_text())
    meta["name"] = "my-new-set"
    (tmp_path / "my-new-set" / "dataset.json").write_text(json.dumps(meta))
    ds = load_dataset("my-new-set", tmp_path)
    assert ds.info.name == "my-new-set" and ds.info.task == "linguistic-acceptability"


def test_missing_dataset_offline_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DatasetNotFound, match="offline"):
        load_dataset("nope", tmp_path)


def test_broken_split_is_a_clear_error(tmp_path, shared_datasets_dir):
    shutil.copytree(shared_datasets_dir / "scala-da", tmp_path / "scala-da")
    (tmp_path / "scala-da" / "val.jsonl").write_text('{"text": "x"}\n{broken\n')
    with pytest.raises(InvalidDataset, match="val.jsonl:2"):
        load_dataset("scala-da", tmp_path)
