"""Peer grades that cannot sink anyone: grades standardised per examiner and combined by
the median over examiners, never an examiner's own family; a hostile submitted examiner
moves no other examinee's printed rank."""

from __future__ import annotations

import json

import numpy as np
import pytest
from bs4 import BeautifulSoup

from evaluation.examiner.exam import ExamSettings, Participant, run_exam
from evaluation.examiner.peer_scores import grade_table, peer_board, point_ranks, scores
from leaderboard.models import Exam
from leaderboard.services.exam_import import import_exam

from .conftest import GEMMA, SMOL
from .scripted import ScriptedModel, SubmittedExaminer

SUBMITTED, SCRIPTED = "probe/submitted", "scripted/examiner"


def board(client, hostile: bool) -> dict[str, dict]:
    """The bundled models (scripted stand-ins under their ids), a scripted examiner and a
    submitted model, all examining each other; the board's printed rows."""
    people = [
        Participant(SMOL, ScriptedModel(SMOL, 1)),
        Participant(GEMMA, ScriptedModel(GEMMA, 2)),
        Participant(SCRIPTED, ScriptedModel(SCRIPTED, 5)),
        Participant(SUBMITTED, SubmittedExaminer(SUBMITTED, 4, hostile=hostile)),
    ]
    settings = ExamSettings(language="da", questions=3, follow_ups=0, seed=3, bootstrap=50)
    records = run_exam(people, people, settings)
    Exam.objects.all().delete()
    import_exam("\n".join(json.dumps(r) for r in records).encode())
    page = BeautifulSoup(client.get("/examiner/da/").content, "html.parser")
    rows = {}
    for tr in page.select("#examiner-board tr.examinee"):
        rows[tr["data-model"]] = {"rank": int(tr["data-rank"]), "overall": float(tr["data-overall"])}
    for tr in page.select("#pairwise-board tr.entry"):
        rows[tr["data-model"]]["pairwise"] = int(tr["data-rank"])
    return rows


@pytest.mark.django_db
def test_a_hostile_submitted_examiner_changes_no_other_examinees_printed_rank(client):
    honest = board(client, hostile=False)
    hostile = board(client, hostile=True)
    assert {m: r["rank"] for m, r in honest.items()} == {SCRIPTED: 1, SUBMITTED: 2, GEMMA: 3, SMOL: 4}
    for model in (SMOL, GEMMA, SCRIPTED):
        assert hostile[model]["rank"] == honest[model]["rank"], model
        assert hostile[model]["pairwise"] == honest[model]["pairwise"], model
    assert hostile[SUBMITTED]["rank"] == honest[SUBMITTED]["rank"]  # its 5s for itself never count
    # the plain mean, which ranked the board before, is sunk: the scripted examiner
    # (quality 5) falls below the submitted model (quality 4)
    assert hostile[SCRIPTED]["overall"] < hostile[SUBMITTED]["overall"] < honest[SCRIPTED]["overall"]


def simulated(seed: int, hostile_rival: str | None = None, examiners: int = 4, questions: int = 12):
    """Noisy Likert grades: each examiner asks ``questions`` questions to 6 examinees; the
    hostile examiner (the last) grades ``hostile_rival`` 1 everywhere."""
    rng = np.random.default_rng(seed)
    examinees = [f"m/{k}" for k in range(6)]
    names = [f"e/{k}" for k in range(examiners)]
    quality = np.linspace(1.6, 4.4, 6)
    grades, asked_by = {}, {}
    for e, name in enumerate(names):
        for q in range(questions):
            qid = f"q{e}-{q}"
            asked_by[qid] = name
            noisy = np.clip(np.rint(quality + rng.normal(0, 0.8, 6) + rng.normal(0, 0.5)), 1, 5).astype(int)
            grades[qid] = {m: int(g) for m, g in zip(examinees, noisy, strict=True)}
            if hostile_rival and e == examiners - 1:
                grades[qid][hostile_rival] = 1
    return grade_table(grades, asked_by, examinees, names, {}), examinees


def test_one_examiner_grading_a_rival_1_moves_no_rank_outside_its_set():
    for seed in range(3):
        table, examinees = simulated(seed, hostile_rival="m/5")
        board = peer_board(table, replicates=300, seed=seed)
        for model in examinees:
            low, high = board[model]["rank_set"]
            assert low <= board[model]["rank"] <= high
            for move in board[model]["left_out"]:
                assert not move["outside"], (seed, model, move)
        # the rival still ranks where the honest board puts it
        fair, _ = simulated(seed)
        honest = peer_board(fair, replicates=300, seed=seed)
        low, high = board["m/5"]["rank_set"]
        assert low <= honest["m/5"]["rank"] <= high


def test_a_constant_examiner_carries_no_weight_and_a_family_never_counts():
    grades = {"q1": {"a": 5, "b": 3, "c": 1}, "q2": {"a": 4, "b": 4, "c": 2}, "q3": {"a": 1, "b": 1, "c": 1}}
    asked_by = {"q1": "e1", "q2": "e1", "q3": "e2"}
    table = grade_table(grades, asked_by, ["a", "b", "c"], ["e1", "e2"], {})
    assert list(table.informative) == [True, False]
    without = grade_table({q: g for q, g in grades.items() if q != "q3"}, asked_by, ["a", "b", "c"], ["e1", "e2"], {})
    np.testing.assert_allclose(scores(table), scores(without))
    # e1 and a are one family: e1's grades of a are not counted, so a is graded by nobody informative
    family = grade_table(grades, asked_by, ["a", "b", "c"], ["e1", "e2"], {"e1": "org", "a": "org"})
    assert np.isnan(family.z[:, 0]).all() and scores(family)[0] == 0.0
    assert list(point_ranks(np.array([0.5, np.nan, 0.5, -1.0]))) == [1, 0, 1, 3]
