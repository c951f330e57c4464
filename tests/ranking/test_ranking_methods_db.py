"""Ranking methods through the real aggregation on PostgreSQL: the stored ranking per
(board, method), its refresh when the board changes, the admin action and the commands."""

from __future__ import annotations

import base64
import json
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from leaderboard.models import AggregationRun, Leaderboard, LeaderboardRanking
from leaderboard.selectors.export import board_document, leaderboard_document
from leaderboard.services.aggregation import aggregate, current_ranking
from leaderboard.services.method_rankings import computed_ranking
from tests.ranking.builders import add_evaluation, dataset, it

pytestmark = pytest.mark.django_db


def test_another_method_is_stored_beside_the_board_and_refreshed_when_the_board_changes(boards):  # noqa: F811
    aggregate(replicates=50)
    da = Leaderboard.objects.get(code="da")
    before = leaderboard_document("da")
    run = aggregate(["da"], method="euroeval-2026")
    assert run.method == "euroeval-2026 v2" and {"da", "scandinavian"} <= set(run.boards)
    assert leaderboard_document("da") == before  # the board still shows its own method
    stored = LeaderboardRanking.objects.get(leaderboard=da, method="euroeval-2026")
    assert current_ranking(da, "euroeval-2026").generated_at == stored.generated_at  # cached, not recomputed
    group = leaderboard_document("scandinavian", "euroeval-2026")
    assert group["method"]["name"] == "euroeval-2026" and group["entries"][0]["rank"] == 1

    # New scores change the board: the stored 2026 ranking is recomputed once, on demand.
    add_evaluation("org/new", dataset("angry-tweets", "sentiment-classification", ["da"]), it(0.9, seed=99))
    aggregate(["da"], replicates=50)
    da.refresh_from_db()
    fresh = current_ranking(da, "euroeval-2026")
    assert fresh.generated_at > stored.generated_at and fresh.inputs_digest == da.inputs_digest
    assert len(fresh.entries) == da.num_entries
    assert current_ranking(da, "euroeval-2026").generated_at == fresh.generated_at


def test_the_deployment_method_is_a_setting(boards, settings):  # noqa: F811
    settings.GLOSSA_RANKING_METHOD = "euroeval-2026"
    aggregate(["sv"])
    sv = Leaderboard.objects.get(code="sv")
    assert (sv.method, sv.method_version) == ("euroeval-2026", "2")
    assert leaderboard_document("sv")["method"] == {"name": "euroeval-2026", "version": "2"}
    assert board_document(sv, computed_ranking(sv, "euroeval-2024"))["method"] == {
        "name": "euroeval-2024",
        "version": "4",
    }


def test_commands_reject_an_unknown_method(boards):  # noqa: F811
    with pytest.raises(CommandError, match="no ranking method 'nope'"):
        call_command("aggregate", "--method", "nope", stdout=StringIO())
    out = StringIO()
    call_command("aggregate", "-l", "sv", "--method", "euroeval-2026", stdout=out)
    assert "with euroeval-2026 v2" in out.getvalue()


def test_admin_action_reaggregates_with_another_method(boards, admin_client, admin_user):  # noqa: F811
    import redis

    from leaderboard.tasks.aggregation import aggregate_boards

    aggregate(["sv"], replicates=20)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("default")
    response = admin_client.post(
        "/admin/leaderboard/leaderboard/",
        {"action": "rerun_with_euroeval_2026", "_selected_action": ["sv"]},
        follow=True,
    )
    assert "with euroeval-2026 queued" in response.content.decode()
    messages = [json.loads(m) for m in broker.lrange("default", 0, -1)]
    broker.delete("default")
    kwargs = json.loads(base64.b64decode(messages[0]["body"]))[1]
    assert kwargs == {"board_codes": ["sv"], "user_id": admin_user.pk, "trigger": "admin", "method": "euroeval-2026"}
    result = aggregate_boards.apply(kwargs=kwargs).get()
    assert AggregationRun.objects.get(pk=result["run"]).method == "euroeval-2026 v2"
    assert LeaderboardRanking.objects.filter(leaderboard_id="sv", method="euroeval-2026").exists()


def test_compare_two_entries_under_either_method(boards):  # noqa: F811
    aggregate(replicates=100)
    for method in ("euroeval-2024", "euroeval-2026"):
        out = StringIO()
        call_command("compare_entries", "da", "org/big", "org/mid", "--method", method, stdout=out)
        result = json.loads(out.getvalue())
        assert result["method"]["name"] == method and result["replicates"] == 100
        assert result["p_a_ranks_above_b"] > 0.9  # big is clearly ahead of mid on both datasets
        assert result["a"]["rank_interval"][0] == 1
        assert set(result["datasets"]) == {"angry-tweets", "dane"}
        assert result["datasets"]["angry-tweets"]["primary_mean_difference"] > 10  # ×100
    with pytest.raises(CommandError, match="no entry 'org/none'"):
        call_command("compare_entries", "da", "org/big", "org/none", stdout=StringIO())
    back = json.loads(_compare("da", "org/mid", "org/big"))
    assert back["p_a_ranks_above_b"] < 0.1


def _compare(*args) -> str:
    out = StringIO()
    call_command("compare_entries", *args, stdout=out)
    return out.getvalue()
