"""The worker's heartbeat: while a worker holds a submission, a thread writes
``Submission.heartbeat_at`` every ``GLOSSA_HEARTBEAT_SECONDS`` (and ``stage`` says what it
is doing). The reaper (``services/reaper.py``) takes back RUNNING work whose heartbeat
stopped: its worker died with the machine, or its main process was killed."""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from leaderboard.models import Submission, SubmissionStatus

logger = logging.getLogger("leaderboard.heartbeat")


def beat(submission_id: int, stage: str | None = None) -> None:
    fields = {"heartbeat_at": timezone.now()}
    if stage is not None:
        fields["stage"] = stage[:200]
    Submission.objects.filter(pk=submission_id, status=SubmissionStatus.RUNNING).update(**fields)


class Heartbeat:
    """``with Heartbeat(pk):`` beats at once, then every interval until the block ends."""

    def __init__(self, submission_id: int, interval: float | None = None):
        self.submission_id = submission_id
        self.interval = interval or settings.GLOSSA_HEARTBEAT_SECONDS
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{submission_id}", daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    beat(self.submission_id)
                except Exception:  # a database blip: the next beat tries again
                    logger.warning("heartbeat of submission %s not written", self.submission_id, exc_info=True)
                    close_old_connections()
        finally:
            connection.close()  # this thread's own connection

    def __enter__(self) -> Heartbeat:
        beat(self.submission_id)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
