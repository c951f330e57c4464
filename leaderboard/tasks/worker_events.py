"""How an evaluation's GPU worker reports (it holds no database credentials): every event
is a message to the ``apply_submission_event`` task on the ``default`` queue
(``services/submission_events.py`` applies it). Sending, retrying and the heartbeat are
every GPU job's (``leaderboard/jobs/worker.py``)."""

from __future__ import annotations

from leaderboard.jobs.worker import Heartbeat, JobEvents

__all__ = ["EVENT_TASK", "CeleryEvents", "Heartbeat"]

EVENT_TASK = "leaderboard.tasks.apply_submission_event"


class CeleryEvents(JobEvents):
    """Sends the events of one (submission, task) to the ``default`` queue."""

    id_key = "submission"
    event_task = EVENT_TASK
