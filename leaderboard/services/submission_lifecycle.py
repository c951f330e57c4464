"""The one state machine of a submission (issue #18.5): every change of its status, progress
and attempts is a function here.

    PENDING ──start──▶ RUNNING ──finish──▶ FINISHED
       │                  │ └──fail / give_up──▶ FAILED ──requeue──▶ PENDING
       └──────cancel──────┴──────────────────▶ CANCELLED ──requeue──▶ PENDING
    RUNNING or PENDING that no worker holds ──take_back──▶ PENDING (a new task) or FAILED

The GPU worker's events reach it through ``submission_events.py`` (which checks that an
event still speaks for the submission and locks the row); the admin's cancel and requeue,
and the reaper's take-back, call it directly. Progress is typed
(``leaderboard/submission_progress.py``).
"""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from leaderboard import job_control
from leaderboard.models import Submission, SubmissionStatus
from leaderboard.services import submission_job
from leaderboard.services.dispatch import dispatch_after_commit
from leaderboard.services.example_store import InvalidExamples, check_examples
from leaderboard.services.record_fields import InvalidRecord
from leaderboard.services.results_import import SkipRecord, parse_record, store_record
from leaderboard.submission_progress import DatasetProgress, DatasetState, Progress

logger = logging.getLogger("leaderboard.submission_lifecycle")

ACTIVE = (SubmissionStatus.PENDING, SubmissionStatus.RUNNING)
LOG_CHARS = 40_000
REASON_CHARS = 4_000


def _text(value, limit: int) -> str:
    """What a worker reported, as text the database can hold: cut to ``limit``, no NUL."""
    return str(value or "")[:limit].replace("\x00", "")


def died_reason(attempts: int, stage: str, how: str = "died") -> str:
    times = "once" if attempts == 1 else f"{attempts} times"
    return (
        f"The worker {how} {times} while {stage or 'starting the evaluation'}; the model may not fit in the "
        "worker's (GPU) memory, or the worker's machine failed. Datasets finished before are kept; an "
        "administrator can re-queue it."
    )


def _save(submission: Submission, *fields: str) -> None:
    submission.save(update_fields=[*fields, "updated_at"])


def _set_progress(submission: Submission, progress: Progress) -> None:
    submission.progress = progress.as_json()
    submission.datasets_done = progress.done


def start(submission: Submission, *, attempt: int, worker: str, unavailable: dict) -> None:
    """PENDING (or RUNNING after an interruption) → RUNNING: a worker took it."""
    if submission.status == SubmissionStatus.RUNNING:
        logger.info("submission %s was interrupted; resuming after its finished datasets", submission.pk)
    submission.status = SubmissionStatus.RUNNING
    submission.started_at = submission.started_at or timezone.now()
    # the worker's count (the job's starts + this message's deliveries); max: a repeated event counts once
    submission.attempts = max(submission.attempts, attempt or submission.attempts + 1)
    submission.stage = "loading the model"
    submission.heartbeat_at = timezone.now()
    progress = Progress.of(submission.progress).with_worker(_text(worker, 200))
    job = submission_job.current_job(submission) or {}
    for name, note in unavailable.items():
        if name not in (job.get("unavailable") or {}):
            continue  # the site said which datasets are unavailable; a worker adds none
        progress = progress.with_dataset(
            _text(name, 200), DatasetProgress(DatasetState.UNAVAILABLE, note=_text(note, REASON_CHARS))
        )
    _set_progress(submission, progress)
    _save(submission, "status", "started_at", "attempts", "stage", "heartbeat_at", "progress", "datasets_done")
    dispatch_after_commit()  # its message left the broker: the next one in the fair queue may go


def give_up(submission: Submission, *, attempt: int) -> None:
    """→ FAILED: its message was delivered GLOSSA_MAX_ATTEMPTS times, its worker died each time."""
    attempts = max(submission.attempts, (attempt or 1) - 1)
    _close(submission, SubmissionStatus.FAILED, died_reason(attempts, submission.stage), submission.log_excerpt)
    logger.error("submission %s: %s", submission.pk, submission.failure_reason)


def heartbeat(submission: Submission, *, stage: str = "") -> None:
    submission.heartbeat_at = timezone.now()
    fields = ["heartbeat_at"]
    if stage:
        submission.stage = _text(stage, 200)
        fields.append("stage")
    _save(submission, *fields)


def _unplanned(submission: Submission, dataset: str, kind: str) -> bool:
    """Whether ``dataset`` is not in the submission's job (the event is then logged and dropped)."""
    if submission_job.planned(submission, dataset):
        return False
    logger.warning("submission %s: a %s event for %r, not in its job, ignored", submission.pk, kind, dataset[:100])
    return True


