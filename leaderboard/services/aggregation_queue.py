"""Asking for an aggregation: the services' side of ``tasks.aggregation.aggregate_boards``.

Services sit below the tasks (CONTRIBUTING.md, "Layers"), so they queue the task by its
registered name, as submissions and exam runs do, instead of importing it.
"""

from __future__ import annotations

from celery import current_app

AGGREGATE_TASK = "leaderboard.tasks.aggregate_boards"


def enqueue_aggregation(
    boards: list[str] | None, *, user_id: int | None = None, trigger: str = "admin", method: str | None = None
):
    """The one way to ask for an aggregation: ``aggregate_boards`` on queue ``default``.
    Returns the AsyncResult; raises if the broker cannot be reached."""
    return current_app.send_task(
        AGGREGATE_TASK,
        kwargs={"board_codes": boards, "user_id": user_id, "trigger": trigger, "method": method},
        queue="default",
    )
