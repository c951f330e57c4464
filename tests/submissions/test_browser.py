"""The whole product in a browser: paste a model id into the form, watch the submission
page update itself, find the model on its language's leaderboard. Headless Chromium,
a live server, a real Celery worker, the real engine on the bundled SmolLM2."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from leaderboard.models import Dataset, LeaderboardEntry, Submission, SubmissionStatus

from .conftest import SMOL
from .worker import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def chromium_page():
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # ORM calls beside Playwright's loop
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium missing at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page
        browser.close()
        assert errors == [], f"JavaScript errors: {errors}"


def test_submit_through_the_form_and_find_the_model_on_the_leaderboard(
    worker, datasets, empty_gpu_queue, live_server, chromium_page
):
    # One Danish leaderboard dataset keeps the evaluation to a minute or two on a CPU.
    Dataset.objects.update(in_suite=False)
    Dataset.objects.filter(name="scala-da").update(in_suite=True)
    page = chromium_page
    page.goto(f"{live_server.url}/submit/")
    page.fill("input[name=model_id]", SMOL)
    assert page.input_value("input[name=revision]") == "main"
    assert page.input_value("select[name=few_shot]") == "few"
    page.check("input[name=languages][value=da]")
    page.click("button[type=submit]")

    page.wait_for_url("**/submissions/*/")
    assert "is queued for evaluation" in page.content()
    submission = Submission.objects.get()
    assert submission.model.model_id == SMOL and submission.few_shot and submission.languages == ["da"]
    # The page follows the submission by itself (JavaScript poll, meta refresh without it).
    page.wait_for_selector('#submission-status[data-status="FINISHED"]', timeout=300_000)
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FINISHED and submission.attempts == 1
    assert "1 of 1 datasets" in page.inner_text("dl.submission-facts")
    assert page.locator('tr[data-dataset="scala-da"]').inner_text().split()[1] == "done"

    # aggregate_boards runs on queue default; then the board lists the model
    wait_for(lambda: LeaderboardEntry.objects.filter(leaderboard__code="da", model=submission.model).exists(),
             90, "the Danish board to include the model", worker)
    page.click('a[href="/leaderboards/da/"]')
    page.wait_for_url("**/leaderboards/da/")
    names = page.eval_on_selector_all("#board-table tbody th.c-model", "els => els.map(e => e.getAttribute('data-v'))")
    assert SMOL in names
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "submission-on-da-board.png"), full_page=True)
