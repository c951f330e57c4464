"""What a GPU worker may know about its job without a database: a small store beside the
broker that both sides can reach (README, "Trust boundary: the GPU side"; the ``gpu`` worker holds no database
credentials).

* ``current(submission)``: the task id that owns the submission now. The site writes it
  when it queues a task and clears it when the submission is cancelled or done; a GPU
  worker holding an older message, or one for a cancelled submission, stops (between
  datasets, and before loading a model). A missing key means "unknown" (a Redis wiped by a
  restart): the worker goes on, and the site ignores events from a task it does not expect.
* ``start_attempt(task)``: counts deliveries of one message. A message whose worker process
  is killed (a model too large for the GPU is OOM-killed at each load) is delivered again;
  the worker counts before loading anything and gives up after ``GLOSSA_MAX_ATTEMPTS``.
* ``sent(task)`` / ``mark_sent``: datasets whose result the worker has handed to the
  ``default`` queue; a re-delivered message skips them.

Redis (the broker's own server) when the broker is Redis, a folder of small files under
``var/`` for the embedded default (file-system broker, one machine). Keys expire after
``TTL`` seconds; nothing here is the record of truth (the database is), so losing it only
costs repeated work that the site then discards.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from functools import cache
from pathlib import Path

from django.conf import settings

TTL = 14 * 24 * 3600
PREFIX = "glossa:job"


class RedisStore:
    def __init__(self, url: str):
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=10)

    def get(self, key: str) -> str | None:
        value = self.client.get(key)
        return None if value is None else value.decode()

    def set(self, key: str, value: str) -> None:
        self.client.set(key, value, ex=TTL)

    def incr(self, key: str) -> int:
        pipe = self.client.pipeline()
        pipe.incr(key)
        pipe.expire(key, TTL)
        return int(pipe.execute()[0])

    def add(self, key: str, member: str) -> None:
        pipe = self.client.pipeline()
        pipe.sadd(key, member)
        pipe.expire(key, TTL)
        pipe.execute()

    def members(self, key: str) -> set[str]:
        return {m.decode() for m in self.client.smembers(key)}

    def delete(self, key: str) -> None:
        self.client.delete(key)


class FolderStore:
    """One JSON file per key; one machine (the embedded default's file-system broker)."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.folder / hashlib.sha256(key.encode()).hexdigest()

    def _read(self, key: str):
        path = self._path(key)
        try:
            if time.time() - path.stat().st_mtime > TTL:
                return None
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def _write(self, key: str, value) -> None:
        path = self._path(key)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(value))
        tmp.replace(path)

    def get(self, key: str) -> str | None:
        value = self._read(key)
        return value if isinstance(value, str) else None

    def set(self, key: str, value: str) -> None:
        self._write(key, value)

    def incr(self, key: str) -> int:
        value = self._read(key)
        count = (value if isinstance(value, int) else 0) + 1
        self._write(key, count)
        return count

    def add(self, key: str, member: str) -> None:
        self._write(key, sorted(self.members(key) | {member}))

    def members(self, key: str) -> set[str]:
        value = self._read(key)
        return set(value) if isinstance(value, list) else set()

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()


@cache
def _store():
    url = settings.CELERY_BROKER_URL
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(url)
    return FolderStore(settings.VAR_DIR / "job-control")


STOPPED = "stopped"


def current(submission_id: int) -> str | None:
    """The task id that owns ``submission_id``; ``STOPPED``: nobody (cancelled or done); None: unknown."""
    return _store().get(f"{PREFIX}:{submission_id}:task")


def set_current(submission_id: int, task_id: str) -> None:
    _store().set(f"{PREFIX}:{submission_id}:task", task_id)


def stop(submission_id: int) -> None:
    _store().set(f"{PREFIX}:{submission_id}:task", STOPPED)


def may_run(submission_id: int, task_id: str) -> bool:
    owner = current(submission_id)
    return owner is None or owner == task_id


def start_attempt(task_id: str) -> int:
    """This delivery's number for the message ``task_id`` (1 the first time)."""
    return _store().incr(f"{PREFIX}:task:{task_id}:deliveries")


def sent(task_id: str) -> set[str]:
    return _store().members(f"{PREFIX}:task:{task_id}:sent")


def mark_sent(task_id: str, dataset: str) -> None:
    _store().add(f"{PREFIX}:task:{task_id}:sent", dataset)
