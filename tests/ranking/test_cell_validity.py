"""Cells that cannot be trusted (issue #16.4): a cell whose stored examples hold ≥ 10%
unparseable or empty answers is flagged with the count (EuroEval's rule) and still counted;
an administrator can invalidate a cell with a written reason, which takes it out of the
aggregation, is recorded, and is shown on the board."""

from __future__ import annotations

import base64
import json

import pytest
import redis
from bs4 import BeautifulSoup
from django.contrib.admin.models import LogEntry

from evaluation.examples import encode_examples
from leaderboard.models import EvaluationExamples, LeaderboardEntry
from leaderboard.selectors.export import leaderboard_document
from leaderboard.services.aggregation import aggregate
from tests.ranking.builders import add_evaluation, dataset, it

REPS = 40


@pytest.fixture
def board(db):
    sent = dataset("angry-tweets", "sentiment-classification", ["da"])
    ner = dataset("dane", "named-entity-recognition", ["da"])
    evaluations = {}
    for k, (model_id, quality) in enumerate([("org/big", 0.8), ("org/mid", 0.6), ("org/small", 0.4)]):
        evaluations[model_id] = add_evaluation(model_id, sent, it(quality, seed=k), it(quality, seed=k + 9))
        add_evaluation(model_id, ner, it(quality, seed=k + 3), it(quality, seed=k + 6))
    return evaluations


def with_examples(evaluation, invalid: int, total: int) -> None:
    examples = [
        {"example_id": f"test:{i}", "input": "x", "gold": "positive", "label": "positive", "output": "?",
         "parsed": "positive", "valid": i >= invalid, "scores": {"correct": 1.0}, "iterations": [0]}
        for i in range(total)
    ]  # fmt: skip
    EvaluationExamples.objects.create(
        evaluation=evaluation, data=encode_examples(examples), num_examples=total, num_invalid=invalid,
        score_keys=["correct"],
    )  # fmt: skip


def cell(model_id: str) -> dict:
    return LeaderboardEntry.objects.get(leaderboard_id="da", model__model_id=model_id).scores["angry-tweets"]


def test_ten_percent_unreadable_answers_flag_the_cell(board, client):
    with_examples(board["org/big"], 20, 200)  # exactly 10%: flagged
    with_examples(board["org/mid"], 19, 200)  # 9.5%: not
    aggregate(["da"], replicates=REPS)
    assert cell("org/big")["unparseable"] == {"unparseable": 20, "examples": 200}
    assert "unparseable" not in cell("org/mid") and "unparseable" not in cell("org/small")  # no examples
    assert cell("org/big")["primary"]["mean"] > 0  # flagged, still counted
    doc = leaderboard_document("da")
    assert doc["entries"][0]["scores"]["angry-tweets"]["unparseable"]["unparseable"] == 20
    soup = BeautifulSoup(client.get("/leaderboards/da/").content.decode(), "html.parser")
    flags = soup.select("#board-table td.ds .flag")
    assert [f["title"] for f in flags] == ["20 of 200 answers unparseable or empty"]


def test_an_administrator_invalidates_a_cell_with_a_reason(board, admin_client, admin_user, settings):
    aggregate(["da"], replicates=REPS)
    assert "angry-tweets" in LeaderboardEntry.objects.get(leaderboard_id="da", model__model_id="org/mid").scores
    evaluation = board["org/mid"]
    url = f"/admin/leaderboard/evaluation/{evaluation.pk}/change/"
    form = BeautifulSoup(admin_client.get(url).content.decode(), "html.parser").select_one("form#evaluation_form")
    data = {}
    for field in form.select("input[name], select[name], textarea[name]"):
        if field.name == "select":
            chosen = field.select_one("option[selected]")
            data[field["name"]] = chosen["value"] if chosen else ""
        elif field.name == "textarea":
            data[field["name"]] = field.get_text()
        elif field.get("type") == "checkbox":
            if field.has_attr("checked"):
                data[field["name"]] = field.get("value", "on")
        elif field.get("type") not in ("submit",):
            data[field["name"]] = field.get("value", "")
    data["invalidated_reason"] = "The prompt leaked the labels in this run."
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("default")
    response = admin_client.post(url, data, follow=True)
    assert response.status_code == 200 and "Aggregation of da queued" in response.content.decode()
    [message] = [json.loads(m) for m in broker.lrange("default", 0, -1)]
    broker.delete("default")
    aggregate(json.loads(base64.b64decode(message["body"]))[1]["board_codes"], replicates=REPS)  # the worker's run

    evaluation.refresh_from_db()
    assert evaluation.invalidated_by == admin_user.username and evaluation.invalidated_at is not None
    assert LogEntry.objects.filter(object_id=str(evaluation.pk), change_message__contains="Invalidated").exists()
    entry = LeaderboardEntry.objects.get(leaderboard_id="da", model__model_id="org/mid")
    assert "angry-tweets" not in entry.scores and entry.rank is None  # left the aggregation: unranked
    [excluded] = entry.excluded
    assert excluded["reason"] == "invalidated by an administrator: The prompt leaked the labels in this run."
    page = BeautifulSoup(admin_client.get("/leaderboards/da/").content.decode(), "html.parser").get_text(" ")
    assert "The prompt leaked the labels in this run." in page
