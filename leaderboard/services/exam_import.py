"""Storing an exam document (``python -m evaluation examine``'s JSONL) and its scores.

The document is hostile until :func:`evaluation.examiner.records.read_exam` has checked
every line; it is then stored in one transaction (all of it or nothing), and the scores
are recomputed from the stored questions, answers, grades and rankings with
:func:`evaluation.examiner.voting.summarise`, never read from the file's summary lines.
Importing the same document again changes nothing; another document for a round that is
already stored is refused (a new round is a new exam).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from evaluation.examiner.records import ExamDocument, ExamFormatError, read_exam
from evaluation.examiner.voting import summarise
from leaderboard.models import (
    Exam,
    ExamAnswer,
    ExamGrade,
    ExamQuestion,
    ExamRanking,
    ExamResult,
    ExamRun,
    LanguageModel,
)

MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
BOOTSTRAP_REPLICATES = 1000
GRADE_FIELDS = ("accuracy", "coherence", "factuality", "comprehensiveness", "overall")


class ExamImportError(Exception):
    """The document cannot be stored; nothing was."""


@dataclass
class ExamImport:
    exam: Exam
    created: bool

    def summary(self) -> str:
        what = "imported" if self.created else "already imported (unchanged)"
        results = self.exam.results.count()
        return f"exam {self.exam.exam_id}: {what}; {self.exam.questions.count()} questions, {results} examinees"


def _lines(data: bytes) -> list[str]:
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ExamImportError(f"the exam document is larger than {MAX_DOCUMENT_BYTES // 2**20} MB")
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ExamImportError(f"the exam document is not UTF-8 ({exc})") from None


def import_exam(data: bytes, *, source: str = "", run: ExamRun | None = None) -> ExamImport:
    lines = _lines(data)
    try:
        document = read_exam(lines)
    except ExamFormatError as exc:
        raise ExamImportError(str(exc)) from None
    if run is not None:
        check_run(document.exam, run)
    digest = hashlib.sha256(data).hexdigest()
    header = document.exam
    existing = Exam.objects.filter(exam_id=header["exam"]).first()
    if existing is not None:
        if existing.content_sha256 == digest:
            return ExamImport(existing, created=False)
        raise ExamImportError(f"exam {header['exam']} is already stored with other content; a new round is a new exam")
    clash = Exam.objects.filter(language=header["language"], round=header["round"]).first()
    if clash is not None:
        raise ExamImportError(f"round {header['round']} of {header['language']} is already exam {clash.exam_id}")
    try:
        with transaction.atomic():
            exam = _store(document, digest, source, run)
    except IntegrityError as exc:  # a concurrent import of the same round won the race
        raise ExamImportError(f"exam {header['exam']} could not be stored: {exc}") from None
    return ExamImport(exam, created=True)


def check_run(header: dict, run: ExamRun) -> None:
    """Raise ExamImportError unless the document's exam line is the run's: its language,
    round and seed, exactly the run's examiners and exactly its examinees (by model). A
    worker's document is stored only as the round it was asked to run."""
    wanted = (
        ("language", header.get("language"), run.language),
        ("round", header.get("round"), run.round),
        ("seed", header.get("seed"), run.seed),
        ("examiners", _model_names(header.get("examiners")), _model_names(run.examiners)),
        ("examinees", _model_names(header.get("examinees")), _model_names(run.examinees)),
    )
    for what, got, expected in wanted:
        if got != expected:
            shown = ", ".join(sorted(got - expected)) if isinstance(got, set) else str(got)
            raise ExamImportError(f"the document is not this run's: other {what} ({shown[:200] or 'missing'})")


def _model_names(entries) -> set[str]:
    return {str(e.get("model")) for e in entries if isinstance(e, dict)} if isinstance(entries, list) else set()


