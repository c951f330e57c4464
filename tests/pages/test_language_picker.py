"""The submit form offers every language that has a dataset here (EuroEval's 32 with the
data pack), and a search field narrows the list in a real browser."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.pages.test_browser import browser, page  # noqa: F401 - the shared Chromium fixtures

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_submit_form_offers_every_language_and_filters_them(live_server, page, settings, shared_datasets_dir):  # noqa: F811
    settings.DATA_DIR = shared_datasets_dir
    call_command("sync_datasets", "--data-dir", str(shared_datasets_dir))
    page.goto(f"{live_server.url}/submit/")
    boxes = page.locator("#language-picker input[type=checkbox]")
    assert boxes.count() >= 31  # EuroEval's 32 languages; Bokmål feeds the Norwegian board
    values = set(page.eval_on_selector_all("#language-picker input[type=checkbox]", "els => els.map(e => e.value)"))
    assert {"pl", "el", "uk", "lb", "bs", "no", "da"} <= values
    page.fill("#language-filter", "pol")
    visible = page.eval_on_selector_all(
        "#language-picker input[type=checkbox]", "els => els.filter(e => e.offsetParent !== null).map(e => e.value)"
    )
    assert visible == ["pl"]
    page.check("#language-picker input[value=pl]")
    page.fill("#language-filter", "gree")
    visible = page.eval_on_selector_all(
        "#language-picker input[type=checkbox]", "els => els.filter(e => e.offsetParent !== null).map(e => e.value)"
    )
    assert sorted(visible) == ["el", "pl"]  # a checked language stays in view
    assert "2 of" in page.inner_text("#language-count")
