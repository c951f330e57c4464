"""Aggregation against the real database: boards, idempotence, commands, API, admin."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from leaderboard import ranking
from leaderboard.models import AggregationRun, Leaderboard, LeaderboardEntry
from leaderboard.selectors.export import leaderboard_document
from leaderboard.services.aggregation import UnknownBoard, aggregate, board_seed
from tests.ranking.builders import add_evaluation, dataset, it

pytestmark = pytest.mark.django_db

REPS = 60


def _entries(code):
    return {
        (e.model.model_id, e.few_shot): e
        for e in LeaderboardEntry.objects.filter(leaderboard_id=code).select_related("model")
    }


def test_aggregate_writes_language_and_group_boards(boards):
    run = aggregate(replicates=REPS)
    assert run.status == "FINISHED"
    assert run.boards == ["da", "no", "sv", "scandinavian"]
    assert set(Leaderboard.objects.values_list("code", flat=True)) == {"da", "no", "sv", "scandinavian"}
    assert run.entries_total == 4 * 4 and run.entries_changed == 16
    da = Leaderboard.objects.get(code="da")
    assert [d["name"] for d in da.datasets] == ["angry-tweets", "dane"]  # not-counted-da left out
    assert da.datasets[1] == {
        "name": "dane",
        "task": "named-entity-recognition",
        "primary_metric": "micro_f1_no_misc",
        "secondary_metric": "micro_f1",
        "version": "published",
        "protocol": "iterations=10",
        "ranked": True,
    }
    no = Leaderboard.objects.get(code="no")
    assert [d["name"] for d in no.datasets] == ["norec"]  # nb/nn feed the Norwegian board
    group = Leaderboard.objects.get(code="scandinavian")
    assert group.kind == "group" and group.boards == ["da", "sv", "no"]

    entries = _entries("da")
    small = entries[("org/small", True)]
    assert small.rank is None and small.rank_score is None and small.rank_score_ci_low is None
    assert small.missing_datasets == ["dane"]
    assert small.position == 4  # unranked entries come last
    assert small.task_rank_scores["named-entity-recognition"] is None
    assert small.scores["angry-tweets"]["rank_score"] is not None
    big = entries[("org/big", True)]
    assert big.rank == 1 and big.rank_score == 1.0 and big.position == 1
    assert big.scores["angry-tweets"]["primary"]["metric"] == "mcc"
    assert big.scores["angry-tweets"]["primary"]["mean"] == pytest.approx(np.mean(it(0.70, seed=0)) * 100)
    assert big.scores["angry-tweets"]["secondary"]["metric"] == "macro_f1"
    # the small model is unranked on the group because it is unranked on da
    g = _entries("scandinavian")
    assert g[("org/small", True)].rank_score is None
    assert g[("org/small", True)].extra["language_rank_scores"]["da"] is None
    assert g[("org/small", True)].extra["language_rank_scores"]["no"] is not None


def test_db_numbers_are_exactly_the_pure_functions(boards):
    aggregate(["da"], replicates=REPS)
    keys = sorted(boards)  # entries in the service's order: model pk, few_shot
    entries = _entries("da")
    models = {e.model.model_id: e.model_id for e in entries.values()}
    order = sorted(keys, key=lambda k: (models[k[0]], k[1]))
    x = np.full((2, 4, 10), np.nan)
    for e, (model_id, few_shot) in enumerate(order):
        a, b, _, _ = boards[(model_id, few_shot)]
        k = list(boards).index((model_id, few_shot))
        x[0, e] = it(a, seed=k)
        if b is not None:
            x[1, e] = it(b, seed=k + 10)
    expected = ranking.rank_language_board(
        x, ["sentiment-classification", "named-entity-recognition"], replicates=REPS, seed=board_seed("da")
    )
    for e, key in enumerate(order):
        row = entries[key]
        if np.isfinite(expected.rank_scores[e]):
            assert row.rank_score == expected.rank_scores[e]
            assert row.rank_score_ci_low == expected.ci_low[e]
            assert row.rank_score_ci_high == expected.ci_high[e]
            assert row.rank == expected.ranks[e]
        else:
            assert row.rank_score is None and row.rank is None
        assert row.scores["angry-tweets"]["rank_score"] == expected.dataset_rank_scores[e, 0]


def test_aggregation_is_idempotent_and_detects_changes(boards):
    aggregate(replicates=REPS)
    again = aggregate(replicates=REPS)
    assert again.entries_changed == 0 and again.entries_total == 16
    # a new evaluation on da changes entries on da and on the group
    add_evaluation("org/small", dataset("dane", "named-entity-recognition", ["da"]), it(0.1, seed=99))
    third = aggregate(["da"], replicates=REPS)
    assert set(third.boards) == {"da", "no", "sv", "scandinavian"}  # a language refreshes its groups
    assert third.entries_changed > 0
    assert _entries("da")[("org/small", True)].rank_score is not None
    assert aggregate(replicates=REPS).entries_changed == 0
    assert AggregationRun.objects.filter(status="FINISHED").count() == 4


def test_unknown_board_is_a_clear_error_and_is_recorded(boards):
    with pytest.raises(UnknownBoard, match="xx"):
        aggregate(["xx"], replicates=REPS)
    run = AggregationRun.objects.latest("started_at")
    assert run.status == "FAILED" and "xx" in run.error
    with pytest.raises(UnknownBoard, match="germanic"):
        aggregate(["germanic"], replicates=REPS)  # de, nl, en have no results


def test_aggregate_command_and_export_command(boards, capsys):
    call_command("aggregate", "--language", "nb", "--replicates", "30")
    out = capsys.readouterr().out
    assert "Aggregated no, scandinavian" in out or "Aggregated da, no, sv, scandinavian" in out
    assert Leaderboard.objects.filter(code="no").exists()
    call_command("export_leaderboard", "no")
    doc = json.loads(capsys.readouterr().out)
    assert doc["language"] == "no" and len(doc["entries"]) == 4
    with pytest.raises(CommandError, match="no leaderboard 'zz'"):
        call_command("export_leaderboard", "zz")
    with pytest.raises(CommandError):
        call_command("aggregate", "--language", "zz")


def test_export_document_contract(boards):
    aggregate(replicates=REPS)
    doc = leaderboard_document("da")
    assert set(doc) >= {"language", "generated_at", "datasets", "entries"}
    assert doc["language"] == "da"
    e = doc["entries"][0]
    assert set(e) >= {
        "model",
        "few_shot",
        "validation_split",
        "rank",
        "rank_score",
        "rank_score_ci",
        "task_rank_scores",
        "scores",
        "num_model_parameters",
        "generative_type",
        "excluded",
        "commit",
    }
    ranked = [x for x in doc["entries"] if x["rank_score"] is not None]
    unranked = [x for x in doc["entries"] if x["rank_score"] is None]
    assert doc["entries"] == ranked + unranked
    assert [x["rank_score"] for x in ranked] == sorted(x["rank_score"] for x in ranked)
    assert all(x["rank_score_ci"][0] <= x["rank_score"] <= x["rank_score_ci"][1] for x in ranked)
    assert all(x["rank"] is None and x["rank_score_ci"] is None for x in unranked)
    zero_shot = next(x for x in doc["entries"] if not x["few_shot"])
    assert zero_shot["name"] == "org/mid (zero-shot)"
    s = e["scores"]["angry-tweets"]
    assert set(s) == {"primary", "secondary", "rank_score", "dataset_version", "evaluation", "eee"}
    assert s["eee"] == f"/api/evaluations/{s['evaluation']}/eee.json"
    assert s["dataset_version"] == "published" and e["excluded"] == []
    assert set(s["primary"]) == {"metric", "mean", "ci"} and 0 <= s["primary"]["mean"] <= 100


def test_api_json_csv_and_404(boards, client):
    aggregate(replicates=REPS)
    response = client.get("/api/leaderboards/da.json")
    assert response.status_code == 200
    assert response.json() == json.loads(json.dumps(leaderboard_document("da")))
    csv_response = client.get("/api/leaderboards/da.csv")
    assert csv_response.status_code == 200 and csv_response["Content-Type"].startswith("text/csv")
    lines = csv_response.content.decode().strip().splitlines()
    assert len(lines) == 1 + 4
    assert "angry-tweets_primary_mean" in lines[0] and "task_named-entity-recognition_rank_score" in lines[0]
    assert client.get("/api/leaderboards/scandinavian.csv").status_code == 200
    missing = client.get("/api/leaderboards/xx.json")
    assert missing.status_code == 404 and "error" in missing.json()
    assert client.get("/api/leaderboards/xx.csv").status_code == 404


def test_admin_action_enqueues_on_default_queue_and_task_records_user(boards, admin_client, admin_user):
    import redis

    from leaderboard.tasks.aggregation import aggregate_boards

    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("default")
    response = admin_client.post(
        "/admin/leaderboard/language/",
        {"action": "rerun_language_aggregation", "_selected_action": ["nb", "da"]},
        follow=True,
    )
    assert response.status_code == 200
    assert "queued" in response.content.decode()
    messages = [json.loads(m) for m in broker.lrange("default", 0, -1)]
    broker.delete("default")
    assert len(messages) == 1
    assert messages[0]["headers"]["task"] == "leaderboard.tasks.aggregate_boards"
    kwargs = json.loads(__import__("base64").b64decode(messages[0]["body"]))[1]
    assert kwargs == {"board_codes": ["da", "no"], "user_id": admin_user.pk, "trigger": "admin", "method": None}
    # what the worker will run
    result = aggregate_boards.apply(kwargs=kwargs).get()
    run = AggregationRun.objects.get(pk=result["run"])
    assert run.triggered_by == admin_user and run.trigger == "admin" and run.status == "FINISHED"
    assert run.entries_total > 0 and run.duration_seconds is not None
    # the Leaderboard admin has the same action
    response = admin_client.post(
        "/admin/leaderboard/leaderboard/",
        {"action": "rerun_board_aggregation", "_selected_action": ["sv"]},
        follow=True,
    )
    assert "queued" in response.content.decode()
    assert len(broker.lrange("default", 0, -1)) == 1
    broker.delete("default")


def test_a_group_leaves_out_members_without_a_board(boards, client):
    """EuroEval's rule: a language enters a group through its datasets, so one without a board
    is left out (the group page names it); with more than half missing there is no group."""
    from leaderboard.models import LanguageGroup

    LanguageGroup.objects.filter(slug="scandinavian").update(boards=["da", "sv", "no", "is"])
    LanguageGroup.objects.filter(slug="baltic").update(boards=["da", "lt", "lv"])
    run = aggregate(replicates=REPS)
    assert "scandinavian" in run.boards and "baltic" not in run.boards
    group = Leaderboard.objects.get(code="scandinavian")
    assert group.boards == ["da", "sv", "no"]
    assert set(_entries("scandinavian")[("org/big", True)].extra["language_rank_scores"]) == {"da", "sv", "no"}
    html = client.get("/leaderboards/scandinavian/").content.decode()
    assert '<span id="absent-languages">no board for Icelandic: left out</span>' in html
    with pytest.raises(UnknownBoard, match="more than half"):
        aggregate(["baltic"], replicates=REPS)
