"""The one lifecycle of a GPU job, on the site's side: a submission's evaluation
(``services/submission_job.SUBMISSIONS``), an exam run (``services/exam_runs.EXAM_RUNS``)
and a speed benchmark (``services/speed_jobs.SPEED_JOBS``) go through these functions; each
is a :class:`JobKind` that supplies what differs (its table, what its worker runs, what a
finished result imports). Their rows share the columns read here (``models/jobs.GpuJob``).

    PENDING ──started──▶ RUNNING ──finished──▶ FINISHED
       │                    │ └──failed / gave_up──▶ FAILED ──requeue──▶ PENDING
       └───────cancel───────┴────────────────────▶ CANCELLED ──requeue──▶ PENDING
    RUNNING or PENDING that no worker holds ──take_back (the reaper)──▶ PENDING (a new task) or FAILED

Every change of status is a compare-and-set: an ``UPDATE ... WHERE status IN (...)`` or a
row locked with ``SELECT ... FOR UPDATE`` and checked against what the caller saw, so two
actors (an administrator, the reaper, a worker's event) never both move one job.

A job's worker holds no database (``leaderboard/jobs/worker.py``); what it reports is an
event applied by :func:`apply`, which believes an event only while it names the job's
current task id and the job is live. What follows a transition for one kind (the fair
queue, the boards' aggregation, an exam's import, a speed report's store) is its own
module's business (``services/submission_lifecycle.py``, ``services/exam_runs.py``,
``services/speed_jobs.py``); this module imports none of them.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.models.jobs import ENDED_STATUSES, LIVE_STATUSES, JobStatus

logger = logging.getLogger("leaderboard.jobs")

TASK_ID_CHARS = 64  # the column's size; an event's task id longer than this names no job


class BadEvent(ValueError):
    """Not an event of this kind of job; dropped with a log line."""


@dataclass(frozen=True)
class JobKind:
    """What one kind of GPU job supplies to the shared lifecycle."""

    name: str  # in log lines: "submission", "exam run"
    model: type[models.Model]  # its rows: status, failure_reason, log_excerpt, attempts, celery_task_id, ...
    id_key: str  # the field of its events and jobs that names the row
    task_name: str  # the Celery task a ``gpu`` worker runs it with
    build_job: Callable[[int, str], dict]  # (row id, task id) → the message (everything the worker needs)
    died_reason: Callable[[models.Model, str], str]  # (row, how it was lost) → why it failed after the last attempt
    silent_since: str  # when a RUNNING row without a heartbeat started waiting ("updated_at", "started_at")
    waiting: Callable[[datetime], Q]  # PENDING rows whose message should be on the broker by now
    queue_failure_note: str = ""  # appended to "Could not be queued ..."
    touch: tuple[str, ...] = ()  # fields a save must also write ("updated_at": auto_now)
    take_back_fields: Callable[[models.Model, datetime], dict] = lambda row, now: {}
    requeue_fields: Mapping[str, object] = field(default_factory=dict)  # also reset by an administrator's re-queue

    def rows(self):
        return self.model.objects


def clip(value, limit: int) -> str:
    """What a worker reported, as text the database can hold: its first ``limit`` characters, no NUL."""
    return str(value or "")[:limit].replace("\x00", "")


def tail(value, limit: int) -> str:
    """The same, keeping the last ``limit`` characters (the end of a log)."""
    return str(value or "")[-limit:].replace("\x00", "")


def new_task_id() -> str:
    return str(uuid.uuid4())


def created_long_ago(now: datetime) -> Q:
    """A ``waiting`` for a kind whose message is sent as its row is made: PENDING rows older
    than ``GLOSSA_PENDING_TIMEOUT`` should be on the broker by now."""
    return Q(created_at__lt=now - timedelta(seconds=settings.GLOSSA_PENDING_TIMEOUT))


def save(kind: JobKind, row: models.Model, *fields: str) -> None:
    row.save(update_fields=[*fields, *kind.touch])


# --- the site's side of the queue -------------------------------------------------------


def enqueue(kind: JobKind, pk: int, task_id: str) -> None:
    """Send the job's message under ``task_id``; a broker that cannot be reached fails a
    PENDING job visibly instead of leaving it pending forever."""
    try:
        current_app.send_task(kind.task_name, args=[kind.build_job(pk, task_id)], task_id=task_id)
    except Exception as exc:
        logger.exception("could not queue %s %s", kind.name, pk)
        reason = f"Could not be queued: the task queue is unreachable ({type(exc).__name__}).{kind.queue_failure_note}"
        kind.rows().filter(pk=pk, status=JobStatus.PENDING).update(
            status=JobStatus.FAILED, failure_reason=reason, finished_at=timezone.now()
        )


def revoke_task(task_id: str) -> None:
    """Revoke a cancelled job's Celery task, terminating it if it runs. Best effort: the
    caller has already marked its row CANCELLED, so whatever the task still sends is ignored."""
    if not task_id:
        return
    try:
        current_app.control.revoke(task_id, terminate=True, signal="SIGTERM")
    except Exception:
        logger.exception("could not revoke task %s", task_id)


def cancel(kind: JobKind, row: models.Model, reason: str) -> bool:
    """PENDING or RUNNING → CANCELLED (compare-and-set), and its task revoked; False if it
    was not live. What else stops with it is the caller's (after a True)."""
    updated = (
        kind.rows()
        .filter(pk=row.pk, status__in=LIVE_STATUSES)
        .update(status=JobStatus.CANCELLED, finished_at=timezone.now(), failure_reason=reason)
    )
    if updated:
        revoke_task(row.celery_task_id)
    return bool(updated)


