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
  variant for a new submission. Exam runs and speed jobs are taken back by the same code
  (``jobs.lifecycle.reap``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.utils import timezone

from leaderboard.jobs import lifecycle
from leaderboard.services import broker_probe, exam_runs, speed_jobs
from leaderboard.services.dispatch import dispatch
from leaderboard.services.submission_job import SUBMISSIONS

logger = logging.getLogger("leaderboard.reaper")


@dataclass
class ReapReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    exam_runs: dict = field(default_factory=dict)  # the same for exam runs
    speed_jobs: dict = field(default_factory=dict)  # and for speed jobs
    dispatched: list[int] = field(default_factory=list)  # sent by the fair queue on this tick

    def as_json(self) -> dict:
        return {
            "requeued": self.requeued,
            "failed": self.failed,
            "exam_runs": self.exam_runs,
            "speed_jobs": self.speed_jobs,
            "dispatched": self.dispatched,
        }


def reap(now=None) -> ReapReport:
    """One tick: submissions, then exam runs, then speed jobs (the shared
    ``jobs.lifecycle.reap``), then the fair queue sends into any place freed that no event
    reported."""
    now = now or timezone.now()
    # a worker reports a job started as soon as it takes its message: one taken before this,
    # and still PENDING, went down with its worker's host (broker_probe leaves it out)
    taken_before = (now - timedelta(seconds=settings.GLOSSA_PENDING_TIMEOUT)).timestamp()
    probe = partial(broker_probe.queued_task_ids, delivered_before=taken_before)
    submissions = lifecycle.reap(SUBMISSIONS, probe, now)
    report = ReapReport(submissions["requeued"], submissions["failed"])
    report.exam_runs = exam_runs.reap(now)
    report.speed_jobs = speed_jobs.reap(now)
    report.dispatched = dispatch()
    return report
