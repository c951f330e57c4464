"""The shared cache, storing signed JSON: nothing read back from Redis can run code.

Django's own Redis backend stores pickles, so whoever can write to that Redis runs code in
every web process that reads a key. This backend stores a value as JSON behind an
HMAC-SHA256 of the Redis key and the entry, keyed by a key derived from ``SECRET_KEY``.
Bytes (the gzip copies of cached pages) travel beside the JSON, not inside it: the JSON
holds ``{"\u0000bytes": [offset, length]}`` into a blob area after it, so a 1 MB page costs
a hash and a copy, not base64 and string escaping. An entry is
``signature (32) | JSON length (4, big-endian) | JSON | blobs``.

Reading checks the signature before parsing anything: an entry written by anyone without
the secret key (a pickle, a forged page, an entry copied from another key), a corrupt or
truncated entry, one too large or nested too deep to parse, are all misses, logged, and the
caller builds the value again. ``incr`` counters stay plain integers (Redis counts them).

Writing a value JSON cannot hold (a set, a dataclass, a datetime) raises ``TypeError``: a
cache user converts its data to plain dicts, lists, strings, numbers and bytes first.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re

from django.conf import settings
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

log = logging.getLogger(__name__)

BYTES_TAG = "\x00bytes"  # {BYTES_TAG: [offset, length]}: a dict key no JSON the site writes uses
MAX_ENTRY_BYTES = 32 * 1024 * 1024
DIGEST = 32  # bytes of HMAC-SHA256 in front of the entry
_INTEGER = re.compile(rb"-?[0-9]{1,19}")


class RejectedEntry(ValueError):
    """A stored value that is not a signed entry of this key."""


class _Blobs:
    """Collects bytes values while ``json.dumps`` walks a value (its ``default``)."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.size = 0

    def __call__(self, value):
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise TypeError(f"the cache stores JSON values and bytes, not {type(value).__name__}")
        blob = bytes(value)
        self.parts.append(blob)
        self.size += len(blob)
        return {BYTES_TAG: [self.size - len(blob), len(blob)]}


def _blob_reader(area: memoryview):
    def decode(obj: dict):
        if len(obj) == 1 and BYTES_TAG in obj:
            ref = obj[BYTES_TAG]
            if not (isinstance(ref, list) and len(ref) == 2 and all(type(n) is int and n >= 0 for n in ref)):
                raise RejectedEntry("a bytes reference that is not [offset, length]")
            offset, length = ref
            if offset + length > len(area):
                raise RejectedEntry("a bytes reference past the end")
            return bytes(area[offset : offset + length])
        return obj

    return decode


class SignedJsonSerializer:
    """``dumps(key, value)`` → a signed entry; ``loads(key, data)`` → the value or
    :class:`RejectedEntry`. Integers travel as plain digits (``incr``)."""

    def __init__(self, secret: str | None = None):
        secret = secret if secret is not None else settings.SECRET_KEY
        self._key = hashlib.sha256(b"glossa.cache.v2\x00" + secret.encode("utf-8")).digest()

    def _sign(self, key: str, *parts) -> bytes:
        mac = hmac.new(self._key, key.encode("utf-8") + b"\x00", hashlib.sha256)
        for part in parts:
            mac.update(part)
        return mac.digest()

    def dumps(self, key: str, value) -> bytes | int:
        if type(value) is int:
            return value
        blobs = _Blobs()
        header = json.dumps(value, default=blobs, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        body = [len(header).to_bytes(4, "big"), header, *blobs.parts]
        return b"".join([self._sign(key, *body), *body])

    def loads(self, key: str, data: bytes):
        if not isinstance(data, bytes):
            raise RejectedEntry("not bytes")
        if _INTEGER.fullmatch(data):
            return int(data)
        if not DIGEST + 4 <= len(data) <= MAX_ENTRY_BYTES + DIGEST:
            raise RejectedEntry(f"{len(data)} bytes")
        view = memoryview(data)
        if not hmac.compare_digest(view[:DIGEST], self._sign(key, view[DIGEST:])):
            raise RejectedEntry("bad signature")
        size = int.from_bytes(view[DIGEST : DIGEST + 4], "big")
        header, area = view[DIGEST + 4 : DIGEST + 4 + size], view[DIGEST + 4 + size :]
        try:
            return json.loads(bytes(header), object_hook=_blob_reader(area))
        except (ValueError, RecursionError) as exc:  # ValueError: JSON errors and RejectedEntry
            if isinstance(exc, RejectedEntry):
                raise
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
