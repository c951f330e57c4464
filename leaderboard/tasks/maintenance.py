"""Maintenance tasks (queue ``default``), run by Celery beat (``CELERY_BEAT_SCHEDULE``)."""

from __future__ import annotations

from celery import shared_task

from leaderboard.services.reaper import reap

__all__ = ["reap_submissions"]


@shared_task(name="leaderboard.tasks.reap_submissions")
def reap_submissions() -> dict:
    """Take back GPU jobs no worker holds: evaluations, exam runs, speed jobs (services/reaper.py)."""
    return reap().as_json()