def report_progress(submission: Submission, *, dataset: str, done: int, total: int) -> None:
    dataset = _text(dataset, 200)
    progress = Progress.of(submission.progress)
    if _unplanned(submission, dataset, "progress") or progress.is_final(dataset):
        return  # a late progress report for a dataset already finished
    running = DatasetProgress(DatasetState.RUNNING, done, total)
    submission.progress = progress.with_dataset(dataset, running).as_json()
    submission.stage = f"evaluating {dataset}"[:200]
    submission.heartbeat_at = timezone.now()
    _save(submission, "progress", "stage", "heartbeat_at")


def dataset_failed(submission: Submission, *, dataset: str, reason: str) -> None:
    dataset = _text(dataset, 200)
    progress = Progress.of(submission.progress)
    if _unplanned(submission, dataset, "dataset_failed") or progress.is_final(dataset):
        return  # a stored result is not failed afterwards, nor a failure failed twice
    failed = DatasetProgress(DatasetState.FAILED, note=_text(reason, REASON_CHARS))
    _set_progress(submission, progress.with_dataset(dataset, failed))
    _save(submission, "progress", "datasets_done")


def _check_identity(record: dict, submission: Submission) -> None:
    """The record must be of the submitted model at the submitted commit."""
    if record.get("model") != submission.model.model_id:
        raise InvalidRecord(
            f"the worker sent a record of model {str(record.get('model'))[:200]!r}, "
            f"not of the submitted {submission.model.model_id}; nothing was stored"
        )
    commit = record.get("model_commit") or ""
    if submission.commit_sha and commit != submission.commit_sha:
        raise InvalidRecord(
            f"the engine evaluated commit {str(commit)[:64] or 'unknown'} of {submission.model.model_id}, "
            f"not the submitted commit {submission.commit_sha}; nothing was stored"
        )


def record_dataset(submission: Submission, record: dict, examples: bytes | None = None) -> None:
    """One dataset's result record: stored (once) if it is of the submitted model and commit
    and what the submission's job asked for (``submission_job.check_record``: its dataset,
    version, protocol and variant) and the importer accepts it; otherwise a planned dataset
    fails with the reason, and a record of a dataset the job never planned is logged and
    changes nothing. Its examples (``evaluation/examples.py``) are stored with it; examples
    that are not the record's are dropped, with a note on the dataset, and the scores are
    stored all the same."""
    name = _text(record.get("dataset"), 200)
    progress = Progress.of(submission.progress)
    if (progress.get(name) or DatasetProgress(DatasetState.PENDING)).state == DatasetState.DONE:
        logger.info("submission %s: %s is already stored; the repeated record is ignored", submission.pk, name)
        return
    try:
        _check_identity(record, submission)
        note = _store_checked(submission, record, examples)
        state = DatasetProgress(DatasetState.DONE, note=note)
        logger.info("submission %s: stored %s", submission.pk, name)
    except (InvalidRecord, SkipRecord) as exc:
        state = DatasetProgress(DatasetState.FAILED, note=_text(f"its result was refused: {exc}", REASON_CHARS))
        logger.error("submission %s: the record of %s was refused: %s", submission.pk, name[:100], exc)
    if not submission_job.planned(submission, name):
        return  # nothing to fail: the submission has no such dataset, and no event adds one
    _set_progress(submission, progress.with_dataset(name, state))
    _save(submission, "progress", "datasets_done")


def _store_checked(submission: Submission, record: dict, examples: bytes | None) -> str:
    """Parse the record, check it against the job, store it; returns the dataset's note."""
    submission_job.check_planned(submission, record.get("dataset"))
    stored = {**record, "model_revision": submission.revision}
    parsed = parse_record(stored)
    submission_job.check_record(submission, parsed)
    source = f"submission:{submission.pk}"
    try:
        with transaction.atomic():  # a savepoint: a refused record leaves the row's lock and progress
            checked = check_examples(examples, parsed.record) if examples is not None else None
            store_record(parsed, source=source, submission=submission, examples=checked)
        return ""
    except (DataError, IntegrityError) as exc:  # a value the database cannot hold (a NUL in text, ...)
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InvalidRecord(f"the database refused it ({first_line[:200]})") from None
    except InvalidExamples as exc:  # refused before anything was stored: the scores go alone
        logger.warning("submission %s: the examples of %s were refused: %s", submission.pk, parsed.dataset, exc)
        with transaction.atomic():
            store_record(parsed, source=source, submission=submission)
        return _text(f"stored without its examples: {exc}", REASON_CHARS)


def _close(submission: Submission, status: str, reason: str, log: str) -> None:
    submission.status = status
    submission.failure_reason = reason
    submission.log_excerpt = log
    submission.finished_at = timezone.now()
    _save(submission, "status", "failure_reason", "log_excerpt", "finished_at")
    job_control.stop(submission.pk)
    dispatch_after_commit()


