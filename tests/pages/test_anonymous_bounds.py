"""Anonymous requests are cheap and bounded: a board page's cache key is made of validated
values only (an unknown sort is the default, searches are never cached whole), and
``?method=NAME`` reads a stored ranking; a missing one is queued once (the real Redis
broker) and the page says it is being computed, with nothing aggregated in the request."""

from __future__ import annotations

import json

import pytest
import redis
from django.conf import settings

from leaderboard.models import AggregationRun, LeaderboardRanking
from leaderboard.ranking.registry import get_method
from leaderboard.services.aggregation import aggregate

pytestmark = pytest.mark.django_db


def _cache_keys() -> set[bytes]:
    assert settings.REDIS_URL, "these tests need the Redis cache (REDIS_URL)"
    return set(redis.Redis.from_url(settings.REDIS_URL).scan_iter(match="*glossa:*"))


def test_a_hundred_unknown_sorts_add_no_cache_entry(client, da_board):
    assert client.get("/leaderboards/da/").status_code == 200
    before = _cache_keys()
    plain = client.get("/leaderboards/da/").content
    for n in range(100):
        response = client.get(f"/leaderboards/da/?sort=zz{n}&dir=desc")
        assert response.status_code == 200 and response.content == plain  # the default order
    assert _cache_keys() == before


def test_equal_filters_share_one_entry_and_searches_store_no_page(client, da_board):
    client.get("/leaderboards/da/?type=encoder&type=base&sort=score")
    pages = {k for k in _cache_keys() if b"board-page" in k}
    for query in ("type=base&type=encoder&sort=score", "type=encoder&type=base&type=base&sort=score&size=nope"):
        assert client.get(f"/leaderboards/da/?{query}").status_code == 200
    assert {k for k in _cache_keys() if b"board-page" in k} == pages
    for n in range(20):
        response = client.get(f"/leaderboards/da/?q=acme+{n}")
        assert response.status_code == 200
    assert {k for k in _cache_keys() if b"board-page" in k} == pages
    found = client.get("/leaderboards/da/?q=%20ACME/big%20%20").content.decode()
    assert "acme/big-chat-70b" in found and 'value="ACME/big"' in found  # whitespace collapsed


def _queued_aggregations(code: str) -> list[bytes]:
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    found = []
    for raw in broker.lrange("default", 0, -1):
        headers = json.loads(raw).get("headers") or {}
        if headers.get("task") == "leaderboard.tasks.aggregate_boards" and repr(code) in headers.get("kwargsrepr", ""):
            found.append(raw)
    return found


@pytest.fixture
def broker_queue():
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    yield
    for raw in _queued_aggregations("da"):  # leave nothing for another test's worker
        broker.lrem("default", 0, raw)


def test_another_method_without_a_stored_ranking_is_queued_once_not_computed(client, da_board, broker_queue):
    assert not LeaderboardRanking.objects.filter(method="euroeval-2026").exists()
    runs = AggregationRun.objects.count()
    for _ in range(3):
        response = client.get("/leaderboards/da/?method=euroeval-2026")
        assert response.status_code == 200
        page = response.content.decode()
        assert 'id="method-pending"' in page and "is being computed" in page
        assert "<code>euroeval-2024</code>" in page  # meanwhile: the board's own ranking
    exported = client.get("/leaderboards/da/export.json?method=euroeval-2026")
    assert exported.status_code == 200 and exported.json()["method"]["name"] == "euroeval-2024"
    assert AggregationRun.objects.count() == runs
    assert not LeaderboardRanking.objects.filter(method="euroeval-2026").exists()
    queued = _queued_aggregations("da")
    assert len(queued) == 1
    assert json.loads(queued[0])["headers"]["kwargsrepr"].count("euroeval-2026") == 1

    aggregate(["da"], method="euroeval-2026")  # what the queued task does, in the worker
    page = client.get("/leaderboards/da/?method=euroeval-2026").content.decode()
    assert (
        'id="method-pending"' not in page
        and f"<code>euroeval-2026</code> v{get_method('euroeval-2026').version}" in page
    )
