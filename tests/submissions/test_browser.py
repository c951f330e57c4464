"""The whole product in a browser, from the repository's own data: paste a model id into
the form, watch the submission page update itself, find the model ranked with an interval
on its language's suite board, among the bundled models the repository seeds it with.
Headless Chromium, a live server, a real Celery worker, the real engine on SmolLM2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from leaderboard.models import Dataset, Evaluation, LeaderboardEntry, Submission, SubmissionStatus
from leaderboard.selectors.export import leaderboard_document
from tests.support.screenshots import shot

from .conftest import SMOL
from .worker import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"
SUITE_RESULTS = Path(__file__).resolve().parents[2] / "data" / "results" / "suite"
DEMO_PROTOCOL = {"GLOSSA_ITERATIONS": "3", "GLOSSA_TEST_LIMIT": "32", "GLOSSA_MAX_TRAIN_STEPS": "20"}


@pytest.fixture
def chromium_page():
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # ORM calls beside Playwright's loop
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium missing at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page
        browser.close()
        assert errors == [], f"JavaScript errors: {errors}"


@pytest.fixture(scope="module")
def worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A worker on the demo's protocol (3 iterations on the first 32 test rows): the protocol
    the repository's seed results were made with, so the submission joins their board."""
    from .conftest import broker
    from .worker import Workers

    broker().delete("gpu", "default", "unacked", "unacked_index")
    workers = Workers(tmp_path_factory.mktemp("celery"))
    yield workers.gpu(**DEMO_PROTOCOL)
    workers.stop()
    broker().delete("gpu", "default")


@pytest.fixture
def repository_data(datasets, settings):
    """The repository's own data as `make demo` loads it (nothing from outside the clone):
    the data pack registered, then the suite's seed results of the bundled models."""
    from leaderboard.services.results_import import import_file

    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 3, 32
    seeds = sorted(SUITE_RESULTS.glob("*.jsonl"))
    assert seeds, f"no seed results in {SUITE_RESULTS}"
    for path in seeds:
        report = import_file(path)
        assert report.errors == [] and report.imported > 0, report.summary()
    # One Danish dataset keeps the evaluation to a minute or two on a CPU.
    Dataset.objects.exclude(name="scala-da").update(in_suite=False)


def test_submit_through_the_form_and_find_the_model_ranked_among_its_peers(
    worker, repository_data, empty_gpu_queue, live_server, chromium_page
):
    page = chromium_page
    page.goto(f"{live_server.url}/submit/")
    page.fill("input[name=model_id]", SMOL)
    assert page.input_value("select[name=few_shot]") == "few"
    page.check("input[name=languages][value=da]")
    page.click("button[type=submit]")

    page.wait_for_url("**/submissions/*/")
    assert "is queued for evaluation" in page.content()
    submission = Submission.objects.get()
    assert submission.model.model_id == SMOL and submission.few_shot and submission.languages == ["da"]
    # The page follows the submission by itself (JavaScript poll, meta refresh without it).
    page.wait_for_selector('#submission-status[data-status="FINISHED"]', timeout=400_000)
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FINISHED and submission.attempts == 1
    assert "1 of 1 datasets" in page.inner_text("dl.submission-facts")
    assert page.locator('tr[data-dataset="scala-da"]').inner_text().split()[1] == "done"

    # aggregate_boards runs on queue default; then the suite board ranks the model.
    ranked = LeaderboardEntry.objects.filter(leaderboard__code="da-suite", model=submission.model, rank__isnull=False)
    wait_for(ranked.exists, 90, "the Danish suite board to rank the model", worker)
    page.goto(f"{live_server.url}/")
    page.click('#lang-da .board-suite a[href="/leaderboards/da-suite/"]')
    page.wait_for_url("**/leaderboards/da-suite/")
    rows = page.locator("#board-table tbody.ranked tr")
    names = [rows.nth(i).locator("th.c-model").get_attribute("data-v") for i in range(rows.count())]
    assert SMOL in names and len(names) >= 2, names  # ranked among the seeded bundled models
    row = rows.nth(names.index(SMOL))
    rank, interval = row.locator("td.c-rank").inner_text(), row.locator("td.c-score .ci").inner_text()
    assert rank.strip().isdigit() and "–" in interval, (rank, interval)

    # Every ranked entry on that board ran on the same dataset version under the same protocol.
    doc = leaderboard_document("da-suite")
    [scala] = doc["datasets"]
    assert scala["name"] == "scala-da" and scala["protocol"] == "iterations=3,test-limit=32"
    assert scala["version"].startswith("sha256:")
    ranked_entries = [e for e in doc["entries"] if e["rank"] is not None]
    assert {e["scores"]["scala-da"]["dataset_version"] for e in ranked_entries} == {scala["version"]}
    counted = Evaluation.objects.filter(
        dataset__name="scala-da", dataset_version__fingerprint=scala["version"], num_iterations=3, test_limit=32
    )
    assert counted.filter(model=submission.model).exists()
    assert {e["model"] for e in ranked_entries} <= set(counted.values_list("model__model_id", flat=True))
    shot(page, "submission-on-da-suite-board.png", full_page=True)

    # Its answers are one click from its page: the examples the GPU worker sent with the record.
    page.goto(f"{live_server.url}/models/{SMOL}/")
    # What running it cost here (issue #26): the worker measured each dataset on this CPU.
    costs = page.locator("#model-efficiency table.evaluation-costs[data-device=cpu] tbody tr")
    assert costs.count() >= 1
    assert page.locator("#model-efficiency .hardware-line").first.inner_text().strip()
    page.goto(f"{live_server.url}/leaderboards/da-suite/efficiency/")
    assert SMOL in page.content()
    page.goto(f"{live_server.url}/models/{SMOL}/")
    # SmolLM2 is seeded on the new languages too: its Danish row is the one this test made
    page.click('#scores-table tr[data-dataset="scala-da"] a.examples-link')
    page.wait_for_url("**/datasets/scala-da/examples/**")
    assert page.locator("#examples-table tbody tr").count() > 0

    def shown_ids() -> list[str]:
        rows = page.locator("#examples-table tbody tr")
        return [rows.nth(i).get_attribute("data-example") for i in range(rows.count())]

    def downloaded() -> list[dict]:
        with page.expect_download() as download:
            page.click("#examples-jsonl")
        return [json.loads(line) for line in Path(download.value.path()).read_text(encoding="utf-8").splitlines()]

    for outcome in ("incorrect", "unparseable"):
        page.check(f"#example-filters input[name=outcome][value={outcome}]")
        page.click("#example-filters button[type=submit]")
        page.wait_for_url(f"**outcome={outcome}**")
        lines = downloaded()
        assert [line["example_id"] for line in lines] == shown_ids(), outcome  # the download is the page
        if outcome == "incorrect":
            assert all(line["valid"] and line["scores"]["correct"] < 1 for line in lines)
        else:  # SmolLM2's labels are scored, not generated: every answer is one of the labels
            assert lines == [] and "No example matches" in page.content()
