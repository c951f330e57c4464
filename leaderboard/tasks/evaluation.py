"""Evaluation tasks (queue ``gpu``): one task evaluates one submission.

The model is loaded once (the engine's ``evaluate_model``); each finished dataset is
stored in ONE transaction (its scores and the submission's progress together), so a
crash loses at most the dataset in progress. A re-delivered message (acks_late +
reject_on_worker_lost) resumes after the last stored dataset: datasets with an
Evaluation row from this submission are skipped, never scored twice.
"""

from __future__ import annotations

import collections
import logging
import os
import socket
import time

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.models import Submission, SubmissionStatus
from leaderboard.services import reaper
from leaderboard.services import submissions as submission_service
from leaderboard.services.db_retry import best_effort, with_db_retry
from leaderboard.services.heartbeat import Heartbeat

logger = logging.getLogger("leaderboard.tasks.evaluation")

LOG_LINES = 200
LOG_LINE_CHARS = 500
PROGRESS_WRITE_INTERVAL = 1.0  # seconds between progress writes within a dataset

__all__ = ["evaluate_submission", "run_submission"]


class Cancelled(Exception):
    pass


class LogBuffer(logging.Handler):
    """Keeps the last ``LOG_LINES`` log lines of the task for the submission page."""

    def __init__(self, capacity: int = LOG_LINES):
        super().__init__(level=logging.INFO)
        self.lines: collections.deque[str] = collections.deque(maxlen=capacity)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # a broken log call must not break the evaluation
            line = str(record.msg)
        self.lines.append(line if len(line) <= LOG_LINE_CHARS else line[:LOG_LINE_CHARS] + " …")

    def text(self) -> str:
        return "\n".join(self.lines)


def _evaluation_settings(submission: Submission):
    """The engine's settings: the model at the submission's pinned commit (the revision only for
    a submission from before commits were pinned), remote code only by a grant for that commit."""
    from evaluation.runner import EvaluationSettings

    return EvaluationSettings(
        revision=submission.commit_sha or submission.revision,
        few_shot=submission.few_shot,
        iterations=settings.EVALUATION_ITERATIONS,
        limit=settings.EVALUATION_TEST_LIMIT,
        backend=settings.EVALUATION_BACKEND,
        trust_remote_code=submission.model.allows_remote_code(submission.commit_sha),
        data_dir=str(settings.DATA_DIR),
        max_train_steps=settings.EVALUATION_MAX_TRAIN_STEPS,
        output_dir=str(settings.EVALUATION_OUTPUT_DIR / f"submission-{submission.pk}"),
    )


def _completed(submission: Submission) -> set[str]:
    return set(submission.evaluations.filter(num_iterations__gt=0).values_list("dataset__name", flat=True))


def _as_submitted(record: dict, submission: Submission) -> dict:
    """The engine's record with the revision as the submitter asked it (the engine saw the commit).

    The record's ``model_commit`` must be the submission's commit: the engine resolves the
    commit it is given, so anything else means the weights evaluated are not the ones submitted.
    """
    from evaluation.errors import EvaluationError

    commit = record.get("model_commit") or ""
    if submission.commit_sha and commit != submission.commit_sha:
        raise EvaluationError(
            f"the engine evaluated commit {commit or 'unknown'} of {submission.model.model_id}, "
            f"not the submitted commit {submission.commit_sha}; nothing was stored"
        )
    return {**record, "model_revision": submission.revision}


def _unavailable(missing: list[str]) -> dict[str, str]:
    """Why each of these leaderboard datasets cannot be evaluated here: no folder, or a bad one."""
    from evaluation.datasets import discover

    refused = {refusal.folder: refusal.reason for refusal in discover(settings.DATA_DIR).refused} if missing else {}
    return {
        name: f"its folder is not a valid dataset: {refused[name]}"
        if name in refused
        else "not in this deployment's data directory"
        for name in missing
    }


def _is_cancelled(submission_id: int) -> bool:
    status = Submission.objects.filter(pk=submission_id).values_list("status", flat=True).first()
    return status in (None, SubmissionStatus.CANCELLED)


def _fail(submission_id: int, reason: str, log: LogBuffer) -> None:
    logger.error("submission %s failed: %s", submission_id, reason)
    Submission.objects.filter(pk=submission_id, status=SubmissionStatus.RUNNING).update(
        status=SubmissionStatus.FAILED, failure_reason=reason, log_excerpt=log.text(), finished_at=timezone.now()
    )