def requeue(kind: JobKind, row: models.Model) -> str | None:
    """FAILED or CANCELLED → PENDING under a new task id with the retry budget restored (an
    administrator's decision); returns the task id, or None if the row was not ended. The
    caller sends it (or lets its queue do so) once this commits, and may raise
    ``IntegrityError`` from a constraint of its table."""
    task_id = new_task_id()
    updated = (
        kind.rows()
        .filter(pk=row.pk, status__in=ENDED_STATUSES)
        .update(
            status=JobStatus.PENDING,
            failure_reason="",
            celery_task_id=task_id,
            attempts=0,
            heartbeat_at=None,
            **kind.requeue_fields,
        )
    )
    return task_id if updated else None


def start(kind: JobKind, row: models.Model, event: dict, *also: str) -> None:
    """A worker's ``started``: → RUNNING with a sign of life and the attempt it counted (a
    whole number from 1 to a million; anything else keeps the row's), saving the fields
    ``also`` names with them; the row is the caller's, locked (:func:`apply`)."""
    now = timezone.now()
    row.status, row.started_at, row.heartbeat_at = JobStatus.RUNNING, row.started_at or now, now
    attempt = event.get("attempt")
    row.attempts = attempt if type(attempt) is int and 0 < attempt < 10**6 else row.attempts
    save(kind, row, "status", "started_at", "heartbeat_at", "attempts", *also)


def beat(kind: JobKind, row: models.Model, *also: str) -> None:
    """Any news from the worker but its last is a sign of life (the reaper reads it)."""
    row.heartbeat_at = timezone.now()
    save(kind, row, "heartbeat_at", *also)


def close(kind: JobKind, row: models.Model, status: str, reason: str, log: str, *also: str) -> None:
    """→ ``status`` (FINISHED or FAILED) with a reason and the worker's log, saving the
    fields ``also`` names with them; the row is the caller's, locked (an event's, :func:`apply`)."""
    row.status, row.failure_reason, row.log_excerpt, row.finished_at = status, reason, log, timezone.now()
    save(kind, row, "status", "failure_reason", "log_excerpt", "finished_at", *also)


# --- the reaper's part --------------------------------------------------------------------


def take_back(kind: JobKind, pk: int, expected: dict, how: str) -> str | None:
    """Work no worker holds: queued again under a new task id ("requeued"), or FAILED after
    the last attempt ("failed"), if its row still matches ``expected`` (nobody moved it in
    the meantime; None otherwise)."""
    now = timezone.now()
    with transaction.atomic():
        row = kind.rows().select_for_update().filter(pk=pk, **expected).first()
        if row is None:
            return None
        if row.attempts >= settings.GLOSSA_MAX_ATTEMPTS:
            row.status, row.failure_reason, row.finished_at = JobStatus.FAILED, kind.died_reason(row, how), now
            save(kind, row, "status", "failure_reason", "finished_at")
            logger.error("reaper: %s %s failed: %s", kind.name, pk, row.failure_reason)
            return "failed"
        task_id = new_task_id()
        changes = {"status": JobStatus.PENDING, "celery_task_id": task_id, "heartbeat_at": None}
        changes.update(kind.take_back_fields(row, now))
        for name, value in changes.items():
            setattr(row, name, value)
        save(kind, row, *changes)
        transaction.on_commit(lambda: enqueue(kind, pk, task_id))
        logger.warning("reaper: %s %s %s; queued again as task %s", kind.name, pk, how, task_id)
        return "requeued"


