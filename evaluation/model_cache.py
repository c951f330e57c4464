"""The model cache's size budget: least recently used model folders are evicted.

``GLOSSA_MODEL_CACHE`` holds one folder per model: converted bundled GGUFs
(``<org>--<name>/``), the assembled GGUF files (``gguf/``) and Hub downloads
(``hub/models--<org>--<name>/``, ``huggingface_hub``'s layout). With
``GLOSSA_MODEL_CACHE_BYTES`` set (unset or 0: no budget), making room for a download and
every use of a folder evict the least recently used other folders until the cache fits.
A use is recorded by touching ``.glossa-last-used`` in the folder.

A folder is written (converted, downloaded) under an exclusive ``flock`` on
``<folder>.lock``; eviction takes the same lock without waiting and skips a folder whose
lock is held, so a folder being written is never removed under its writer. (A folder is
loaded after its use was recorded, so it is the most recently used one.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

BUDGET_ENV = "GLOSSA_MODEL_CACHE_BYTES"
MARKER = ".glossa-last-used"
HUB_DIR = "hub"


def budget_from_env() -> int | None:
    """The model cache's size budget in bytes (``GLOSSA_MODEL_CACHE_BYTES``), or None for no limit."""
    value = os.environ.get(BUDGET_ENV, "").strip()
    return int(value) if value and int(value) > 0 else None


@contextlib.contextmanager
def file_lock(path: Path, *, blocking: bool = True) -> Iterator[bool]:
    """An exclusive ``flock`` on ``path``; yields False (not held) when ``blocking`` is off and it is busy."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def lock_path(folder: Path) -> Path:
    """The lock file that guards a cached model folder."""
    return folder.with_name(folder.name + ".lock")


@dataclass(frozen=True)
class Entry:
    """A cached model folder, its size and when it was last used."""

    path: Path
    size: int
    last_used: float


def folder_size(path: Path) -> int:
    """Bytes of the regular files under ``path`` (symlinks, as in Hub snapshots, count once: as their blobs)."""
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(dirpath, name))
                if not os.path.islink(os.path.join(dirpath, name)):
                    total += st.st_size
    return total


def _last_used(path: Path) -> float:
    for candidate in (path / MARKER, path):
        with contextlib.suppress(OSError):
            return candidate.stat().st_mtime
    return 0.0


def _is_entry(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink() and not path.name.startswith(".") and ".tmp" not in path.name


def entries(root: Path) -> list[Entry]:
    """The cache's model folders, least recently used first."""
    found = [p for p in root.iterdir() if _is_entry(p) and p.name != HUB_DIR] if root.is_dir() else []
    hub = root / HUB_DIR
    if hub.is_dir():
        found += [p for p in hub.iterdir() if _is_entry(p) and p.name.startswith("models--")]
    return sorted((Entry(p, folder_size(p), _last_used(p)) for p in found), key=lambda e: (e.last_used, str(e.path)))


def entry_of(root: Path, folder: Path) -> Path:
    """The cache entry a folder belongs to (a Hub snapshot belongs to its ``models--...`` folder)."""
    relative = folder.resolve().relative_to(root.resolve()).parts
    if not relative:
        raise ValueError(f"{folder} is the cache itself")
    depth = 2 if relative[0] == HUB_DIR and len(relative) > 1 else 1
    return root.joinpath(*relative[:depth])


def touch(entry: Path) -> None:
    """Record a use of ``entry`` now."""
    with contextlib.suppress(OSError):
        (entry / MARKER).touch()
        os.utime(entry / MARKER, (time.time(), time.time()))


def evict(root: Path, budget: int, *, keep: Iterable[Path] = (), needed: int = 0) -> list[Path]:
    """Remove least recently used folders (not ``keep``, not locked) until the cache plus
    ``needed`` bytes fits ``budget``; returns the folders removed."""
    keep = {Path(p).resolve() for p in keep}
    found = entries(root)
    total = sum(e.size for e in found)
    removed = []
    for entry in found:
        if total + needed <= budget:
            break
        if entry.path.resolve() in keep:
            continue
        with file_lock(lock_path(entry.path), blocking=False) as held:
            if not held:
                continue  # being written right now
            shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.path)
        total -= entry.size
    return removed


def used(root: Path, folder: Path) -> Path:
    """Record that ``folder`` (inside ``root``) is used now and keep the cache within its budget."""
    try:
        entry = entry_of(root, folder)
    except ValueError:  # outside the cache (a bundled package's folder): nothing to account
        return folder
    touch(entry)
    budget = budget_from_env()
    if budget:
        evict(root, budget, keep=[entry])
    return folder
