"""Which files of a Hub model are downloaded, how many bytes that is, and the size limits.

Only files at the repository's root are fetched: the weights (``*.safetensors``, never
pickled ``.bin``), configs, tokenizer files (and the ``.py`` modules ``auto_map`` names when
an administrator allowed remote code). ``snapshot_download``'s glob patterns match
subfolders too (``*.safetensors`` also takes ``onnx/``, ``fp16/`` or ``checkpoint-*/`` copies
of the weights), so the file list is filtered here from the repository's sibling list and
handed over as exact names.

Limits per deployment, from the environment (the site reads the same variables in its
settings): ``GLOSSA_MAX_PARAMETERS`` and ``GLOSSA_MAX_DOWNLOAD_BYTES`` (unset or 0: no limit).
The site checks them against the Hub's metadata before queueing; the worker checks them
again before downloading, asks the Hub for any size its model info leaves out (a file of
unknown size is refused when there is a cap), and counts the parameters from the
downloaded safetensors headers when the Hub does not say (a model over the cap is deleted).

A model whose ``auto_map`` (in config.json, or in any root JSON config, tokenizer's
included) names code in another repository (``other/repo--module.Class``) is refused at
resolution and again once downloaded: transformers would fetch that repository's current
branch, which a grant for this model's commit does not cover.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import json
import math
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from evaluation import model_cache
from evaluation.errors import ModelLoadError, ModelTooLarge, RemoteCodeRequired

ROOT_PATTERNS = ("*.json", "*.safetensors", "*.model", "*.txt", "*.jinja", "tokenizer*")
CODE_PATTERNS = ("*.py",)
MAX_PARAMETERS_ENV = "GLOSSA_MAX_PARAMETERS"
MAX_DOWNLOAD_BYTES_ENV = "GLOSSA_MAX_DOWNLOAD_BYTES"


@dataclass(frozen=True)
class RepoFile:
    """A file of a Hub repository, with its size when the Hub gives it."""

    path: str
    size: int | None = None


def root_files(siblings: Iterable[RepoFile], *, remote_code: bool = False) -> list[RepoFile]:
    """The files to download: at the root (no ``/`` in the path) and matching the patterns."""
    patterns = ROOT_PATTERNS + (CODE_PATTERNS if remote_code else ())
    return sorted(
        (f for f in siblings if "/" not in f.path and any(fnmatch.fnmatchcase(f.path, p) for p in patterns)),
        key=lambda f: f.path,
    )


def total_bytes(files: Iterable[RepoFile]) -> int | None:
    """The sum of the sizes, or None when one is unknown (the Hub did not say)."""
    sizes = [f.size for f in files]
    known = [size for size in sizes if size is not None]
    return None if len(known) < len(sizes) else sum(known)


def siblings_of(meta) -> list[RepoFile]:
    """``huggingface_hub``'s ``ModelInfo.siblings`` (asked with ``files_metadata=True``) as RepoFiles."""
    return [RepoFile(s.rfilename, getattr(s, "size", None)) for s in (getattr(meta, "siblings", None) or [])]


