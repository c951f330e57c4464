"""Aggregation tasks (queue ``default``): recompute cached leaderboards."""

from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model

from leaderboard.services.aggregation import aggregate
from leaderboard.services.aggregation_queue import AGGREGATE_TASK

__all__ = ["aggregate_boards"]


def _user(user_id):
    if user_id is None:
        return None
    return get_user_model().objects.filter(pk=user_id).first()


@shared_task(name=AGGREGATE_TASK)
def aggregate_boards(
    board_codes: list[str] | None = None, user_id: int | None = None, trigger: str = "admin", method: str | None = None
) -> dict:
    """Recompute the given boards (None: all boards, groups included) under ``method``
    (None: the deployment's ranking method); returns the run summary."""
    run = aggregate(board_codes, user=_user(user_id), trigger=trigger, method=method)
    return {
        "run": run.pk,
        "boards": run.boards,
        "entries_total": run.entries_total,
        "entries_changed": run.entries_changed,
    }
