"""Browser tests of issue #27.1-2 (headless Chromium, Playwright, a real server): from the
repository's own data, two suite models ticked on a board are compared dataset by dataset
(iteration scores and examples) with a link back to the board's view; every board page
visited lists its rows in the order of the printed rank, whose 95% sets and P(above next)
are columns on a wide screen and one tap away on a phone. Screenshots of both pages at
1440×900 and 390×844 go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pages.test_browser import browser, build_shared_boards  # noqa: F401  (the fixture)
from tests.support.screenshots import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SUITE_RESULTS = Path(__file__).resolve().parents[2] / "data" / "results" / "suite"
GEMMA, MINILM = "google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2"
WIDE, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}


@pytest.fixture
def page_at(browser):  # noqa: F811
    """``page_at(viewport)``: a new page; JavaScript errors fail the test."""
    contexts, errors = [], []

    def open_page(viewport):
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert errors == [], f"JavaScript errors: {errors}"


@pytest.fixture
def suite_boards(settings, shared_datasets_dir):
    """The repository's data as `make data` loads it for the suite boards: the data pack
    registered, every seed result of data/results/suite/ imported (with its examples), the
    boards aggregated under the demo's protocol."""
    from leaderboard.services.aggregation import aggregate
    from leaderboard.services.dataset_registry import sync_datasets
    from leaderboard.services.results_import import import_file

    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 3, 32
    sync_datasets(shared_datasets_dir)
    seeds = sorted(SUITE_RESULTS.glob("*.jsonl"))
    assert seeds, f"no seed results in {SUITE_RESULTS}"
    for path in seeds:
        report = import_file(path)
        assert report.errors == [] and report.imported > 0, report.summary()
    assert aggregate().status == "FINISHED"


def printed_ranks(page) -> list[int]:
    """The rank column of the ranked rows, top to bottom, as the default sort shows it."""
    texts = page.eval_on_selector_all(
        "#board-table tbody.ranked td.c-rank", "cells => cells.map(c => c.querySelector('.rank-n').textContent)"
    )
    return [int(t) for t in texts]


def assert_rank_columns(page, wide: bool) -> None:
    ranks = printed_ranks(page)
    assert ranks and ranks == sorted(ranks) and ranks[0] == 1, ranks
    first = page.locator("#board-table tbody.ranked tr").first
    assert first.locator("td.c-rankint").is_visible() is wide
    assert first.locator("td.c-pnext").is_visible() is wide
    assert first.locator("td.c-rank details.rank-more summary").is_visible() is not wide
    assert page.locator("#rank-explained").is_visible()


