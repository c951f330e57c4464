"""The repository's nginx configuration in front of a live gunicorn (as compose.yaml runs it).

A second anonymous GET is a cache HIT, a signed-in reader is never served from or into
the cache, a reader holding only a CSRF cookie still hits, static files come from disk
compressed and cached a year, and a new board version is visible within ``s-maxage``.
Needs the nginx binary (Debian: nginx-light)."""

from __future__ import annotations

import json
import time
import urllib.request
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from leaderboard.models import Leaderboard
from tests.pages.builders import build_board
from tests.submissions.worker import database_url_of_tests
from tests.support.live_gunicorn import LiveGunicorn
from tests.support.live_nginx import LiveNginx, nginx_binary

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
S_MAXAGE = 3


def get(url: str, **headers: str) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=20) as response:
        return response.status, dict(response.headers), response.read()


@pytest.fixture
def proxied(tmp_path, settings):
    if nginx_binary() is None:
        pytest.skip("nginx is not installed (Debian: apt-get install nginx-light)")
    build_board()
    var = tmp_path / "var"
    settings.STATIC_ROOT = var / "staticfiles"
    settings.STORAGES = {**settings.STORAGES}
    call_command("collectstatic", "--noinput", "-v0")
    env = {
        "DATABASE_URL": database_url_of_tests(),
        "GLOSSA_VAR_DIR": str(var),
        "GLOSSA_SHARED_MAX_AGE": str(S_MAXAGE),
        "REDIS_URL": "",  # the page cache in the process: only nginx is shared here
        "SECRET_KEY": settings.SECRET_KEY,  # sessions made here are valid there
    }
    with LiveGunicorn(env, workers=2, log_path=tmp_path / "gunicorn.log") as site:
        yield site, tmp_path, var


def test_nginx_caches_anonymous_pages_only_and_shows_a_new_version_within_s_maxage(proxied):
    """One site and proxy for all three checks (starting them is most of the time)."""
    site, tmp_path, var = proxied
    with LiveNginx(f"127.0.0.1:{site.port}", var / "staticfiles", tmp_path / "nginx") as proxy:
        anonymous_pages_are_served_from_the_cache_and_signed_in_ones_never(proxy)
        static_files_come_compressed_with_a_year_of_max_age(proxy)
        a_new_board_version_is_visible_within_s_maxage(proxy)


def anonymous_pages_are_served_from_the_cache_and_signed_in_ones_never(proxied):
    url = proxied.url + "/leaderboards/da/"
    status, first, body = get(url, **{"Accept-Encoding": "gzip"})
    assert status == 200 and first["X-Cache-Status"] == "MISS" and "s-maxage=3" in first["Cache-Control"]
    _, second, again = get(url, **{"Accept-Encoding": "gzip"})
    assert second["X-Cache-Status"] == "HIT" and again == body
    # A CSRF cookie changes nothing on a public page: still a hit.
    assert get(url, **{"Accept-Encoding": "gzip", "Cookie": "csrftoken=abc"})[1]["X-Cache-Status"] == "HIT"
    # Plain and gzip are separate entries.
    assert get(url)[1]["X-Cache-Status"] == "MISS"

    browser = Client()
    browser.force_login(User.objects.create_user("reader"))
    cookie = f"sessionid={browser.cookies['sessionid'].value}"
    for _ in range(2):
        _, signed_in, page = get(url, Cookie=cookie)
        assert signed_in["X-Cache-Status"] == "BYPASS" and "private" in signed_in["Cache-Control"]
        assert b"reader" in page or b"Log out" in page or page != body
    # A form (its CSRF token is the reader's own) is never stored.
    _, form, _ = get(proxied.url + "/submit/")
    assert "private" in form["Cache-Control"] and form["X-Cache-Status"] == "MISS"
    assert get(proxied.url + "/submit/")[1]["X-Cache-Status"] == "MISS"


def static_files_come_compressed_with_a_year_of_max_age(proxied):
    _, _, html = get(proxied.url + "/leaderboards/da/")
    charts = html.decode().split('data-plotly="', 1)[1].split('"', 1)[0]
    assert charts.startswith("/static/vendor/plotly-cartesian.min.") and not charts.endswith(".min.js")
    status, headers, body = get(proxied.url + charts, **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert len(body) < 600_000  # 1.5 MB of JavaScript, sent gzipped


def a_new_board_version_is_visible_within_s_maxage(proxied):
    url = proxied.url + "/api/leaderboards/da.json"
    old = json.loads(get(url)[2])["generated_at"]
    assert get(url)[1]["X-Cache-Status"] == "HIT"
    new_time = timezone.now() + timedelta(minutes=1)
    Leaderboard.objects.filter(code="da").update(generated_at=new_time)
    changed = time.monotonic()
    while True:
        _, headers, body = get(url)
        if json.loads(body)["generated_at"] != old:
            break
        assert time.monotonic() - changed < S_MAXAGE + 2, "the old version outlived s-maxage"
        time.sleep(0.2)
    assert json.loads(body)["generated_at"] == new_time.isoformat()
    assert time.monotonic() - changed <= S_MAXAGE + 2
