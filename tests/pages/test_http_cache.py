"""HTTP caching (leaderboard/web/http_cache.py): what a shared cache and a browser may keep.

Anonymous pages are public with ``s-maxage``, signed-in pages and forms are private, every
answer varies on Cookie and Accept-Encoding, and a matching validator is a 304: for boards
from the board version (before the page cache is read), elsewhere from the body. Static
files get hashed names, gzip copies and a year's max-age once collected."""

from __future__ import annotations

import gzip
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from leaderboard.models import Leaderboard

pytestmark = pytest.mark.django_db


def test_an_anonymous_board_is_public_for_s_maxage_with_validators(client, da_board, settings):
    settings.SHARED_MAX_AGE = 45
    first = client.get("/leaderboards/da/", HTTP_ACCEPT_ENCODING="gzip")
    assert first.status_code == 200
    control = {part.strip() for part in first["Cache-Control"].split(",")}
    assert control == {"public", "max-age=0", "s-maxage=45"}
    assert {"Cookie", "Accept-Encoding"} <= {v.strip() for v in first["Vary"].split(",")}
    assert first["ETag"].startswith('W/"') and first.has_header("Last-Modified")

    # The plain body is the same representation: the same validator.
    plain = client.get("/leaderboards/da/")
    assert plain["ETag"] == first["ETag"]

    with CaptureQueriesContext(connection) as captured:
        again = client.get("/leaderboards/da/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"] and "s-maxage=45" in again["Cache-Control"]
    assert len(captured) <= 2  # the board and its version; the page cache is not even read
    since = client.get("/leaderboards/da/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert since.status_code == 304
    # Another filter is another page: another validator.
    other = client.get("/leaderboards/da/?sort=score&dir=desc", HTTP_IF_NONE_MATCH=first["ETag"])
    assert other.status_code == 200 and other["ETag"] != first["ETag"]


def test_a_new_board_version_is_a_new_validator(client, da_board):
    first = client.get("/api/leaderboards/da.json")
    assert first.status_code == 200 and "public" in first["Cache-Control"]
    assert client.get("/api/leaderboards/da.json", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    Leaderboard.objects.filter(code="da").update(generated_at=timezone.now() + timedelta(seconds=5))
    changed = client.get("/api/leaderboards/da.json", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert client.get("/api/leaderboards/da.json", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 200


def test_signed_in_pages_are_private_and_never_from_the_shared_page(client, da_board):
    anonymous = client.get("/leaderboards/da/")
    client.force_login(User.objects.create_user("reader"))
    for url in ("/leaderboards/da/", "/methodology/", "/"):
        response = client.get(url, HTTP_IF_NONE_MATCH=anonymous["ETag"])
        assert response.status_code == 200, url
        control = {part.strip() for part in response["Cache-Control"].split(",")}
        assert "private" in control and "public" not in control and "s-maxage=30" not in control, url
        assert "Cookie" in response["Vary"]


def test_other_anonymous_pages_get_a_body_etag_and_304(client, da_board):
    first = client.get("/methodology/")
    assert first.status_code == 200 and "s-maxage=30" in first["Cache-Control"]
    assert first["ETag"].startswith('"')
    assert client.get("/methodology/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert client.get("/methodology/", HTTP_IF_NONE_MATCH='"something-else"').status_code == 200
    # Through GZipMiddleware the ETag is weak; a weak validator still matches.
    zipped = client.get("/methodology/", HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["ETag"].startswith('W/"')
    assert client.get("/methodology/", HTTP_IF_NONE_MATCH=zipped["ETag"]).status_code == 304


def test_forms_and_live_pages(client, da_board):
    form = client.get("/submit/")
    assert form.status_code == 200
    assert "private" in form["Cache-Control"] and "public" not in form["Cache-Control"]  # carries a CSRF token
    # The visitor already has the CSRF cookie: the form is still private (its token is theirs).
    again = client.get("/submit/")
    assert "private" in again["Cache-Control"]
    queue = client.get("/queue/")
    assert queue.status_code == 200 and "s-maxage=2" in queue["Cache-Control"]
    assert "public" not in client.post("/submit/", {}).get("Cache-Control", "")


def test_static_files_are_hashed_compressed_and_kept_a_year(tmp_path, settings, client):
    from django.core.management import call_command
    from django.templatetags.static import static

    from leaderboard.web.static_files import HashedStaticStorage

    # Without collectstatic: the plain name (tests, development).
    assert static("js/charts.js") == "/static/js/charts.js"
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES}  # a fresh storage over the new root
    call_command("collectstatic", "--noinput", "-v0")
    storage = HashedStaticStorage(location=tmp_path)
    hashed = storage.url("vendor/plotly-cartesian.min.js")
    assert hashed.startswith("/static/vendor/plotly-cartesian.min.") and hashed.endswith(".js")
    assert hashed != "/static/vendor/plotly-cartesian.min.js"
    collected = tmp_path / hashed.removeprefix("/static/")
    assert collected.with_name(collected.name + ".gz").is_file()
    size = collected.stat().st_size
    assert size < 2_000_000  # the partial bundle, not the 4.8 MB full one

    from whitenoise.middleware import WhiteNoiseMiddleware

    served = WhiteNoiseMiddleware(lambda request: None)
    from django.test import RequestFactory

    response = served(RequestFactory().get(hashed, HTTP_ACCEPT_ENCODING="gzip"))
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["Content-Encoding"] == "gzip"
    body = gzip.decompress(b"".join(response.streaming_content))
    assert body.startswith(b"/**\n* plotly.js (cartesian")
