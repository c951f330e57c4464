"""Faults: bounded retries and the reaper. Nothing stays RUNNING or PENDING forever.

* **Bounded retries.** A message is re-delivered when its worker process dies (acks_late +
  reject_on_worker_lost): a model too large for the GPU is OOM-killed at every load. The
  worker counts starts in ``Submission.attempts``; a delivery that finds
  ``GLOSSA_MAX_ATTEMPTS`` starts already made fails the submission with the stage it died
  in (:func:`refuse_another_attempt`), acknowledges the message and frees the queue.
* **The reaper** (:func:`reap`, the ``reap_submissions`` task run by Celery beat every
  ``GLOSSA_REAPER_INTERVAL`` s): RUNNING work whose heartbeat (``services/heartbeat.py``)
  is older than ``GLOSSA_HEARTBEAT_TIMEOUT`` has lost its worker (the machine died, or the
  worker's main process: a Redis broker returns such a message only after its 6 h
  visibility timeout, a file-system broker never); PENDING work older than
  ``GLOSSA_PENDING_TIMEOUT`` whose message no queue holds (``broker_probe.py``) was lost.
  Either is queued again under a new task id (an old message that comes back later is
  ignored: the worker runs only the submission's current task id) or, after
  ``GLOSSA_MAX_ATTEMPTS`` starts, FAILED with a reason; FAILED frees the model, commit and
  variant for a new submission.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.models import Submission, SubmissionStatus
from leaderboard.services import broker_probe

logger = logging.getLogger("leaderboard.reaper")


def died_reason(attempts: int, stage: str, how: str = "died") -> str:
    times = "once" if attempts == 1 else f"{attempts} times"
    return (
        f"The worker {how} {times} while {stage or 'starting the evaluation'}; the model may not fit in the "
        "worker's (GPU) memory, or the worker's machine failed. Datasets finished before are kept; an "
        "administrator can re-queue it."
    )


def refuse_another_attempt(submission: Submission) -> bool:
    """Called by the worker, under the row's lock, before it starts ``submission`` again:
    True (and the submission FAILED) when it has been started GLOSSA_MAX_ATTEMPTS times."""
    if submission.attempts < settings.GLOSSA_MAX_ATTEMPTS:
        return False
    submission.status = SubmissionStatus.FAILED
    submission.failure_reason = died_reason(submission.attempts, submission.stage)
    submission.finished_at = timezone.now()
    submission.save(update_fields=["status", "failure_reason", "finished_at", "updated_at"])
    logger.error("submission %s: %s", submission.pk, submission.failure_reason)
    return True


@dataclass
class ReapReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"requeued": self.requeued, "failed": self.failed}


def _take_back(pk: int, expected: dict, how: str, report: ReapReport) -> None:
    """Queue ``pk`` again (or fail it after the last attempt) if its row still matches
    ``expected`` (nobody picked it up in the meantime)."""
    from leaderboard.services.submissions import enqueue

    with transaction.atomic():
        row = Submission.objects.select_for_update().filter(pk=pk, **expected).first()
        if row is None:
            return
        if row.attempts >= settings.GLOSSA_MAX_ATTEMPTS:
            row.status = SubmissionStatus.FAILED
            row.failure_reason = died_reason(row.attempts, row.stage, how)
            row.finished_at = timezone.now()
            row.save(update_fields=["status", "failure_reason", "finished_at", "updated_at"])
            report.failed.append(pk)
            logger.error("reaper: submission %s failed: %s", pk, row.failure_reason)
            return
        task_id = str(uuid.uuid4())
        row.status = SubmissionStatus.PENDING
        row.celery_task_id = task_id
        row.heartbeat_at = None
        row.save(update_fields=["status", "celery_task_id", "heartbeat_at", "updated_at"])
        transaction.on_commit(lambda: enqueue(pk, task_id))
        report.requeued.append(pk)
        logger.warning("reaper: submission %s %s; queued again as task %s", pk, how, task_id)


def reap(now=None) -> ReapReport:
    now = now or timezone.now()
    report = ReapReport()
    stale = now - timedelta(seconds=settings.GLOSSA_HEARTBEAT_TIMEOUT)
    silent = Submission.objects.filter(status=SubmissionStatus.RUNNING).filter(
        Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, updated_at__lt=stale)
    )
    for pk, beat_at, task_id in silent.values_list("pk", "heartbeat_at", "celery_task_id"):
        expected = {"status": SubmissionStatus.RUNNING, "heartbeat_at": beat_at, "celery_task_id": task_id}
        _take_back(pk, expected, "stopped responding", report)

    waiting = list(
        Submission.objects.filter(
            status=SubmissionStatus.PENDING, updated_at__lt=now - timedelta(seconds=settings.GLOSSA_PENDING_TIMEOUT)
        ).values_list("pk", "celery_task_id")
    )
    if waiting:
        queued = broker_probe.queued_task_ids("gpu")
        if queued is not None:
            lost = [(pk, t) for pk, t in waiting if t not in queued]
            if lost:  # read again: a message in flight between the list and the unacked hash
                queued |= broker_probe.queued_task_ids("gpu") or set()
            for pk, task_id in lost:
                if task_id not in queued:
                    expected = {"status": SubmissionStatus.PENDING, "celery_task_id": task_id}
                    _take_back(pk, expected, "lost its queue message", report)
    return report
