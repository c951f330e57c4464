"""The exam document: JSON lines of kind ``exam``, ``question``, ``answer``, ``grade``,
``ranking``, ``summary``, ``pairwise``, ``agreement`` and ``cost``, and its validation.

:func:`read_exam` treats the document as hostile: every line is checked for its kind's
fields, types, ranges and sizes, and every reference (an answer's question, a grade's
answer, a ranking's examinees) must resolve; the first fault is reported with its line
number and nothing is returned. ``summary``, ``pairwise``, ``agreement`` and ``cost`` lines are the
engine's own report: a reader recomputes scores from the raw lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, overload

from evaluation.errors import EvaluationError
from evaluation.examiner.merge_sort import comparison_bound
from evaluation.examiner.schemas import GRADE_SCALES
from evaluation.examiner.taxonomy import LEVEL_NAMES, exam_languages

EXAM_FORMAT = "glossa-exam/1"
MAX_LINES = 200_000
MAX_TEXT = 20_000
MAX_ID = 300
KINDS = ("exam", "question", "answer", "grade", "ranking", "summary", "pairwise", "agreement", "cost")


class ExamFormatError(EvaluationError):
    """An exam document that does not follow the exam record format."""


@dataclass
class ExamDocument:
    """An exam's records read back: the exam, its questions, answers, grades, rankings and cost."""

    exam: dict
    questions: list[dict] = field(default_factory=list)
    answers: list[dict] = field(default_factory=list)
    grades: list[dict] = field(default_factory=list)
    rankings: list[dict] = field(default_factory=list)
    cost: dict | None = None


@overload
def _text(record: dict, key: str, line: int, *, limit: int = ..., optional: Literal[False] = ...) -> str: ...
@overload
def _text(record: dict, key: str, line: int, *, limit: int = ..., optional: bool) -> str | None: ...
def _text(record: dict, key: str, line: int, *, limit: int = MAX_TEXT, optional: bool = False) -> str | None:
    value = record.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise ExamFormatError(f"line {line}: {key!r} must be a string of at most {limit} characters")
    return value


def _int(record: dict, key: str, line: int, low: int, high: int) -> int:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ExamFormatError(f"line {line}: {key!r} must be an integer from {low} to {high}")
    return value


def _models(record: dict, key: str, line: int) -> list[str]:
    entries = record.get(key)
    if not isinstance(entries, list) or not 1 <= len(entries) <= 64:
        raise ExamFormatError(f"line {line}: {key!r} must list 1 to 64 models")
    names = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ExamFormatError(f"line {line}: each of {key!r} is an object with a model")
        names.append(_text(entry, "model", line, limit=MAX_ID))
        _text(entry, "revision", line, limit=MAX_ID, optional=True)
        _text(entry, "family", line, limit=MAX_ID, optional=True)  # grades within a family never count
    if len(set(names)) != len(names):
        raise ExamFormatError(f"line {line}: a model is listed twice in {key!r}")
    return names


def read_exam(lines: Iterable[str | bytes]) -> ExamDocument:
    """The exam document in ``lines``, every line checked (module docstring); raises
    :class:`ExamFormatError` naming the first faulty line."""
    reader: _Reader | None = None
    for number, record in _records(lines):
        if reader is None:
            reader = _Reader(_header(record, number), number)
        else:
            reader.add(record, number)
    if reader is None:
        raise ExamFormatError("the document is empty")
    return reader.doc


