"""EuroEval's 2026 ranking method (``euroeval-2026``) reproduces EuroEval's new-method Dutch
boards from the records alone, and ranking methods are named, versioned and pluggable.

The records (``data/euroeval-2026/records_dutch.jsonl.gz``) go through the real importer and
the real aggregation on PostgreSQL; the expected boards are what EuroEval's own generator at
``f37841c8d`` computes from them (see that folder's README). The bounds are EuroEval's own
seed-to-seed noise on single-language boards.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from leaderboard.models import Leaderboard, LeaderboardRanking
from leaderboard.published.method_boards import MethodAgreement, MethodBoardFormatError, agreement, parse_method_board
from leaderboard.ranking import (
    BoardRanking,
    RankingMethod,
    get_method,
    rank_intervals,
    register,
    replicate_ranks,
    unregister,
    win_probability,
)
from leaderboard.ranking.methods.euroeval_2026 import dropped_validation_entries, rank_category, tie_ranks
from leaderboard.selectors.export import leaderboard_csv, leaderboard_document
from leaderboard.selectors.method_ranks import entry_ranks
from leaderboard.services.aggregation import aggregate
from leaderboard.services.method_rankings import computed_ranking
from leaderboard.services.results_import import import_file

FIXTURE = Path(__file__).parent / "data" / "euroeval-2026"
GENERATIVE = "dutch_generative_f37841c8d.csv"
ALL_MODELS = "dutch_all_models_f37841c8d.csv"


def within_euroeval_noise(result: MethodAgreement) -> bool:
    return (
        result.same_ranked_set
        and result.mean_abs_diff <= 0.02
        and result.max_abs_diff <= 0.08
        and result.spearman >= 0.999
        and result.neighbours_alike >= 0.70
    )


def expected(name: str):
    return parse_method_board((FIXTURE / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="class")
def dutch_records(django_db_setup, django_db_blocker):
    """EuroEval's Dutch records in the test database for one class of tests, then rolled back."""
    with django_db_blocker.unblock(), transaction.atomic():
        report = import_file(FIXTURE / "records_dutch.jsonl.gz")
        assert report.errors == [] and report.imported == 2470, report.summary()
        yield
        transaction.set_rollback(True)


# --- the method's pieces, by hand ---------------------------------------------------------


def test_pooled_spread_rank_scores_by_hand():
    # Two datasets, one task each; three entries, two iterations each.
    scores = np.array(
        [
            [[0.9, 0.7], [0.5, 0.5], [0.3, 0.1]],
            [[0.6, 0.6], [0.8, 0.8], [0.4, 0.4]],
        ]
    )
    board = rank_category(scores, ["a", "b"], np.ones(3, bool), replicates=0, seed=42)
    sd0 = np.std([0.9, 0.7, 0.5, 0.5, 0.3, 0.1])  # population sd of every iteration score
    sd1 = np.std([0.6, 0.6, 0.8, 0.8, 0.4, 0.4])
    want = np.array(
        [
            [1.0, 1 + 0.2 / sd1],
            [1 + 0.3 / sd0, 1.0],
            [1 + 0.6 / sd0, 1 + 0.4 / sd1],
        ]
    )
    np.testing.assert_allclose(board.dataset_rank_scores, want)
    np.testing.assert_allclose(board.rank_scores, want.mean(axis=1))


def test_validation_entry_dropped_only_when_a_test_entry_exists():
    entries = [(1, True, False), (1, True, True), (2, True, True), (3, False, False), (3, True, True)]
    assert dropped_validation_entries(entries).tolist() == [False, True, False, False, False]


def test_tie_ranks_open_a_rank_only_when_clearly_worse_than_the_anchor():
    rng = np.random.default_rng(0)
    reps = np.stack([rng.normal(1.0, 0.01, 200), rng.normal(1.005, 0.01, 200), rng.normal(2.0, 0.01, 200)], axis=1)
    ranks = tie_ranks(np.median(reps, axis=0), reps)
    assert ranks.tolist() == [1, 1, 2]


# --- adding a method is one module ----------------------------------------------------------


class ToyMethod(RankingMethod):
    """Rank by mean primary score over all datasets, best first; no bootstrap."""

    name = "toy-mean"
    version = "7"
    default_replicates = 0

    def rank_language_board(self, scores, dataset_tasks, entries, *, replicates, seed):
        mean = np.nanmean(np.nanmean(scores, axis=2), axis=0)
        score = np.where(np.isnan(mean), np.inf, 1 + (np.nanmax(mean) - mean))
        order = np.argsort(score, kind="stable")
        ranks = np.zeros(len(score), int)
        ranks[order] = np.arange(1, len(score) + 1)
        ranks[~np.isfinite(score)] = 0
        nan = np.full(len(score), np.nan)
        tasks = list(dict.fromkeys(dataset_tasks))
        return BoardRanking(
            score, nan, nan.copy(), ranks, np.zeros((0, len(score))), tasks,
            np.full((len(score), len(tasks)), np.nan), np.full((len(score), scores.shape[0]), np.nan),
        )  # fmt: skip

    def rank_group_board(self, language_scores, language_replicates):
        raise NotImplementedError


