"""Whole responses cached for anonymous readers (leaderboard/web/response_cache.py): one render
per board version and filters, served gzip-compressed or plain, never to signed-in users,
and replaced as soon as an aggregation changes the board. Boards come from the real
aggregation on PostgreSQL."""

from __future__ import annotations

import gzip
import json
from functools import partial

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.services.aggregation import aggregate
from tests.ranking.builders import add_evaluation, dataset
from tests.ranking.builders import it as iteration_scores

pytestmark = pytest.mark.django_db


it = partial(iteration_scores, spread=0.01)


@pytest.fixture
def danish():
    sent = dataset("angry-tweets", "sentiment-classification", ["da"])
    ner = dataset("dane", "named-entity-recognition", ["da"])
    for k, (model_id, quality) in enumerate([("org/big", 0.8), ("org/mid", 0.6), ("org/small", 0.4)]):
        add_evaluation(model_id, sent, it(quality, k), it(quality, k + 9))
        add_evaluation(model_id, ner, it(quality, k + 3), it(quality, k + 6))
    aggregate(["da"], replicates=20)
    return sent, ner


def queries(client, url, **headers):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, **headers)
    return response, len(captured)


def test_anonymous_readers_share_one_render_until_the_board_changes(client, danish):
    sent, ner = danish
    first, _ = queries(client, "/leaderboards/da/?sort=score", HTTP_ACCEPT_ENCODING="gzip, br")
    assert first.status_code == 200 and first["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in first["Vary"]
    html = gzip.decompress(first.content)
    assert b"org/big" in html
    again, count = queries(client, "/leaderboards/da/?sort=score", HTTP_ACCEPT_ENCODING="gzip")
    assert again.content == first.content and count <= 2  # the board, its version: no render
    plain, _ = queries(client, "/leaderboards/da/?sort=score")
    assert not plain.has_header("Content-Encoding") and plain.content == html

    document, _ = queries(client, "/api/leaderboards/da.json")
    assert [e["model"] for e in json.loads(document.content)["entries"]][:1] == ["org/big"]
    _, count = queries(client, "/api/leaderboards/da.json")
    assert count <= 2

    add_evaluation("org/best", sent, it(0.95, 20), it(0.95, 21))
    add_evaluation("org/best", ner, it(0.95, 22), it(0.95, 23))
    aggregate(["da"], replicates=20)
    fresh, _ = queries(client, "/leaderboards/da/?sort=score")
    assert b"org/best" in fresh.content
    assert json.loads(client.get("/api/leaderboards/da.json").content)["entries"][0]["model"] == "org/best"


def test_signed_in_users_are_never_served_from_the_cache(client, danish):
    client.get("/leaderboards/da/")  # cached for anonymous readers
    client.force_login(User.objects.create_user("staff", is_staff=True))
    response, count = queries(client, "/leaderboards/da/")
    assert response.status_code == 200 and count >= 3  # rendered for them


def test_unknown_boards_are_not_cached(client, db):
    assert client.get("/leaderboards/zz/").status_code == 404
    response = client.get("/api/leaderboards/zz.json")
    assert response.status_code == 404 and "error" in json.loads(response.content)
