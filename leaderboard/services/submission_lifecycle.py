"""The state machine of a submission: every change of its status, progress and attempts
is a function here. The moves every GPU job shares (compare-and-set on status, cancel,
re-queue, the reaper's take-back, closing) are ``leaderboard/jobs/lifecycle.py``'s, with a
submission as the kind ``submission_job.SUBMISSIONS``; this module adds what only an
evaluation has (datasets, records, progress) and what follows each move (the fair queue,
the boards' aggregation, the submission's exam runs).

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

from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from leaderboard import job_control
from leaderboard.jobs import lifecycle
from leaderboard.models import LIVE_STATUSES, Submission, SubmissionStatus
from leaderboard.record_fields import InvalidRecord
from leaderboard.registry.dataset_plan import boards_of_datasets
from leaderboard.services import exam_runs, submission_job
from leaderboard.services.aggregation_queue import enqueue_aggregation
from leaderboard.services.dispatch import dispatch_after_commit
from leaderboard.services.example_store import InvalidExamples, check_examples
from leaderboard.services.record_parsing import SkipRecord, parse_record
from leaderboard.services.results_import import store_record
from leaderboard.services.submission_job import SUBMISSIONS, died_reason
from leaderboard.services.submissions import SubmissionRefused
from leaderboard.submission_progress import DatasetProgress, DatasetState, Progress

logger = logging.getLogger("leaderboard.submission_lifecycle")

ACTIVE = LIVE_STATUSES
LOG_CHARS = 40_000
REASON_CHARS = 4_000
_text = lifecycle.clip


def _save(submission: Submission, *fields: str) -> None:
    lifecycle.save(SUBMISSIONS, submission, *fields)


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
    lifecycle.close(SUBMISSIONS, submission, status, reason, log)
    job_control.stop(submission.pk)
    dispatch_after_commit()


def finish(submission: Submission, *, log: str) -> None:
    """RUNNING → FINISHED (and its boards re-aggregated), or FAILED when every dataset it
    tried failed."""
    log = _text(log, LOG_CHARS)
    progress = Progress.of(submission.progress)
    failed, done = progress.names(DatasetState.FAILED), progress.names(DatasetState.DONE)
    if failed and not done:
        failures = "; ".join(f"{name}: {progress.get(name).note or 'failed'}" for name in failed)
        _close(submission, SubmissionStatus.FAILED, _text(f"no dataset could be evaluated: {failures}", 8000), log)
        return
    _close(submission, SubmissionStatus.FINISHED, "", log)
    transaction.on_commit(lambda: _queue_aggregation(boards_of_datasets(done)))
    logger.info("submission %s finished", submission.pk)


def fail(submission: Submission, *, reason: str, log: str = "") -> None:
    """→ FAILED with a reason a user can read (the log is for administrators)."""
    reason = _text(reason, 8000) or "The evaluation failed."
    _close(submission, SubmissionStatus.FAILED, reason, _text(log, LOG_CHARS))
    logger.error("submission %s failed: %s", submission.pk, reason)


def _queue_aggregation(boards: list[str]) -> None:
    if boards:
        enqueue_aggregation(boards, trigger="submission")


def cancel(submission: Submission) -> bool:
    """Cancel a pending or running submission; a running task is revoked (terminated), and
    its exam runs stop with it."""
    if not lifecycle.cancel(SUBMISSIONS, submission, "Cancelled by an administrator."):
        return False
    exam_runs.cancel_for_submission(submission)
    try:
        job_control.stop(submission.pk)  # the GPU worker stops before its next dataset
    except Exception:  # the row says CANCELLED; the site ignores what the worker still sends
        logger.exception("could not tell the workers that submission %s is cancelled", submission.pk)
    dispatch_after_commit()
    return True


def requeue(submission: Submission) -> Submission:
    """FAILED or CANCELLED → PENDING under a new task id, the retry budget restored (an
    administrator's decision); it resumes after its finished datasets, and waits in the fair
    queue as a re-run (before new work)."""
    if submission.status not in lifecycle.ENDED_STATUSES:
        raise SubmissionRefused(
            f"Only failed or cancelled submissions are re-queued (this one is {submission.status}).", code="state"
        )
    try:
        with transaction.atomic():
            if lifecycle.requeue(SUBMISSIONS, submission):
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
    the last attempt ("failed"), if its row still matches ``expected``."""
    return lifecycle.take_back(SUBMISSIONS, pk, expected, how)