def _start(submission_id: int, task_id: str) -> Submission | None:
    """Mark the submission RUNNING (again, after a re-delivery); None if there is nothing to do."""
    with transaction.atomic():
        submission = Submission.objects.select_for_update().select_related("model").filter(pk=submission_id).first()
        if submission is None:
            logger.warning("submission %s does not exist; nothing to do", submission_id)
            return None
        if submission.status not in (SubmissionStatus.PENDING, SubmissionStatus.RUNNING):
            logger.info("submission %s is %s; nothing to do", submission_id, submission.status)
            return None
        if task_id and submission.celery_task_id and submission.celery_task_id != task_id:
            # An older message (the submission was re-queued since): the newer one does the work.
            logger.info(
                "submission %s now belongs to task %s; ignoring task %s",
                submission_id,
                submission.celery_task_id,
                task_id,
            )
            return None
        if reaper.refuse_another_attempt(submission):  # its worker died GLOSSA_MAX_ATTEMPTS times
            return None
        if submission.status == SubmissionStatus.RUNNING:
            logger.info("submission %s was interrupted; resuming after its finished datasets", submission_id)
        submission.status = SubmissionStatus.RUNNING
        submission.started_at = submission.started_at or timezone.now()
        submission.attempts += 1
        submission.stage = "loading the model"
        submission.heartbeat_at = timezone.now()
        submission.progress = {**submission.progress, "_worker": f"{socket.gethostname()}:{os.getpid()}"}
        submission.save(
            update_fields=["status", "started_at", "attempts", "stage", "heartbeat_at", "progress", "updated_at"]
        )
        return submission


def _set_progress(submission_id: int, dataset: str, state: dict) -> None:
    with transaction.atomic():
        submission = Submission.objects.select_for_update().only("progress", "stage").get(pk=submission_id)
        submission.progress = {**submission.progress, dataset: state}
        if state.get("state") == "running":
            submission.stage = f"evaluating {dataset}"[:200]
        submission.save(update_fields=["progress", "stage", "updated_at"])


