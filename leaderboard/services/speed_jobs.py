"""The controlled speed benchmark of a submission (docs/methodology.md §11): an administrator queues it,
a ``gpu`` worker runs ``evaluation.speed`` (no database), and its report comes back as an
event that is believed only as far as the job the site kept allows.

The job is kept on the submission (``Submission.job["speed"]``: task id, model, commit,
backend, state). A report is stored (as the model's ``SpeedBenchmark``: the efficiency
view's primary numbers) only when its event names the job's task id, it passes the
contract's check (``record_efficiency.check_speed_report``) and it is of the job's model
at the job's commit; anything else is refused with a logged reason and changes nothing.
The same store serves ``import_speed FILE`` (a report written by hand with
``python -m evaluation speed --output FILE``).
"""

from __future__ import annotations

import json
import logging
import uuid

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.models import LanguageModel, SpeedBenchmark, Submission
from leaderboard.record_fields import InvalidRecord
from leaderboard.services.record_efficiency import check_speed_report

logger = logging.getLogger("leaderboard.speed_jobs")

SPEED_TASK = "leaderboard.tasks.run_speed_benchmark"
SPEED_EVENT_TASK = "leaderboard.tasks.apply_speed_event"
MAX_REPORT_BYTES = 1_000_000
REASON_CHARS = 2_000


class SpeedRefused(Exception):
    """The benchmark cannot be queued for this submission (the message says why)."""


class BadSpeedEvent(Exception):
    """An event that is not the submission's current speed job, or not one at all."""


def store_benchmark(report: dict, *, source: str, submission: Submission | None = None) -> str:
    """A checked report as its model's ``SpeedBenchmark`` (one per model, commit and
    hardware identity; a newer report of the same identity replaces it)."""
    hardware = report["hardware"]
    model, _ = LanguageModel.objects.get_or_create(model_id=report["model"])
    _, created = SpeedBenchmark.objects.update_or_create(
        model=model,
        commit_sha=report["model_commit"] or "",
        hardware_class=hardware["class"],
        backend=hardware["backend"],
        defaults={
            "device": hardware["device"],
            "hardware": hardware,
            "runs": report["runs"],
            "measured_at": report["created_at"],
            "source": source[:300],
            "submission": submission,
        },
    )
    return "imported" if created else "updated"


def import_report_file(text: str, *, source: str) -> str:
    """A speed report file (JSON) checked and stored; InvalidRecord naming the field otherwise."""
    if len(text) > MAX_REPORT_BYTES:
        raise InvalidRecord(f"a speed report is at most {MAX_REPORT_BYTES} bytes")
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InvalidRecord(f"not valid JSON ({exc})") from None
    report = check_speed_report(value)
    with transaction.atomic():
        return store_benchmark(report, source=source)


def speed_job(submission: Submission) -> dict | None:
    job = submission.job if isinstance(submission.job, dict) else {}
    speed = job.get("speed")
    return speed if isinstance(speed, dict) and speed.get("task") else None


def queue(submission: Submission) -> str:
    """Queue the speed benchmark of the submission's model at its commit on the ``gpu``
    queue; returns the task id. A new request replaces the job an older one kept."""
    from celery import current_app

    if not submission.commit_sha:
        raise SpeedRefused("it has no pinned commit to benchmark")
    task_id = str(uuid.uuid4())
    job = submission.job if isinstance(submission.job, dict) else {}
    speed = {
        "task": task_id,
        "submission": submission.pk,
        "model": submission.model.model_id,
        "revision": submission.commit_sha,
        "commit": submission.commit_sha,
        "trust_remote_code": job.get("trust_remote_code") is True,
        "backend": settings.EVALUATION_BACKEND,
        "state": "queued",
        "queued_at": timezone.now().isoformat(),
    }
    Submission.objects.filter(pk=submission.pk).update(job={**job, "speed": speed})
    submission.job = {**job, "speed": speed}
    message = {
        key: speed[key] for key in ("task", "submission", "model", "revision", "commit", "trust_remote_code", "backend")
    }
    transaction.on_commit(lambda: current_app.send_task(SPEED_TASK, args=[message], task_id=task_id))
    return task_id


def _close(submission: Submission, job: dict, state: str, note: str = "") -> None:
    job = {**job, "state": state, "note": note[:REASON_CHARS], "closed_at": timezone.now().isoformat()}
    submission.job = {**submission.job, "speed": job}
    submission.save(update_fields=["job", "updated_at"])


@transaction.atomic
def apply_event(event: object) -> str:
    """Apply one speed event (``finished`` with the report, or ``failed`` with a reason);
    returns what happened. BadSpeedEvent when it is not the submission's current job."""
    if (
        not isinstance(event, dict)
        or not isinstance(event.get("submission"), int)
        or isinstance(event["submission"], bool)
    ):
        raise BadSpeedEvent("a speed event names its submission by number")
    submission = Submission.objects.select_for_update().select_related("model").filter(pk=event["submission"]).first()
    job = speed_job(submission) if submission is not None else None
    if job is None or event.get("task") != job["task"]:
        raise BadSpeedEvent(f"not the current speed job of submission {event['submission']}")
    if job.get("state") != "queued":
        return f"ignored: the speed job is {job.get('state')}"
    if event.get("kind") == "failed":
        _close(submission, job, "failed", str(event.get("reason") or "the speed benchmark failed"))
        return "failed"
    if event.get("kind") != "finished":
        raise BadSpeedEvent(f"unknown speed event kind {str(event.get('kind'))[:40]!r}")
    try:
        report = check_speed_report(event.get("report"))
        if report["model"] != job["model"] or (report["model_commit"] or "") != job["commit"]:
            raise InvalidRecord(
                f"the report is of {report['model'][:200]} at {str(report['model_commit'])[:64]}, "
                f"the job's of {job['model']} at {job['commit']}"
            )
    except InvalidRecord as exc:
        logger.error("submission %s: speed report refused: %s", submission.pk, exc)
        _close(submission, job, "failed", f"its report was refused: {exc}")
        return "refused"
    outcome = store_benchmark(report, source=f"submission:{submission.pk}", submission=submission)
    _close(submission, job, "done")
    return outcome
