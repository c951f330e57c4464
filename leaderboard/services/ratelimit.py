"""Submission rate limits per client: checked before anything costs (a Hub call, a row).

Two rolling windows per client (:func:`leaderboard.web.client_address.rate_key`: an IPv4
address or an IPv6 /64), staff exempt:

* ``submissions``: ``GLOSSA_SUBMISSIONS_PER_DAY`` new submissions per 24 hours. The slot is
  taken before the model is looked up and given back when the submission was not created
  (a duplicate, or refused), so only genuinely new submissions count.
* ``lookups``: ``GLOSSA_LOOKUPS_PER_HOUR`` submit attempts that reach the Hub per hour, never
  given back: looking up models that do not exist costs Hub calls too.

Counting is atomic. With ``REDIS_URL`` set the window is a Redis sorted set per client and
bucket (member = one reservation, score = its time), trimmed, counted and added to by one
Lua script. Without Redis (the embedded single-machine default) it is a small JSON file per
client and bucket under ``VAR_DIR/ratelimit/``, read and rewritten under an exclusive
``flock``, which every web process of the machine shares.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from leaderboard.web.client_address import rate_key

KEY_PREFIX = "glossa:rate:"


@dataclass(frozen=True)
class Bucket:
    name: str
    window: int  # seconds
    setting: str
    default: int
    what: str  # "submissions per address per 24 hours"

    @property
    def limit(self) -> int:
        return int(getattr(settings, self.setting, self.default) or 0)


SUBMISSIONS = Bucket("submissions", 24 * 3600, "SUBMISSIONS_PER_DAY", 5, "submissions per address per 24 hours")
LOOKUPS = Bucket("lookups", 3600, "LOOKUPS_PER_HOUR", 20, "submission attempts per address per hour")
WINDOW_SECONDS = SUBMISSIONS.window

# KEYS[1] = the client's key; ARGV = now, window, limit, member.
# Returns {1, count after adding} when reserved, {0, count, oldest score} when refused.
_RESERVE = """
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, count, oldest[2]}
end
redis.call('ZADD', key, now, ARGV[4])
redis.call('EXPIRE', key, window)
return {1, count + 1}
"""


@dataclass(frozen=True)
class Reservation:
    """The outcome of asking for one slot."""

    allowed: bool
    used: int
    limit: int
    retry_after: int = 0  # seconds until a slot frees up (when refused)
    token: str = ""  # give it back with release() if the submission was not created
    bucket: Bucket = SUBMISSIONS

    @property
    def message(self) -> str:
        if self.retry_after > 90 * 60:
            hours = round(self.retry_after / 3600)
            wait = f"about {hours} hour{'s' if hours != 1 else ''}"
        else:
            minutes = max(1, round(self.retry_after / 60))
            wait = f"about {minutes} minute{'s' if minutes != 1 else ''}"
        return f"Rate limit reached: {self.limit} {self.bucket.what}. Try again in {wait}."


@lru_cache(maxsize=4)
def _client(url: str):
    import redis

    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def _redis():
    url = getattr(settings, "REDIS_URL", "")
    return _client(url) if url else None


def limit() -> int:
    return SUBMISSIONS.limit


def _key(address: str | None, bucket: Bucket) -> str:
    return f"{KEY_PREFIX}{bucket.name}:{rate_key(address)}"


def reserve(address: str | None, *, now: float | None = None, bucket: Bucket = SUBMISSIONS) -> Reservation:
    """Take one slot of ``bucket`` for ``address`` if it has fewer than the limit in the window."""
    n = bucket.limit
    now = time.time() if now is None else now
    token = f"{now:.6f}:{uuid.uuid4().hex}"
    key = _key(address, bucket)
    redis_client = _redis()
    if redis_client is not None:
        result = redis_client.eval(_RESERVE, 1, key, now, bucket.window, n, token)
        allowed, used = int(result[0]) == 1, int(result[1])
        oldest = float(result[2]) if not allowed and len(result) > 2 and result[2] is not None else now
    else:
        allowed, used, oldest = _file_reserve(key, now, bucket.window, n, token)
    if allowed:
        return Reservation(True, used, n, token=token, bucket=bucket)
    return Reservation(False, used, n, retry_after=int(oldest + bucket.window - now) + 1, bucket=bucket)


def release(address: str | None, reservation: Reservation) -> None:
    """Give a slot back (the submission turned out to be a duplicate, or was not created)."""
    if not reservation.token:
        return
    key = _key(address, reservation.bucket)
    redis_client = _redis()
    if redis_client is not None:
        redis_client.zrem(key, reservation.token)
    else:
        with _locked_file(key) as (handle, entries):
            if entries.pop(reservation.token, None) is not None:
                _write(handle, entries)


def reset(address: str | None) -> None:
    for bucket in (SUBMISSIONS, LOOKUPS):
        redis_client = _redis()
        if redis_client is not None:
            redis_client.delete(_key(address, bucket))
        else:
            _file_path(_key(address, bucket)).unlink(missing_ok=True)


@dataclass(frozen=True)
class Admission:
    """A submit attempt let through both limits (or refused by one): what to give back later."""

    allowed: bool
    message: str = ""
    submission: Reservation | None = None

    def not_created(self, address: str | None) -> None:
        """The attempt did not create a submission: its submission slot is given back."""
        if self.submission is not None:
            release(address, self.submission)


def admit(address: str | None, *, staff: bool = False) -> Admission:
    """Take a submission slot and a lookup slot for one attempt, before any Hub call or write."""
    if staff:
        return Admission(True)
    slot = reserve(address, bucket=SUBMISSIONS)
    if not slot.allowed:
        return Admission(False, slot.message)
    lookup = reserve(address, bucket=LOOKUPS)
    if not lookup.allowed:
        release(address, slot)
        return Admission(False, lookup.message)
    return Admission(True, submission=slot)


# --- the embedded default: one flock'ed JSON file per client and bucket -------------------


def _file_path(key: str) -> Path:
    return Path(settings.VAR_DIR) / "ratelimit" / f"{hashlib.sha256(key.encode()).hexdigest()[:40]}.json"


class _locked_file:
    def __init__(self, key: str):
        self.path = _file_path(key)

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "a+", encoding="utf-8")
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        self.handle.seek(0)
        try:
            entries = json.loads(self.handle.read() or "{}")
        except ValueError:
            entries = {}
        return self.handle, entries if isinstance(entries, dict) else {}

    def __exit__(self, *exc):
        self.handle.close()  # releases the lock


def _write(handle, entries: dict) -> None:
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps(entries))
    handle.flush()


def _file_reserve(key: str, now: float, window: int, n: int, token: str) -> tuple[bool, int, float]:
    if random.random() < 0.01:
        _sweep(_file_path(key).parent, now - 24 * 3600)
    with _locked_file(key) as (handle, entries):
        entries = {k: float(t) for k, t in entries.items() if isinstance(t, (int, float)) and t > now - window}
        if len(entries) >= n:
            _write(handle, entries)
            return False, len(entries), min(entries.values(), default=now)
        entries[token] = now
        _write(handle, entries)
        return True, len(entries), now


def _sweep(folder: Path, before: float) -> None:
    """Remove the files of clients not seen for a day (every window is at most a day)."""
    for path in folder.glob("*.json"):
        try:
            if path.stat().st_mtime < before:
                os.unlink(path)
        except OSError:
            pass