# --- rank intervals and pairwise odds (any method) --------------------------------------------


def test_rank_interval_of_a_clear_winner_is_one_to_one():
    rng = np.random.default_rng(3)
    # Entry 0 is far ahead on every dataset; entries 1 and 2 are indistinguishable.
    means = np.array([0.95, 0.50, 0.50, 0.20])
    scores = np.clip(means[None, :, None] + rng.normal(0, 0.02, (6, 4, 10)), 0, 1)
    tasks = ["a", "a", "b", "b", "c", "c"]
    for name in ("euroeval-2024", "euroeval-2026"):
        method = get_method(name)
        board = method.rank_language_board(scores, tasks, [(k, True, False) for k in range(4)], replicates=200, seed=1)
        low, high = rank_intervals(board.replicates, board.rank_scores)
        assert (low[0], high[0]) == (1, 1), name
        assert (low[3], high[3]) == (4, 4), name
        assert low[1] == 2 and high[1] == 3 and low[2] == 2 and high[2] == 3, name
        assert win_probability(board.replicates, 0, 1) == 1.0
        assert 0.2 < win_probability(board.replicates, 1, 2) < 0.8


def test_replicate_ranks_by_hand():
    reps = np.array([[1.0, 2.0, 3.0, np.inf], [2.5, 2.0, 1.0, np.inf]])
    points = np.array([1.0, 2.0, 3.0, np.inf])
    assert replicate_ranks(reps, points).tolist() == [[1, 2, 3, 0], [3, 2, 1, 0]]
    low, high = rank_intervals(reps, points)
    assert low.tolist() == [1, 2, 1, 0] and high.tolist() == [3, 2, 3, 0]
    assert win_probability(reps, 0, 1) == 0.5


def test_new_method_board_csv_is_read_strictly():
    good = "Rank,Model,Rank score,rank_score,ci_lower,ci_upper\n1,a,1.00 ± 0.01,1.0,0.99,1.01\n-,b,-,,,\n"
    board = parse_method_board(good)
    assert board.models == ["a", "b"] and board.ranks == [1, None] and np.isnan(board.scores[1])
    for bad in (
        "Rank,Model\n1,a\n",
        good.replace("1,a,1.00", "x,a,1.00"),
        good.replace(",1.0,0.99", ",,0.99"),
        good + "2,c,1.2\n",
    ):
        with pytest.raises(MethodBoardFormatError):
            parse_method_board(bad)


def test_reproduce_board_needs_a_board_for_a_new_method_csv(db):
    with pytest.raises(CommandError, match="--board"):
        call_command("reproduce_board", str(FIXTURE / GENERATIVE), stdout=StringIO())
    with pytest.raises(CommandError, match="no board 'nl'"):
        call_command("reproduce_board", str(FIXTURE / GENERATIVE), board="nl", stdout=StringIO())


