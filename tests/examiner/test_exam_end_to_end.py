"""An exam end to end with the bundled models: the engine's CLI writes it, the site
imports it into PostgreSQL and shows it on the Examiner board, with its intervals and
drill-down, linked from the models' pages."""

from __future__ import annotations

import json
import math

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from scipy import stats

from evaluation.examiner.merge_sort import comparison_bound
from evaluation.examiner.records import read_exam
from evaluation.examiner.schemas import GRADE_SCALES
from evaluation.examiner.taxonomy import taxonomy
from leaderboard.models import Exam, ExamGrade, ExamResult, LanguageModel

from .conftest import GEMMA, SERVED, SMOL

pytestmark = pytest.mark.slow


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def of(records, kind):
    return [r for r in records if r["kind"] == kind]


def test_the_engine_writes_a_valid_peer_exam(real_exam_file):
    records = lines(real_exam_file)
    read_exam(real_exam_file.read_text().splitlines())  # every line valid, every reference resolves
    header = records[0]
    assert header["kind"] == "exam" and header["language"] == "da"
    questions = {q["id"]: q for q in of(records, "question")}
    main = [q for q in questions.values() if q["depth"] == 0]
    # 3 per examiner; near-duplicates and questions not in Danish are written again, then
    # dropped and counted: the 135M/270M examiners lose most of theirs to the language check
    assert len(main) >= 1
    danish = {d.name for d in taxonomy("da").domains}
    assert all(q["language"] == "da" and q["domain_name"] in danish and q["reference_answer"] for q in main)
    assert all(q["level"] for q in main)
    answers = {a["id"]: a for a in of(records, "answer")}
    grades = of(records, "grade")
    assert grades and all(g["valid"] for g in grades)  # XGrammar: every grade parses
    for g in grades:
        for name, (low, high) in GRADE_SCALES.items():
            assert low <= g[name] <= high
        a = answers[g["answer"]]
        if g["counted"]:  # never examined by itself
            assert questions[a["question"]]["examiner"] == g["examiner"] != a["examinee"]
    correct = {g["answer"] for g in grades if g["counted"] and g["accuracy"] == 3}
    for q in questions.values():
        if q["depth"] > 0:
            assert f"{q['parent']}:{q['examinee']}" in correct
            assert [a["examinee"] for a in answers.values() if a["question"] == q["id"]] == [q["examinee"]]
    rankings = of(records, "ranking")
    assert rankings, "each examiner ranks the two other examinees' answers to its questions"
    for r in rankings:
        n = len(r["order"])
        assert n == 2 and r["comparisons"] == len(r["judgments"]) <= comparison_bound(n) == math.ceil(n * math.log2(n))
        for j in r["judgments"]:  # both orders stored; a tie exactly when they disagree
            assert j["outcome"] == (j["ab"] if j["ab"] == j["ba"] else "tie")
    summaries = {s["examinee"]: s for s in of(records, "summary")}
    assert set(summaries) == {SMOL, GEMMA, SERVED}
    graded = [s for s in summaries.values() if s["overall"] is not None]  # none left to grade some on
    assert graded
    for s in graded:
        assert 1 <= s["overall"] <= 5 and s["overall_ci"][0] <= s["overall"] <= s["overall_ci"][1]
    assert summaries[SERVED]["rankings"] == len(rankings)  # ranked on every question
    cost = of(records, "cost")[0]
    assert cost["total"]["calls"] > 0 and cost["models"][SERVED]["calls"] > 0


@pytest.mark.django_db
def test_the_site_imports_the_exam_and_shows_the_examiner_board(real_exam_file, client):
    LanguageModel.objects.create(model_id=SMOL)
    LanguageModel.objects.create(model_id=GEMMA)
    call_command("import_exam", str(real_exam_file))
    call_command("import_exam", str(real_exam_file))  # again: unchanged
    exam = Exam.objects.get()
    assert exam.language == "da" and exam.round == 1
    records = lines(real_exam_file)
    file_summary = {s["examinee"]: s for s in of(records, "summary")}
    for result in ExamResult.objects.filter(exam=exam):
        # recomputed from the stored rows: the same numbers as the engine's report
        assert result.summary["overall"] == file_summary[result.examinee]["overall"]
        assert result.summary["overall_ci"] == file_summary[result.examinee]["overall_ci"]
        counted = ExamGrade.objects.filter(
            answer__examinee=result.examinee, counted=True, answer__question__depth=0, answer__question__exam=exam
        ).values_list("overall", flat=True)
        if not counted:  # the questions it could be graded on were dropped (not in the exam's language)
            assert result.overall is None and result.summary["overall_ci"] is None
            continue
        assert result.overall == pytest.approx(sum(counted) / len(counted), abs=1e-4)
    page = client.get("/examiner/da/")
    assert page.status_code == 200
    soup = BeautifulSoup(page.content, "html.parser")
    listed = soup.select("#examiner-board tr.examinee")
    assert {r["data-model"] for r in listed} == {SMOL, GEMMA, SERVED}
    rows = [r for r in listed if r["data-overall"]]  # graded (an examinee may have no kept question)
    assert rows
    for r in rows:
        assert float(r["data-ci-low"]) <= float(r["data-overall"]) <= float(r["data-ci-high"])
    ranks = [int(r["data-rank"]) for r in rows]
    overall = [float(r["data-overall"]) for r in rows]
    assert ranks == list(stats.rankdata([-v for v in overall], method="min").astype(int))
    assert soup.select_one("#examiner-data") is not None  # the chart
    smol_link = soup.select_one(f'#examiner-board tr[data-model="{SMOL}"] a[href="/models/{SMOL}/"]')
    assert smol_link is not None
    # drill-down: the questions, one question with its answers, grades and ranking
    listing = BeautifulSoup(client.get("/examiner/da/round/1/questions/").content, "html.parser")
    keys = [tr["data-key"] for tr in listing.select("#exam-questions tbody tr")]
    assert len(keys) == exam.questions.filter(depth=0).count()
    ranked = exam.questions.filter(rankings__isnull=False).first()
    detail = BeautifulSoup(client.get(f"/examiner/da/round/1/questions/{ranked.key}/").content, "html.parser")
    assert detail.select_one("#question-text").get_text(strip=True) == ranked.text.strip()
    assert detail.select_one("#reference-answer").get_text(strip=True) == ranked.reference_answer.strip()
    assert detail.select(".exam-answers tr[data-examinee]")
    ranking = detail.select_one(".exam-ranking")
    assert int(ranking["data-comparisons"]) <= int(ranking["data-bound"])
    filtered = BeautifulSoup(client.get("/examiner/da/round/1/questions/", {"examinee": SERVED}).content, "html.parser")
    assert len(filtered.select("#exam-questions tbody tr")) == result_questions(SERVED)
    # linked from the model page
    model_page = BeautifulSoup(client.get(f"/models/{SMOL}/").content, "html.parser")
    assert model_page.select_one('#exam-results a[href="/examiner/da/?round=1"]') is not None


def result_questions(examinee):
    return ExamResult.objects.get(examinee=examinee).summary["questions"]
