"""The Examiner board shows the peer score with its rank set, the Bradley–Terry section
(strength, interval, rank sets, position and length coefficients, leave-one-out moves)
and costs the same number of queries however many examinees it has."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evaluation.examiner.exam import ExamSettings, Participant, run_exam
from leaderboard.models import Exam
from leaderboard.services.exam_import import import_exam

from .scripted import ScriptedModel


def imported(examinees: int, examiners: int = 2):
    people = [Participant(f"m/{k}", ScriptedModel(f"m/{k}", 1 + k % 5)) for k in range(examinees)]
    settings = ExamSettings(language="da", questions=3, follow_ups=0, seed=2, bootstrap=30)
    records = run_exam(people[:examiners], people, settings)
    Exam.objects.all().delete()
    return import_exam("\n".join(json.dumps(r) for r in records).encode()).exam


def queries(client) -> tuple[int, BeautifulSoup]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/examiner/da/")
    assert response.status_code == 200
    return len(captured), BeautifulSoup(response.content, "html.parser")


@pytest.mark.django_db
def test_the_board_shows_the_pairwise_fit_and_its_query_count_does_not_grow(client):
    exam = imported(3)
    small, _ = queries(client)
    exam = imported(6)
    large, page = queries(client)
    assert large == small
    fit = exam.pairwise
    rows = page.select("#pairwise-board tr.entry")
    assert [r["data-model"] for r in rows] == sorted(fit["entries"], key=lambda m: (fit["entries"][m]["rank"], m))
    for row in rows:
        entry = fit["entries"][row["data-model"]]
        assert row.select_one(".rank-set").get_text() == f"{entry['rank_set'][0]}–{entry['rank_set'][1]}"
        assert row.select_one(".marginal-rank-set").get_text() == "–".join(map(str, entry["marginal_rank_set"]))
    coefficients = page.select_one("#pairwise-coefficients")
    assert coefficients.select_one(".position").get_text() == f"{fit['position']['estimate']:.3f}"
    assert coefficients.select_one(".length").get_text() == f"{fit['length']['estimate']:.3f}"
    for tr in page.select("#examiner-board tr.examinee"):
        result = exam.results.get(examinee=tr["data-model"])
        low, high = result.summary["rank_set"]
        assert tr.select_one(".rank-set").get_text() == f"{low}–{high}" and low <= result.rank <= high
    assert page.select_one("#left-out") is not None
    # the download carries the pairwise line and imports again
    download = client.get("/examiner/da/round/1/exam.jsonl").content.decode().splitlines()
    assert sum('"kind": "pairwise"' in line for line in download) == 1
    exam.delete()
    assert import_exam("\n".join(download).encode()).exam.pairwise == fit
