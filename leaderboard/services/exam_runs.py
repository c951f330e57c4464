"""Exam runs (docs/methodology.md §8): what the ``gpu`` queue is asked to examine, and what it reports.

A run is one new round in one language: the registered examiners that examine in it, and
as examinees the submitted model (when a submission opted in) and the best of the
language's latest round (at most ``EXAM_MAX_EXAMINEES``); with ``EXAM_PEER`` the
registered examiners sit the exam too and every examinee examines the others (never
itself), with the deployment's backend. The job travels in the message (the GPU worker has no
database); the worker reports through ``apply_exam_event`` on the ``default`` queue, and
its finished document is imported like any exam (``services/exam_import.py``). An exam run
is a kind of GPU job (:data:`EXAM_RUNS`): queueing, cancelling, re-queueing, the reaper, the
check of an event against the run and the failures are the shared lifecycle's
(``leaderboard/jobs/lifecycle.py``), as for evaluations.
"""

from __future__ import annotations

import base64
import gzip
import logging
import random

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from evaluation.compressed import TooLarge, gunzip_bounded
from evaluation.examiner.taxonomy import exam_languages
from leaderboard.jobs import lifecycle
from leaderboard.models import (
    LIVE_STATUSES,
    Exam,
    Examiner,
    ExamQuestion,
    ExamRun,
    ExamRunStatus,
    ModelType,
    Submission,
)
from leaderboard.public_text import public_reason
from leaderboard.registry.dataset_plan import boards_of_datasets, plan_datasets
from leaderboard.services import broker_probe
from leaderboard.services.exam_import import MAX_DOCUMENT_BYTES, ExamImportError, import_exam

logger = logging.getLogger("leaderboard.services.exam_runs")

RUN_EXAM_TASK = "leaderboard.tasks.run_exam"
LIVE = LIVE_STATUSES  # a worker may still send events
LOG_CHARS = 20_000
BadExamEvent = lifecycle.BadEvent  # not an exam event: dropped with a log line


class ExamNotStarted(Exception):
    """Why no exam could be started (no examiner for the language, no taxonomy, ...)."""


def examiners_for(language: str) -> list[Examiner]:
    return [e for e in Examiner.objects.filter(enabled=True) if e.examines(language)]


def _next_round(language: str) -> int:
    last_exam = Exam.objects.filter(language=language).aggregate(m=Max("round"))["m"] or 0
    last_run = ExamRun.objects.filter(language=language).aggregate(m=Max("round"))["m"] or 0
    return max(last_exam, last_run) + 1


def _previous_examinees(language: str) -> list[dict]:
    exam = Exam.objects.filter(language=language).order_by("-round").first()
    if exam is None:
        return []
    revisions = {e["model"]: e.get("revision", "") for e in exam.header.get("examinees", [])}
    return [
        {"model": r.examinee, "revision": revisions.get(r.examinee, "")}
        for r in exam.results.order_by("rank", "examinee")
    ]


def refusal(language: str, submission: Submission | None = None) -> str | None:
    """Why no exam can run in ``language`` (for this submission), or None."""
    if language not in exam_languages():
        return f"there is no exam taxonomy for {language!r} yet"
    if not examiners_for(language):
        return f"no examiner is registered for {language!r}"
    if submission is not None and submission.model.model_type == ModelType.ENCODER:
        return "an encoder cannot answer open questions"
    return None


def earlier_questions(language: str, limit: int = 2000) -> list[str]:
    """The language's stored main questions, newest rounds first: a new round must not repeat them."""
    return list(
        ExamQuestion.objects.filter(exam__language=language, depth=0)
        .order_by("-exam__round", "id")
        .values_list("text", flat=True)[:limit]
    )


