"""Exam runs (issue #17): what the ``gpu`` queue is asked to examine, and what it reports.

A run is one new round in one language: the registered examiners that examine in it, and
as examinees the submitted model (when a submission opted in) and the best of the
language's latest round (at most ``EXAM_MAX_EXAMINEES``); with ``EXAM_PEER`` the
registered examiners sit the exam too and every examinee examines the others (never
itself), with the deployment's backend. The job travels in the message (the GPU worker has no
database); the worker reports through ``apply_exam_event`` on the ``default`` queue, and
its finished document is imported like any exam (``services/exam_import.py``). Retries,
attempts and failure reasons work as for evaluations.
"""

from __future__ import annotations

import base64
import gzip
import logging
import random
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from evaluation.compressed import TooLarge, gunzip_bounded
from evaluation.examiner.taxonomy import exam_languages
from leaderboard.models import Exam, Examiner, ExamQuestion, ExamRun, ExamRunStatus, ModelType, Submission
from leaderboard.public_text import public_reason
from leaderboard.services.exam_import import MAX_DOCUMENT_BYTES, ExamImportError, import_exam

logger = logging.getLogger("leaderboard.services.exam_runs")

RUN_EXAM_TASK = "leaderboard.tasks.run_exam"
LIVE = (ExamRunStatus.PENDING, ExamRunStatus.RUNNING)  # a worker may still send events


class ExamNotStarted(Exception):
    """Why no exam could be started (no examiner for the language, no taxonomy, ...)."""


class BadExamEvent(Exception):
    pass


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
                    celery_task_id=str(uuid.uuid4()),
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
    from leaderboard.services.submissions import boards_of_datasets, plan_datasets

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


def enqueue(run: ExamRun) -> None:
    from celery import current_app

    try:
        current_app.send_task(RUN_EXAM_TASK, args=[exam_job(run)], task_id=run.celery_task_id)
    except Exception as exc:
        logger.exception("could not queue exam run %s", run.pk)
        ExamRun.objects.filter(pk=run.pk, status=ExamRunStatus.PENDING).update(
            status=ExamRunStatus.FAILED,
            failure_reason=f"Could not be queued: the task queue is unreachable ({type(exc).__name__}).",
            finished_at=timezone.now(),
        )


def cancel(run: ExamRun, reason: str = "Cancelled by an administrator.") -> bool:
    """A pending or running run → CANCELLED; its task is revoked (a running one terminated)
    and anything its worker still sends is ignored."""
    from leaderboard.services.submission_lifecycle import revoke_task

    updated = ExamRun.objects.filter(pk=run.pk, status__in=LIVE).update(
        status=ExamRunStatus.CANCELLED, failure_reason=reason, finished_at=timezone.now()
    )
    if updated:
        revoke_task(run.celery_task_id)
    return bool(updated)


def cancel_for_submission(submission: Submission) -> int:
    runs = list(submission.exam_runs.filter(status__in=LIVE))
    return sum(cancel(run, "Cancelled with its submission.") for run in runs)


def requeue(run: ExamRun, *, keep_attempts: bool = False) -> None:
    """Queue the run again under a new task id (the old task's events are then ignored), the
    same round: an administrator's retry starts the attempts afresh, the reaper's does not."""
    run.status, run.failure_reason, run.stage = ExamRunStatus.PENDING, "", ""
    run.celery_task_id, run.attempts = str(uuid.uuid4()), run.attempts if keep_attempts else 0
    run.heartbeat_at = None
    run.save(update_fields=["status", "failure_reason", "stage", "celery_task_id", "attempts", "heartbeat_at"])
    transaction.on_commit(lambda: enqueue(run))