def _env_limit(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    return int(value) if value and int(value) > 0 else None


@dataclass(frozen=True)
class Limits:
    """The largest model this deployment downloads: parameters and bytes (None: no limit)."""

    max_parameters: int | None = None
    max_download_bytes: int | None = None

    @classmethod
    def from_env(cls) -> Limits:
        """The limits ``GLOSSA_MAX_PARAMETERS`` and ``GLOSSA_MAX_DOWNLOAD_BYTES`` set (None where unset)."""
        return cls(_env_limit(MAX_PARAMETERS_ENV), _env_limit(MAX_DOWNLOAD_BYTES_ENV))

    def check(self, model_id: str, *, num_parameters: int | None, download_bytes: int | None) -> None:
        """Raise :class:`ModelTooLarge` with a reason a submitter understands. An unknown size
        passes the check at submission; the worker's download check sees the real file list."""
        if self.max_parameters and num_parameters and num_parameters > self.max_parameters:
            raise ModelTooLarge(
                f"{model_id} has {_count(num_parameters)} parameters; this deployment evaluates models of at most "
                f"{_count(self.max_parameters)} parameters"
            )
        if self.max_download_bytes and download_bytes and download_bytes > self.max_download_bytes:
            raise ModelTooLarge(
                f"{model_id} means downloading {_size(download_bytes)} of weights and tokenizer files; this "
                f"deployment downloads at most {_size(self.max_download_bytes)} per model"
            )


def _count(n: int) -> str:
    for unit, scale in (("B", 10**9), ("M", 10**6), ("K", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f}{unit}".replace(".0", "")
    return str(n)


def _size(n: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _with_sizes(model_id: str, revision: str, files: list[RepoFile]) -> list[RepoFile]:
    """``files`` with each unknown size asked of the Hub (a HEAD of the file); a size the
    Hub does not tell stays None."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    known = []
    for f in files:
        if f.size is None:
            with contextlib.suppress(Exception):  # unknown it stays, and a capped deployment refuses it
                f = RepoFile(f.path, get_hf_file_metadata(hf_hub_url(model_id, f.path, revision=revision)).size)
        known.append(f)
    return known


def checked_download_size(info, revision: str, files: list[RepoFile], limits: Limits) -> int | None:
    """The bytes ``files`` will take, checked against the cap before a byte is fetched; a
    size the Hub does not tell is refused when there is a cap (an unknown size at
    submission is no way around it)."""
    if limits.max_download_bytes:
        files = _with_sizes(info.model_id, revision, files)
    size = total_bytes(files)
    if size is None and limits.max_download_bytes:
        unknown = ", ".join(f.path for f in files if f.size is None)
        raise ModelTooLarge(
            f"the Hub does not say how large {info.model_id}'s files are ({unknown[:200]}); this deployment "
            f"downloads at most {_size(limits.max_download_bytes)} per model and refuses files of unknown size"
        )
    return size


MAX_HEADER_BYTES = 100 * 1024 * 1024


def local_parameters(folder: Path) -> int | None:
    """The parameters in ``folder``'s safetensors files, from their headers; None when a
    header cannot be read."""
    total = 0
    for path in sorted(Path(folder).glob("*.safetensors")):
        try:
            with path.open("rb") as handle:
                length = int.from_bytes(handle.read(8), "little")
                if not 0 < length <= MAX_HEADER_BYTES:
                    return None
                header = json.loads(handle.read(length))
            for name, tensor in header.items():
                if name != "__metadata__":
                    total += math.prod(int(d) for d in tensor["shape"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
    return total


def other_repository_code(auto_map: object) -> list[str]:
    """The ``auto_map`` entries that name code in another repository
    (``other/repo--module.Class``): transformers fetches that repository's current branch,
    which no grant for this model's commit covers."""
    if not isinstance(auto_map, dict):
        return []
    entries = [item for value in auto_map.values() for item in (value if isinstance(value, list) else [value])]
    return [item for item in entries if isinstance(item, str) and "--" in item]


def refuse_other_repository_code(model_id: str, commit: str, auto_maps: Iterable[object]) -> None:
    """RemoteCodeRequired when one of ``auto_maps`` names code in another repository."""
    foreign = [ref for auto_map in auto_maps for ref in other_repository_code(auto_map)]
    if foreign:
        raise RemoteCodeRequired(
            f"model {model_id!r} at commit {commit} names code in another repository ({foreign[0][:120]}); "
            "that code would be fetched at whatever its repository holds then, which no grant for this "
            "commit covers: Glossa does not load it"
        )


MAX_CONFIG_BYTES = 10 * 1024 * 1024


def _auto_maps(folder: Path) -> Iterator[object]:
    """The ``auto_map`` of each JSON file at the folder's root (config, tokenizer and
    processor configs: every file transformers reads one from)."""
    for path in sorted(Path(folder).glob("*.json")):
        try:
            if path.stat().st_size > MAX_CONFIG_BYTES:
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            yield data.get("auto_map")


def download(info, cache_dir: Path) -> Path:
    """Download ``info``'s root files at its pinned commit into ``cache_dir`` (the Hub's cache
    layout: ``models--<org>--<name>/snapshots/<sha>``, returned); refused before a byte of
    weights is fetched when there are no safetensors or the limits are exceeded (sizes the
    Hub's model info leaves out are asked file by file; a parameter count it leaves out is
    read from the downloaded headers, and a model over the cap is deleted again)."""
    from huggingface_hub import HfApi, snapshot_download

    revision = info.commit_sha or info.revision
    try:
        meta = HfApi().model_info(info.model_id, revision=revision, timeout=15, files_metadata=True)
    except Exception as exc:
        raise _not_downloaded(info, exc) from None
    files = root_files(siblings_of(meta), remote_code=info.requires_remote_code)
    if not any(f.path.endswith(".safetensors") for f in files):
        # pickled weights (pytorch_model.bin) can run code when loaded: they are never fetched
        raise ModelLoadError(
            f"model {info.model_id!r} publishes no safetensors weights at this revision; "
            "only safetensors are loaded (pickled .bin weights can run code)"
        )
    limits = Limits.from_env()
    size = checked_download_size(info, revision, files, limits)
    parameters = getattr(getattr(meta, "safetensors", None), "total", None)
    limits.check(info.model_id, num_parameters=parameters, download_bytes=size)
    entry = cache_dir / f"models--{info.model_id.replace('/', '--')}"
    budget = model_cache.budget_from_env()
    if budget:  # make room first: the least recently used other models go
        model_cache.evict(cache_dir.parent, budget, keep=[entry], needed=size or 0)
    try:
        with model_cache.file_lock(model_cache.lock_path(entry)):
            folder = Path(
                snapshot_download(
                    info.model_id,
                    revision=revision,
                    allow_patterns=[glob.escape(f.path) for f in files],
                    cache_dir=cache_dir,
                )
            )
    except Exception as exc:
        raise _not_downloaded(info, exc) from None
    if limits.max_parameters and parameters is None:
        _check_counted(info.model_id, folder, entry, limits)
    refuse_other_repository_code(info.model_id, revision, _auto_maps(folder))
    return folder


def _check_counted(model_id: str, folder: Path, entry: Path, limits: Limits) -> None:
    counted = local_parameters(folder)
    try:
        if counted is None:
            raise ModelTooLarge(
                f"{model_id}'s parameters cannot be counted from its safetensors headers; this deployment "
                f"evaluates models of at most {_count(limits.max_parameters or 0)} parameters"
            )
        limits.check(model_id, num_parameters=counted, download_bytes=None)
    except ModelTooLarge:
        shutil.rmtree(entry, ignore_errors=True)
        raise


def _not_downloaded(info, exc: Exception) -> ModelLoadError:
    return ModelLoadError(
        f"could not download {info.model_id!r} from the Hugging Face Hub "
        f"({type(exc).__name__}: {exc}); check the network and try again"
    )
