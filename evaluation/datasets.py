"""Dataset registry and loading.

A dataset is a folder ``<data dir>/<name>/`` with ``dataset.json`` and
``train.jsonl``, ``val.jsonl``, ``test.jsonl`` (schemas in the data pack's README).
Adding a dataset is dropping such a folder: no code change.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.errors import DatasetNotFound, InvalidDataset
from evaluation.tasks import canonical_task

SPLITS = ("train", "val", "test")
DEFAULT_DATA_DIR_ENV = "DATA_DIR"


@dataclass(frozen=True)
class DatasetInfo:
    """What ``dataset.json`` says about a dataset."""

    name: str
    task: str
    languages: tuple[str, ...]
    labels: tuple[str, ...] = ()
    splits: dict[str, int] = field(default_factory=dict)
    source: str = ""
    license: str = ""
    citation: str = ""
    description: str = ""
    path: Path | None = None

    @classmethod
    def from_json(cls, meta: dict, path: Path | None = None) -> "DatasetInfo":
        try:
            name = meta["name"]
            task = canonical_task(meta["task"])
        except KeyError as exc:
            raise InvalidDataset(f"{path or 'dataset.json'}: missing key {exc.args[0]!r}") from None
        languages = meta.get("languages") or ([meta["language"]] if meta.get("language") else [])
        return cls(
            name=name,
            task=task,
            languages=tuple(languages),
            labels=tuple(meta.get("labels") or ()),
            splits={k: int(v) for k, v in (meta.get("splits") or {}).items()},
            source=meta.get("source", ""),
            license=meta.get("license", ""),
            citation=meta.get("citation", ""),
            description=meta.get("description", ""),
            path=path,
        )


def default_data_dir() -> Path:
    env = os.environ.get(DEFAULT_DATA_DIR_ENV)
    if env:
        return Path(env)
    shared = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
    return shared if shared.exists() else Path("data")


def discover(data_dir: Path | str | None = None) -> list[DatasetInfo]:
    """Every dataset folder under ``data_dir`` (those with a ``dataset.json``), sorted by name."""
    root = Path(data_dir) if data_dir else default_data_dir()
    if not root.is_dir():
        return []
    found = []
    for meta_file in sorted(root.glob("*/dataset.json")):
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InvalidDataset(f"{meta_file}: not valid JSON ({exc})") from None
        found.append(DatasetInfo.from_json(meta, meta_file.parent))
    return found


def read_jsonl(path: Path) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidDataset(f"{path}:{number}: not valid JSON ({exc.msg})") from None
    return rows
