"""Whoever can write to the cache's Redis cannot run code in the web tier, nor change a page
(leaderboard/web/cache_backend.py): entries are signed JSON, so a pickle, corrupt bytes, an
unsigned JSON page or an entry copied from another key is a miss and the page is built
again. The real Redis cache backend (``REDIS_URL``), the real board pages."""

from __future__ import annotations

import gzip
import json
import os
import pickle

import pytest
import redis
from django.conf import settings
from django.core.cache import cache

from leaderboard.web.cache_backend import RejectedEntry, SignedJsonSerializer

pytestmark = pytest.mark.django_db

PAGES = ("/leaderboards/da/", "/leaderboards/da/?sort=score&dir=desc", "/api/leaderboards/da.json")


class _CreatesFile:
    """Unpickling this opens (creates) a file: code run by whoever reads the entry."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _redis() -> redis.Redis:
    assert settings.REDIS_URL and "SignedJsonRedisCache" in settings.CACHES["default"]["BACKEND"]
    return redis.Redis.from_url(settings.REDIS_URL)


def _page_keys() -> list[bytes]:
    return sorted(_redis().scan_iter(match="*glossa:*"))


def _bodies(client) -> dict[str, bytes]:
    out = {}
    for url in PAGES:
        response = client.get(url)
        assert response.status_code == 200, url
        out[url] = response.content
    return out


def _fresh_process_caches():
    from leaderboard import selectors

    selectors._LOCAL_ROWS.clear()


def test_a_pickle_in_the_page_keys_is_a_miss_and_runs_nothing(client, da_board, tmp_path):
    expected = _bodies(client)  # renders and caches pages, rows and the scatter
    keys = _page_keys()
    assert any(b"response:board-page" in k for k in keys) and any(b"board-rows" in k for k in keys)
    assert any(b"board-scatter" in k for k in keys) and any(b"response:api-json" in k for k in keys)

    control = tmp_path / "control"
    pickle.loads(pickle.dumps(_CreatesFile(str(control))))
    assert control.exists()  # the payload does run code when unpickled

    marker = tmp_path / "pwned"
    payload = pickle.dumps(_CreatesFile(str(marker)))
    store = _redis()
    for key in keys:
        store.set(key, payload)
    _fresh_process_caches()
    for url, body in _bodies(client).items():
        assert body == expected[url], url
    assert not marker.exists()
    for key in keys:  # every page key holds a signed entry again
        assert store.get(key) != payload


def test_corrupt_forged_and_swapped_entries_are_misses(client, da_board):
    expected = _bodies(client)
    keys = _page_keys()
    store = _redis()
    page_keys = [k for k in keys if b"response:" in k]
    forged = json.dumps({"type": "text/html", "body": "<h1>forged</h1>", "gzip": "x"}).encode()
    hostile = [
        os.urandom(5000),
        b"\x80\x05" + os.urandom(64),
        forged,
        b"0" * 32 + forged,
        b"[" * 100_000,  # too deep to parse
        b"42",  # a plain counter where an entry belongs
    ]
    for value in hostile:
        for key in keys:
            store.set(key, value)
        _fresh_process_caches()
        for url, body in _bodies(client).items():
            assert body == expected[url], (url, value[:40])
    # A valid entry of one key copied into another is refused too: signatures cover the key.
    board_page = next(k for k in page_keys if b"board-page" in k)
    api_page = next(k for k in page_keys if b"api-json" in k)
    store.set(api_page, store.get(board_page))
    response = client.get("/api/leaderboards/da.json")
    assert response.status_code == 200 and response.content == expected["/api/leaderboards/da.json"]


def test_gzip_copies_survive_the_json_cache(client, da_board):
    first = client.get("/leaderboards/da/", HTTP_ACCEPT_ENCODING="gzip")
    again = client.get("/leaderboards/da/", HTTP_ACCEPT_ENCODING="gzip")
    assert first["Content-Encoding"] == again["Content-Encoding"] == "gzip"
    assert gzip.decompress(again.content) == gzip.decompress(first.content)
    assert b"acme/big-chat-70b" in gzip.decompress(again.content)


def test_the_dataset_page_rebuilds_its_stability_table_from_a_hostile_entry(client, da_board, tmp_path):
    first = client.get("/datasets/angry-tweets/")
    assert first.status_code == 200
    keys = [k for k in _page_keys() if b"stability" in k]
    assert keys
    marker = tmp_path / "pwned"
    for key in keys:
        _redis().set(key, pickle.dumps(_CreatesFile(str(marker))))
    again = client.get("/datasets/angry-tweets/")
    assert again.status_code == 200 and again.content == first.content and not marker.exists()


def test_the_serializer_round_trips_json_and_bytes_and_refuses_the_rest():
    signed = SignedJsonSerializer("k" * 50)
    value = {"type": "text/html", "body": b"\x00\xffabc", "rows": [{"a": 1.5, "b": None}], "n": 3}
    assert signed.loads("key", signed.dumps("key", value)) == value
    assert signed.dumps("key", 7) == 7 and signed.loads("key", b"7") == 7 and signed.loads("key", b"-2") == -2
    with pytest.raises(RejectedEntry):
        signed.loads("other-key", signed.dumps("key", value))
    with pytest.raises(RejectedEntry):
        SignedJsonSerializer("another secret" * 4).loads("key", signed.dumps("key", value))
    nested = [b"", {"z": [b"\x01" * 3, "text"]}]
    assert signed.loads("key", signed.dumps("key", nested)) == nested
    for header in (b'{"\\u0000bytes":[0,99]}', b'{"\\u0000bytes":[-1,1]}', b'{"\\u0000bytes":"AAAA"}', b"[[[["):
        body = len(header).to_bytes(4, "big") + header + b"abc"
        with pytest.raises(RejectedEntry):  # even signed, a bad reference or header is a miss
            signed.loads("key", signed._sign("key", body) + body)
    with pytest.raises(TypeError):
        signed.dumps("key", {1, 2})
    with pytest.raises(TypeError):
        cache.set("glossa:test:not-json", object())
    cache.set("glossa:test:counter", 1)
    assert cache.incr("glossa:test:counter") == 2 and cache.get("glossa:test:counter") == 2
