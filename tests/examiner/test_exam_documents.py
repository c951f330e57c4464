"""Exam documents are hostile until checked: every fault is refused with its line, and an
import stores all of a document or nothing."""

from __future__ import annotations

import copy
import json

import pytest

from evaluation.examiner.exam import ExamSettings, Participant, run_exam
from evaluation.examiner.records import ExamFormatError, read_exam
from leaderboard.models import Exam, ExamQuestion
from leaderboard.services.exam_import import ExamImportError, import_exam

from .scripted import ScriptedModel


@pytest.fixture(scope="module")
def document() -> list[dict]:
    people = [Participant(name, ScriptedModel(name, q)) for name, q in [("m/a", 4), ("m/b", 3), ("m/c", 1)]]
    return run_exam(people[:2], people, ExamSettings(language="da", questions=2, follow_ups=1, bootstrap=50))


def text(records) -> list[str]:
    return [r if isinstance(r, str) else json.dumps(r) for r in records]  # a str is a raw (broken) line


def first(records, kind, **match):
    return next(r for r in records if r["kind"] == kind and all(r.get(k) == v for k, v in match.items()))


def broken(document, change):
    records = copy.deepcopy(document)
    change(records)
    return text(records)


CASES = {
    "not JSON": lambda rs: rs.insert(3, "{oops}"),
    "no exam line first": lambda rs: rs.pop(0),
    "unknown kind": lambda rs: rs.append({"kind": "verdict"}),
    "unknown language": lambda rs: rs[0].update(language="xx"),
    "a question in another language": lambda rs: first(rs, "question").update(language="sv"),
    "an unknown level": lambda rs: first(rs, "question").update(level="trivia"),
    "an examiner not in the exam": lambda rs: first(rs, "question").update(examiner="m/z"),
    "an answer to no question": lambda rs: first(rs, "answer").update(question="q9-9"),
    "a counted answer to its own question": lambda rs: first(rs, "answer", counted=False).update(counted=True),
    "a grade out of range": lambda rs: first(rs, "grade").update(overall=6),
    "a grade that is a string": lambda rs: first(rs, "grade").update(accuracy="3"),
    "a counted grade by another examiner": lambda rs: first(rs, "grade", counted=True).update(
        examiner=next(
            e["model"] for e in rs[0]["examiners"] if e["model"] != first(rs, "grade", counted=True)["examiner"]
        )
    ),
    "more comparisons than merge sort makes": lambda rs: first(rs, "ranking").update(comparisons=99),
    "a ranking of someone who did not answer": lambda rs: first(rs, "ranking")["order"].append("m/z"),
    "a judgment outcome outside its pair": lambda rs: first(rs, "ranking")["judgments"][0].update(outcome="m/z"),
    "a verdict naming someone else": lambda rs: first(rs, "ranking")["judgments"][0].update(ab="<b>m/z</b>"),
    "a follow-up without its parent": lambda rs: next(r for r in rs if r["kind"] == "question" and r["depth"]).update(
        parent="q9-9"
    ),
    "an oversized text": lambda rs: first(rs, "answer").update(text="x" * 20_001),
}


@pytest.mark.parametrize("fault", CASES)
def test_each_fault_is_refused_with_its_line(document, fault):
    with pytest.raises(ExamFormatError) as refused:
        read_exam(broken(document, CASES[fault]))
    assert fault == "no exam line first" or str(refused.value).startswith("line ")
    if fault == "not JSON":
        assert "not JSON" in str(refused.value)


@pytest.mark.django_db
def test_a_refused_document_stores_nothing_and_a_good_one_imports_once(document):
    with pytest.raises(ExamImportError, match="integer from 1 to 5"):
        import_exam("\n".join(broken(document, CASES["a grade out of range"])).encode())
    assert not Exam.objects.exists() and not ExamQuestion.objects.exists()
    with pytest.raises(ExamImportError, match="UTF-8"):
        import_exam(b"\xff\xfe")
    data = "\n".join(text(document)).encode()
    assert import_exam(data).created and not import_exam(data).created
    altered = copy.deepcopy(document)
    first(altered, "question")["text"] = "Another question entirely?"
    with pytest.raises(ExamImportError, match="other content"):
        import_exam("\n".join(text(altered)).encode())
    other = copy.deepcopy(document)
    other[0]["exam"] = "da-round1-seed99"
    with pytest.raises(ExamImportError, match="round 1 of da is already"):
        import_exam("\n".join(text(other)).encode())
    assert Exam.objects.count() == 1


