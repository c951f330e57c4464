"""Dataset folders for the identity tests: copies of the data pack's folders, changed on purpose."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

# Hostile dataset.json files (issue #12): each must be skipped with a reason, never raise.
HOSTILE = {
    "bad-json": ("{oops", "not valid JSON"),
    "empty-list": ("[]", "must be a JSON object, not a list"),
    "splits-many": (None, "splits must give the row counts"),  # a valid meta with "splits": "many"
    "utf-sixteen": (None, "not UTF-8"),  # a valid meta written as UTF-16
    "no-task": (None, "missing key 'task'"),
    "astrology": (None, "unknown task 'astrology'"),
    "languages-str": (None, "languages must be a non-empty list"),
    "language-path": (None, "is not an ISO 639 code"),
    "name-number": (None, "is not a dataset name"),
    "deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
}


def copy_dataset(source: Path, root: Path, folder: str, **meta_changes) -> Path:
    """``source`` copied to ``root/folder`` with ``name`` set to ``folder`` and ``meta_changes``
    applied to its dataset.json (a value of None removes the key)."""
    target = root / folder
    shutil.copytree(source, target)
    meta = json.loads((target / "dataset.json").read_text(encoding="utf-8"))
    meta["name"] = folder
    for key, value in meta_changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    (target / "dataset.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    return target


def change_row(folder: Path, split: str = "test", index: int = 0) -> None:
    """Change one row's text in place: same number of rows, other content."""
    path = folder / f"{split}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[index])
    row["text"] = row["text"] + " (changed)"
    lines[index] = json.dumps(row, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_hostile(root: Path, scala: Path) -> dict[str, str]:
    """Every HOSTILE folder under ``root``; returns folder → the reason expected."""
    for folder, (text, _) in HOSTILE.items():
        target = copy_dataset(scala, root, folder)
        meta_file = target / "dataset.json"
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        if text is not None:
            meta_file.write_text(text, encoding="utf-8")
        elif folder == "splits-many":
            meta_file.write_text(json.dumps({**meta, "splits": "many"}), encoding="utf-8")
        elif folder == "utf-sixteen":
            meta_file.write_text(json.dumps(meta), encoding="utf-16")
        elif folder == "no-task":
            meta_file.write_text(json.dumps({k: v for k, v in meta.items() if k != "task"}), encoding="utf-8")
        elif folder == "astrology":
            meta_file.write_text(json.dumps({**meta, "task": "astrology"}), encoding="utf-8")
        elif folder == "languages-str":
            meta_file.write_text(json.dumps({**meta, "languages": "da"}), encoding="utf-8")
        elif folder == "language-path":
            meta_file.write_text(json.dumps({**meta, "language": "x/y"}), encoding="utf-8")
        elif folder == "name-number":
            meta_file.write_text(json.dumps({**meta, "name": 5}), encoding="utf-8")
    return {folder: reason for folder, (_, reason) in HOSTILE.items()}


@pytest.fixture
def scala(shared_datasets_dir) -> Path:
    return shared_datasets_dir / "scala-da"


@pytest.fixture
def data_dir(tmp_path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    return root
