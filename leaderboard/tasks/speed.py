"""The speed benchmark of a submission (docs/methodology.md §11): run on queue ``gpu`` without a
database (``evaluation.speed``, the engine's ``python -m evaluation speed``), its report
sent as an event to ``apply_speed_event`` on queue ``default``, which checks it against
the job the site kept (``services/speed_jobs.py``) before anything is stored."""

from __future__ import annotations

import logging

from celery import current_app, shared_task
from django.conf import settings

from leaderboard.services import speed_jobs
from leaderboard.services.db_retry import with_db_retry
from leaderboard.services.speed_jobs import SPEED_EVENT_TASK

logger = logging.getLogger("leaderboard.tasks.speed")

__all__ = ["apply_speed_event", "run_speed_benchmark"]


def _send(event: dict) -> None:
    current_app.send_task(
        SPEED_EVENT_TASK,
        args=[event],
        queue="default",
        retry=True,
        retry_policy={"max_retries": 10, "interval_start": 0.5, "interval_step": 1.0, "interval_max": 8.0},
    )


@shared_task(
    name="leaderboard.tasks.run_speed_benchmark",
    acks_late=True,
    reject_on_worker_lost=False,  # a benchmark that kills its worker is not retried forever
    soft_time_limit=settings.GLOSSA_EVAL_SOFT_TIME_LIMIT,
    time_limit=settings.GLOSSA_EVAL_TIME_LIMIT,
)
def run_speed_benchmark(job: dict) -> bool:
    """Benchmark the job's model at its commit; report ``finished`` (the report) or ``failed``."""
    event = {"submission": job.get("submission"), "task": job.get("task")}
    try:
        from evaluation.speed import SpeedSettings, run_speed

        report = run_speed(
            str(job["model"]),
            SpeedSettings(),
            backend_name=str(job.get("backend") or settings.EVALUATION_BACKEND),
            revision=str(job["revision"]),
            trust_remote_code=job.get("trust_remote_code") is True,
        )
    except Exception as exc:  # the model, the backend or the machine: the site records the reason
        logger.exception("speed benchmark of %s failed", job.get("model"))
        _send({**event, "kind": "failed", "reason": f"{type(exc).__name__}: {str(exc)[:1000]}"})
        return False
    _send({**event, "kind": "finished", "report": report})
    return True


@shared_task(name="leaderboard.tasks.apply_speed_event", bind=True, acks_late=True)
def apply_speed_event(self, event: dict) -> bool:
    """Apply a speed benchmark's event (``speed_jobs.apply_event``); a forged one is dropped."""
    try:
        outcome = with_db_retry(lambda: speed_jobs.apply_event(event), "applying a speed event")
    except speed_jobs.BadSpeedEvent as exc:
        logger.error("dropped: %s", exc)
        return False
    logger.info("speed event: %s", outcome)
    return True
