"""The rank column of a board (issue #27.2): rows in the order of the printed rank, and the
rank's 95% sets and P(above next) in columns on a wide screen, one tap away on a narrow
one, and in both exports."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from bs4 import BeautifulSoup

from leaderboard.models import LeaderboardEntry
from leaderboard.services.aggregation import aggregate
from tests.ranking.builders import add_evaluation, dataset

pytestmark = pytest.mark.django_db

# Four steady leaders; a steady entry just below them (all four significantly better: rank 5)
# and a noisy one with a lower mean (nothing significantly better: rank 2, but a worse
# rank score); the printed rank and the rank score disagree on their order.
ENTRIES = [("top/a", 0.80, 0.01), ("top/b", 0.80, 0.01), ("top/c", 0.80, 0.01), ("top/d", 0.80, 0.01)]
ENTRIES += [("mid/steady", 0.75, 0.01), ("mid/noisy", 0.65, 0.2), ("low/steady", 0.70, 0.01)]


def iterations(mean: float, seed: int, spread: float) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(np.round(np.clip(mean + rng.normal(0, spread, 10), 0, 1), 6))


@pytest.fixture
def crossed_board(db):
    ds = dataset("scala-da", "linguistic-acceptability", ["da"])
    for k, (model_id, mean, spread) in enumerate(ENTRIES):
        add_evaluation(model_id, ds, iterations(mean, k, spread))
    aggregate(["da"])
    entries = LeaderboardEntry.objects.filter(leaderboard__code="da").select_related("model")
    return {e.model.model_id: e for e in entries}


def ranked_rows(soup) -> list:
    return soup.select("#board-table tbody.ranked tr")


def test_rows_follow_the_printed_rank_even_where_the_rank_score_does_not(client, crossed_board):
    steady, noisy = crossed_board["mid/steady"], crossed_board["mid/noisy"]
    assert noisy.rank < steady.rank and noisy.rank_score > steady.rank_score  # the case at hand
    soup = BeautifulSoup(client.get("/leaderboards/da/").content.decode(), "html.parser")
    rows = ranked_rows(soup)
    ranks = [int(tr.select_one("td.c-rank .rank-plain").get_text()) for tr in rows]
    scores = [float(tr.select_one("td.c-score")["data-v"]) for tr in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    assert scores != sorted(scores)  # the rank score alone would put them the other way round
    names = [tr.select_one("th.c-model")["data-v"] for tr in rows]
    assert names.index("mid/noisy") < names.index("mid/steady")
    # the stored positions and the export agree with the page
    doc = client.get("/leaderboards/da/export.json").json()
    assert [e["name"] for e in doc["entries"]] == names
    assert [e["rank"] for e in doc["entries"]] == ranks


def test_rank_sets_and_odds_are_columns_and_one_tap_away(client, crossed_board):
    soup = BeautifulSoup(client.get("/leaderboards/da/").content.decode(), "html.parser")
    headers = [th["data-key"] for th in soup.select("#board-table thead th")]
    assert headers[:5] == ["rank", "model", "rankint", "rankset", "pnext"]
    assert "95% set" in soup.select_one("#rank-explained").get_text()
    for tr in ranked_rows(soup):
        entry = crossed_board[tr.select_one("th.c-model")["data-v"]]
        extra = entry.extra
        low, high = extra["rank_set_marginal"]
        shown = f"{low}–{high}" if low != high else str(low)
        assert tr.select_one("td.c-rankint").get_text() == shown
        s_low, s_high = extra["rank_set_simultaneous"]
        assert tr.select_one("td.c-rankset").get_text() == (f"{s_low}–{s_high}" if s_low != s_high else str(s_low))
        note = tr.select_one("td.c-rank details.rank-more")  # what a phone shows on a tap
        assert note.select_one("summary").get_text().startswith(str(entry.rank))
        assert f"95% rank set: {shown}" in note.get_text()
        if "p_above_next" in extra:
            assert tr.select_one("td.c-pnext").get_text() == f"{extra['p_above_next']:.2f}"
            assert f"P(above next row): {extra['p_above_next']:.2f}" in note.get_text()
        else:  # the last ranked row has no next row
            assert tr.select_one("td.c-pnext").get_text() == "–"
        assert not tr.select_one("td.c-rank").get("title")  # nothing hides in a tooltip
    # P(above next) is the share of replicates in which the row beats the row below it
    assert all(0.0 <= e.extra.get("p_above_next", 0.5) <= 1.0 for e in crossed_board.values())


def test_exports_carry_the_rank_sets_and_p_above_next(client, crossed_board):
    rows = list(csv.DictReader(io.StringIO(client.get("/leaderboards/da/export.csv").content.decode())))
    doc = client.get("/leaderboards/da/export.json").json()
    assert len(rows) == len(doc["entries"]) == len(ENTRIES)
    for row, entry in zip(rows, doc["entries"], strict=True):
        stored = crossed_board[entry["model"]].extra
        assert entry["rank_set_marginal"] == stored["rank_set_marginal"]
        assert entry["rank_set_simultaneous"] == stored["rank_set_simultaneous"]
        assert entry["p_above_next"] == stored.get("p_above_next")
        assert [int(row["rank_marginal_low"]), int(row["rank_marginal_high"])] == stored["rank_set_marginal"]
        expected = stored.get("p_above_next")
        assert row["p_above_next"] == ("" if expected is None else repr(expected))


def test_the_compare_form_carries_the_board_and_its_view(client, crossed_board):
    soup = BeautifulSoup(client.get("/leaderboards/da/?sort=params&dir=desc&q=top").content.decode(), "html.parser")
    form = soup.select_one("form#compare-form")
    carried = [(i["name"], i["value"]) for i in form.select("input[type=hidden]")]
    assert carried == [("board", "da"), ("q", "top"), ("sort", "params"), ("dir", "desc")]
