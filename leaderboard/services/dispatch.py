"""The fair queue's one writer: sends the next submissions to the gpu queue.

Submissions wait in the database, in the order of ``leaderboard/jobs/queue_policy.py``
(computed by ``selectors/queue.held``); at most ``GLOSSA_QUEUE_AHEAD`` messages wait on the
broker. :func:`dispatch` runs when something may have freed a place: a submission was
made or re-queued, a worker started one (its message left the broker), one ended, and on
every reaper tick (Celery beat). Claiming is a conditional update (``dispatched_at`` still
empty), so two dispatchers never send the same submission; on PostgreSQL an advisory lock
also keeps the count of waiting messages exact.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from leaderboard.models import Submission, SubmissionStatus
from leaderboard.selectors.queue import held, sent_waiting
from leaderboard.services.submission_job import enqueue

logger = logging.getLogger(__name__)
LOCK_KEY = 0x676C6F7373610001  # "glossa" + 1: the dispatcher's advisory lock


def _lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


def dispatch() -> list[int]:
    """Send the next submissions while fewer than GLOSSA_QUEUE_AHEAD wait on the broker;
    returns the ids sent (the messages go out when the transaction commits)."""
    sent = []
    with transaction.atomic():
        _lock()
        free = settings.GLOSSA_QUEUE_AHEAD - sent_waiting().count()
        if free <= 0:
            return []
        for pk, task_id in held().values_list("pk", "celery_task_id")[:free]:
            claimed = Submission.objects.filter(
                pk=pk, status=SubmissionStatus.PENDING, dispatched_at__isnull=True, celery_task_id=task_id
            ).update(dispatched_at=timezone.now())
            if claimed:
                transaction.on_commit(lambda pk=pk, task_id=task_id: enqueue(pk, task_id))
                sent.append(pk)
    if sent:
        logger.info("fair queue: sent %s", sent)
    return sent


def dispatch_after_commit() -> None:
    """Run :func:`dispatch` once the caller's transaction commits (at once outside one)."""
    transaction.on_commit(dispatch)