def _records(lines: Iterable[str | bytes]) -> Iterator[tuple[int, dict]]:
    """(line number, record) for each non-blank line, once it is a JSON object of a known kind."""
    for number, raw in enumerate(lines, start=1):
        if number > MAX_LINES:
            raise ExamFormatError(f"more than {MAX_LINES} lines")
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="strict")
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ExamFormatError(f"line {number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict) or record.get("kind") not in KINDS:
            raise ExamFormatError(f"line {number}: an object with a kind of {', '.join(KINDS)}")
        yield number, record


def _header(record: dict, number: int) -> dict:
    """The document's first record, checked as its ``exam`` line."""
    if record["kind"] != "exam":
        raise ExamFormatError(f"line {number}: the document starts with its exam line")
    if record.get("format") != EXAM_FORMAT:
        raise ExamFormatError(f"line {number}: format must be {EXAM_FORMAT!r}")
    _text(record, "exam", number, limit=MAX_ID)
    if record.get("language") not in exam_languages():
        raise ExamFormatError(f"line {number}: no exam taxonomy for language {record.get('language')!r}")
    _int(record, "round", number, 1, 10**6)
    _int(record, "seed", number, 0, 2**63)
    return record


class _Reader:
    """Checks the lines after the exam line against it and against the lines before them,
    collecting them into :attr:`doc`."""

    def __init__(self, header: dict, number: int):
        self.examiners = set(_models(header, "examiners", number))
        self.examinees = set(_models(header, "examinees", number))
        self.doc = ExamDocument(header)
        self.questions: dict[object, dict] = {}  # by id; looked up with whatever a line names
        self.answers: dict[object, dict] = {}

    def add(self, record: dict, number: int) -> None:
        """Check one line and add it to the document; the engine's report lines are not read."""
        kind = record["kind"]
        if kind == "exam":
            raise ExamFormatError(f"line {number}: a second exam line")
        if kind == "cost":
            self.doc.cost = record
            return
        check = {"question": self._question, "answer": self._answer, "grade": self._grade, "ranking": self._ranking}
        if kind in check:
            check[kind](record, number)

    def _question(self, record: dict, number: int) -> None:
        qid = _text(record, "id", number, limit=MAX_ID)
        if qid in self.questions:
            raise ExamFormatError(f"line {number}: question {qid!r} twice")
        _text(record, "text", number)
        _text(record, "reference_answer", number)
        _text(record, "domain", number, limit=MAX_ID)
        _text(record, "domain_name", number, limit=MAX_ID, optional=True)
        if record.get("level") not in LEVEL_NAMES:
            raise ExamFormatError(f"line {number}: level must be one of {', '.join(LEVEL_NAMES)}")
        if record.get("language") != self.doc.exam["language"]:
            raise ExamFormatError(f"line {number}: the question's language is not the exam's")
        if record.get("examiner") not in self.examiners:
            raise ExamFormatError(f"line {number}: examiner {record.get('examiner')!r} is not in the exam")
        depth = _int(record, "depth", number, 0, 5)
        parent = record.get("parent")
        if depth and (parent not in self.questions or record.get("examinee") not in self.examinees):
            raise ExamFormatError(f"line {number}: a follow-up names an earlier question and one examinee")
        if not depth and parent is not None:
            raise ExamFormatError(f"line {number}: a main question has no parent")
        self.questions[qid] = record
        self.doc.questions.append(record)

    def _answer(self, record: dict, number: int) -> None:
        aid = _text(record, "id", number, limit=2 * MAX_ID)
        question = self.questions.get(record.get("question"))
        if question is None or aid in self.answers:
            raise ExamFormatError(f"line {number}: an answer to an unknown question, or a repeated id")
        if record.get("examinee") not in self.examinees:
            raise ExamFormatError(f"line {number}: examinee {record.get('examinee')!r} is not in the exam")
        _text(record, "text", number)
        record["counted"] = record.get("counted", True) is not False
        if record["counted"] and record["examinee"] == question["examiner"]:
            raise ExamFormatError(f"line {number}: an examiner's answer to its own question is never counted")
        self.answers[aid] = record
        self.doc.answers.append(record)

    def _grade(self, record: dict, number: int) -> None:
        answer = self.answers.get(record.get("answer"))
        if answer is None or record.get("examiner") not in self.examiners:
            raise ExamFormatError(f"line {number}: a grade of an unknown answer or by an unknown examiner")
        record["counted"] = record.get("counted", True) is not False
        if record["counted"] and (
            not answer["counted"] or record["examiner"] != self.questions[answer["question"]]["examiner"]
        ):
            raise ExamFormatError(f"line {number}: only the question's examiner grades a counted answer")
        if record.get("valid", True):
            for name, (low, high) in GRADE_SCALES.items():
                _int(record, name, number, low, high)
        self.doc.grades.append(record)

    def _ranking(self, record: dict, number: int) -> None:
        question = self.questions.get(record.get("question"))
        if question is None or record.get("examiner") != question.get("examiner"):
            raise ExamFormatError(f"line {number}: a ranking of an unknown question or by another examiner")
        order, tiers = record.get("order"), record.get("tiers")
        answered = {a["examinee"] for a in self.answers.values() if a["question"] == question["id"] and a["counted"]}
        if not isinstance(order, list) or len(set(order)) != len(order) or set(order) != answered:
            raise ExamFormatError(f"line {number}: a ranking orders exactly the counted answers' examinees")
        if not isinstance(tiers, list) or [m for tier in tiers for m in tier] != order:
            raise ExamFormatError(f"line {number}: tiers must be the order, grouped")
        comparisons = _int(record, "comparisons", number, 0, comparison_bound(len(order)))
        judgments = record.get("judgments")
        if not isinstance(judgments, list) or len(judgments) != comparisons:
            raise ExamFormatError(f"line {number}: one judgment per comparison, both orders each")
        for j in judgments:
            _judgment(j, answered, number)
        self.doc.rankings.append(record)


def _judgment(j: object, answered: set, number: int) -> None:
    """One judgment of a ranking: a pair of its answered examinees, an outcome, each order's verdict."""
    if not isinstance(j, dict) or not isinstance(j.get("pair"), list) or len(j["pair"]) != 2:
        raise ExamFormatError(f"line {number}: a judgment names its pair")
    if not set(j["pair"]) <= answered or j.get("outcome") not in (*j["pair"], "tie"):
        raise ExamFormatError(f"line {number}: a judgment's outcome is one of its pair or a tie")
    if j.get("ab") not in (*j["pair"], "?") or j.get("ba") not in (*j["pair"], "?"):
        raise ExamFormatError(f"line {number}: each order's verdict names one of the pair (or '?')")
