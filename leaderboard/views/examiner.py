"""Examiner boards (docs/methodology.md §8): the board of a language's exam round, its questions and
one question's answers, grades, ranking and follow-ups."""

from __future__ import annotations

import json
import re

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from leaderboard import charts
from leaderboard.models import Exam
from leaderboard.selectors import examiner as selectors
from leaderboard.services.exam_import import stored_records


def _round(request) -> int | None:
    value = request.GET.get("round", "")
    return int(value) if value.isascii() and value.isdigit() and len(value) < 8 else None


@require_safe
def board(request, code: str):
    context = selectors.examiner_board(code, _round(request))
    if context is None:
        raise Http404(f"No exam in {code!r} yet: an administrator runs one, or a submission opts in.")
    context["chart"] = charts.embed(charts.examiner_scores(context["rows"])) if context["rows"] else None
    return render(request, "leaderboard/examiner_board.html", context)


@require_safe
def questions(request, code: str, round_number: int):
    context = selectors.exam_questions(code, round_number, selectors.QuestionFilters.from_query(request.GET))
    if context is None:
        raise Http404(f"No exam round {round_number} in {code!r}.")
    return render(request, "leaderboard/exam_questions.html", context)


@require_safe
def question(request, code: str, round_number: int, key: str):
    context = selectors.exam_question(code, round_number, key)
    if context is None:
        raise Http404(f"No question {key!r} in round {round_number} of {code!r}.")
    return render(request, "leaderboard/exam_question.html", context)


@require_safe
def export(request, code: str, round_number: int):
    """The stored exam as a document ``python manage.py import_exam`` and the engine read,
    followed by the recomputed ``summary``, ``pairwise`` and ``agreement`` lines."""
    exam = Exam.objects.filter(language=code, round=round_number).first()
    if exam is None:
        raise Http404(f"No exam round {round_number} in {code!r}.")
    records = stored_records(exam)
    records += [{"kind": "summary", **r.summary} for r in exam.results.all()]
    if exam.pairwise:
        records.append({**exam.pairwise, "kind": "pairwise"})
    records.append({**exam.agreement, "kind": "agreement"} if exam.agreement else {"kind": "agreement", "pairs": []})
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", exam.exam_id).strip("-.")[:120] or "exam"  # no header injection
    response["Content-Disposition"] = f'attachment; filename="glossa-exam-{name}.jsonl"'
    return response