@pytest.mark.django_db
class TestOnTheDutchRecords:
    """The tests that read the 2,470 Dutch records, imported once for all of them (about 20
    seconds each time) in a transaction rolled back after the last."""

    def test_dutch_boards_reproduced_from_records(self, dutch_records, client):
        aggregate(["nl"], replicates=0)  # the deployment's method (euroeval-2024) shows on the board
        lb = Leaderboard.objects.get(code="nl")
        assert (lb.method, lb.method_version) == ("euroeval-2024", "4")
        aggregate(["nl"], method="euroeval-2026")
        stored = LeaderboardRanking.objects.get(leaderboard=lb, method="euroeval-2026")
        assert stored.method_version == "2"

        generative = agreement(expected(GENERATIVE), entry_ranks(lb, computed_ranking(lb, "euroeval-2026")))
        all_models = agreement(
            expected(ALL_MODELS), entry_ranks(lb, computed_ranking(lb, "euroeval-2026"), "all_models")
        )
        assert generative.compared == 134 and all_models.compared == 320
        assert within_euroeval_noise(generative), generative
        assert within_euroeval_noise(all_models), all_models

        # The same bounds reject the 2024 method on the same records: the test can fail.
        old = agreement(expected(GENERATIVE), entry_ranks(lb, computed_ranking(lb, "euroeval-2024")))
        assert not within_euroeval_noise(old), old

        # The board itself still shows euroeval-2024, and its export says so; ?method= / --method
        # serve the stored 2026 ranking without recomputing it.
        lb.refresh_from_db()
        assert lb.method == "euroeval-2024"
        doc = leaderboard_document("nl", "euroeval-2026")
        assert doc["method"] == {"name": "euroeval-2026", "version": "2"}
        assert leaderboard_document("nl")["method"] == {"name": "euroeval-2024", "version": "4"}
        assert (
            LeaderboardRanking.objects.get(leaderboard=lb, method="euroeval-2026").generated_at == stored.generated_at
        )
        top = doc["entries"][0]
        theirs = expected(GENERATIVE)
        assert top["rank"] == 1 and top["name"] in [m for m, r in zip(theirs.models, theirs.ranks) if r == 1]
        assert "all_models" in top["method_extra"]
        assert top["rank_interval"][0] == 1 and 0.0 <= top["p_above_next"] <= 1.0
        assert leaderboard_csv("nl", "euroeval-2026").splitlines()[1].endswith(",euroeval-2026,2")

        out = StringIO()
        call_command("reproduce_board", str(FIXTURE / ALL_MODELS), board="nl", stdout=out)
        assert "compared 320" in out.getvalue() and "Spearman 0.99" in out.getvalue()

        # The board page says which method ranked it and links the other; ?method= shows it.
        page = client.get("/leaderboards/nl/").content.decode()
        assert "<code>euroeval-2024</code> v4" in page and "?method=euroeval-2026" in page
        page = client.get("/leaderboards/nl/?method=euroeval-2026").content.decode()
        assert "<code>euroeval-2026</code> v2" in page and "not the board's own" in page
        exported = client.get("/leaderboards/nl/export.json?method=euroeval-2026").json()
        assert exported["method"] == {"name": "euroeval-2026", "version": "2"}
        assert exported["entries"][0]["rank_score"] == pytest.approx(doc["entries"][0]["rank_score"], abs=1e-4)
        csv_head, csv_first = (
            client.get("/leaderboards/nl/export.csv?method=euroeval-2026").content.decode().splitlines()[:2]
        )
        assert csv_head.endswith("method,method_version") and csv_first.endswith("euroeval-2026,2")
        assert (
            LeaderboardRanking.objects.get(leaderboard=lb, method="euroeval-2026").generated_at == stored.generated_at
        )
        methodology = client.get("/methodology/").content.decode()
        assert "euroeval-2026" in methodology and "(this deployment's default)" in methodology

    def test_same_records_with_euroeval_2024_still_reproduce_the_april_board(self, dutch_records):
        from scipy import stats

        from leaderboard.published.boards import parse_board

        aggregate(["nl"], replicates=0, method="euroeval-2024")
        nl = Leaderboard.objects.get(code="nl")
        ours = entry_ranks(nl, computed_ranking(nl, "euroeval-2024"))
        published = parse_board((FIXTURE / "dutch_all_b31e10f1.csv").read_text(encoding="utf-8"))
        theirs = {m: s for m, s in zip(published.models, published.published) if np.isfinite(s)}
        assert {m for m, v in ours.items() if v[1] is not None} == set(theirs)
        a = np.array([ours[m][1] for m in sorted(theirs)])
        b = np.array([theirs[m] for m in sorted(theirs)])
        assert np.mean(np.abs(a - b)) < 0.01 and stats.spearmanr(a, b).statistic > 0.999

    def test_export_command_takes_a_method(self, dutch_records):
        aggregate(["nl"], replicates=0)
        out = StringIO()
        call_command("export_leaderboard", "nl", method="euroeval-2026", stdout=out)
        assert json.loads(out.getvalue())["method"] == {"name": "euroeval-2026", "version": "2"}
        with pytest.raises(Exception, match="no ranking method 'nope'"):
            call_command("export_leaderboard", "nl", method="nope", stdout=StringIO())

    def test_a_toy_method_registers_and_aggregates(self, dutch_records):
        register(ToyMethod())
        try:
            assert get_method("toy-mean").version == "7"
            aggregate(["nl"], replicates=0)
            run = aggregate(["nl"], method="toy-mean")
            assert run.method == "toy-mean v7"
            doc = leaderboard_document("nl", "toy-mean")
            assert doc["method"] == {"name": "toy-mean", "version": "7"}
            assert doc["entries"][0]["rank"] == 1 and doc["entries"][0]["rank_score"] == 1.0
        finally:
            unregister("toy-mean")
