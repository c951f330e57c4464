"""The controlled speed benchmark of a submission's model (docs/methodology.md §11), a kind of
GPU job (:data:`SPEED_JOBS`) on the shared lifecycle (``leaderboard/jobs/lifecycle.py``).

An administrator queues it for a submission (:func:`queue`): a ``SpeedJob`` row keeps the
model, the commit it is measured at (the submission's), the backend and whether remote
code may run. A ``gpu`` worker runs the engine's speed benchmark (``tasks/speed.py``: what
``python -m evaluation speed`` runs) without a database and reports through
``apply_speed_event`` on the ``default`` queue. Queueing, cancelling (the task revoked),
re-queueing, the reaper and the check of an event against the job (it names the job's
current task id while the job is live) are the lifecycle's, as for the other kinds.

A finished job's report is stored (as the model's ``SpeedBenchmark``: the efficiency
view's primary numbers) only when it passes the contract's check
(``record_efficiency.check_speed_report``) and is of the job's model at the job's commit;
anything else fails the job with the reason and stores nothing. The same store serves
``import_speed FILE`` (a report written by hand with ``python -m evaluation speed --output FILE``).
"""

from __future__ import annotations

import json
import logging

from django.conf import settings
from django.db import transaction

from leaderboard.jobs import lifecycle
from leaderboard.models import LIVE_STATUSES, JobStatus, LanguageModel, SpeedBenchmark, SpeedJob, Submission
from leaderboard.public_text import public_reason
from leaderboard.record_fields import InvalidRecord
from leaderboard.services import broker_probe
from leaderboard.services.record_efficiency import check_speed_report

logger = logging.getLogger("leaderboard.speed_jobs")

SPEED_TASK = "leaderboard.tasks.run_speed_benchmark"
MAX_REPORT_BYTES = 1_000_000
LOG_CHARS = 20_000
REASON_CHARS = 4_000


class SpeedRefused(Exception):
    """The benchmark cannot be queued for this submission (the message says why)."""


