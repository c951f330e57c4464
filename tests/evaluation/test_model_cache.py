"""The model cache's size budget: least recently used folders go first (evaluation/model_cache.py)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from evaluation import model_cache


def make(root: Path, name: str, size: int, used_at: float) -> Path:
    folder = root / name
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "weights.safetensors").write_bytes(b"w" * size)
    model_cache.touch(folder)
    os.utime(folder / model_cache.MARKER, (used_at, used_at))
    return folder


def test_entries_sizes_and_order(tmp_path):
    make(tmp_path, "org--b", 300, 2_000)
    make(tmp_path, "org--a", 100, 1_000)
    hub = make(tmp_path / "hub", "models--org--c", 200, 3_000)
    # a Hub snapshot links to its blob: the file counts once
    (hub / "snapshots" / "sha").mkdir(parents=True)
    os.symlink(hub / "sub" / "weights.safetensors", hub / "snapshots" / "sha" / "model.safetensors")
    (tmp_path / "org--d.tmp123").mkdir()  # a conversion in progress is not an entry
    (tmp_path / "org--b.lock").write_text("")
    found = model_cache.entries(tmp_path)
    assert [(e.path.name, e.size) for e in found] == [("org--a", 100), ("org--b", 300), ("models--org--c", 200)]
    assert model_cache.entry_of(tmp_path, hub / "snapshots" / "sha") == hub.resolve()
    assert model_cache.entry_of(tmp_path, tmp_path / "org--a") == (tmp_path / "org--a").resolve()


def test_evicts_least_recently_used_until_it_fits(tmp_path):
    a = make(tmp_path, "org--a", 100, 1_000)
    b = make(tmp_path, "org--b", 300, 2_000)
    c = make(tmp_path / "hub", "models--org--c", 200, 3_000)
    d = make(tmp_path, "org--d", 50, 500)  # the oldest, but in use now
    assert model_cache.evict(tmp_path, 10_000) == []  # fits: nothing goes
    removed = model_cache.evict(tmp_path, 500, keep=[d])
    assert removed == [a, b] and not a.exists() and not b.exists() and c.exists() and d.exists()
    # room for a 300-byte download: the next least recently used goes too
    assert model_cache.evict(tmp_path, 500, keep=[d], needed=300) == [c]


def test_a_folder_being_written_is_not_evicted(tmp_path):
    a = make(tmp_path, "org--a", 100, 1_000)
    b = make(tmp_path, "org--b", 100, 2_000)
    held, release = threading.Event(), threading.Event()

    def writer():
        with model_cache.file_lock(model_cache.lock_path(a)):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    held.wait(10)
    try:
        assert model_cache.evict(tmp_path, 100) == [b]  # a is locked by its writer: skipped
        assert a.exists()
    finally:
        release.set()
        thread.join()
    assert model_cache.evict(tmp_path, 0) == [a]


def test_a_use_is_recorded_and_the_budget_kept(tmp_path, monkeypatch):
    a = make(tmp_path, "org--a", 100, 1_000)
    b = make(tmp_path, "org--b", 100, 2_000)
    monkeypatch.setenv("GLOSSA_MODEL_CACHE_BYTES", "150")
    model_cache.used(tmp_path, a)  # a is used now: b is the least recently used
    assert a.exists() and not b.exists()
    assert model_cache._last_used(a) > 2_000
    monkeypatch.delenv("GLOSSA_MODEL_CACHE_BYTES")
    c = make(tmp_path, "org--c", 1_000, 3_000)
    model_cache.used(tmp_path, c)  # no budget: nothing goes
    assert a.exists() and c.exists()
    outside = tmp_path.parent / "elsewhere"
    assert model_cache.used(tmp_path, outside) == outside  # a bundled package's folder: not the cache's
