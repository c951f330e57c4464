"""Cache keys are normalised and bounded (leaderboard/web/cache_keys.py): a visitor's query
strings cannot multiply the board caches or lengthen their keys."""

from __future__ import annotations

import pytest
from django.conf import settings

from leaderboard.web.cache_keys import cache_key, normalise


def test_cache_key_normalises_and_bounds():
    assert normalise("  Llama\t 3  ") == "llama 3"
    assert cache_key("x", "da", "q=A") == cache_key("x", "da", " q=a ") != cache_key("x", "da", "q=b")
    assert cache_key("x", "da", ["a", "b"]) != cache_key("x", "da", ["b", "a"])
    assert cache_key("x", "da", 1) != cache_key("x", "da", "1")  # non-text parts keep their type
    long = cache_key("board-scatter:v2", "da", "v" * 10_000, list(range(5000)))
    assert long.startswith("glossa:board-scatter:v2:") and len(long) == len("glossa:board-scatter:v2:") + 40


def _scatter_keys() -> set[bytes]:
    import redis

    assert settings.REDIS_URL, "the page cache tests need Redis (REDIS_URL)"
    return set(redis.Redis.from_url(settings.REDIS_URL).scan_iter(match="*glossa:board-scatter:*"))


@pytest.mark.django_db
def test_scatter_is_cached_per_rows_drawn_not_per_query_string(client, da_board):
    """q=a, q=A, q=%20a, sorting and the filters that show the same rows share one entry."""
    assert _scatter_keys() == set()
    for query in ("", "?sort=score", "?sort=model&dir=desc"):
        assert client.get(f"/leaderboards/da/{query}").status_code == 200
    assert len(_scatter_keys()) == 1
    for query in ("?q=acme", "?q=ACME", "?q=%20Acme%20", "?q=acm", "?q=acme&sort=score"):
        assert client.get(f"/leaderboards/da/{query}").status_code == 200
    assert len(_scatter_keys()) == 2  # one more: the acme rows
    for query in ("?q=no-such-model", "?q=" + "z" * 200, "?q=nothing%20here"):
        assert client.get(f"/leaderboards/da/{query}").status_code == 200
    keys = _scatter_keys()
    assert len(keys) == 3  # every search that matches nothing draws the same empty chart
    assert max(len(k) for k in keys) < 80
