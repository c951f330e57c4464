"""Names that predate validation (a dataset ``x/ds``, a language ``x/y``, a task
``astrology``) are stored in the database; no page may answer 500 because of them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.models import Dataset, Evaluation
from leaderboard.services.aggregation import aggregate
from leaderboard.services.record_parsing import ParsedRecord
from leaderboard.services.results_import import store_record


def _stored(model: str, dataset: str, language: str, task: str = "linguistic-acceptability") -> None:
    """Store a record as an importer without validation would have: names unchecked."""
    # Ten iterations: the protocol published boards count (docs/methodology.md §2).
    iterations = tuple({"mcc": 0.05 * i + (0.3 if model.endswith("a") else 0.0), "macro_f1": 0.5} for i in range(10))
    store_record(
        ParsedRecord(
            model_id=model,
            dataset=dataset,
            task=task,
            languages=(language,),
            few_shot=True,
            validation_split=False,
            iterations=iterations,
            record={"dataset": dataset, "task": task, "model": model, "dataset_languages": [language]},
        ),
        source="old-import",
    )


@pytest.fixture(autouse=True)
def _cold_page_caches():
    from django.core.cache import cache

    from leaderboard import selectors

    selectors._LOCAL_ROWS.clear()
    cache.clear()
    yield
    selectors._LOCAL_ROWS.clear()


@pytest.fixture
def hostile_names(db):
    for model in ("org/a", "org/b"):
        _stored(model, "scala-sv", "sv")
        _stored(model, "x/ds", "sv")
        _stored(model, "odd-lang-ds", "x/y")
        _stored(model, "stars", "sv")
    # A task the site does not know, set on a stored dataset (an old import or an admin).
    Dataset.objects.filter(name="stars").update(task="astrology")
    aggregate(replicates=20)


@pytest.mark.django_db
def test_pages_survive_hostile_names_already_stored(client, hostile_names):
    assert Evaluation.objects.filter(dataset__name="x/ds").exists()
    pages = [
        reverse("home"),
        reverse("board", kwargs={"code": "sv"}),
        reverse("model", kwargs={"model_id": "org/a"}),
        reverse("dataset", kwargs={"name": "scala-sv"}),
        reverse("dataset", kwargs={"name": "stars"}),
        "/api/leaderboards/sv.json",
        "/api/leaderboards/sv.csv",
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
    assert "astrology" in client.get(reverse("dataset", kwargs={"name": "stars"})).content.decode()


@pytest.mark.django_db
def test_dataset_with_a_slash_has_a_working_page(client, hostile_names):
    url = reverse("dataset", kwargs={"name": "x/ds"})
    response = client.get(url)
    assert response.status_code == 200
    assert "x/ds" in response.content.decode()