def start_exam_run(language: str, *, submission: Submission | None = None) -> ExamRun:
    """Create the run and queue it (after the transaction commits)."""
    reason = refusal(language, submission)
    if reason:
        raise ExamNotStarted(reason)
    examiners = examiners_for(language)
    examinees: list[dict] = []
    if submission is not None:
        examinees.append({"model": submission.model.model_id, "revision": submission.commit_sha or submission.revision})
    for previous in _previous_examinees(language):
        if len(examinees) >= settings.EXAM_MAX_EXAMINEES:
            break
        if previous["model"] not in {e["model"] for e in examinees}:
            examinees.append(previous)
    examiner_specs = [e.spec() for e in examiners]
    if settings.EXAM_PEER or len(examinees) < 2:  # the registered examiners sit the exam too
        for examiner in examiners:
            if examiner.model_id not in {e["model"] for e in examinees}:
                examinees.append({"model": examiner.model_id, "revision": ""})
    if settings.EXAM_PEER:  # peer examination: every examinee examines the others as well
        registered = {e["model"] for e in examiner_specs}
        for examinee in examinees:
            if examinee["model"] not in registered:
                examiner_specs.append(
                    {"model": examinee["model"], "backend": settings.EVALUATION_BACKEND, "api_key_env": ""}
                )
    job_settings = {
        "earlier_questions": earlier_questions(language),
        "questions": settings.EXAM_QUESTIONS,
        "follow_ups": settings.EXAM_FOLLOW_UPS,
        "answer_tokens": settings.EXAM_ANSWER_TOKENS,
    }
    for _ in range(5):  # two runs started at once: the second takes the next round
        try:
            with transaction.atomic():
                run = ExamRun.objects.create(
                    language=language,
                    round=_next_round(language),
                    seed=fresh_seed(),
                    examiners=examiner_specs,
                    examinees=examinees,
                    settings=job_settings,
                    submission=submission,
                    celery_task_id=lifecycle.new_task_id(),
                )
                transaction.on_commit(lambda run=run: enqueue(run))
            return run
        except IntegrityError:
            continue
    raise ExamNotStarted("could not reserve a round number; try again")


def fresh_seed() -> int:
    """Each round samples its questions with a seed nobody can predict (fresh questions are
    the method's answer to contamination); the seed is stored, so the round can be rerun."""
    return random.SystemRandom().randrange(2**31)


def start_for_submission(submission: Submission) -> None:
    """Start an exam in each of the submission's languages that can have one; the page
    says why the others have none (:func:`not_started_notes`)."""
    for language in submission_languages(submission):
        try:
            start_exam_run(language, submission=submission)
        except ExamNotStarted:
            continue


def submission_languages(submission: Submission) -> list[str]:
    return sorted(set(submission.languages or boards_of_datasets(plan_datasets(submission.languages)[0])))


def not_started_notes(submission: Submission) -> list[str]:
    """For the submission page: each of its languages without an exam run, and why."""
    started = set(submission.exam_runs.values_list("language", flat=True))
    notes = []
    for language in submission_languages(submission):
        if language not in started:
            notes.append(f"{language}: {refusal(language, submission) or 'not started'}")
    return notes


def exam_job(run: ExamRun) -> dict:
    return {
        "run": run.pk,
        "language": run.language,
        "round": run.round,
        "seed": run.seed,
        "examiners": run.examiners,
        "examinees": run.examinees,
        "settings": run.settings,
        "backend": settings.EVALUATION_BACKEND,
        "attempts": run.attempts,
    }


EXAM_RUNS = lifecycle.JobKind(
    name="exam run",
    model=ExamRun,
    id_key="run",
    task_name=RUN_EXAM_TASK,
    build_job=lambda pk, task_id: exam_job(ExamRun.objects.get(pk=pk)),
    died_reason=lambda run, how: (
        f"The worker {how} {run.attempts} times while running the exam; the models may not fit."
    ),
    silent_since="started_at",
    waiting=lifecycle.created_long_ago,
    take_back_fields=lambda run, now: {"failure_reason": "", "stage": ""},
    requeue_fields={"stage": ""},
)


def enqueue(run: ExamRun) -> None:
    lifecycle.enqueue(EXAM_RUNS, run.pk, run.celery_task_id)


