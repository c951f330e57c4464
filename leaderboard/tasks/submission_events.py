"""The ``default`` queue's side of an evaluation: it applies what a GPU worker reports
(``services/submission_events.py``); the GPU worker itself never touches the database."""

from __future__ import annotations

import logging

from celery import shared_task

from leaderboard.services import exam_runs, submission_events
from leaderboard.services.db_retry import best_effort, with_db_retry

logger = logging.getLogger("leaderboard.tasks.submission_events")

__all__ = ["apply_exam_event", "apply_submission_event"]

# A terminal event waits this many times this many seconds for the records sent before it.
ARRIVAL_RETRIES = 60
ARRIVAL_PAUSE = 2.0


@shared_task(name="leaderboard.tasks.apply_submission_event", bind=True, acks_late=True, max_retries=ARRIVAL_RETRIES)
def apply_submission_event(self, event: dict) -> bool:
    """Apply one event of a GPU worker; a database restart is ridden out (``with_db_retry``),
    except by news (progress, heartbeats), which is dropped instead."""
    kind = event.get("kind") if isinstance(event, dict) and isinstance(event.get("kind"), str) else None
    try:
        if kind in submission_events.BEST_EFFORT:
            applied = []
            best_effort(lambda: applied.append(submission_events.apply(event)), f"applying a {kind} event")
            return bool(applied and applied[0])
        return with_db_retry(lambda: submission_events.apply(event), f"applying a {kind} event")
    except submission_events.BadEvent as exc:
        logger.error("dropped: %s", exc)
        return False
    except submission_events.NotYet as exc:
        if self.request.retries >= ARRIVAL_RETRIES:
            missing = str(exc)
            with_db_retry(lambda: submission_events.fail_undelivered(event, missing), "failing the submission")
            return False
        raise self.retry(countdown=ARRIVAL_PAUSE) from exc


@shared_task(name="leaderboard.tasks.apply_exam_event", bind=True, acks_late=True)
def apply_exam_event(self, event: dict) -> bool:
    """Apply one event of an exam run's GPU worker (``services/exam_runs.apply_event``)."""
    try:
        return with_db_retry(lambda: exam_runs.apply_event(event), "applying an exam event")
    except exam_runs.BadExamEvent as exc:
        logger.error("dropped: %s", exc)
        return False
