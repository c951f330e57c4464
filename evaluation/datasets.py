"""Dataset registry and loading.

A dataset is a folder ``<data dir>/<name>/`` with ``dataset.json`` and
``train.jsonl``, ``val.jsonl``, ``test.jsonl`` (schemas in the data pack's README).
Adding a dataset is dropping such a folder: no code change.

**The folder's name is the dataset's name.** ``dataset.json`` must say the same ``name``
(a folder ``innocent-folder`` cannot speak for ``angry-tweets``). Every field is checked:
the name is a slug (``^[a-z0-9][a-z0-9_-]{0,99}$``), ``task`` one the engine knows,
``languages`` (or ``language``) ISO codes ``^[a-z]{2,3}$``, ``labels`` a list of strings,
``splits`` row counts for train, val and test, the text fields strings. :func:`discover`
never raises for one bad folder: it returns the good datasets and, for each bad folder,
the reason it was skipped.

**Version fingerprint.** One content of a dataset is identified by::

    "sha256:" + SHA-256( for split in (train, val, test), in this order:
                             ASCII "<split> <rows> <bytes>\\n"   e.g. "train 340 52311\\n"
                             then the split file's bytes, exactly as stored )

``rows`` is the number of rows of the split file (its non-blank lines, lines being split
on ``\\n``; every non-blank line is one JSON row), ``bytes`` its length in bytes. The
length prefix makes the concatenation unambiguous. Any byte changed in any split file,
a row added or removed, or a row moved to another split gives another fingerprint;
``dataset.json`` (name, description, license ...) is not part of it. The counted rows
must equal ``dataset.json``'s ``splits`` when it states them, and the test split must not
be empty; otherwise the dataset is invalid. :attr:`DatasetInfo.fingerprint` computes it
on first use (it reads the split files, a few MB at most) and keeps it;
:func:`load_dataset` computes it from the bytes it reads anyway.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from evaluation.errors import DatasetNotFound, InvalidDataset
from evaluation.tasks import UnknownTask, canonical_task, get_task

SPLITS = ("train", "val", "test")
DEFAULT_DATA_DIR_ENV = "DATA_DIR"
META_FILE = "dataset.json"
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}$")
LANGUAGE = re.compile(r"^[a-z]{2,3}$")
MAX_META_BYTES = 1_000_000  # a dataset.json is a few kB; a bigger one is not read
MAX_SPLIT_ROWS = 10_000_000
TEXT_FIELDS = ("source", "license", "citation", "description")


@dataclass(frozen=True)
class DatasetContent:
    """What a dataset version is: its fingerprint and the rows of each split."""

    fingerprint: str
    sizes: dict[str, int]


@dataclass(frozen=True)
class DatasetInfo:
    """What ``dataset.json`` says about a dataset (checked), and where its folder is."""

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
    def from_json(cls, meta: object, path: Path | None = None) -> DatasetInfo:
        """Check ``meta`` (parsed ``dataset.json``); :class:`InvalidDataset` says what is wrong."""
        try:
            return cls(**parse_meta(meta), path=path)
        except InvalidDataset as exc:
            raise InvalidDataset(f"{path / META_FILE if path else META_FILE}: {exc}") from None

    @cached_property
    def content(self) -> DatasetContent:
        """The version this folder holds (reads the split files once; raises InvalidDataset)."""
        if self.path is None:
            raise InvalidDataset(f"dataset {self.name!r} has no folder to fingerprint")
        try:
            raw = {split: (self.path / f"{split}.jsonl").read_bytes() for split in SPLITS}
        except OSError as exc:
            raise InvalidDataset(f"dataset {self.name!r}: cannot read {exc.filename} ({exc.strerror})") from None
        return content_of(raw, self.splits, where=str(self.path))

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the dataset's content (every split's rows)."""
        return self.content.fingerprint

    @property
    def split_sizes(self) -> dict[str, int]:
        """The number of rows of each split."""
        return dict(self.content.sizes)