def test_two_suite_models_compared_from_a_board_and_back(live_server, page_at, suite_boards):
    page = page_at(WIDE)
    page.goto(f"{live_server.url}/leaderboards/da-suite/")
    assert_rank_columns(page, wide=True)
    # sort by a column in place (the address changes, the page does not reload)
    page.click('#board-table thead th[data-key="params"] a')
    page.wait_for_function("() => location.search.includes('sort=params')")
    shot(page, "board-da-suite-1440.png", full_page=True)
    for model in (GEMMA, MINILM):
        page.check(f'#board-table input.pick[value="{model}"]')
    page.click("#compare-form button[type=submit]")
    page.wait_for_url("**/compare/**")
    assert "board=da-suite" in page.url and "sort=params" in page.url

    # side by side on every shared dataset: iteration-level and example-level tests
    sections = page.locator("section.compare-dataset")
    names = [sections.nth(i).get_attribute("data-dataset") for i in range(sections.count())]
    assert "sib200-da" in names and len(names) >= 3, names
    for i in range(sections.count()):
        section = sections.nth(i)
        pair = section.locator("tr.iteration-pair")
        assert pair.count() == 1 and pair.get_attribute("data-test") == "paired t-test over iterations"
        assert 0.0 <= float(pair.get_attribute("data-p")) <= 1.0
        verdict = pair.locator("td.verdict").inner_text()
        assert verdict == "no significant difference" or verdict.endswith(" is better"), verdict
        assert section.locator("table.compare-scores tbody tr").count() == 2
    sib = page.locator('section[data-dataset="sib200-da"]')
    examples = sib.locator("tr.pair")
    assert examples.count() == 1 and int(examples.get_attribute("data-n")) > 0
    assert examples.get_attribute("data-test") in ("McNemar (exact)", "Wilcoxon signed-rank")
    assert page.locator("table.compare-sides tbody tr").count() == 2
    assert page.locator("#compare-odds li").count() == 1
    shot(page, "compare-da-suite-1440.png", full_page=True)

    # back to the board, in the view it was left in
    page.click("#compare-back a")
    page.wait_for_url("**/leaderboards/da-suite/?sort=params")
    assert page.locator('#board-table thead th[data-key="params"]').get_attribute("aria-sort") == "ascending"

    # a phone: the rank's set and odds one tap away; the comparison reads down the screen
    phone = page_at(PHONE)
    phone.goto(f"{live_server.url}/leaderboards/da-suite/")
    assert_rank_columns(phone, wide=False)
    summary = phone.locator("#board-table tbody.ranked tr").first.locator("td.c-rank details summary")
    box = summary.bounding_box()
    assert box["height"] >= 44  # a touch target
    summary.click()
    note = phone.locator("#board-table tbody.ranked tr").first.locator(".rank-pop")
    assert note.is_visible() and "95% rank set" in note.inner_text()
    shot(phone, "board-da-suite-390.png")
    phone.goto(f"{live_server.url}/compare/?board=da-suite&models={GEMMA}&models={MINILM}")
    assert phone.locator("section.compare-dataset").count() == len(names)
    shot(phone, "compare-da-suite-390.png", full_page=True)
    for other in ("sv-suite", "no-suite"):
        page.goto(f"{live_server.url}/leaderboards/{other}/")
        assert_rank_columns(page, wide=True)


def test_published_boards_read_in_rank_order_at_both_widths(live_server, page_at):
    """Every published board lists its rows in rank order, at both widths; and a model the
    2023 file names by a local path links its own page, never the Hub (one build of the
    shared boards for both checks: it is most of the test's time)."""
    build_shared_boards()
    wide, phone = page_at(WIDE), page_at(PHONE)
    for code in ("da", "sv", "no", "scandinavian"):
        wide.goto(f"{live_server.url}/leaderboards/{code}/")
        assert_rank_columns(wide, wide=True)
        assert len(printed_ranks(wide)) > 20
        phone.goto(f"{live_server.url}/leaderboards/{code}/")
        assert_rank_columns(phone, wide=False)
    shot(wide, "board-scandinavian-ranks-1440.png")
    phone.goto(f"{live_server.url}/leaderboards/da/")
    phone.locator("#board-table tbody.ranked tr").nth(3).locator("td.c-rank details summary").click()
    shot(phone, "board-da-rank-open-390.png")
    assert_path_named_model_never_linked_as_a_hub_id(live_server, wide)


def assert_path_named_model_never_linked_as_a_hub_id(live_server, page):
    """ScandEval's 2023 file names some models by a local path: the board links the model's
    own page (which works), and no page links the path to the Hugging Face Hub."""
    path_id = "/mnt/data_6tb/dan/gpt_sw3/models/gpt-sw3-126m"
    page.goto(f"{live_server.url}/leaderboards/sv/")
    href = page.locator(f'#board-table label:has(input.pick[value="{path_id}"]) ~ a').first.get_attribute("href")
    assert href.startswith("/model/?id=") and "huggingface" not in href
    page.goto(live_server.url + href)
    assert path_id in page.locator("h1").inner_text()
    hub_links = page.eval_on_selector_all("a[href*='huggingface.co']", "links => links.map(a => a.href)")
    assert not any("mnt" in link for link in hub_links), hub_links