def reap(now=None) -> dict[str, list[int]]:
    """The reaper's part for exam runs (``services/reaper.py``): a RUNNING run whose
    heartbeat stopped, or a PENDING one whose message no queue holds, is queued again, or
    FAILED once ``GLOSSA_MAX_ATTEMPTS`` starts were made."""
    from leaderboard.services import broker_probe

    now = now or timezone.now()
    report: dict[str, list[int]] = {"requeued": [], "failed": []}
    stale = now - timedelta(seconds=settings.GLOSSA_HEARTBEAT_TIMEOUT)
    candidates = list(
        ExamRun.objects.filter(status=ExamRunStatus.RUNNING).filter(
            Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, started_at__lt=stale)
        )
    )
    waiting = list(
        ExamRun.objects.filter(
            status=ExamRunStatus.PENDING, created_at__lt=now - timedelta(seconds=settings.GLOSSA_PENDING_TIMEOUT)
        )
    )
    if waiting:
        queued = broker_probe.queued_task_ids("gpu")
        if queued is not None:
            candidates += [run for run in waiting if run.celery_task_id not in queued]
    for candidate in candidates:
        with transaction.atomic():
            run = ExamRun.objects.select_for_update().get(pk=candidate.pk)
            if (run.status, run.celery_task_id, run.heartbeat_at) != (
                candidate.status,
                candidate.celery_task_id,
                candidate.heartbeat_at,
            ):
                continue  # it moved on meanwhile
            if run.attempts >= settings.GLOSSA_MAX_ATTEMPTS:
                run.status, run.finished_at = ExamRunStatus.FAILED, now
                run.failure_reason = f"Its worker stopped responding {run.attempts} times; the models may not fit."
                run.save(update_fields=["status", "finished_at", "failure_reason"])
                report["failed"].append(run.pk)
            else:
                requeue(run, keep_attempts=True)
                report["requeued"].append(run.pk)
    return report


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


def _text(value, limit: int) -> str:
    """What a worker reported, as text the database can hold: its last ``limit``
    characters, no NUL."""
    return str(value or "")[-limit:].replace("\x00", "")


def apply_event(event: dict) -> bool:
    """Apply one event of the worker that holds ``event["task"]``; an event of a task the
    run no longer counts on (re-queued) is ignored."""
    if not isinstance(event, dict) or type(event.get("run")) is not int or not 0 < event["run"] < 2**31:
        raise BadExamEvent(f"not an exam event: {str(event)[:200]}")
    with transaction.atomic():
        run = ExamRun.objects.select_for_update().filter(pk=event["run"]).first()
        if run is None or run.celery_task_id != event.get("task"):
            return False
        if run.status not in LIVE:
            return False
        kind, now = event.get("kind"), timezone.now()
        if kind != "finished":  # any other news from the worker is a sign of life (the reaper reads it)
            run.heartbeat_at = now
        if kind == "started":
            run.status, run.started_at = ExamRunStatus.RUNNING, run.started_at or now
            attempt = event.get("attempt")
            run.attempts = attempt if type(attempt) is int and 0 < attempt < 10**6 else run.attempts
            run.stage = "loading the models"
        elif kind == "stage":
            run.stage = _text(event.get("stage"), 200)
        elif kind == "heartbeat":
            pass
        elif kind == "finished":
            try:
                imported = import_exam(_document(event.get("document")), source=f"exam run {run.pk}", run=run)
            except ExamImportError as exc:
                logger.error("exam run %s: the document was refused: %s", run.pk, str(exc)[:2000])
                reason = public_reason(f"The exam could not be stored: {exc}")[:4000]
                run.status, run.failure_reason = ExamRunStatus.FAILED, reason
            else:
                run.status, run.stage = ExamRunStatus.FINISHED, f"stored as {imported.exam.exam_id}"
            run.log_excerpt, run.finished_at = _text(event.get("log"), 20000), now
        elif kind in ("failed", "gave_up"):
            reason = (
                f"The worker died {run.attempts} times while running the exam; the models may not fit."
                if kind == "gave_up"
                else public_reason(_text(event.get("reason"), 8000) or "unknown")
            )
            run.status, run.failure_reason, run.finished_at = ExamRunStatus.FAILED, reason, now
            run.log_excerpt = _text(event.get("log"), 20000)
        else:
            raise BadExamEvent(f"unknown exam event {kind!r}")
        run.save()
    return True
