"""The home page's search filters the language entries as one types, without a reload, and
keeps the query in the address (so the no-JavaScript form and a shared link agree)."""

from __future__ import annotations

import pytest

from tests.pages.builders import build_board
from tests.pages.test_browser import browser, page  # noqa: F401  (fixtures)
from tests.support.screenshots import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_typing_in_the_search_hides_the_other_languages_without_a_reload(live_server, page):  # noqa: F811
    build_board()
    build_board("sv", "Swedish", [("swerec", "sentiment-classification")], seed=2)
    page.goto(live_server.url + "/")
    entries = page.locator(".language-entry")
    assert entries.count() == 2
    page.evaluate("window.__sameDocument = true")  # lost if the page reloads
    page.fill("#home-q", "swe")
    assert page.locator(".language-entry:visible").count() == 1
    assert page.locator("#lang-sv").is_visible() and not page.locator("#lang-da").is_visible()
    assert page.evaluate("window.__sameDocument") is True
    assert page.url.endswith("/?q=swe")
    assert "1 of 2 entries" in page.inner_text("#home-count")
    shot(page, "home-search.png", full_page=True)
    page.fill("#home-q", "")
    assert page.locator(".language-entry:visible").count() == 2