def cancel(run: ExamRun, reason: str = "Cancelled by an administrator.") -> bool:
    """A pending or running run → CANCELLED; its task is revoked (a running one terminated)
    and anything its worker still sends is ignored."""
    return lifecycle.cancel(EXAM_RUNS, run, reason)


def cancel_for_submission(submission: Submission) -> int:
    runs = list(submission.exam_runs.filter(status__in=LIVE))
    return sum(cancel(run, "Cancelled with its submission.") for run in runs)


def requeue(run: ExamRun) -> None:
    """A failed or cancelled run queued again under a new task id (the old task's events are
    then ignored), the same round, its attempts started afresh (an administrator's retry)."""
    with transaction.atomic():
        if lifecycle.requeue(EXAM_RUNS, run):
            run.refresh_from_db()
            transaction.on_commit(lambda: enqueue(run))


def reap(now=None) -> dict[str, list[int]]:
    """The reaper's part for exam runs (``services/reaper.py``): a RUNNING run whose
    heartbeat stopped, or a PENDING one whose message no queue holds, is queued again, or
    FAILED once ``GLOSSA_MAX_ATTEMPTS`` starts were made."""
    return lifecycle.reap(EXAM_RUNS, broker_probe.queued_task_ids, now)


# --- events from the GPU worker -------------------------------------------------------------


def document_payload(data: bytes) -> str:
    return base64.b64encode(gzip.compress(data, mtime=0)).decode("ascii")


def _document(payload) -> bytes:
    if not isinstance(payload, str) or len(payload) > MAX_DOCUMENT_BYTES:
        raise ExamImportError("the exam document is missing or too large")
    try:
        return gunzip_bounded(base64.b64decode(payload, validate=True), MAX_DOCUMENT_BYTES)
    except TooLarge:
        raise ExamImportError("the exam document is too large") from None
    except ValueError as exc:
        raise ExamImportError(f"the exam document cannot be decoded ({exc})") from None


_text = lifecycle.tail  # a worker's text, its end kept


def _started(run: ExamRun, event: dict) -> None:
    run.stage = "loading the models"
    lifecycle.start(EXAM_RUNS, run, event, "stage")


def _stage(run: ExamRun, event: dict) -> None:
    run.stage = _text(event.get("stage"), 200)
    lifecycle.beat(EXAM_RUNS, run, "stage")


def _finished(run: ExamRun, event: dict) -> None:
    log = _text(event.get("log"), LOG_CHARS)
    try:
        imported = import_exam(_document(event.get("document")), source=f"exam run {run.pk}", run=run)
    except ExamImportError as exc:
        logger.error("exam run %s: the document was refused: %s", run.pk, str(exc)[:2000])
        reason = public_reason(f"The exam could not be stored: {exc}")[:4000]
        lifecycle.close(EXAM_RUNS, run, ExamRunStatus.FAILED, reason, log)
    else:
        run.stage = f"stored as {imported.exam.exam_id}"
        lifecycle.close(EXAM_RUNS, run, ExamRunStatus.FINISHED, "", log, "stage")


def _failed(run: ExamRun, event: dict) -> None:
    if event["kind"] == "gave_up":  # its last delivery: said as the reaper says it (the kind's died_reason)
        reason = EXAM_RUNS.died_reason(run, "died")
    else:
        reason = public_reason(_text(event.get("reason"), 8000) or "unknown")
    run.heartbeat_at = timezone.now()
    lifecycle.close(EXAM_RUNS, run, ExamRunStatus.FAILED, reason, _text(event.get("log"), LOG_CHARS), "heartbeat_at")


HANDLERS = {
    "started": _started,
    "stage": _stage,
    "heartbeat": lambda run, event: lifecycle.beat(EXAM_RUNS, run),
    "finished": _finished,
    "failed": _failed,
    "gave_up": _failed,
}


def apply_event(event: dict) -> bool:
    """Apply one event of the worker that holds ``event["task"]``; an event of a task the
    run no longer counts on (re-queued, cancelled) is ignored (False)."""
    return lifecycle.apply(EXAM_RUNS, event, HANDLERS)
