"""Aggregation tasks (queue ``default``): recompute cached leaderboards."""

from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model

from leaderboard.services.aggregation import aggregate

__all__ = ["aggregate_boards", "enqueue_aggregation"]


def _user(user_id):
    if user_id is None:
        return None
    return get_user_model().objects.filter(pk=user_id).first()


@shared_task(name="leaderboard.tasks.aggregate_boards")
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


def enqueue_aggregation(
    boards: list[str] | None, *, user_id: int | None = None, trigger: str = "admin", method: str | None = None
):
    """The one way to ask for an aggregation: ``aggregate_boards`` on queue ``default``.
    Returns the AsyncResult; raises if the broker cannot be reached."""
    return aggregate_boards.apply_async(
        kwargs={"board_codes": boards, "user_id": user_id, "trigger": trigger, "method": method}, queue="default"
    )
