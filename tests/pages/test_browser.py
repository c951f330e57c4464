"""Browser tests: headless Chromium (Playwright) against a real server (live_server).

The main test loads the Danish, Swedish and Norwegian boards built from the shared
published results, filters, sorts and downloads the CSV (with GLOSSA_TEST_SCREENSHOTS=1 it saves screenshots to
test-artifacts/ for a person to look at: tests/support/screenshots.py).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest

from tests.pages.builders import build_board
from tests.support.screenshots import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser():
    # Playwright's sync API keeps an asyncio loop in this thread; Django's ORM calls from the
    # test itself are still synchronous, so let them through (the documented workaround).
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium missing at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    context.close()
    assert errors == [], f"JavaScript errors: {errors}"


def shown_names(page) -> list[str]:
    return page.eval_on_selector_all("#board-table tbody th.c-model", "els => els.map(e => e.getAttribute('data-v'))")


def column_values(page, key: str, body: str = "ranked") -> list[str]:
    index = page.eval_on_selector_all("#board-table thead th", f"ths => ths.findIndex(t => t.dataset.key === '{key}')")
    return page.eval_on_selector_all(
        f"#board-table tbody.{body} tr:not(.section)", f"rows => rows.map(r => r.cells[{index}].getAttribute('data-v'))"
    )


def build_shared_boards():
    """Import the shared results and aggregate the Danish, Swedish and Norwegian boards. The
    2023 file has few models in Icelandic and Faroese, so the group is EuroEval's mainland
    Scandinavian (da, sv, no) here, as in ``tests/ranking/conftest.py``."""
    from leaderboard.services.results_import import import_file
    from tests.conftest import SHARED_RESULTS

    report = import_file(SHARED_RESULTS)
    assert report.imported > 1500, report.summary()
    from leaderboard.models import LanguageGroup, Leaderboard
    from leaderboard.services.aggregation import aggregate

    LanguageGroup.objects.filter(slug="scandinavian").update(boards=["da", "sv", "no"])

    run = aggregate(["da", "sv", "no"], replicates=100)
    assert run.status == "FINISHED"
    return list(Leaderboard.objects.all())


def test_shared_results_boards_filter_sort_and_download(live_server, page):
    boards = build_shared_boards()
    assert {b.code for b in boards} >= {"da", "sv", "no", "scandinavian"}

    # Home lists the three boards.
    page.goto(live_server.url + "/")
    for code, name in (("da", "Danish"), ("sv", "Swedish"), ("no", "Norwegian"), ("scandinavian", "Scandinavian")):
        assert name in page.locator(f'.language-entry h3 a[href="/leaderboards/{code}/"]').inner_text()
    shot(page, "home.png", full_page=True)

    for code in ("scandinavian", "sv", "no", "da"):
        response = page.goto(f"{live_server.url}/leaderboards/{code}/")
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector("#scatter-chart[data-rendered=true]", timeout=20_000)
        # Plotly drew under the Content-Security-Policy (a violation would be a console error)
        assert page.locator("#scatter-chart svg.main-svg").count() >= 1
        ranked = page.locator("#board-table tbody.ranked tr")
        assert ranked.count() > 20
        assert page.locator("#board-table tbody.ranked tr").first.locator("td.c-rank").inner_text() == "1"
        assert "–" in page.locator("#board-table tbody.ranked tr td.c-score .ci").first.inner_text()
        shot(page, f"board-{code}.png")
    shot(page, "board-da-full.png", full_page=True)
    shot(page.locator("#scatter-chart"), "board-da-scatter.png")
    # Scrolled right: rank and model stay in view.
    page.eval_on_selector(".table-scroll", "e => { e.scrollLeft = 600; e.scrollTop = 300; }")
    shot(page, "board-da-scrolled.png")

    total = len(shown_names(page))
    # Filter by size: the form submits on change; the filter is in the URL.
    page.check("input[name=size][value=lt2]")
    page.wait_for_url("**size=lt2**")
    sizes = [float(v) for v in column_values(page, "params") + column_values(page, "params", "unranked")]
    assert sizes and all(v < 2e9 for v in sizes)
    assert len(shown_names(page)) < total
    # Search by name (Enter submits).
    page.fill("input[name=q]", "bert")
    page.press("input[name=q]", "Enter")
    page.wait_for_url("**q=bert**")
    names = shown_names(page)
    assert names and all("bert" in n.lower() for n in names)

    # Sort by a dataset column in the browser (no reload): ascending, then descending.
    header = page.locator('#board-table thead th[data-key="ds:angry-tweets"] > a').first
    header.click()
    values = [float(v) for v in column_values(page, "ds:angry-tweets") if v]
    assert values == sorted(values)
    header.click()
    values = [float(v) for v in column_values(page, "ds:angry-tweets") if v]
    assert values == sorted(values, reverse=True)
    assert "sort=ds%3Aangry-tweets" in page.url and "dir=desc" in page.url
    shot(page, "board-da-filtered-sorted.png")

    # The CSV download has exactly the rows shown, in the order shown.
    shown = shown_names(page)
    with page.expect_download() as download_info:
        page.click("#export-csv")
    download = download_info.value
    assert download.suggested_filename == "glossa-da-leaderboard.csv"
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    assert [r["name"] for r in rows] == shown

    # Reloading the shared URL gives the same view, sorted server-side.
    page.reload()
    assert shown_names(page) == shown

    # A model page from the board, with its charts.
    page.locator("#board-table tbody.ranked th.c-model a").first.click()
    page.wait_for_selector("[data-figure=strip-data][data-rendered=true]", timeout=20_000)
    page.wait_for_selector("[data-figure=task-data][data-rendered=true]")
    assert page.locator("#scores-table tbody tr").count() >= 4
    assert page.locator("#repro-table tr.cmd code").first.inner_text().startswith("python -m evaluation run --model ")
    shot(page, "model.png", full_page=True)
    shot(page.locator(".chart-row"), "model-charts.png")

    # A dataset page with its leaderboard and score distribution.
    page.goto(live_server.url + "/datasets/scala-da/")
    page.wait_for_selector("[data-figure=distribution-data][data-rendered=true]", timeout=20_000)
    assert page.locator("#dataset-board tbody tr").count() > 20
    shot(page, "dataset.png", full_page=True)
    page.locator("#dataset-board").scroll_into_view_if_needed()
    shot(page, "dataset-board.png")


def test_board_works_without_javascript(live_server, browser):
    build_board()
    context = browser.new_context(viewport={"width": 1280, "height": 800}, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/leaderboards/da/")
        assert len(shown_names(page)) == 7
        page.check("input[name=type][value=encoder]")
        page.click("button[type=submit]")
        page.wait_for_url("**type=encoder**")
        assert shown_names(page) == ["danish/bert-base", "tiny/encoder-s"]
        # Sorting links work server-side.
        page.click('#board-table thead th[data-key="params"] > a')
        page.wait_for_url("**sort=params**")
        assert shown_names(page) == ["tiny/encoder-s", "danish/bert-base"]
        shot(page, "board-no-js.png")
    finally:
        context.close()


def test_narrow_screen_scrolls_the_table_not_the_page(live_server, browser):
    build_board()
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(live_server.url + "/leaderboards/da/")
        page_width = page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= 400
        scroll = page.eval_on_selector(".table-scroll", "e => [e.scrollWidth, e.clientWidth]")
        assert scroll[0] > scroll[1]
        shot(page, "board-mobile.png")
    finally:
        context.close()