# --- dataset.json --------------------------------------------------------------------------


def parse_meta(meta: object) -> dict:
    """The checked fields of a parsed ``dataset.json`` (without ``path``); InvalidDataset otherwise."""
    if not isinstance(meta, dict):
        raise InvalidDataset(f"must be a JSON object, not {_json_type(meta)}")
    for key in ("name", "task"):
        if key not in meta:
            raise InvalidDataset(f"missing key {key!r}")
    name = meta["name"]
    if not isinstance(name, str) or not NAME.match(name):
        raise InvalidDataset(f"name {_show(name)} is not a dataset name (lower-case letters, digits, '-', '_')")
    task = meta["task"]
    if not isinstance(task, str):
        raise InvalidDataset(f"task must be a string, not {_json_type(task)}")
    try:
        task = get_task(canonical_task(task)).name
    except UnknownTask as exc:
        raise InvalidDataset(str(exc)) from None
    values = {
        "name": name,
        "task": task,
        "languages": _languages(meta),
        "labels": _labels(meta.get("labels")),
        "splits": _declared_splits(meta.get("splits")),
    }
    for key in TEXT_FIELDS:
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            raise InvalidDataset(f"{key} must be a string, not {_json_type(value)}")
        values[key] = value or ""
    return values


def _languages(meta: dict) -> tuple[str, ...]:
    if "languages" in meta:
        codes = meta["languages"]
        if not isinstance(codes, list) or not codes:
            raise InvalidDataset(f"languages must be a non-empty list of language codes, not {_show(codes)}")
    elif "language" in meta:
        codes = [meta["language"]]
    else:
        raise InvalidDataset("missing key 'language' (or 'languages')")
    for code in codes:
        if not isinstance(code, str) or not LANGUAGE.match(code):
            raise InvalidDataset(f"language {_show(code)} is not an ISO 639 code (two or three lower-case letters)")
    return tuple(dict.fromkeys(codes))


def _labels(labels: object) -> tuple[str, ...]:
    if labels is None:
        return ()
    if not isinstance(labels, list) or not all(isinstance(label, str) and 0 < len(label) <= 100 for label in labels):
        raise InvalidDataset(f"labels must be a list of label names, not {_show(labels)}")
    return tuple(labels)


def _declared_splits(splits: object) -> dict[str, int]:
    if splits is None:
        return {}
    if (
        not isinstance(splits, dict)
        or set(splits) != set(SPLITS)
        or not all(type(n) is int and 0 <= n <= MAX_SPLIT_ROWS for n in splits.values())
    ):
        raise InvalidDataset(f"splits must give the row counts of train, val and test, not {_show(splits)}")
    return {split: splits[split] for split in SPLITS}


