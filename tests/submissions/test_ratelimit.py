"""The per-address rate limit on real Redis (and the database fallback without Redis)."""

from __future__ import annotations

import threading

import pytest
from django.test import override_settings

from leaderboard.models import LanguageModel, Submission
from leaderboard.services import ratelimit


@override_settings(SUBMISSIONS_PER_DAY=3)
def test_limit_per_address_and_release():
    got = [ratelimit.reserve("10.0.0.1") for _ in range(4)]
    assert [r.allowed for r in got] == [True, True, True, False]
    assert [r.used for r in got] == [1, 2, 3, 3]
    assert "3 submissions per address per 24 hours" in got[3].message
    assert 0 < got[3].retry_after <= 24 * 3600 + 1
    # another address has its own count
    assert ratelimit.reserve("10.0.0.2").allowed
    # a slot given back (duplicate, not created) can be used again
    ratelimit.release("10.0.0.1", got[0])
    assert ratelimit.reserve("10.0.0.1").allowed
    assert not ratelimit.reserve("10.0.0.1").allowed


@override_settings(SUBMISSIONS_PER_DAY=2)
def test_window_is_rolling_24_hours():
    t0 = 1_000_000.0
    assert ratelimit.reserve("10.0.0.1", now=t0).allowed
    assert ratelimit.reserve("10.0.0.1", now=t0 + 3600).allowed
    refused = ratelimit.reserve("10.0.0.1", now=t0 + 7200)
    assert not refused.allowed and refused.retry_after == 24 * 3600 - 7200 + 1
    # the first one leaves the window after 24 hours, the second one an hour later
    assert ratelimit.reserve("10.0.0.1", now=t0 + 24 * 3600 + 1).allowed
    assert not ratelimit.reserve("10.0.0.1", now=t0 + 24 * 3600 + 2).allowed


@override_settings(SUBMISSIONS_PER_DAY=5)
def test_concurrent_reservations_never_exceed_the_limit():
    results = []
    barrier = threading.Barrier(20)

    def take():
        barrier.wait()
        results.append(ratelimit.reserve("10.0.0.1").allowed)

    threads = [threading.Thread(target=take) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 15 + [True] * 5


@pytest.mark.django_db
@override_settings(SUBMISSIONS_PER_DAY=2, REDIS_URL="")
def test_without_redis_the_database_counts():
    model = LanguageModel.objects.create(model_id="org/model")
    assert ratelimit.reserve("10.0.0.1").allowed
    Submission.objects.create(model=model, revision="a", commit_sha="a" * 40, client_address="10.0.0.1")
    Submission.objects.create(model=model, revision="b", commit_sha="b" * 40, client_address="10.0.0.1")
    refused = ratelimit.reserve("10.0.0.1")
    assert not refused.allowed and refused.used == 2
    assert ratelimit.reserve("10.0.0.2").allowed
