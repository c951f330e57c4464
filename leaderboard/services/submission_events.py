"""What a GPU worker reports, applied to the database by the ``default`` queue (README, "Trust boundary: the GPU side").

The ``gpu`` worker runs third-party artefacts and holds no database credentials: it turns
a job (``submissions.evaluation_job``) into events and sends each to the
``apply_submission_event`` task (``tasks/submission_events.py``). This module is the only
way those events reach the database (each is one step of the state machine in
``submission_lifecycle.py``), and it trusts none of them:

* an event counts only for the submission's current task id, while the submission is
  pending or running (an older message, a cancelled submission: ignored);
* a result record is checked against the job the site kept for that task
  (``submission_job.py``): the submitted model and commit, a planned dataset at its planned
  version, the job's protocol and variant; then the importer's validation. A refused record
  fails its dataset (a dataset outside the job: logged only); a record already stored for
  the submission is not stored twice; progress and failures of datasets outside the job
  are dropped, so no event adds a dataset to a submission;
* a terminal event (``finished``, ``failed``) names the datasets whose records were sent
  before it, and waits (:class:`NotYet`) until each of them has arrived: the ``default``
  queue may apply events out of order.

Kinds: ``started`` (attempt, worker), ``gave_up`` (attempt: the message was delivered
``GLOSSA_MAX_ATTEMPTS`` times already), ``heartbeat`` (stage), ``progress`` (dataset, done,
total), ``dataset_failed`` (dataset, reason), ``record`` (record), ``finished`` (sent, log),
``failed`` (reason, sent, log).

The check of an event against its job, and the lock, are the shared lifecycle's
(``leaderboard/jobs/lifecycle.apply``), as for an exam run's events.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable

from django.db import transaction

from leaderboard import job_control
from leaderboard.jobs import lifecycle as jobs
from leaderboard.models import Submission
from leaderboard.services import submission_job
from leaderboard.services import submission_lifecycle as lifecycle
from leaderboard.services.submission_job import SUBMISSIONS
from leaderboard.submission_progress import Progress

logger = logging.getLogger("leaderboard.submission_events")


class NotYet(Exception):
    """A terminal event arrived before the records it follows; apply it again later."""


BadEvent = jobs.BadEvent  # not an event this module knows; dropped with a log line


def _locked(event: dict) -> Submission | None:
    """The event's submission, locked, if the event still speaks for it."""
    return jobs.locked(SUBMISSIONS, event, related=("model",))


def _arrived(submission: Submission, event: dict) -> None:
    """Raise NotYet while a record sent before this terminal event has not been applied."""
    progress = Progress.of(submission.progress)
    sent = event.get("sent") if isinstance(event.get("sent"), list) else []
    waiting = [
        name
        for name in sent
        if isinstance(name, str) and submission_job.planned(submission, name) and not progress.is_final(name)
    ]
    if waiting:
        raise NotYet(", ".join(waiting))


# Kinds that are only news: while the database is away they are dropped, not waited for, so
# the queue reaches the records behind them.
BEST_EFFORT = frozenset({"heartbeat", "progress"})


def _record(submission: Submission, event: dict) -> None:
    if not isinstance(event.get("record"), dict):
        raise BadEvent("a record event without a record")
    examples = event.get("examples")
    if examples is not None:
        try:
            examples = base64.b64decode(examples, validate=True) if isinstance(examples, str) else None
        except ValueError:
            examples = None
        if examples is None:
            logger.warning("submission %s: a record event with unreadable examples; storing the scores", submission.pk)
    lifecycle.record_dataset(submission, event["record"], examples=examples)


def _finished(submission: Submission, event: dict) -> None:
    _arrived(submission, event)
    lifecycle.finish(submission, log=str(event.get("log") or ""))


def _failed(submission: Submission, event: dict) -> None:
    _arrived(submission, event)
    lifecycle.fail(submission, reason=str(event.get("reason") or ""), log=str(event.get("log") or ""))


def _count(value) -> int:
    """A count an event reports: a whole number from 0 to a million, anything else 0."""
    return value if type(value) is int and 0 <= value <= 10**6 else 0


# Each kind, as a step of the state machine (services/submission_lifecycle.py).
HANDLERS: dict[str, Callable[[Submission, dict], None]] = {
    "started": lambda s, e: lifecycle.start(
        s,
        attempt=_count(e.get("attempt")),
        worker=str(e.get("worker") or ""),
        unavailable=e.get("unavailable") if isinstance(e.get("unavailable"), dict) else {},
    ),
    "gave_up": lambda s, e: lifecycle.give_up(s, attempt=_count(e.get("attempt"))),
    "heartbeat": lambda s, e: lifecycle.heartbeat(s, stage=str(e.get("stage") or "")),
    "progress": lambda s, e: lifecycle.report_progress(
        s, dataset=str(e.get("dataset") or ""), done=_count(e.get("done")), total=_count(e.get("total"))
    ),
    "dataset_failed": lambda s, e: lifecycle.dataset_failed(
        s, dataset=str(e.get("dataset") or ""), reason=str(e.get("reason") or "")
    ),
    "record": _record,
    "finished": _finished,
    "failed": _failed,
}


def apply(event: dict) -> bool:
    """Apply one event; False if it no longer speaks for its submission (and was ignored).
    Raises NotYet for a terminal event whose records have not all arrived, BadEvent for
    something that is not an event."""
    return jobs.apply(SUBMISSIONS, event, HANDLERS, related=("model",), on_stale=_stale)


def _stale(event: dict) -> None:
    if event["kind"] == "started":  # tell the worker to stop before it loads a model
        owner = jobs.owner_task(SUBMISSIONS, event["submission"])
        transaction.on_commit(lambda: _point_to(event["submission"], owner.first()))


def _point_to(submission_id: int, task_id: str | None) -> None:
    if task_id:
        job_control.set_current(submission_id, task_id)
    else:
        job_control.stop(submission_id)


def fail_undelivered(event: dict, missing: str) -> None:
    """A terminal event waited too long for its records: fail the submission, naming them."""
    with transaction.atomic():
        submission = _locked(event)
        if submission is None:
            return
        reason = (
            f"The results of {missing} were sent by the worker but never arrived. Datasets stored before are kept; "
            "an administrator can re-queue it."
        )
        lifecycle.fail(submission, reason=reason, log=str(event.get("log") or ""))