def run_submission(submission_id: int, task_id: str = "") -> str:
    """Evaluate one submission to the end; returns its final status."""
    from evaluation.errors import EvaluationError

    log = LogBuffer()
    root = logging.getLogger()
    root.addHandler(log)
    try:
        submission = with_db_retry(lambda: _start(submission_id, task_id), "starting the submission")
        if submission is None:
            return "skipped"
        from evaluation.runner import evaluate_model
        from leaderboard.services.results_import import import_record

        planned, missing = submission_service.plan_datasets(submission.languages)
        done = _completed(submission)
        todo = [name for name in planned if name not in done]
        progress = {name: {"state": "done"} for name in planned if name in done}
        progress.update({name: {"state": "pending"} for name in todo})
        progress.update({name: {"state": "unavailable", "note": note} for name, note in _unavailable(missing).items()})
        progress["_worker"] = submission.progress.get("_worker", "")
        Submission.objects.filter(pk=submission_id).update(
            progress=progress, datasets_total=len(planned), datasets_done=len(planned) - len(todo)
        )
        logger.info(
            "submission %s: %s @ %s (%s), %d datasets to evaluate, %d already done",
            submission_id,
            submission.model.model_id,
            submission.revision,
            "few-shot" if submission.few_shot else "zero-shot",
            len(todo),
            len(planned) - len(todo),
        )
        last_write = [0.0]

        def on_progress(dataset: str, done_units: int, total_units: int) -> None:
            now = time.monotonic()
            if now - last_write[0] < PROGRESS_WRITE_INTERVAL and done_units < total_units:
                return
            last_write[0] = now
            state = {"state": "running", "done": done_units, "total": total_units}
            best_effort(lambda: _set_progress(submission_id, dataset, state), f"writing the progress of {dataset}")

        def on_record(record: dict) -> None:
            name = record.get("dataset")
            record = _as_submitted(record, submission)
            with_db_retry(lambda: store(name, record), f"storing the scores of {name}")
            logger.info("submission %s: stored %s", submission_id, name)
            if with_db_retry(lambda: _is_cancelled(submission_id), "checking for a cancellation"):
                raise Cancelled()

        def store(name: str, record: dict) -> None:
            with transaction.atomic():
                current = Submission.objects.select_for_update().get(pk=submission_id)
                if current.status != SubmissionStatus.RUNNING:
                    raise Cancelled()
                import_record(record, source=f"submission:{submission_id}", submission=current)
                current.progress = {**current.progress, name: {"state": "done"}}
                current.datasets_done = sum(
                    1
                    for key, value in current.progress.items()
                    if not key.startswith("_") and isinstance(value, dict) and value.get("state") == "done"
                )
                current.save(update_fields=["progress", "datasets_done", "updated_at"])

        failed: dict[str, str] = {}

        def on_dataset_error(dataset: str, reason: str) -> None:  # this dataset fails, the others go on
            failed[dataset] = reason
            logger.error("submission %s: %s cannot be evaluated: %s", submission_id, dataset, reason)
            failure = {"state": "failed", "note": reason}
            with_db_retry(lambda: _set_progress(submission_id, dataset, failure), f"recording that {dataset} failed")

        if todo:
            with Heartbeat(submission_id):
                evaluate_model(
                    submission.model.model_id,
                    todo,
                    _evaluation_settings(submission),
                    on_record=on_record,
                    on_progress=on_progress,
                    on_dataset_error=on_dataset_error,
                )
        if failed and len(failed) == len(todo):
            raise EvaluationError("no dataset could be evaluated: " + "; ".join(failed.values()))
        finished = with_db_retry(
            lambda: Submission.objects.filter(pk=submission_id, status=SubmissionStatus.RUNNING).update(
                status=SubmissionStatus.FINISHED, finished_at=timezone.now(), failure_reason="", log_excerpt=log.text()
            ),
            "marking the submission finished",
        )
        if not finished:
            return "cancelled"
        logger.info("submission %s finished", submission_id)
        submission_service.queue_aggregation(submission_service.boards_of_datasets(planned))
        return SubmissionStatus.FINISHED
    except Cancelled:
        logger.info("submission %s was cancelled; stopping", submission_id)
        return "cancelled"
    except SoftTimeLimitExceeded:
        limit = settings.GLOSSA_EVAL_SOFT_TIME_LIMIT
        _fail(
            submission_id,
            f"Timed out: the evaluation took longer than the limit of {limit} seconds. "
            "Datasets finished before the limit are kept; an administrator can re-queue it.",
            log,
        )
        return SubmissionStatus.FAILED
    except EvaluationError as exc:
        _fail(submission_id, str(exc), log)
        return SubmissionStatus.FAILED
    except MemoryError:
        _fail(submission_id, "Out of memory: the model does not fit in this worker's memory.", log)
        return SubmissionStatus.FAILED
    except Exception as exc:
        if _is_out_of_memory(exc):
            _fail(submission_id, f"Out of memory on the worker: the model does not fit ({exc}).", log)
            return SubmissionStatus.FAILED
        logger.exception("submission %s: unexpected error", submission_id)
        _fail(
            submission_id,
            f"Internal error ({type(exc).__name__}: {exc}). The log below shows where; "
            "an administrator can re-queue the submission.",
            log,
        )
        return SubmissionStatus.FAILED
    finally:
        root.removeHandler(log)


def _is_out_of_memory(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name in {"OutOfMemoryError", "OutOfResources"} or "out of memory" in str(exc).lower()


class SubmissionTask(Task):
    """Marks the submission FAILED when the task dies in a way run_submission cannot catch.

    Celery calls ``on_failure`` in the worker's main process after a hard time limit killed
    the pool process (the message is acknowledged, so nothing else would ever finish it).
    A lost worker (crash, SIGKILL) does not come here: its message is re-delivered.
    """

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        submission_id = args[0] if args else kwargs.get("submission_id")
        if isinstance(exc, TimeLimitExceeded):
            reason = (
                f"Timed out: the worker stopped the evaluation at the hard limit of "
                f"{settings.GLOSSA_EVAL_TIME_LIMIT} seconds. Datasets finished before are kept."
            )
        else:
            reason = f"Internal error ({type(exc).__name__}: {exc}); an administrator can re-queue the submission."
        Submission.objects.filter(pk=submission_id, status=SubmissionStatus.RUNNING).update(
            status=SubmissionStatus.FAILED,
            failure_reason=reason,
            finished_at=timezone.now(),
            log_excerpt=str(einfo)[-8000:] if einfo else "",
        )


@shared_task(
    name="leaderboard.tasks.evaluate_submission",
    base=SubmissionTask,
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.GLOSSA_EVAL_SOFT_TIME_LIMIT,
    time_limit=settings.GLOSSA_EVAL_TIME_LIMIT,
)
def evaluate_submission(self, submission_id: int) -> str:
    return run_submission(int(submission_id), task_id=self.request.id or "")
