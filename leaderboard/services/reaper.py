"""Faults: bounded retries and the reaper. Nothing stays RUNNING or PENDING forever.

* **Bounded retries.** A message is re-delivered when its worker process dies (acks_late +
  reject_on_worker_lost): a model too large for the GPU is OOM-killed at every load. The
  GPU worker counts deliveries (``job_control.start_attempt``, on top of the starts the job
  says were made before); a delivery that finds ``GLOSSA_MAX_ATTEMPTS`` starts already made
  reports ``gave_up`` and the submission fails with the stage it died in
  (``submission_events``), the message is acknowledged and the queue is free.
* **The reaper** (:func:`reap`, the ``reap_submissions`` task run by Celery beat every
  ``GLOSSA_REAPER_INTERVAL`` s): RUNNING work whose heartbeat (the GPU worker's heartbeat
  events, ``tasks/worker_events.py``) is older than ``GLOSSA_HEARTBEAT_TIMEOUT`` has lost
  its worker (the machine died, or the
  worker's main process: a Redis broker returns such a message only after its 6 h
  visibility timeout, a file-system broker never); PENDING work older than
  ``GLOSSA_PENDING_TIMEOUT`` whose message no queue holds (``broker_probe.py``) was lost,
  and so was PENDING work whose message a worker took more than ``GLOSSA_PENDING_TIMEOUT``
  ago and never reported started (its host died between taking it and starting it).
  Either is queued again under a new task id (an old message that comes back later is
  ignored: the worker runs only the submission's current task id, ``job_control``) or, after
  ``GLOSSA_MAX_ATTEMPTS`` starts, FAILED with a reason; FAILED frees the model, commit and
  variant for a new submission.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from leaderboard.models import Submission, SubmissionStatus
from leaderboard.services import broker_probe
from leaderboard.services.dispatch import dispatch
from leaderboard.services.submission_lifecycle import take_back

logger = logging.getLogger("leaderboard.reaper")


@dataclass
class ReapReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    exam_runs: dict = field(default_factory=dict)  # services/exam_runs.reap: the same for exam runs
    dispatched: list[int] = field(default_factory=list)  # sent by the fair queue on this tick

    def as_json(self) -> dict:
        return {
            "requeued": self.requeued,
            "failed": self.failed,
            "exam_runs": self.exam_runs,
            "dispatched": self.dispatched,
        }


def _note(report: ReapReport, pk: int, outcome: str | None) -> None:
    if outcome == "requeued":
        report.requeued.append(pk)
    elif outcome == "failed":
        report.failed.append(pk)


def reap(now=None) -> ReapReport:
    now = now or timezone.now()
    report = ReapReport()
    stale = now - timedelta(seconds=settings.GLOSSA_HEARTBEAT_TIMEOUT)
    silent = Submission.objects.filter(status=SubmissionStatus.RUNNING).filter(
        Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, updated_at__lt=stale)
    )
    for pk, beat_at, task_id in silent.values_list("pk", "heartbeat_at", "celery_task_id"):
        expected = {"status": SubmissionStatus.RUNNING, "heartbeat_at": beat_at, "celery_task_id": task_id}
        _note(report, pk, take_back(pk, expected, "stopped responding"))

    waiting = list(
        Submission.objects.filter(
            status=SubmissionStatus.PENDING,
            dispatched_at__isnull=False,  # held ones wait in the fair queue, not on the broker
            updated_at__lt=now - timedelta(seconds=settings.GLOSSA_PENDING_TIMEOUT),
        ).values_list("pk", "celery_task_id")
    )
    if waiting:
        # a worker reports a submission started as soon as it takes its message: one taken
        # before this, and still PENDING, went down with its worker's host
        taken_before = (now - timedelta(seconds=settings.GLOSSA_PENDING_TIMEOUT)).timestamp()
        queued = broker_probe.queued_task_ids("gpu", taken_before)
        if queued is not None:
            lost = [(pk, t) for pk, t in waiting if t not in queued]
            if lost:  # read again: a message in flight between the list and the unacked hash
                queued |= broker_probe.queued_task_ids("gpu", taken_before) or set()
            for pk, task_id in lost:
                if task_id not in queued:
                    expected = {"status": SubmissionStatus.PENDING, "celery_task_id": task_id}
                    _note(report, pk, take_back(pk, expected, "lost its queue message"))
    from leaderboard.services import exam_runs

    report.exam_runs = exam_runs.reap(now)
    report.dispatched = dispatch()  # a place freed by anything the events did not report
    return report
