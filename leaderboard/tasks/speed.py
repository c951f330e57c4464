"""The speed benchmark's tasks (docs/methodology.md §11). ``run_speed_benchmark`` (queue
``gpu``, no database) measures one model at one commit with the engine's speed benchmark
(``evaluation.speed.run_speed``: what ``python -m evaluation speed`` runs) and reports
through events: started, heartbeats, and finished with the report or failed with a reason.
``apply_speed_event`` (queue ``default``) hands each to ``services/speed_jobs.apply_event``,
which checks it against the job before anything is stored. Counting deliveries (after
``GLOSSA_MAX_ATTEMPTS`` the job gives up), the log, the failure reasons and the report of
a hard time limit are every GPU job's (``leaderboard/jobs/worker.py``)."""

from __future__ import annotations

import logging
from functools import partial

from celery import shared_task

from evaluation.speed import SpeedSettings, run_speed
from leaderboard.jobs import lifecycle
from leaderboard.jobs.worker import GpuJobTask, Heartbeat, JobEvents, gpu_task, run_counted
from leaderboard.services import speed_jobs
from leaderboard.services.db_retry import with_db_retry
from leaderboard.services.speed_jobs import SPEED_TASK

logger = logging.getLogger("leaderboard.tasks.speed")

SPEED_EVENT_TASK = "leaderboard.tasks.apply_speed_event"

__all__ = ["apply_speed_event", "run_speed_benchmark"]


class SpeedEvents(JobEvents):
    """The events of one (speed job, task), to ``apply_speed_event``."""

    id_key = "speed_job"
    event_task = SPEED_EVENT_TASK


def run_speed_job(job: dict, task_id: str, events=None) -> str:
    """Benchmark the job's model at its commit; report ``finished`` (the report) or ``failed``."""
    job_id = int(job["speed_job"])
    events = events or SpeedEvents(job_id, task_id)
    return run_counted(job, task_id, events, f"speed job {job_id}", partial(_measure, job, events))


def _measure(job: dict, events, attempt: int, log) -> str:
    events.send("started", attempt=attempt)
    with Heartbeat(events):
        report = run_speed(
            str(job["model"]),
            SpeedSettings(),
            backend_name=str(job["backend"]),
            revision=str(job["revision"]),
            trust_remote_code=job.get("trust_remote_code") is True,
        )
    events.send("finished", report=report, log=log.text())
    return "finished"


class SpeedTask(GpuJobTask):
    """A speed job's death at the hard time limit, reported (``GpuJobTask``)."""

    events_class = SpeedEvents


@gpu_task(SPEED_TASK, SpeedTask)
def run_speed_benchmark(self, job: dict) -> str:
    if not isinstance(job, dict) or "speed_job" not in job:
        # a message queued before speed jobs had rows names none: its job (migrated PENDING)
        # is queued again by the reaper once this message is gone
        logger.error("run_speed_benchmark got %r, not a speed job", job)
        return "skipped"
    return run_speed_job(job, task_id=self.request.id or "")


@shared_task(name=SPEED_EVENT_TASK, bind=True, acks_late=True)
def apply_speed_event(self, event: dict) -> bool:
    """Apply one event of a speed job's GPU worker (``speed_jobs.apply_event``); one that is
    not a speed job's event is dropped, one that no longer speaks for its job ignored."""
    try:
        return with_db_retry(lambda: speed_jobs.apply_event(event), "applying a speed event")
    except lifecycle.BadEvent as exc:
        logger.error("dropped: %s", exc)
        return False
