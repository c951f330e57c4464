"""The 404 and 500 pages are the site's own: a 404 names the address and links onwards; the
500 page renders without the database (it may be what failed) and without a request."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import get_resolver


@pytest.mark.django_db
def test_a_missing_page_is_the_sites_own_404(client):
    response = client.get("/leaderboards/no-such-board/<b>")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Page not found" in html and 'class="skip-link"' in html
    assert "<code>/leaderboards/no-such-board/%3Cb%3E</code>" in html and "<b>" not in html  # the address as sent
    assert 'href="/"' in html and "Every leaderboard" in html


def test_the_500_page_renders_without_the_database(django_db_blocker):
    handler = get_resolver().resolve_error_handler(500)
    with django_db_blocker.block():  # any query would raise
        response = handler(RequestFactory().get("/leaderboards/da/"))
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong on our side" in html
    assert "/static/css/glossa" in html and 'href="/queue/"' in html
