"""The evaluation queue read in its policy's order (leaderboard/jobs/queue_policy.py).

``held()`` orders, in the database, the submissions that wait their turn (PENDING, not yet
sent to the broker); a window function gives each its turn within its submitter's work,
after the submitter's work already in flight (``in_flight()``: sent or running).
``waiting()`` lists what the queue page shows: first the messages already on the broker
(oldest sent first: the workers take them in that order), then the held ones. Estimated
starts come from the median duration of the last finished evaluations.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Case, Count, F, Q, Value, When, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from leaderboard.jobs.queue_policy import QueueItem
from leaderboard.models import Submission, SubmissionStatus

RECENT_DURATIONS = 20  # finished evaluations the estimate is the median of


IN_FLIGHT = Q(status=SubmissionStatus.RUNNING) | Q(status=SubmissionStatus.PENDING, dispatched_at__isnull=False)


def in_flight() -> dict[str, int]:
    """Submitter → how many of its submissions the workers have (sent to the broker or running)."""
    rows = Submission.objects.filter(IN_FLIGHT).order_by().values_list("submitter").annotate(n=Count("pk"))
    return dict(rows)


def held():
    """PENDING submissions not yet sent, in the order the queue sends them."""
    own_turn = Window(
        RowNumber(),
        partition_by=[F("submitter")],
        order_by=[F("model_parameters").asc(nulls_last=True), F("created_at").asc(), F("pk").asc()],
    )
    counts = in_flight()  # a few submitters at most: as many as submissions the workers hold
    ahead = Case(*(When(submitter=s, then=Value(n)) for s, n in counts.items()), default=Value(0)) if counts else 0
    turn = own_turn + ahead
    return (
        Submission.objects.filter(status=SubmissionStatus.PENDING, dispatched_at__isnull=True)
        .annotate(turn=turn)
        .order_by("-priority", "-rerun", "turn", "created_at", "pk")
    )


def sent_waiting():
    """PENDING submissions whose message is on the broker, in the order workers take them."""
    return Submission.objects.filter(status=SubmissionStatus.PENDING, dispatched_at__isnull=False).order_by(
        "dispatched_at", "pk"
    )


def queue_items() -> list[QueueItem]:
    """Every held submission as a policy item (one query; for a position, in Python)."""
    rows = Submission.objects.filter(status=SubmissionStatus.PENDING, dispatched_at__isnull=True).values_list(
        "pk", "submitter", "created_at", "model_parameters", "priority", "rerun"
    )
    return [QueueItem(*row) for row in rows]


def median_duration() -> timedelta | None:
    """The median wall time of the last finished evaluations (None before the first)."""
    rows = (
        Submission.objects.filter(status=SubmissionStatus.FINISHED, started_at__isnull=False)
        .exclude(finished_at__isnull=True)
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_DURATIONS]
    )
    durations = [(end - start).total_seconds() for start, end in rows if end >= start]
    return timedelta(seconds=statistics.median(durations)) if durations else None


def estimated_start(position: int, running: int, typical: timedelta | None, now: datetime) -> datetime | None:
    """When the ``position``-th waiting submission (1-based) should start: every slot
    clears one evaluation per ``typical`` duration; the running ones are counted whole."""
    if typical is None:
        return None
    slots = settings.GLOSSA_GPU_SLOTS
    ahead = running + position - 1
    rounds = 0 if ahead < slots else (ahead - slots) // slots + 1
    return now + typical * rounds


@dataclass(frozen=True)
class Waiting:
    submission: Submission
    position: int
    sent: bool
    estimated_start: datetime | None


def waiting(limit: int = 200) -> tuple[list[Waiting], int]:
    """(the first ``limit`` waiting submissions with position and estimated start, how many wait)."""
    now = timezone.now()
    typical = median_duration()
    running = Submission.objects.filter(status=SubmissionStatus.RUNNING).count()
    sent = list(sent_waiting().select_related("model")[:limit])
    rest = list(held().select_related("model")[: max(0, limit - len(sent))])
    total = Submission.objects.filter(status=SubmissionStatus.PENDING).count()
    rows = [
        Waiting(s, i, s.dispatched_at is not None, estimated_start(i, running, typical, now))
        for i, s in enumerate(sent + rest, start=1)
    ]
    return rows, total


def _held_position(pk: int) -> int | None:
    """1-based place of ``pk`` in ``held()``'s order, computed in the database: the policy's
    order is a window over the turns (themselves a window), so it wraps ``held()``."""
    inner, params = held().values("pk", "priority", "rerun", "turn", "created_at").query.sql_with_params()
    sql = (
        "SELECT place FROM (SELECT h.pk, ROW_NUMBER() OVER "
        "(ORDER BY h.priority DESC, h.rerun DESC, h.turn, h.created_at, h.pk) AS place "
        f"FROM ({inner}) h) ranked WHERE ranked.pk = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])
        row = cursor.fetchone()
    return row[0] if row else None


def position_of(submission: Submission) -> int | None:
    """1-based place among the waiting submissions (None when it is not waiting)."""
    if submission.status != SubmissionStatus.PENDING:
        return None
    if submission.dispatched_at is not None:
        earlier = Q(dispatched_at__lt=submission.dispatched_at) | Q(
            dispatched_at=submission.dispatched_at, pk__lt=submission.pk
        )
        return sent_waiting().filter(earlier).count() + 1
    place = _held_position(submission.pk)
    return None if place is None else sent_waiting().count() + place


def estimate_for(submission: Submission) -> tuple[int | None, datetime | None]:
    """(position, estimated start) of one submission."""
    position = position_of(submission)
    if position is None:
        return None, None
    running = Submission.objects.filter(status=SubmissionStatus.RUNNING).count()
    return position, estimated_start(position, running, median_duration(), timezone.now())
