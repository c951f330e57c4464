"""Board history (issue #15 item 5): a snapshot per aggregation that changed a board, what
changed since the previous one and why, and every past board viewable and exportable.

The diff is checked on hand-built snapshots; the snapshots themselves come from the real
aggregation on PostgreSQL, and the pages are read through the test client."""

from __future__ import annotations

import csv
import io
import json
from functools import partial

import numpy as np
import pytest
from bs4 import BeautifulSoup

from leaderboard.csv_safe import neutralise
from leaderboard.models import BoardSnapshot
from leaderboard.selectors.board_history import changes, dataset_summary
from leaderboard.services.aggregation import aggregate
from tests.ranking.builders import add_evaluation, dataset
from tests.ranking.builders import it as iteration_scores


def entry(model, rank, scores, commit="c1", position=None, few_shot=True):
    return {
        "model": model,
        "name": model,
        "few_shot": few_shot,
        "validation_split": False,
        "position": position or rank or 99,
        "rank": rank,
        "rank_score": None if rank is None else float(rank),
        "ci": None,
        "commit": commit,
        "scores": scores,
    }


def snap(entries, version="2"):
    return {"method": "euroeval-2024", "method_version": version, "entries": entries}


def test_dataset_summary_is_best_mean_and_population_spread():
    summary = dataset_summary([entry("a", 1, {"d": 80.0}), entry("b", 2, {"d": 60.0}), entry("c", 3, {"d": 70.0})])
    best, sigma, who = summary["d"]
    assert best == 80.0 and who == "a"
    assert sigma == pytest.approx(np.std([80.0, 60.0, 70.0]))


def test_a_new_best_model_moves_the_others_and_says_why():
    before = snap([entry("a", 1, {"d": 80.0}), entry("b", 2, {"d": 60.0})])
    after = snap(
        [entry("new", 1, {"d": 90.0}), entry("a", 2, {"d": 80.0}, position=2), entry("b", 3, {"d": 60.0}, position=3)]
    )
    diff = changes(before, after)
    assert [e["model"] for e in diff.added] == ["new"] and diff.removed == []
    assert [(m.entry["model"], m.before["rank"], m.entry["rank"], m.direction) for m in diff.moved] == [
        ("a", 1, 2, "down"),
        ("b", 2, 3, "down"),
    ]
    reasons = diff.moved[0].reasons
    assert any("best mean on d changed (80.00 → 90.00, now new)" in r for r in reasons)
    assert any("spread (σ) of the means on d changed" in r for r in reasons)
    assert any("1 entry joined the board" in r for r in reasons)


def test_own_new_scores_are_the_reason_when_they_changed():
    before = snap([entry("a", 1, {"d": 80.0}), entry("b", 2, {"d": 60.0})])
    after = snap([entry("b", 1, {"d": 85.0}, commit="c2"), entry("a", 2, {"d": 80.0}, position=2)])
    diff = changes(before, after)
    moved = {m.entry["model"]: m for m in diff.moved}
    assert moved["b"].direction == "up"
    assert moved["b"].reasons == ["its scores are now those of commit c2", "new scores on d"]
    # a did not change: its reasons are the board's
    assert any("best mean on d" in r for r in moved["a"].reasons)


def test_nothing_moves_when_nothing_changed_and_a_method_change_is_named():
    board = snap([entry("a", 1, {"d": 80.0}), entry("b", 2, {"d": 60.0})])
    assert changes(board, board).empty
    other = snap([entry("a", 1, {"d": 80.0}), entry("b", 1, {"d": 60.0})], version="3")
    diff = changes(board, other)
    assert diff.moved[0].reasons == ["the ranking method changed from euroeval-2024 v2 to euroeval-2024 v3"]
    unranked = snap([entry("a", 1, {"d": 80.0}), entry("b", None, {})])
    assert changes(board, unranked).moved[0].direction == "unranked"


def test_csv_cells_are_neutralised_but_numbers_stay_numbers():
    assert neutralise('=HYPERLINK("http://x","y")') == '\'=HYPERLINK("http://x","y")'
    assert neutralise("+1+2") == "'+1+2" and neutralise("@SUM(A1)") == "'@SUM(A1)" and neutralise("\tx") == "'\tx"
    assert neutralise("-1.5") == "-1.5" and neutralise("-2e-3") == "-2e-3" and neutralise(-1.5) == -1.5
    assert neutralise("org/model") == "org/model" and neutralise(None) is None


it = partial(iteration_scores, spread=0.01)