def _store(document: ExamDocument, digest: str, source: str, run: ExamRun | None) -> Exam:
    header = document.exam
    exam = Exam.objects.create(
        exam_id=header["exam"],
        language=header["language"],
        round=header["round"],
        seed=header["seed"],
        header=header,
        cost=_cost(document.cost, {e["model"] for e in header["examiners"]}),
        content_sha256=digest,
        source=source[:300],
        run=run,
    )
    questions: dict[str, ExamQuestion] = {}
    for q in document.questions:
        questions[q["id"]] = ExamQuestion.objects.create(
            exam=exam,
            key=q["id"],
            text=q["text"],
            reference_answer=q["reference_answer"],
            domain=q["domain"],
            domain_name=q.get("domain_name") or "",
            level=q["level"],
            examiner=q["examiner"],
            depth=q["depth"],
            parent=questions.get(q.get("parent")),
            examinee=q.get("examinee") or "",
        )
    answers = {}
    for a in document.answers:
        answers[a["id"]] = ExamAnswer(
            question=questions[a["question"]], key=a["id"], examinee=a["examinee"], text=a["text"], counted=a["counted"]
        )
    ExamAnswer.objects.bulk_create(answers.values())
    ExamGrade.objects.bulk_create(
        ExamGrade(
            answer=answers[g["answer"]],
            examiner=g["examiner"],
            counted=g["counted"],
            valid=bool(g.get("valid", True)),
            error=str(g.get("error") or "")[:1000],
            **({name: g[name] for name in GRADE_FIELDS} if g.get("valid", True) else {}),
        )
        for g in document.grades
    )
    ExamRanking.objects.bulk_create(
        ExamRanking(
            question=questions[r["question"]],
            examiner=r["examiner"],
            order=r["order"],
            tiers=r["tiers"],
            comparisons=r["comparisons"],
            bound=r.get("bound") or 0,
            judgments=r["judgments"],
        )
        for r in document.rankings
    )
    score_exam(exam)
    return exam


def _cost(cost: dict | None, examiners: set[str]) -> dict:
    """The engine's cost line, kept only when it is small plain numbers per model, with the
    questions each of the exam's examiners could not write (no new, parseable one in the
    exam's language within its tries) and those it wrote in another language; counts that
    are not that are left out, and the exam still imports."""
    if not isinstance(cost, dict):
        return {}
    kept = {"models": cost.get("models"), "total": cost.get("total")}
    for key in ("dropped_questions", "wrong_language"):  # wrong_language: refused for not being in the language
        counts = cost.get(key)
        if isinstance(counts, dict) and all(
            model in examiners and type(n) is int and 0 <= n < 10**6 for model, n in counts.items()
        ):
            kept[key] = counts
    text = json.dumps(kept)
    return json.loads(text) if len(text) < 20_000 else {}


def stored_records(exam: Exam) -> list[dict]:
    """The exam's raw lines, rebuilt from the database (scores are computed from these)."""
    records: list[dict] = [exam.header]
    questions = list(exam.questions.select_related("parent").order_by("depth", "id"))
    for q in questions:
        records.append(
            {
                "kind": "question",
                "id": q.key,
                "text": q.text,
                "reference_answer": q.reference_answer,
                "language": exam.language,
                "domain": q.domain,
                "domain_name": q.domain_name,
                "level": q.level,
                "examiner": q.examiner,
                "depth": q.depth,
                "parent": q.parent.key if q.parent else None,
                "examinee": q.examinee or None,
            }
        )
    for a in ExamAnswer.objects.filter(question__exam=exam).select_related("question").order_by("id"):
        records.append(
            {
                "kind": "answer",
                "id": a.key,
                "question": a.question.key,
                "examinee": a.examinee,
                "text": a.text,
                "counted": a.counted,
            }
        )
    for g in ExamGrade.objects.filter(answer__question__exam=exam).select_related("answer").order_by("id"):
        record = {"kind": "grade", "answer": g.answer.key, "examiner": g.examiner, "counted": g.counted}
        record["valid"] = g.valid
        if g.valid:
            record.update({name: getattr(g, name) for name in GRADE_FIELDS})
        else:
            record["error"] = g.error
        records.append(record)
    for r in ExamRanking.objects.filter(question__exam=exam).select_related("question").order_by("id"):
        records.append(
            {
                "kind": "ranking",
                "question": r.question.key,
                "examiner": r.examiner,
                "order": r.order,
                "tiers": r.tiers,
                "comparisons": r.comparisons,
                "bound": r.bound,
                "judgments": r.judgments,
            }
        )
    return records


def score_exam(exam: Exam) -> None:
    """(Re)compute the exam's results from its stored lines."""
    scored = summarise(stored_records(exam), bootstrap=BOOTSTRAP_REPLICATES, seed=exam.seed)
    models = {m.model_id: m for m in LanguageModel.objects.filter(model_id__in=[s.get("examinee") for s in scored])}
    exam.results.all().delete()
    ExamResult.objects.bulk_create(
        ExamResult(
            exam=exam,
            examinee=s["examinee"],
            model=models.get(s["examinee"]),
            rank=s["rank"],
            overall=s["overall"],
            summary=s,
        )
        for s in scored
        if s["kind"] == "summary"
    )
    exam.agreement = next((s for s in scored if s["kind"] == "agreement"), {})
    exam.pairwise = next((s for s in scored if s["kind"] == "pairwise"), {})
    exam.save(update_fields=["agreement", "pairwise"])
