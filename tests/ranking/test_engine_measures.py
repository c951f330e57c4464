"""Bits per byte and the membership probe on the site (issue #16.6-7): validated on import,
pooled into a board column that never ranks, flagged in a cell, explained on the model page."""

from __future__ import annotations

import math

import pytest
from bs4 import BeautifulSoup

from leaderboard.models import LeaderboardEntry
from leaderboard.record_fields import CONTAMINATION_FIELDS, INTRINSIC_FIELDS, InvalidRecord, evidence_field
from leaderboard.services.aggregation import aggregate
from tests.ranking.builders import add_evaluation, dataset, it

REPS = 40


def measures(nats: float, num_bytes: int, auc: float, flag: bool) -> dict:
    return {
        "intrinsic": {"texts": 8, "bytes": num_bytes, "tokens": 300, "nats": nats,
                      "bits_per_byte": -nats / math.log(2) / num_bytes, "perplexity": 9.0},
        "contamination": {"statistic": "Min-20% Prob", "k": 0.2, "test_mean": -3.0, "train_mean": -4.0,
                          "auc": auc, "p_value": 0.01 if flag else 0.4, "n_test": 8, "n_train": 8, "flag": flag},
    }  # fmt: skip


@pytest.fixture
def board(db):
    sent = dataset("angry-tweets", "sentiment-classification", ["da"])
    ner = dataset("dane", "named-entity-recognition", ["da"])
    for k, (model_id, quality) in enumerate([("org/big", 0.8), ("org/mid", 0.6), ("org/small", 0.4)]):
        for d, ds in enumerate((sent, ner)):
            ev = add_evaluation(model_id, ds, it(quality, seed=k + 3 * d), it(quality, seed=k + 6 * d))
            if model_id == "org/big":  # the only decoder Glossa evaluated: it has the measures
                ev.record = measures(-1000.0 * (d + 1), 1000 * (d + 1), 0.8 if d == 0 else 0.5, d == 0)
                ev.save()
    return sent, ner


def test_the_board_pools_bits_per_byte_and_never_ranks_by_it(board, client):
    aggregate(["da"], replicates=REPS)
    before = {e.model.model_id: e.rank_score for e in LeaderboardEntry.objects.filter(leaderboard_id="da")}
    big = LeaderboardEntry.objects.get(leaderboard_id="da", model__model_id="org/big")
    assert big.scores["angry-tweets"]["measures"] == {
        "nats": -1000.0,
        "bytes": 1000,
        "probe_auc": 0.8,
        "probe_flag": True,
    }
    soup = BeautifulSoup(client.get("/leaderboards/da/").content.decode(), "html.parser")
    header = [th.get("data-key") for th in soup.select("#board-table thead th")]
    assert "bpb" in header
    column = header.index("bpb")
    cells = {
        tr.select_one("th.c-model")["data-v"]: tr.find_all(["td", "th"])[column].get_text()
        for tr in soup.select("#board-table tbody tr:not(.section)")
    }
    assert (
        cells["org/big"] == f"{3000 / 3000 / math.log(2):.3f}" and cells["org/mid"] == "–"
    )  # pooled: 3000 nats / 3000 B
    probes = soup.select("#board-table td.ds .flag.probe")
    assert len(probes) == 1 and "AUC 0.80" in probes[0]["title"]
    # the ranking is the scores' alone: without the measures it is the same
    LeaderboardEntry.objects.all().delete()
    from leaderboard.models import Evaluation

    Evaluation.objects.update(record={})
    aggregate(["da"], replicates=REPS)
    assert {e.model.model_id: e.rank_score for e in LeaderboardEntry.objects.filter(leaderboard_id="da")} == before
    assert "bpb" not in [th.get("data-key") for th in BeautifulSoup(
        client.get("/leaderboards/da/").content.decode(), "html.parser").select("#board-table thead th")]  # fmt: skip


def test_the_model_page_explains_the_probe(board, client):
    soup = BeautifulSoup(client.get("/models/org/big/").content.decode(), "html.parser")
    rows = {tr.find("td").get_text().split()[0]: tr for tr in soup.select("#scores-table tbody tr")}
    assert "◎ familiar" in rows["angry-tweets"].get_text() and "AUC 0.80" in rows["angry-tweets"].get_text()
    assert "◎ familiar" not in rows["dane"].get_text() and "AUC 0.50" in rows["dane"].get_text()
    assert "cannot prove it" in soup.select_one("#probe-explained").get_text()


