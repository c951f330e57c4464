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
    return Path(__file__).resolve().parent.parent / "data" / "datasets"


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


# --- loading ------------------------------------------------------------------------------

HUB_ORG_ENV = "GLOSSA_DATASET_HUB_ORG"
DEFAULT_HUB_ORG = "EuroEval"


@dataclass(frozen=True)
class LoadedDataset:
    """A dataset's metadata and its rows per split (``train``, ``val``, ``test``)."""

    info: DatasetInfo
    splits: dict[str, list[dict]]


def find_local(name: str, data_dir: Path | str | None = None) -> Path | None:
    root = Path(data_dir) if data_dir else default_data_dir()
    folder = root / name
    return folder if (folder / "dataset.json").is_file() else None


def load_dataset(name: str, data_dir: Path | str | None = None) -> LoadedDataset:
    """Load ``name`` from the data directory, else from the Hugging Face Hub (same files).

    The Hub repository is ``name`` itself when it contains a slash, otherwise
    ``$GLOSSA_DATASET_HUB_ORG/name`` (default organisation ``EuroEval``). Raises
    :class:`DatasetNotFound` when neither source has it.
    """
    if not name or ".." in name or name.startswith("/"):
        raise DatasetNotFound(f"{name!r} is not a dataset name")
    folder = find_local(name, data_dir) if "/" not in name else None
    if folder is None:
        folder = _download_from_hub(name, data_dir)
    return _load_folder(folder)


def _load_folder(folder: Path) -> LoadedDataset:
    meta_file = folder / "dataset.json"
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidDataset(f"{meta_file}: not valid JSON ({exc})") from None
    info = DatasetInfo.from_json(meta, folder)
    splits = {}
    for split in SPLITS:
        path = folder / f"{split}.jsonl"
        if not path.is_file():
            raise InvalidDataset(f"dataset {info.name!r} has no {split} split ({path} is missing)")
        splits[split] = read_jsonl(path)
    if not splits["test"]:
        raise InvalidDataset(f"dataset {info.name!r} has an empty test split")
    return LoadedDataset(info, splits)


def _download_from_hub(name: str, data_dir: Path | str | None) -> Path:
    repo_id = name if "/" in name else f"{os.environ.get(HUB_ORG_ENV, DEFAULT_HUB_ORG)}/{name}"
    root = Path(data_dir) if data_dir else default_data_dir()
    local_hint = f"no folder {root / name.split('/')[-1]} with a dataset.json"
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise DatasetNotFound(f"dataset {name!r} not found: {local_hint}, and the Hugging Face Hub is offline "
                              "(HF_HUB_OFFLINE=1); add the folder to the data directory or go online")
    try:
        from huggingface_hub import snapshot_download

        path = snapshot_download(repo_id, repo_type="dataset",
                                 allow_patterns=["dataset.json", *(f"{s}.jsonl" for s in SPLITS)])
    except Exception as exc:
        raise DatasetNotFound(f"dataset {name!r} not found: {local_hint}, and the Hugging Face Hub has no dataset "
                              f"{repo_id!r} or is unreachable ({type(exc).__name__}); check the name") from None
    folder = Path(path)
    if not (folder / "dataset.json").is_file():
        raise DatasetNotFound(f"dataset {name!r}: the Hub repository {repo_id!r} has no dataset.json")
    return folder