def _json_type(value: object) -> str:
    names = {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_info(folder: Path, name: str | None = None) -> DatasetInfo:
    """The checked ``dataset.json`` of ``folder``, whose dataset must be called ``name``
    (default: the folder's name). InvalidDataset with the reason, without the folder."""
    name = folder.name if name is None else name
    if not NAME.match(name):
        raise InvalidDataset(
            f"the folder name {_show(name)} is not a dataset name (lower-case letters, digits, '-', '_'; at most 100)"
        )
    meta_file = folder / META_FILE
    try:
        with meta_file.open("rb") as handle:
            data = handle.read(MAX_META_BYTES + 1)
    except OSError as exc:
        raise InvalidDataset(f"cannot read {META_FILE} ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_META_BYTES:
        raise InvalidDataset(f"{META_FILE} is larger than {MAX_META_BYTES} bytes")
    try:
        meta = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidDataset(f"{META_FILE} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InvalidDataset(f"{META_FILE} is not valid JSON ({exc})") from None
    except RecursionError:
        raise InvalidDataset(f"{META_FILE} is nested too deeply") from None
    try:
        info = DatasetInfo(**parse_meta(meta), path=folder)
    except InvalidDataset as exc:
        raise InvalidDataset(f"{META_FILE}: {exc}") from None
    if info.name != name:
        raise InvalidDataset(
            f"{META_FILE} names the dataset {info.name!r} but its folder is {name!r}; "
            "a dataset's name is its folder's name"
        )
    missing = [f"{split}.jsonl" for split in SPLITS if not (folder / f"{split}.jsonl").is_file()]
    if missing:
        raise InvalidDataset(f"missing split file{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return info


# --- split files and the fingerprint ----------------------------------------------------------


def _row_lines(data: bytes, where: str) -> list[tuple[int, str]]:
    """(line number, line) of every row of a split file: its non-blank lines."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidDataset(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return [(number, line) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]


def content_of(raw: dict[str, bytes], declared: dict[str, int] | None = None, *, where: str = "") -> DatasetContent:
    """Fingerprint and row counts of split files (bytes per split; see the module docstring).
    InvalidDataset when the counts differ from ``declared`` or the test split is empty."""
    digest = hashlib.sha256()
    sizes = {}
    for split in SPLITS:
        data = raw[split]
        sizes[split] = len(_row_lines(data, f"{where}/{split}.jsonl" if where else f"{split}.jsonl"))
        digest.update(f"{split} {sizes[split]} {len(data)}\n".encode("ascii"))
        digest.update(data)
    prefix = f"{where}: " if where else ""
    if declared and declared != sizes:
        raise InvalidDataset(f"{prefix}dataset.json says splits {declared}, the files have {sizes}")
    if not sizes["test"]:
        raise InvalidDataset(f"{prefix}the test split is empty")
    return DatasetContent(fingerprint=f"sha256:{digest.hexdigest()}", sizes=sizes)


def parse_rows(data: bytes, where: str) -> list[dict]:
    """The JSON rows of a split file's bytes; InvalidDataset names the first bad line."""
    rows = []
    for number, line in _row_lines(data, where):
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            raise InvalidDataset(f"{where}:{number}: not valid JSON ({why})") from None
        if not isinstance(row, dict):
            raise InvalidDataset(f"{where}:{number}: a row must be a JSON object, not {_json_type(row)}")
        rows.append(row)
    return rows


def read_jsonl(path: Path) -> list[dict]:
    """The rows of a JSONL file, checked as :func:`parse_rows` checks them."""
    return parse_rows(Path(path).read_bytes(), str(path))


# --- discovery -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    """A folder of the data directory that is not a usable dataset, and why."""

    folder: str
    reason: str

    def __str__(self) -> str:
        return f"{self.folder}: {self.reason}"


@dataclass(frozen=True)
class Discovery:
    """The good datasets of a data directory (sorted by name) and the folders skipped.
    Iterating it, or taking its length, is over the good datasets."""

    datasets: tuple[DatasetInfo, ...] = ()
    refused: tuple[Refusal, ...] = ()

    def __iter__(self):
        return iter(self.datasets)

    def __len__(self) -> int:
        return len(self.datasets)

    @property
    def names(self) -> set[str]:
        """The names of the usable datasets."""
        return {info.name for info in self.datasets}


def default_data_dir() -> Path:
    """The data directory: ``DATA_DIR`` when set, else the repository's ``data/datasets``."""
    env = os.environ.get(DEFAULT_DATA_DIR_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "data" / "datasets"


def discover(data_dir: Path | str | None = None) -> Discovery:
    """Every dataset folder under ``data_dir`` (those with a ``dataset.json``): the good
    ones, and each bad one with its reason. Reads only ``dataset.json`` files (fast); the
    split files are read when a fingerprint or the rows are asked for. Never raises for a
    bad folder."""
    root = Path(data_dir) if data_dir else default_data_dir()
    try:
        folders = sorted(path.parent for path in root.glob(f"*/{META_FILE}")) if root.is_dir() else []
    except OSError as exc:
        return Discovery(refused=(Refusal(str(root), f"cannot list the data directory ({exc.strerror})"),))
    found, refused = [], []
    for folder in folders:
        try:
            found.append(read_info(folder))
        except InvalidDataset as exc:
            refused.append(Refusal(folder.name, str(exc)))
    return Discovery(tuple(found), tuple(refused))


# --- loading ------------------------------------------------------------------------------

HUB_ORG_ENV = "GLOSSA_DATASET_HUB_ORG"
DEFAULT_HUB_ORG = "EuroEval"


@dataclass(frozen=True)
class LoadedDataset:
    """A dataset's metadata and its rows per split (``train``, ``val``, ``test``)."""

    info: DatasetInfo
    splits: dict[str, list[dict]]

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the dataset's content."""
        return self.info.fingerprint


def find_local(name: str, data_dir: Path | str | None = None) -> Path | None:
    """The folder of dataset ``name`` in the data directory, or None when it has no ``dataset.json`` there."""
    root = Path(data_dir) if data_dir else default_data_dir()
    folder = root / name
    return folder if (folder / META_FILE).is_file() else None


def load_dataset(name: str, data_dir: Path | str | None = None) -> LoadedDataset:
    """Load ``name`` from the data directory, else from the Hugging Face Hub (same files).

    The Hub repository is ``name`` itself when it contains a slash, otherwise
    ``$GLOSSA_DATASET_HUB_ORG/name`` (default organisation ``EuroEval``). Raises
    :class:`DatasetNotFound` when neither source has it and :class:`InvalidDataset` (with
    the reason) when its files are not a valid dataset. The returned info's fingerprint is
    already computed, from the bytes read here.
    """
    if not isinstance(name, str) or not name or ".." in name or name.startswith("/"):
        raise DatasetNotFound(f"{name!r} is not a dataset name")
    folder = find_local(name, data_dir) if "/" not in name else None
    if folder is None:
        folder = _download_from_hub(name, data_dir)
    return _load_folder(folder, name.rsplit("/", 1)[-1])


def _load_folder(folder: Path, name: str) -> LoadedDataset:
    try:
        info = read_info(folder, name)
    except InvalidDataset as exc:
        raise InvalidDataset(f"dataset {name!r} ({folder}): {exc}") from None
    try:
        raw = {split: (folder / f"{split}.jsonl").read_bytes() for split in SPLITS}
    except OSError as exc:
        raise InvalidDataset(f"dataset {name!r}: cannot read {exc.filename} ({exc.strerror})") from None
    splits = {split: parse_rows(raw[split], str(folder / f"{split}.jsonl")) for split in SPLITS}
    # The cached_property's slot: the fingerprint of exactly the bytes whose rows are returned.
    info.__dict__["content"] = content_of(raw, info.splits, where=str(folder))
    return LoadedDataset(info, splits)


def _download_from_hub(name: str, data_dir: Path | str | None) -> Path:
    repo_id = name if "/" in name else f"{os.environ.get(HUB_ORG_ENV, DEFAULT_HUB_ORG)}/{name}"
    root = Path(data_dir) if data_dir else default_data_dir()
    local_hint = f"no folder {root / name.split('/')[-1]} with a dataset.json"
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise DatasetNotFound(
            f"dataset {name!r} not found: {local_hint}, and the Hugging Face Hub is offline "
            "(HF_HUB_OFFLINE=1); add the folder to the data directory or go online"
        )
    try:
        from huggingface_hub import snapshot_download

        path = snapshot_download(
            repo_id, repo_type="dataset", allow_patterns=[META_FILE, *(f"{s}.jsonl" for s in SPLITS)]
        )
    except Exception as exc:
        raise DatasetNotFound(
            f"dataset {name!r} not found: {local_hint}, and the Hugging Face Hub has no dataset "
            f"{repo_id!r} or is unreachable ({type(exc).__name__}); check the name"
        ) from None
    folder = Path(path)
    if not (folder / META_FILE).is_file():
        raise DatasetNotFound(f"dataset {name!r}: the Hub repository {repo_id!r} has no dataset.json")
    return folder