@pytest.mark.parametrize(
    "key, value",
    [
        ("intrinsic", "fast"),
        ("intrinsic", {"nats": float("nan")}),
        ("intrinsic", {"bytes": -3}),
        ("intrinsic", {"bytes": 2.5}),
        ("intrinsic", {"shell": 1}),
        ("intrinsic", {"max_texts": -8}),
        ("intrinsic", {"bits_per_byte_se": "small"}),
        ("contamination", {"flag": "yes"}),
        ("contamination", {"statistic": "x" * 500}),
        ("contamination", {"auc": True}),
        ("contamination", {"auc_se": float("inf")}),
    ],
)
def test_hostile_measures_are_refused(key, value):
    fields = INTRINSIC_FIELDS if key == "intrinsic" else CONTAMINATION_FIELDS
    with pytest.raises(InvalidRecord, match=key):
        evidence_field({key: value}, key, fields)
    assert evidence_field({}, key, fields) is None


def test_bits_per_byte_pools_only_cells_measured_under_the_datasets_usual_budget(board, client):
    from leaderboard.models import Evaluation

    sent, _ = board
    for model_id, nats in (("org/mid", -2000.0), ("org/small", -3000.0)):  # two cells at the new budget
        ev = Evaluation.objects.get(model__model_id=model_id, dataset__name=sent.name)
        ev.record = measures(nats, 1000, 0.5, False)
        ev.record["intrinsic"].update(max_texts=8, max_chars=300, bits_per_byte_se=0.05)
        ev.record["contamination"]["auc_se"] = 0.15
        ev.save()
    aggregate(["da"], replicates=REPS)
    cells = {e.model.model_id: e.scores for e in LeaderboardEntry.objects.filter(leaderboard_id="da")}
    # org/big's angry-tweets cell says no budget: the 32 × 600 before the setting, not the usual one here
    assert cells["org/big"]["angry-tweets"]["measures"] == {"probe_auc": 0.8, "probe_flag": True}
    assert cells["org/big"]["dane"]["measures"]["nats"] == -2000.0  # alone on dane: its budget is the usual one
    assert cells["org/mid"]["angry-tweets"]["measures"]["nats"] == -2000.0
    soup = BeautifulSoup(client.get("/leaderboards/da/").content.decode(), "html.parser")
    column = [th.get("data-key") for th in soup.select("#board-table thead th")].index("bpb")
    shown = {
        tr.select_one("th.c-model")["data-v"]: tr.find_all(["td", "th"])[column].get_text()
        for tr in soup.select("#board-table tbody tr:not(.section)")
    }
    assert shown["org/big"] == f"{2000 / 2000 / math.log(2):.3f}"  # dane alone, not pooled with angry-tweets
    assert shown["org/small"] == f"{3000 / 1000 / math.log(2):.3f}"
    page = BeautifulSoup(client.get("/models/org/mid/").content.decode(), "html.parser")
    row = next(tr.get_text() for tr in page.select("#scores-table tbody tr") if "angry-tweets" in tr.get_text())
    assert f"{2000 / 1000 / math.log(2):.3f} ± 0.050" in row and "AUC 0.50 ± 0.15, p 0.4" in row  # the errors shown


def test_one_budget_per_dataset_keeps_the_most_used_and_the_larger_on_a_tie():
    from leaderboard.selectors.cells import one_budget_per_dataset

    def cell(budget, auc=None):
        return {"nats": -1.0, "bytes": 1, "budget": budget, **({"probe_auc": auc} if auc else {})}

    kept = one_budget_per_dataset(
        {
            (0, 0): cell((8, 300)), (1, 0): cell((8, 300)), (2, 0): cell((32, 600), auc=0.5),
            (0, 1): cell((8, 300)), (1, 1): cell((32, 600)),  # a tie: the larger budget
            (2, 1): {"probe_auc": 0.7},
        }
    )  # fmt: skip
    assert kept == {
        (0, 0): {"nats": -1.0, "bytes": 1}, (1, 0): {"nats": -1.0, "bytes": 1}, (2, 0): {"probe_auc": 0.5},
        (1, 1): {"nats": -1.0, "bytes": 1}, (2, 1): {"probe_auc": 0.7},
    }  # fmt: skip
