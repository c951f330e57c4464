"""Submission rate limit per client address: N per rolling 24 hours.

With ``REDIS_URL`` set, the count lives in Redis as a sorted set per address (member =
one reservation, score = its time); one Lua script trims old entries, counts and adds
atomically, so concurrent web processes never let more through than the limit. With no
Redis (the embedded default) the database is the count: Submission rows from that address
in the last 24 hours.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.utils import timezone

WINDOW_SECONDS = 24 * 3600
KEY_PREFIX = "glossa:submissions:rate:"

# KEYS[1] = the address's key; ARGV = now, window, limit, member.
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
    """The outcome of asking for one submission slot."""

    allowed: bool
    used: int
    limit: int
    retry_after: int = 0  # seconds until a slot frees up (when refused)
    token: str = ""  # give it back with release() if the submission was not created

    @property
    def message(self) -> str:
        hours = max(1, round(self.retry_after / 3600))
        return (
            f"Rate limit reached: {self.limit} submissions per address per 24 hours. "
            f"Try again in about {hours} hour{'s' if hours != 1 else ''}."
        )


@lru_cache(maxsize=4)
def _client(url: str):
    import redis

    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def _redis():
    url = getattr(settings, "REDIS_URL", "")
    return _client(url) if url else None


def limit() -> int:
    return int(getattr(settings, "SUBMISSIONS_PER_DAY", 5) or 0)


def reserve(address: str | None, *, now: float | None = None) -> Reservation:
    """Take one slot for ``address`` if it has fewer than the limit in the last 24 hours."""
    n = limit()
    redis_client = _redis()
    if redis_client is None:
        return _reserve_in_db(address, n)
    address = address or "unknown"
    now = time.time() if now is None else now
    token = f"{now:.6f}:{uuid.uuid4().hex}"
    result = redis_client.eval(_RESERVE, 1, KEY_PREFIX + address, now, WINDOW_SECONDS, n, token)
    if int(result[0]) == 1:
        return Reservation(True, int(result[1]), n, token=token)
    oldest = float(result[2]) if len(result) > 2 and result[2] is not None else now
    return Reservation(False, int(result[1]), n, retry_after=int(oldest + WINDOW_SECONDS - now) + 1)


def release(address: str | None, reservation: Reservation) -> None:
    """Give a slot back (the submission turned out to be a duplicate, or was not created)."""
    redis_client = _redis()
    if redis_client is not None and reservation.token:
        redis_client.zrem(KEY_PREFIX + (address or "unknown"), reservation.token)


def reset(address: str | None) -> None:
    redis_client = _redis()
    if redis_client is not None:
        redis_client.delete(KEY_PREFIX + (address or "unknown"))


def _reserve_in_db(address: str | None, n: int) -> Reservation:
    """Embedded default: count this address's submissions of the last 24 hours."""
    from leaderboard.models import Submission

    since = timezone.now() - timedelta(seconds=WINDOW_SECONDS)
    recent = Submission.objects.filter(client_address=address, created_at__gte=since)
    used = recent.count()
    if used >= n:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        retry = int((oldest + timedelta(seconds=WINDOW_SECONDS) - timezone.now()).total_seconds()) + 1 if oldest else 0
        return Reservation(False, used, n, retry_after=max(retry, 0))
    return Reservation(True, used + 1, n)
