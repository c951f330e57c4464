"""The per-client rate limits on real Redis (and the file fallback without Redis), client addresses."""

from __future__ import annotations

import threading

import pytest
from django.test import override_settings

from leaderboard.services import ratelimit
from leaderboard.web.client_address import client_address, rate_key


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


@override_settings(SUBMISSIONS_PER_DAY=5, REDIS_URL="")
def test_without_redis_a_locked_file_counts_atomically(settings, tmp_path):
    """The embedded default: a flock'ed file per client; 20 threads at once never exceed the limit."""
    settings.VAR_DIR = tmp_path
    results = []
    barrier = threading.Barrier(20)

    def take():
        barrier.wait()
        results.append(ratelimit.reserve("10.0.0.1"))

    threads = [threading.Thread(target=take) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.allowed for r in results) == [False] * 15 + [True] * 5
    refused = next(r for r in results if not r.allowed)
    assert refused.used == 5 and 0 < refused.retry_after <= 24 * 3600 + 1
    assert ratelimit.reserve("10.0.0.2").allowed  # another address, another file
    ratelimit.release("10.0.0.1", next(r for r in results if r.allowed))
    assert ratelimit.reserve("10.0.0.1").allowed and not ratelimit.reserve("10.0.0.1").allowed
    assert len(list((tmp_path / "ratelimit").iterdir())) == 2


@override_settings(SUBMISSIONS_PER_DAY=2)
def test_ipv6_counts_per_64_and_ipv4_mapped_as_ipv4():
    assert ratelimit.reserve("2001:db8:1:2::1").allowed
    assert ratelimit.reserve("2001:db8:1:2:ffff:eeee:dddd:9").allowed
    assert not ratelimit.reserve("2001:db8:1:2:abcd::42").allowed  # same /64, rotated address
    assert ratelimit.reserve("2001:db8:1:3::1").allowed  # the next /64 is another subscriber
    assert ratelimit.reserve("::ffff:10.0.0.2").allowed and ratelimit.reserve("10.0.0.2").allowed
    assert not ratelimit.reserve("10.0.0.2").allowed
    for address in ("2001:db8:1:2::1", "2001:db8:1:3::1"):
        ratelimit.reset(address)


@override_settings(SUBMISSIONS_PER_DAY=3, LOOKUPS_PER_HOUR=4)
def test_admission_takes_both_slots_and_gives_back_the_submission_slot():
    first = ratelimit.admit("10.0.0.1")
    assert first.allowed
    first.not_created("10.0.0.1")  # a duplicate or a refusal: the submission slot comes back...
    for _ in range(3):
        assert ratelimit.admit("10.0.0.1").allowed
    refused = ratelimit.admit("10.0.0.1")
    assert not refused.allowed and "3 submissions per address per 24 hours" in refused.message
    # ...but every attempt that reached the Hub used a lookup slot (4 per hour)
    ratelimit.reset("10.0.0.2")
    for _ in range(4):
        ratelimit.admit("10.0.0.2").not_created("10.0.0.2")
    lookups = ratelimit.admit("10.0.0.2")
    assert not lookups.allowed and "4 submission attempts per address per hour" in lookups.message
    assert "minute" in lookups.message
    assert ratelimit.admit("10.0.0.2", staff=True).allowed  # staff are exempt


TRUSTED = ["10.1.0.0/16", "192.0.2.10", "2001:db8:ffff::/48"]


@pytest.mark.parametrize(
    ("remote", "forwarded", "trusted", "client"),
    [
        ("203.0.113.5", "", [], "203.0.113.5"),
        ("203.0.113.5", "1.2.3.4", [], "203.0.113.5"),  # no trusted proxy: the header is ignored
        ("10.1.2.3", "198.51.100.7", TRUSTED, "198.51.100.7"),
        ("10.1.2.3", "6.6.6.6, 198.51.100.7", TRUSTED, "198.51.100.7"),  # the client's own header is not believed
        ("10.1.2.3", "6.6.6.6, 198.51.100.7, 192.0.2.10", TRUSTED, "198.51.100.7"),  # two trusted hops
        ("203.0.113.5", "6.6.6.6", TRUSTED, "203.0.113.5"),  # an untrusted sender's header is ignored
        ("10.1.2.3", "", TRUSTED, "10.1.2.3"),  # nothing forwarded: the proxy itself
        ("10.1.2.3", "not-an-address", TRUSTED, "10.1.2.3"),
        ("10.1.2.3", "[2001:db8::7]:443", TRUSTED, "2001:db8::7"),
        ("2001:db8:ffff::1", "203.0.113.9:5555", TRUSTED, "203.0.113.9"),
        ("::ffff:10.1.0.1", "198.51.100.8", TRUSTED, "198.51.100.8"),
        ("", "1.2.3.4", TRUSTED, None),
    ],
)
def test_client_address_walks_forwarded_for_from_the_right(remote, forwarded, trusted, client):
    meta = {"REMOTE_ADDR": remote, "HTTP_X_FORWARDED_FOR": forwarded}
    assert client_address(meta, trusted) == client


def test_rate_keys():
    assert rate_key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert rate_key("203.0.113.5") == "203.0.113.5" == rate_key("::ffff:203.0.113.5")
    assert rate_key(None) == rate_key("garbage") == "unknown"