@pytest.mark.django_db
def test_the_repository_exams_import_and_show_on_their_board(client):
    from pathlib import Path

    from django.core.management import call_command

    files = sorted((Path(__file__).resolve().parents[2] / "data" / "exams").glob("*.jsonl"))
    assert files, "make demo shows an Examiner board from data/exams/"
    call_command("import_exam", *map(str, files))
    for exam in Exam.objects.all():
        page = client.get(f"/examiner/{exam.language}/", {"round": exam.round})
        assert page.status_code == 200 and exam.exam_id.encode() in page.content
        # the download is a document that imports again, giving the same scores
        download = client.get(f"/examiner/{exam.language}/round/{exam.round}/exam.jsonl")
        lines = download.content.decode().splitlines()
        document = read_exam(lines)
        assert len(document.questions) == exam.questions.count()
        assert len(document.grades) == sum(a.grades.count() for q in exam.questions.all() for a in q.answers.all())
        summaries = {json.loads(x)["examinee"]: json.loads(x) for x in lines if '"kind": "summary"' in x}
        assert {r.examinee: r.overall for r in exam.results.all()} == {m: s["overall"] for m, s in summaries.items()}
        exam_id, raw = exam.exam_id, "\n".join(lines).encode()
        exam.delete()
        again = import_exam(raw).exam
        assert again.exam_id == exam_id
        assert {r.examinee: r.summary for r in again.results.all()} == summaries


@pytest.mark.django_db
def test_the_language_board_links_its_examiner_board_once_an_exam_exists(client, document):
    from bs4 import BeautifulSoup

    from tests.pages.builders import build_board, synthetic_entries

    build_board(datasets=[("ds-1", "sentiment-classification")], entries=synthetic_entries(3))
    page = BeautifulSoup(client.get("/leaderboards/da/").content, "html.parser")
    assert page.select_one("#examiner-link") is None
    import_exam("\n".join(text(document)).encode())
    page = BeautifulSoup(client.get("/leaderboards/da/").content, "html.parser")  # not the cached page
    assert page.select_one('#examiner-link a[href="/examiner/da/"]') is not None
    assert client.get("/examiner/sv/").status_code == 404


@pytest.mark.django_db
def test_an_examiner_whose_questions_were_all_dropped_is_shown_and_its_examinee_not_graded(client):
    from bs4 import BeautifulSoup

    people = [
        Participant("m/a", ScriptedModel("m/a", 3)),
        Participant("m/x", ScriptedModel("m/x", 4, unparseable_questions=100)),
    ]
    records = run_exam(people, people, ExamSettings(language="da", questions=2, follow_ups=0, bootstrap=50))
    import_exam("\n".join(text(records)).encode())
    page = BeautifulSoup(client.get("/examiner/da/").content, "html.parser")
    rows = {tr["data-model"]: tr for tr in page.select("#examiner-board tr.examinee")}
    assert rows["m/a"].select_one(".not-graded") is not None and rows["m/a"]["data-overall"] == ""
    assert rows["m/x"]["data-overall"] == "4.0"  # graded by m/a: the scripted grade is its quality
    assert rows["m/x"].select_one(".not-graded") is None
    dropped = page.select_one("#exam-dropped").get_text(" ", strip=True)
    assert "m/x 2" in dropped and "m/a" not in dropped


@pytest.mark.django_db
@pytest.mark.parametrize(
    "dropped",
    [{"m/z": 1}, {"m/a": "2"}, {"m/a": -1}, {"m/a": True}, {"m/a": 10**6}, ["m/a", 2], "m/a 2", {"<b>m/a</b>": 1}],
)
def test_dropped_counts_that_are_not_small_counts_of_the_exams_examiners_are_left_out(client, document, dropped):
    records = copy.deepcopy(document)
    first(records, "cost")["dropped_questions"] = dropped
    exam = import_exam("\n".join(text(records)).encode()).exam  # the exam itself still imports
    assert "dropped_questions" not in exam.cost and exam.cost["total"]["calls"] > 0
    page = client.get("/examiner/da/")
    assert page.status_code == 200 and b'id="exam-dropped"' not in page.content


@pytest.mark.django_db
def test_dropped_counts_of_the_exams_examiners_are_kept(document):
    records = copy.deepcopy(document)
    first(records, "cost")["dropped_questions"] = {"m/a": 0, "m/b": 2}
    exam = import_exam("\n".join(text(records)).encode()).exam
    assert exam.cost["dropped_questions"] == {"m/a": 0, "m/b": 2}