def reap(kind: JobKind, probe: Callable[[str], set[str] | None], now: datetime | None = None) -> dict[str, list[int]]:
    """RUNNING jobs whose heartbeat is older than ``GLOSSA_HEARTBEAT_TIMEOUT`` lost their
    worker; PENDING ones that should be on the broker but that ``probe("gpu")`` (the ids it
    holds, None: unknown) does not list lost their message. Each is taken back."""
    now = now or timezone.now()
    report: dict[str, list[int]] = {"requeued": [], "failed": []}
    stale = now - timedelta(seconds=settings.GLOSSA_HEARTBEAT_TIMEOUT)
    silent = (
        kind.rows()
        .filter(status=JobStatus.RUNNING)
        .filter(Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, **{f"{kind.silent_since}__lt": stale}))
    )
    for pk, beat_at, task_id in silent.values_list("pk", "heartbeat_at", "celery_task_id"):
        expected = {"status": JobStatus.RUNNING, "heartbeat_at": beat_at, "celery_task_id": task_id}
        _note(report, pk, take_back(kind, pk, expected, "stopped responding"))
    waiting = list(kind.rows().filter(kind.waiting(now), status=JobStatus.PENDING).values_list("pk", "celery_task_id"))
    queued = probe("gpu") if waiting else None
    if queued is None:
        return report
    lost = [(pk, task_id) for pk, task_id in waiting if task_id not in queued]
    if lost:  # read again: a message in flight between the list and the unacked hash
        queued |= probe("gpu") or set()
    for pk, task_id in lost:
        if task_id not in queued:
            expected = {"status": JobStatus.PENDING, "celery_task_id": task_id}
            _note(report, pk, take_back(kind, pk, expected, "lost its queue message"))
    return report


def _note(report: dict[str, list[int]], pk: int, outcome: str | None) -> None:
    if outcome:
        report[outcome].append(pk)


# --- events from the GPU worker ----------------------------------------------------------


def _is_id(value) -> bool:
    return type(value) is int and 0 < value < 2**31


def check_event(kind: JobKind, event, handlers: Mapping) -> None:
    """Raise BadEvent unless ``event`` has the shape of one of ``kind``'s events."""
    if not isinstance(event, dict) or not isinstance(event.get("kind"), str) or event["kind"] not in handlers:
        raise BadEvent(f"unknown {kind.name} event {str(event)[:200]}")
    task = event.get("task")
    if not _is_id(event.get(kind.id_key)) or not isinstance(task, str) or not 0 < len(task) <= TASK_ID_CHARS:
        raise BadEvent(f"an event without a {kind.id_key} and task: {str(event)[:200]}")


def locked(kind: JobKind, event: dict, related: tuple[str, ...] = ()) -> models.Model | None:
    """The event's job, locked, if the event still speaks for it: the job is live and the
    event names its current task id (a re-queued job's old task, a cancelled job: None)."""
    rows = kind.rows().select_for_update()
    row = (rows.select_related(*related) if related else rows).filter(pk=event[kind.id_key]).first()
    if row is None or row.status not in LIVE_STATUSES or row.celery_task_id != event["task"]:
        logger.info(
            "event %s for %s %s from task %s ignored: it is %s with task %s",
            event.get("kind"),
            kind.name,
            event[kind.id_key],
            event["task"],
            getattr(row, "status", "missing"),
            getattr(row, "celery_task_id", "-"),
        )
        return None
    return row


def apply(
    kind: JobKind,
    event,
    handlers: Mapping[str, Callable[[models.Model, dict], None]],
    *,
    related: tuple[str, ...] = (),
    on_stale: Callable[[dict], None] | None = None,
) -> bool:
    """Apply one event of ``kind``: checked (:func:`check_event`), then handed with its
    locked row to its handler; False if it no longer speaks for its job (``on_stale`` is
    then told, inside the transaction)."""
    check_event(kind, event, handlers)
    with transaction.atomic():
        row = locked(kind, event, related)
        if row is None:
            if on_stale is not None:
                on_stale(event)
            return False
        handlers[event["kind"]](row, event)
        return True


def owner_task(kind: JobKind, pk: int):
    """The task id a live job counts on now (a query: None when it is not live)."""
    return kind.rows().filter(pk=pk, status__in=LIVE_STATUSES).values_list("celery_task_id", flat=True)