def finish(submission: Submission, *, log: str) -> None:
    """RUNNING → FINISHED (and its boards re-aggregated), or FAILED when every dataset it
    tried failed."""
    from leaderboard.services.submissions import boards_of_datasets, queue_aggregation

    log = _text(log, LOG_CHARS)
    progress = Progress.of(submission.progress)
    failed, done = progress.names(DatasetState.FAILED), progress.names(DatasetState.DONE)
    if failed and not done:
        failures = "; ".join(f"{name}: {progress.get(name).note or 'failed'}" for name in failed)
        _close(submission, SubmissionStatus.FAILED, _text(f"no dataset could be evaluated: {failures}", 8000), log)
        return
    _close(submission, SubmissionStatus.FINISHED, "", log)
    transaction.on_commit(lambda: queue_aggregation(boards_of_datasets(done)))
    logger.info("submission %s finished", submission.pk)


def fail(submission: Submission, *, reason: str, log: str = "") -> None:
    """→ FAILED with a reason a user can read (the log is for administrators)."""
    reason = _text(reason, 8000) or "The evaluation failed."
    _close(submission, SubmissionStatus.FAILED, reason, _text(log, LOG_CHARS))
    logger.error("submission %s failed: %s", submission.pk, reason)


def cancel(submission: Submission) -> bool:
    """Cancel a pending or running submission; a running task is revoked (terminated)."""
    updated = Submission.objects.filter(
        pk=submission.pk, status__in=[SubmissionStatus.PENDING, SubmissionStatus.RUNNING]
    ).update(
        status=SubmissionStatus.CANCELLED, finished_at=timezone.now(), failure_reason="Cancelled by an administrator."
    )
    if not updated:
        return False
    from leaderboard.services.exam_runs import cancel_for_submission

    cancel_for_submission(submission)  # its exam runs (issue #17) stop with it
    try:
        job_control.stop(submission.pk)  # the GPU worker stops before its next dataset
    except Exception:  # the row says CANCELLED; the site ignores what the worker still sends
        logger.exception("could not tell the workers that submission %s is cancelled", submission.pk)
    revoke_task(submission.celery_task_id)  # else the worker checks the row between datasets
    dispatch_after_commit()
    return True


def revoke_task(task_id: str) -> None:
    """Revoke a cancelled job's Celery task, terminating it if it runs. Best effort: the
    caller has already marked its row CANCELLED, so whatever the task still sends is ignored."""
    from celery import current_app

    if not task_id:
        return
    try:
        current_app.control.revoke(task_id, terminate=True, signal="SIGTERM")
    except Exception:
        logger.exception("could not revoke task %s", task_id)


def requeue(submission: Submission) -> Submission:
    """FAILED or CANCELLED → PENDING under a new task id, the retry budget restored (an
    administrator's decision); it resumes after its finished datasets, and waits in the fair
    queue as a re-run (before new work)."""
    from leaderboard.services.submissions import SubmissionRefused

    if submission.status not in (SubmissionStatus.FAILED, SubmissionStatus.CANCELLED):
        raise SubmissionRefused(
            f"Only failed or cancelled submissions are re-queued (this one is {submission.status}).", code="state"
        )
    task_id = str(uuid.uuid4())
    try:
        with transaction.atomic():
            updated = Submission.objects.filter(
                pk=submission.pk, status__in=[SubmissionStatus.FAILED, SubmissionStatus.CANCELLED]
            ).update(
                status=SubmissionStatus.PENDING,
                failure_reason="",
                log_excerpt="",
                finished_at=None,
                celery_task_id=task_id,
                attempts=0,  # an administrator's decision to try again: the retry budget starts over
                heartbeat_at=None,
                rerun=True,
                dispatched_at=None,
            )
            if updated:
                dispatch_after_commit()
    except IntegrityError:
        raise SubmissionRefused(
            "The same model, commit and variant is already pending, running or finished in another submission.",
            code="duplicate",
        ) from None
    submission.refresh_from_db()
    return submission


def take_back(pk: int, expected: dict, how: str) -> str | None:
    """Work no worker holds: queued again under a new task id ("requeued"), or FAILED after
    the last attempt ("failed"), if its row still matches ``expected`` (nobody picked it up
    in the meantime; None otherwise)."""
    from leaderboard.services.submissions import enqueue

    with transaction.atomic():
        row = Submission.objects.select_for_update().filter(pk=pk, **expected).first()
        if row is None:
            return None
        if row.attempts >= settings.GLOSSA_MAX_ATTEMPTS:
            row.status = SubmissionStatus.FAILED
            row.failure_reason = died_reason(row.attempts, row.stage, how)
            row.finished_at = timezone.now()
            row.save(update_fields=["status", "failure_reason", "finished_at", "updated_at"])
            logger.error("reaper: submission %s failed: %s", pk, row.failure_reason)
            return "failed"
        task_id = str(uuid.uuid4())
        row.status = SubmissionStatus.PENDING
        row.celery_task_id = task_id
        row.heartbeat_at = None
        row.dispatched_at = timezone.now()  # work taken back goes straight to the broker
        row.save(update_fields=["status", "celery_task_id", "heartbeat_at", "dispatched_at", "updated_at"])
        transaction.on_commit(lambda: enqueue(pk, task_id))
        logger.warning("reaper: submission %s %s; queued again as task %s", pk, how, task_id)
        return "requeued"
