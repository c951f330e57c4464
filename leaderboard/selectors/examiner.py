"""Reads for the Examiner boards (docs/methodology.md §8): a language's exam rounds, the board of one
round, its questions and one question's answers, grades, ranking and follow-ups."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, Sum
from django.urls import reverse

from evaluation.examiner.schemas import DIMENSIONS
from evaluation.examiner.taxonomy import LEVEL_NAMES
from leaderboard.models import Exam, ExamGrade, ExamQuestion, ExamRanking, ExamResult, ExamRun
from leaderboard.registry.languages import language_name
from leaderboard.selectors.exam_verdict import exam_verdict

QUESTIONS_PER_PAGE = 50


def model_url(model_id: str, known: bool) -> str | None:
    return reverse("model", args=[model_id]) if known else None


def exam_languages() -> set[str]:
    return set(Exam.objects.values_list("language", flat=True).distinct())


def examiner_board(language: str, round_number: int | None = None) -> dict | None:
    rounds = list(Exam.objects.filter(language=language).order_by("-round").values_list("round", flat=True))
    if not rounds:
        return None
    chosen = round_number if round_number in rounds else rounds[0]
    exam = Exam.objects.get(language=language, round=chosen)
    rows = []
    known = {}
    for result in exam.results.select_related("model"):
        s = result.summary
        known[result.examinee] = result.model_id is not None
        rows.append(
            {
                "examinee": result.examinee,
                "url": model_url(result.examinee, known[result.examinee]),
                "moves": _moves(s.get("left_out")),
                "summary": s,
                "dimensions": [(name, s.get(name)) for name in DIMENSIONS],
                "follow_ups": [
                    {
                        "depth": int(depth),
                        **counts,
                        "share": counts["correct"] / counts["asked"] if counts["asked"] else None,
                    }
                    for depth, counts in sorted(s.get("follow_ups", {}).items(), key=lambda kv: int(kv[0]))
                ],
            }
        )
    main = exam.questions.filter(depth=0)
    levels = dict(main.values_list("level").annotate(n=Count("id")))
    examiners = [e["model"] for e in exam.header.get("examiners", [])]
    return {
        "verdict": exam_verdict(exam, rows, examiners, language_name(language)),
        "exam": exam,
        "language": language,
        "language_name": language_name(language),
        "rounds": rounds,
        "round": chosen,
        "rows": rows,
        "dimensions": DIMENSIONS,
        "examiners": examiners,
        "questions": main.count(),
        "follow_up_questions": exam.questions.filter(depth__gt=0).count(),
        "levels": [(name, levels.get(name, 0)) for name in LEVEL_NAMES],
        "agreement": exam.agreement,
        "pairwise": _pairwise(exam.pairwise or {}, known),
        "cost": exam.cost,
        "dropped": sorted((m, n) for m, n in (exam.cost.get("dropped_questions") or {}).items() if n),
        "comparisons": ExamRanking.objects.filter(question__exam=exam).aggregate(n=Sum("comparisons"))["n"] or 0,
        "runs": list(ExamRun.objects.filter(language=language).order_by("-created_at")[:5]),
    }


def _moves(left_out) -> dict:
    """Leave-one-examiner-out ranks of one entry: the largest move and whether any left
    its rank set."""
    moves = left_out if isinstance(left_out, list) else []
    return {
        "each": moves,
        "largest": max((abs(m.get("move") or 0) for m in moves), default=None),
        "flagged": [m["examiner"] for m in moves if m.get("outside")],
    }


def _pairwise(board: dict, known: dict[str, bool]) -> dict | None:
    """The Bradley–Terry board's rows, best first, with the fit's coefficients."""
    entries = board.get("entries") or {}
    if not entries:
        return None
    rows = [
        {
            "examinee": name,
            "url": model_url(name, known.get(name, False)),
            "fit": fit,
            "moves": _moves(fit.get("left_out")),
        }
        for name, fit in entries.items()
    ]
    rows.sort(key=lambda r: (r["fit"].get("rank") or 10**6, r["examinee"]))
    return {**board, "rows": rows}


@dataclass(frozen=True)
class QuestionFilters:
    examiner: str = ""
    level: str = ""
    examinee: str = ""
    page: int = 1

    @classmethod
    def from_query(cls, query) -> QuestionFilters:
        page = query.get("page", "1")
        level = query.get("level", "")
        return cls(
            examiner=query.get("examiner", "")[:300],
            level=level if level in LEVEL_NAMES else "",
            examinee=query.get("examinee", "")[:300],
            page=int(page) if page.isascii() and page.isdigit() and 0 < int(page) < 10**6 else 1,
        )


def exam_questions(language: str, round_number: int, filters: QuestionFilters) -> dict | None:
    exam = Exam.objects.filter(language=language, round=round_number).first()
    if exam is None:
        return None
    questions = exam.questions.filter(depth=0)
    if filters.examiner:
        questions = questions.filter(examiner=filters.examiner)
    if filters.level:
        questions = questions.filter(level=filters.level)
    if filters.examinee:
        questions = questions.filter(answers__examinee=filters.examinee, answers__counted=True)
    questions = questions.annotate(
        n_answers=Count("answers", filter=Q(answers__counted=True), distinct=True),
        n_follow_ups=Count("follow_ups", distinct=True),
    ).order_by("id")
    total = questions.count()
    start = (filters.page - 1) * QUESTIONS_PER_PAGE
    shown = list(questions[start : start + QUESTIONS_PER_PAGE])
    grades = {}
    if filters.examinee:
        for g in ExamGrade.objects.filter(
            answer__question__in=shown, answer__examinee=filters.examinee, counted=True, valid=True
        ).select_related("answer"):
            grades[g.answer.question_id] = g
    return {
        "exam": exam,
        "language": language,
        "language_name": language_name(language),
        "questions": [{"q": q, "grade": grades.get(q.id)} for q in shown],
        "total": total,
        "filters": filters,
        "page": filters.page,
        "has_next": start + QUESTIONS_PER_PAGE < total,
        "examiners": [e["model"] for e in exam.header.get("examiners", [])],
        "examinees": [e["model"] for e in exam.header.get("examinees", [])],
        "levels": LEVEL_NAMES,
    }


def _answer_rows(question: ExamQuestion) -> list[dict]:
    answers = question.answers.prefetch_related(Prefetch("grades", queryset=ExamGrade.objects.order_by("examiner")))
    rows = []
    for a in answers:
        grades = list(a.grades.all())
        rows.append({"answer": a, "grades": grades, "counted_grade": next((g for g in grades if g.counted), None)})
    return rows


def exam_question(language: str, round_number: int, key: str) -> dict | None:
    question = (
        ExamQuestion.objects.filter(exam__language=language, exam__round=round_number, key=key)
        .select_related("exam", "parent")
        .first()
    )
    if question is None:
        return None
    chain = []
    parent = question.parent
    while parent is not None:
        chain.insert(0, parent)
        parent = parent.parent
    follow_ups = []
    for f in question.follow_ups.order_by("examinee", "id"):
        follow_ups.append({"q": f, "answers": _answer_rows(f)})
    return {
        "question": question,
        "exam": question.exam,
        "language": language,
        "language_name": language_name(language),
        "chain": chain,
        "answers": _answer_rows(question),
        "rankings": list(question.rankings.all()),
        "follow_ups": follow_ups,
    }


def model_exam_results(model) -> list[ExamResult]:
    return list(
        ExamResult.objects.filter(examinee=model.model_id)
        .select_related("exam")
        .order_by("exam__language", "-exam__round")
    )
