"""Submission pages: the form, one submission's live state (HTML and JSON), the queue."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from leaderboard.forms import SubmissionForm
from leaderboard.models import ExamRun, Submission, SubmissionStatus
from leaderboard.public_text import public_reason
from leaderboard.selectors import queue as queue_selector
from leaderboard.services import exam_runs, ratelimit
from leaderboard.services import submissions as service
from leaderboard.submission_progress import Progress
from leaderboard.web.client_address import client_address as find_client_address

LIVE_STATUSES = (SubmissionStatus.PENDING, SubmissionStatus.RUNNING)
REFRESH_SECONDS = 5
# The form field a refusal is shown on (others are shown above the form).
ERROR_FIELDS = {
    "invalid_model_id": "model_id",
    "not_found": "model_id",
    "remote_code": "model_id",
    "lookup_failed": "model_id",
    "too_large": "model_id",
    "revision": "revision",
}


def client_address(request) -> str | None:
    """The client's address: REMOTE_ADDR, or the first hop left of ``GLOSSA_TRUSTED_PROXIES``."""
    return find_client_address(request.META, settings.TRUSTED_PROXIES)


@require_http_methods(["GET", "POST"])
def submit(request):
    choices = service.board_choices()
    form = SubmissionForm(request.POST or None, board_choices=choices)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            address = client_address(request)
            # The rate limit first: a refused attempt costs no Hub call and no row.
            admission = ratelimit.admit(address, staff=request.user.is_staff)
            if not admission.allowed:
                form.add_error(None, admission.message)
                status = 429
            else:
                outcome = _submit(request, form, address, admission)
                if outcome is not None:
                    return redirect("submission-detail", pk=outcome.submission.pk)
    return render(request, "submissions/submit.html", {"form": form, "has_boards": bool(choices)}, status=status)


def _submit(request, form, address, admission):
    """The service's outcome, or None with the refusal on the form; the slot goes back unless created."""
    data = form.cleaned_data
    outcome = None
    try:
        outcome = service.submit(
            data["model_id"],
            revision=data["revision"],
            few_shot=data["few_shot"],
            languages=data["languages"],
            client_address=address,
            user=request.user,
            examine=data.get("examine", False),
        )
    except service.SubmissionRefused as exc:
        form.add_error(ERROR_FIELDS.get(exc.code), str(exc))
        return None
    finally:
        if outcome is None or not outcome.created:
            admission.not_created(address)
    model_id = outcome.submission.model.model_id
    if outcome.created:
        messages.success(request, f"{model_id} is queued for evaluation.")
    else:
        messages.info(request, f"{model_id} at this commit and variant was already submitted: here is that submission.")
    return outcome


def _elapsed(submission: Submission) -> float | None:
    if not submission.started_at:
        return None
    end = submission.finished_at or timezone.now()
    return max(0.0, (end - submission.started_at).total_seconds())


def _datasets(submission: Submission, staff: bool = False) -> list[dict]:
    """Each planned dataset's progress; its note (why it failed) sanitised unless for staff."""
    return [
        {
            "name": name,
            "state": progress.state.value,
            "done": progress.done,
            "total": progress.total,
            "percent": progress.percent,
            "note": progress.note if staff else public_reason(progress.note),
        }
        for name, progress in sorted(Progress.of(submission.progress).datasets.items())
    ]


def _as_json(submission: Submission, staff: bool = False) -> dict:
    return {
        "id": submission.pk,
        "model": submission.model.model_id,
        "revision": submission.revision,
        "commit_sha": submission.commit_sha,
        "few_shot": submission.few_shot,
        "languages": submission.languages,
        "status": submission.status,
        "datasets_total": submission.datasets_total,
        "datasets_done": submission.datasets_done,
        "datasets": _datasets(submission, staff),
        "elapsed_seconds": _elapsed(submission),
        "attempts": submission.attempts,
        "created_at": submission.created_at.isoformat(),
        "started_at": submission.started_at.isoformat() if submission.started_at else None,
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
        # the public reads a sanitised reason; the worker's log is for staff only
        "failure_reason": submission.failure_reason if staff else public_reason(submission.failure_reason),
        "log_excerpt": submission.log_excerpt if staff and submission.status == SubmissionStatus.FAILED else "",
        **_queue_place(submission),
    }


def _queue_place(submission: Submission) -> dict:
    """Where a pending submission stands in the fair queue (empty otherwise)."""
    if submission.status != SubmissionStatus.PENDING:
        return {}
    position, start = queue_selector.estimate_for(submission)
    return {"queue_position": position, "estimated_start": start.isoformat() if start else None}


def detail(request, pk: int):
    submission = get_object_or_404(Submission.objects.select_related("model"), pk=pk)
    live = submission.status in LIVE_STATUSES
    boards = service.boards_of_datasets([row["name"] for row in _datasets(submission)]) if not live else []
    context = {
        "submission": submission,
        "datasets": _datasets(submission, request.user.is_staff),
        "elapsed": _elapsed(submission),
        "live": live,
        "refresh_seconds": REFRESH_SECONDS,
        "boards": boards,
        "staff": request.user.is_staff,
        "exam_runs": list(submission.exam_runs.order_by("language")),
        "exam_notes": exam_runs.not_started_notes(submission) if submission.examine else [],
    }
    if submission.status == SubmissionStatus.PENDING:
        context["queue_position"], context["estimated_start"] = queue_selector.estimate_for(submission)
    return render(request, "submissions/detail.html", context)


def detail_json(request, pk: int):
    submission = get_object_or_404(Submission.objects.select_related("model"), pk=pk)
    response = JsonResponse(_as_json(submission, staff=request.user.is_staff))
    response["Cache-Control"] = "no-store"
    return response


def queue(request):
    groups = [
        ("Running", service.recent_submissions([SubmissionStatus.RUNNING])),
        ("Finished", service.recent_submissions([SubmissionStatus.FINISHED])),
        ("Failed", service.recent_submissions([SubmissionStatus.FAILED])),
        ("Cancelled", service.recent_submissions([SubmissionStatus.CANCELLED], limit=20)),
    ]
    exam_runs_shown = list(ExamRun.objects.order_by("-created_at")[:30])  # exams on the gpu queue
    live = bool(groups[0][1]) or any(run.status in exam_runs.LIVE for run in exam_runs_shown)
    waiting, waiting_total = queue_selector.waiting(limit=100)  # the fair queue's order
    live = live or bool(waiting)
    context = {
        "groups": groups,
        "waiting": waiting,
        "waiting_total": waiting_total,
        "queue_ahead": settings.GLOSSA_QUEUE_AHEAD,
        "live": live,
        "refresh_seconds": 15,
        "exam_runs": exam_runs_shown,
    }
    return render(request, "submissions/queue.html", context)
