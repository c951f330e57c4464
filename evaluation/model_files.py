"""Which files of a Hub model are downloaded, how many bytes that is, and the size limits.

Only files at the repository's root are fetched: the weights (``*.safetensors``, never
pickled ``.bin``), configs, tokenizer files (and the ``.py`` modules ``auto_map`` names when
an administrator allowed remote code). ``snapshot_download``'s glob patterns match
subfolders too (``*.safetensors`` also takes ``onnx/``, ``fp16/`` or ``checkpoint-*/`` copies
of the weights), so the file list is filtered here from the repository's sibling list and
handed over as exact names.

Limits per deployment, from the environment (the site reads the same variables in its
settings): ``GLOSSA_MAX_PARAMETERS`` and ``GLOSSA_MAX_DOWNLOAD_BYTES`` (unset or 0: no limit).
The site checks them against the Hub's metadata before queueing; the worker checks the
download size again before downloading.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evaluation import model_cache
from evaluation.errors import ModelLoadError, ModelTooLarge

ROOT_PATTERNS = ("*.json", "*.safetensors", "*.model", "*.txt", "*.jinja", "tokenizer*")
CODE_PATTERNS = ("*.py",)
MAX_PARAMETERS_ENV = "GLOSSA_MAX_PARAMETERS"
MAX_DOWNLOAD_BYTES_ENV = "GLOSSA_MAX_DOWNLOAD_BYTES"


@dataclass(frozen=True)
class RepoFile:
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
    return None if any(s is None for s in sizes) else sum(sizes)


def siblings_of(meta) -> list[RepoFile]:
    """``huggingface_hub``'s ``ModelInfo.siblings`` (asked with ``files_metadata=True``) as RepoFiles."""
    return [RepoFile(s.rfilename, getattr(s, "size", None)) for s in (getattr(meta, "siblings", None) or [])]


def _env_limit(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    return int(value) if value and int(value) > 0 else None


@dataclass(frozen=True)
class Limits:
    max_parameters: int | None = None
    max_download_bytes: int | None = None

    @classmethod
    def from_env(cls) -> Limits:
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


def download(info, cache_dir: Path) -> Path:
    """Download ``info``'s root files at its pinned commit into ``cache_dir`` (the Hub's cache
    layout: ``models--<org>--<name>/snapshots/<sha>``, returned); refused before a byte of
    weights is fetched when there are no safetensors or the limits are exceeded."""
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
    size = total_bytes(files)
    parameters = getattr(getattr(meta, "safetensors", None), "total", None)
    Limits.from_env().check(info.model_id, num_parameters=parameters, download_bytes=size)
    entry = cache_dir / f"models--{info.model_id.replace('/', '--')}"
    budget = model_cache.budget_from_env()
    if budget:  # make room first: the least recently used other models go
        model_cache.evict(cache_dir.parent, budget, keep=[entry], needed=size or 0)
    try:
        with model_cache.file_lock(model_cache.lock_path(entry)):
            return Path(
                snapshot_download(
                    info.model_id,
                    revision=revision,
                    allow_patterns=[glob.escape(f.path) for f in files],
                    cache_dir=cache_dir,
                )
            )
    except Exception as exc:
        raise _not_downloaded(info, exc) from None


def _not_downloaded(info, exc: Exception) -> ModelLoadError:
    return ModelLoadError(
        f"could not download {info.model_id!r} from the Hugging Face Hub "
        f"({type(exc).__name__}: {exc}); check the network and try again"
    )