@pytest.fixture
def danish(db):
    sent = dataset("angry-tweets", "sentiment-classification", ["da"])
    ner = dataset("dane", "named-entity-recognition", ["da"])
    for k, (model_id, quality) in enumerate([("org/big", 0.8), ("org/mid", 0.6), ("org/small", 0.4)]):
        add_evaluation(model_id, sent, it(quality, k), it(quality, k + 9))
        add_evaluation(model_id, ner, it(quality, k + 3), it(quality, k + 6))
    return sent, ner


@pytest.mark.django_db
def test_aggregations_keep_snapshots_and_pages_show_what_changed(danish, client):
    sent, ner = danish
    aggregate(["da"], replicates=20)
    aggregate(["da"], replicates=20)  # nothing changed: no new snapshot
    assert BoardSnapshot.objects.filter(leaderboard_id="da").count() == 1
    hostile = '=HYPERLINK("http://evil.example","x")'
    add_evaluation("org/best", sent, it(0.95, 20), it(0.95, 21))
    add_evaluation("org/best", ner, it(0.95, 22), it(0.95, 23))
    add_evaluation(hostile, sent, it(0.5, 30), it(0.5, 31))
    add_evaluation(hostile, ner, it(0.5, 32), it(0.5, 33))
    aggregate(["da"], replicates=20)
    first, second = BoardSnapshot.objects.filter(leaderboard_id="da").order_by("taken_at", "pk")
    assert len(first.entries) == 3 and len(second.entries) == 5
    assert second.method == "euroeval-2024" and second.inputs_digest and second.inputs_digest != first.inputs_digest

    page = BeautifulSoup(client.get("/leaderboards/da/").content, "html.parser")
    box = page.select_one("#board-changes")
    assert "2 added" in box.get_text() and "org/best" in box.get_text()
    moved = box.get_text(" ", strip=True)
    assert "org/big: rank 1 → 2" in moved and "best mean on angry-tweets changed" in moved
    history = BeautifulSoup(client.get("/leaderboards/da/history/").content, "html.parser")
    rows = history.select("#board-history tbody tr")
    assert len(rows) == 2
    cells = [td.get_text(strip=True) for td in rows[0].select("td")]
    assert cells[2:7] == ["5", "5", "2", "0", "3"]  # entries, ranked, added, removed, moved

    old = client.get(f"/leaderboards/da/history/{first.pk}/")
    assert old.status_code == 200
    table = BeautifulSoup(old.content, "html.parser").select("#snapshot-board tbody tr")
    assert [tr.select("td")[1].get_text(strip=True) for tr in table] == ["org/big", "org/mid", "org/small"]
    doc = json.loads(client.get(f"/leaderboards/da/history/{second.pk}/?format=json").content)
    assert doc["method"] == {"name": "euroeval-2024", "version": second.method_version}
    assert doc["previous"] == first.pk and {e["model"] for e in doc["changes"]["added"]} == {"org/best", hostile}
    rows = list(
        csv.reader(io.StringIO(client.get(f"/leaderboards/da/history/{second.pk}/?format=csv").content.decode()))
    )
    assert rows[0][:3] == ["position", "rank", "model"] and len(rows) == 6
    assert "'" + hostile in [r[2] for r in rows]  # neutralised, not a formula
    # The latest snapshot is the board as it stands: its CSV has the live board's columns,
    # and the values a snapshot keeps are the board's.
    live = list(csv.DictReader(io.StringIO(client.get("/api/leaderboards/da.csv").content.decode())))
    past = list(
        csv.DictReader(io.StringIO(client.get(f"/leaderboards/da/history/{second.pk}/?format=csv").content.decode()))
    )
    assert rows[0] == list(live[0].keys())
    kept = [k for k in rows[0] if k.endswith("_primary_mean") or k in ("position", "rank", "model", "commit")]
    assert [[r[k] for k in kept] for r in past] == [[r[k] for k in kept] for r in live]
    assert all(r["num_model_parameters"] == "" for r in past)  # not kept by a snapshot: empty
    board_csv = list(csv.reader(io.StringIO(client.get("/leaderboards/da/export.csv").content.decode())))
    cells = {cell for row in board_csv for cell in row}
    assert "'" + hostile in cells and hostile not in cells
    api_csv = list(csv.reader(io.StringIO(client.get("/api/leaderboards/da.csv").content.decode())))
    assert not any(cell.startswith("=") for row in api_csv for cell in row)
    assert "'" + hostile in {cell for row in api_csv for cell in row}
    assert client.get("/leaderboards/da/history/999999/").status_code == 404
    assert client.get(f"/leaderboards/da/history/{first.pk}/?format=xml").status_code == 404
