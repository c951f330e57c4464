"""A dataset version's fingerprint: the construction the module documents, stable, and
changed by any change of the split files (and only by them)."""

from __future__ import annotations

import hashlib
import json
import re
import time

import pytest

from evaluation.datasets import SPLITS, discover, load_dataset
from evaluation.errors import InvalidDataset

from .conftest import change_row, copy_dataset

FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{64}$")


def by_name(data_dir):
    return {info.name: info for info in discover(data_dir)}


def documented_fingerprint(folder) -> str:
    """The construction of evaluation.datasets' docstring, written out independently."""
    digest = hashlib.sha256()
    for split in ("train", "val", "test"):
        data = (folder / f"{split}.jsonl").read_bytes()
        rows = sum(1 for line in data.decode("utf-8").split("\n") if line.strip())
        digest.update(f"{split} {rows} {len(data)}\n".encode("ascii"))
        digest.update(data)
    return "sha256:" + digest.hexdigest()


def test_every_shared_dataset_has_the_documented_fingerprint_and_its_sizes(shared_datasets_dir):
    found = discover(shared_datasets_dir)
    assert len(found) == 125 and not found.refused
    fingerprints = set()
    for info in found:
        assert FINGERPRINT.match(info.fingerprint)
        assert info.fingerprint == documented_fingerprint(info.path)
        assert info.split_sizes == info.splits  # dataset.json's counts are the files' counts
        loaded = load_dataset(info.name, shared_datasets_dir)
        assert loaded.fingerprint == info.fingerprint
        assert {split: len(loaded.splits[split]) for split in SPLITS} == info.split_sizes
        fingerprints.add(info.fingerprint)
    assert len(fingerprints) == 125


def test_fingerprint_is_stable_across_copies_and_changes_with_content(scala, data_dir):
    original = discover(scala.parent)
    scala_fp = next(info for info in original if info.name == "scala-da").fingerprint
    copy = copy_dataset(scala, data_dir, "scala-da")
    assert by_name(data_dir)["scala-da"].fingerprint == scala_fp  # same bytes, other place: same version

    # dataset.json is not the content: a new description is the same version
    meta = json.loads((copy / "dataset.json").read_text())
    (copy / "dataset.json").write_text(json.dumps({**meta, "description": "re-worded"}))
    assert by_name(data_dir)["scala-da"].fingerprint == scala_fp

    change_row(copy, "test", 5)  # one row changed, same sizes
    changed = by_name(data_dir)["scala-da"]
    assert changed.split_sizes == {"train": 340, "val": 84, "test": 424}
    assert changed.fingerprint != scala_fp and FINGERPRINT.match(changed.fingerprint)
    assert changed.fingerprint == documented_fingerprint(copy)


def test_a_row_moved_to_another_split_is_another_version(scala, data_dir):
    copy = copy_dataset(scala, data_dir, "scala-da", splits={"train": 341, "val": 83, "test": 424})
    before = documented_fingerprint(scala)
    val = (copy / "val.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    with (copy / "train.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(val[-1])
    (copy / "val.jsonl").write_text("".join(val[:-1]), encoding="utf-8")
    info = by_name(data_dir)["scala-da"]
    assert info.split_sizes == {"train": 341, "val": 83, "test": 424}
    assert info.fingerprint != before


def test_split_sizes_that_differ_from_dataset_json_make_an_invalid_dataset(scala, data_dir):
    copy = copy_dataset(scala, data_dir, "scala-da")
    lines = (copy / "test.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (copy / "test.jsonl").write_text("".join(lines[:-3]), encoding="utf-8")
    info = by_name(data_dir)["scala-da"]  # discover reads dataset.json only
    with pytest.raises(InvalidDataset, match=r"says splits .*'test': 424.* the files have .*'test': 421"):
        _ = info.fingerprint
    with pytest.raises(InvalidDataset, match="the files have"):
        load_dataset("scala-da", data_dir)


def test_an_empty_test_split_is_invalid(scala, data_dir):
    copy = copy_dataset(scala, data_dir, "scala-da", splits=None)
    (copy / "test.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(InvalidDataset, match="test split is empty"):
        load_dataset("scala-da", data_dir)


def test_discovery_is_fast_and_reads_no_split_file(shared_datasets_dir):
    discover(shared_datasets_dir)  # warm the file cache
    started = time.perf_counter()
    found = discover(shared_datasets_dir)
    elapsed = time.perf_counter() - started
    assert len(found) == 125
    assert elapsed < 0.25, f"discovering 125 folders took {elapsed:.3f}s"
    assert all("content" not in info.__dict__ for info in found)  # fingerprints are computed on first use