def save_benchmark(report: dict, *, source: str, submission: Submission | None = None) -> tuple[SpeedBenchmark, bool]:
    """A checked report as its model's ``SpeedBenchmark`` (one per model, commit and
    hardware identity; a newer report of the same identity replaces it); (it, created)."""
    hardware = report["hardware"]
    model, _ = LanguageModel.objects.get_or_create(model_id=report["model"])
    return SpeedBenchmark.objects.update_or_create(
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


def store_benchmark(report: dict, *, source: str, submission: Submission | None = None) -> str:
    """:func:`save_benchmark`, said in a word: "imported" or "updated"."""
    _, created = save_benchmark(report, source=source, submission=submission)
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


# --- the job ------------------------------------------------------------------------------


def speed_message(job: SpeedJob) -> dict:
    """Everything the GPU worker needs (it holds no database)."""
    return {
        "speed_job": job.pk,
        "model": job.model.model_id,
        "revision": job.commit_sha,
        "trust_remote_code": job.trust_remote_code,
        "backend": job.backend,
        "attempts": job.attempts,
    }


SPEED_JOBS = lifecycle.JobKind(
    name="speed job",
    model=SpeedJob,
    id_key="speed_job",
    task_name=SPEED_TASK,
    build_job=lambda pk, task_id: speed_message(SpeedJob.objects.select_related("model").get(pk=pk)),
    died_reason=lambda job, how: (
        f"The benchmark's worker {how} after {job.attempts} start(s); the model may not fit. "
        "An administrator can re-queue it."
    ),
    silent_since="started_at",
    waiting=lifecycle.created_long_ago,
    take_back_fields=lambda job, now: {"failure_reason": ""},
)


def queue(submission: Submission) -> SpeedJob:
    """Queue the speed benchmark of the submission's model at its commit on the ``gpu``
    queue (sent once the caller's transaction commits). A new request replaces a live job
    an older one left: that one is cancelled, its task revoked."""
    if not submission.commit_sha:
        raise SpeedRefused("it has no pinned commit to benchmark")
    evaluation_job = submission.job if isinstance(submission.job, dict) else {}
    with transaction.atomic():
        Submission.objects.select_for_update().filter(pk=submission.pk).first()  # one request at a time
        for older in SpeedJob.objects.filter(submission=submission, status__in=LIVE_STATUSES):
            lifecycle.cancel(SPEED_JOBS, older, "Replaced by a newer request.")
        job = SpeedJob.objects.create(
            submission=submission,
            model=submission.model,
            commit_sha=submission.commit_sha,
            trust_remote_code=evaluation_job.get("trust_remote_code") is True,
            backend=settings.EVALUATION_BACKEND,
            celery_task_id=lifecycle.new_task_id(),
        )
        transaction.on_commit(lambda: enqueue(job))
    return job


def enqueue(job: SpeedJob) -> None:
    lifecycle.enqueue(SPEED_JOBS, job.pk, job.celery_task_id)


def cancel(job: SpeedJob, reason: str = "Cancelled by an administrator.") -> bool:
    """A pending or running job → CANCELLED; its task is revoked (a running one terminated)
    and anything its worker still sends is ignored."""
    return lifecycle.cancel(SPEED_JOBS, job, reason)


def requeue(job: SpeedJob) -> bool:
    """A failed or cancelled job queued again under a new task id (the old task's events are
    then ignored), its attempts started afresh; False if it was not ended."""
    with transaction.atomic():
        if not lifecycle.requeue(SPEED_JOBS, job):
            return False
        job.refresh_from_db()
        transaction.on_commit(lambda: enqueue(job))
        return True


def reap(now=None) -> dict[str, list[int]]:
    """The reaper's part for speed jobs (``services/reaper.py``): a RUNNING job whose
    heartbeat stopped, or a PENDING one whose message no queue holds, is queued again, or
    FAILED once ``GLOSSA_MAX_ATTEMPTS`` starts were made."""
    return lifecycle.reap(SPEED_JOBS, broker_probe.queued_task_ids, now)


# --- events from the GPU worker -------------------------------------------------------------


def checked_report(job: SpeedJob, value) -> dict:
    """The report, if it passes the contract's check and is of the job's model at the job's
    commit; InvalidRecord saying why otherwise."""
    report = check_speed_report(value)
    if report["model"] != job.model.model_id or (report["model_commit"] or "") != job.commit_sha:
        raise InvalidRecord(
            f"the report is of {report['model'][:200]} at {str(report['model_commit'])[:64]}, "
            f"the job's of {job.model.model_id} at {job.commit_sha}"
        )
    return report


def _finished(job: SpeedJob, event: dict) -> None:
    log = lifecycle.tail(event.get("log"), LOG_CHARS)
    try:
        report = checked_report(job, event.get("report"))
    except InvalidRecord as exc:
        logger.error("speed job %s: the report was refused: %s", job.pk, exc)
        reason = public_reason(f"Its report was refused: {exc}")[:REASON_CHARS]
        lifecycle.close(SPEED_JOBS, job, JobStatus.FAILED, reason, log)
        return
    source = f"submission:{job.submission_id}" if job.submission_id else f"speed job {job.pk}"
    job.benchmark, created = save_benchmark(report, source=source, submission=job.submission)
    logger.info("speed job %s: benchmark %s", job.pk, "imported" if created else "updated")
    lifecycle.close(SPEED_JOBS, job, JobStatus.FINISHED, "", log, "benchmark")


def _failed(job: SpeedJob, event: dict) -> None:
    if event["kind"] == "gave_up":  # its last delivery: said as the reaper says it (the kind's died_reason)
        reason = SPEED_JOBS.died_reason(job, "died")
    else:
        reason = public_reason(lifecycle.tail(event.get("reason"), REASON_CHARS) or "unknown")
    lifecycle.close(SPEED_JOBS, job, JobStatus.FAILED, reason, lifecycle.tail(event.get("log"), LOG_CHARS))


HANDLERS = {
    "started": lambda job, event: lifecycle.start(SPEED_JOBS, job, event),
    "heartbeat": lambda job, event: lifecycle.beat(SPEED_JOBS, job),
    "finished": _finished,
    "failed": _failed,
    "gave_up": _failed,
}


def apply_event(event) -> bool:
    """Apply one event of the worker that holds ``event["task"]``; lifecycle.BadEvent when it
    is not a speed job's event at all, False when it no longer speaks for its job (another
    task id: re-queued, replaced, forged; the job cancelled or ended)."""
    return lifecycle.apply(SPEED_JOBS, event, HANDLERS, related=("model",))
