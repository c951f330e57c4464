"""The shared cache, storing signed JSON: nothing read back from Redis can run code.

Django's own Redis backend stores pickles, so whoever can write to that Redis runs code in
every web process that reads a key. This backend stores a value as JSON (bytes as a tagged
base64 string, so the gzip copies of cached pages fit) behind an HMAC-SHA256 of the Redis
key and the JSON, keyed by a key derived from ``SECRET_KEY``. Reading checks the signature
before parsing: an entry written by anyone without the secret key (a pickle, a forged
page, an entry copied from another key), a corrupt entry, one that is too large or nested
too deep to parse, are all misses, logged once per read, and the caller builds the value
again. ``incr`` counters stay plain integers (Redis counts them itself).

Writing a value JSON cannot hold (a set, a dataclass, a datetime) raises ``TypeError``: a
cache user converts its data to plain dicts, lists, strings, numbers and bytes first.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re

from django.conf import settings
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

log = logging.getLogger(__name__)

BYTES_TAG = "\x00bytes"  # {BYTES_TAG: "<base64>"}: a dict key no JSON the site writes uses
MAX_ENTRY_BYTES = 32 * 1024 * 1024
DIGEST = 32  # bytes of HMAC-SHA256 in front of the JSON
_INTEGER = re.compile(rb"-?[0-9]{1,19}")


class RejectedEntry(ValueError):
    """A stored value that is not a signed JSON entry of this key."""


def _encode(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {BYTES_TAG: base64.b64encode(bytes(value)).decode("ascii")}
    raise TypeError(f"the cache stores JSON values and bytes, not {type(value).__name__}")


def _decode(obj: dict):
    if len(obj) == 1 and BYTES_TAG in obj:
        text = obj[BYTES_TAG]
        if not isinstance(text, str):
            raise RejectedEntry("a bytes value that is not base64 text")
        return base64.b64decode(text, validate=True)
    return obj


class SignedJsonSerializer:
    """``dumps(key, value)`` → signature + JSON; ``loads(key, data)`` → the value or
    :class:`RejectedEntry`. Integers travel as plain digits (``incr``)."""

    def __init__(self, secret: str | None = None):
        secret = secret if secret is not None else settings.SECRET_KEY
        self._key = hashlib.sha256(b"glossa.cache.v1\x00" + secret.encode("utf-8")).digest()

    def _sign(self, key: str, payload: bytes) -> bytes:
        return hmac.new(self._key, key.encode("utf-8") + b"\x00" + payload, hashlib.sha256).digest()

    def dumps(self, key: str, value) -> bytes | int:
        if type(value) is int:
            return value
        payload = json.dumps(value, default=_encode, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return self._sign(key, payload) + payload

    def loads(self, key: str, data: bytes):
        if not isinstance(data, bytes):
            raise RejectedEntry("not bytes")
        if _INTEGER.fullmatch(data):
            return int(data)
        if len(data) > MAX_ENTRY_BYTES + DIGEST:
            raise RejectedEntry(f"{len(data)} bytes")
        signature, payload = data[:DIGEST], data[DIGEST:]
        if not hmac.compare_digest(signature, self._sign(key, payload)):
            raise RejectedEntry("bad signature")
        try:
            return json.loads(payload, object_hook=_decode)
        except (ValueError, RecursionError) as exc:  # ValueError covers JSON and base64 errors
            raise RejectedEntry(f"unreadable: {type(exc).__name__}") from None


class SignedJsonCacheClient(RedisCacheClient):
    """Django's Redis client with :class:`SignedJsonSerializer` bound to each key."""

    def __init__(self, servers, **options):
        options.pop("serializer", None)
        super().__init__(servers, **options)
        self._signed = SignedJsonSerializer()

    def _load(self, key: str, data):
        try:
            return self._signed.loads(key, data)
        except RejectedEntry as exc:
            log.warning("cache entry %s refused (%s): treated as a miss", key[:120], exc)
            raise

    def add(self, key, value, timeout):
        client = self.get_client(key, write=True)
        data = self._signed.dumps(key, value)
        if timeout == 0:
            if ret := bool(client.set(key, data, nx=True)):
                client.delete(key)
            return ret
        return bool(client.set(key, data, ex=timeout, nx=True))

    def get(self, key, default):
        data = self.get_client(key).get(key)
        if data is None:
            return default
        try:
            return self._load(key, data)
        except RejectedEntry:
            return default

    def set(self, key, value, timeout):
        client = self.get_client(key, write=True)
        data = self._signed.dumps(key, value)
        if timeout == 0:
            client.delete(key)
        else:
            client.set(key, data, ex=timeout)

    def get_many(self, keys):
        keys = list(keys)
        found = {}
        for key, data in zip(keys, self.get_client(None).mget(keys)):
            if data is None:
                continue
            try:
                found[key] = self._load(key, data)
            except RejectedEntry:
                continue
        return found

    def set_many(self, data, timeout):
        pipeline = self.get_client(None, write=True).pipeline()
        pipeline.mset({k: self._signed.dumps(k, v) for k, v in data.items()})
        if timeout is not None:
            for key in data:
                pipeline.expire(key, timeout)
        pipeline.execute()


class SignedJsonRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` storing signed JSON (see the module)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = SignedJsonCacheClient
