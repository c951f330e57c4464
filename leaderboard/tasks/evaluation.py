"""Evaluation tasks (queue ``gpu``): one task evaluates one submission, without a database.

The GPU worker downloads and runs third-party artefacts, so it holds no database
credentials (README, "Trust boundary: the GPU side"; ``GLOSSA_NO_DATABASE=1`` gives it none at all). Its message
carries the job (``services/submissions.evaluation_job``); it reports through events to
the ``default`` queue (``worker_events.py``; applied by ``services/submission_events.py``):
started, progress, one record per finished dataset, heartbeats, finished or failed.

The model is loaded once (the engine's ``evaluate_model``). A crash loses at most the
dataset in progress: a re-delivered message (acks_late + reject_on_worker_lost) skips the
datasets whose records were already sent (``job_control.sent``), and after
``GLOSSA_MAX_ATTEMPTS`` deliveries gives up before loading anything. The worker stops
between datasets once the site no longer counts on its task (cancelled, re-queued).
"""

from __future__ import annotations

import base64
import logging
import os
import socket
import time
from pathlib import Path

from django.conf import settings

from evaluation.examples import MAX_COMPRESSED_BYTES
from evaluation.runner import EvaluationSettings, evaluate_model
from leaderboard import job_control
from leaderboard.jobs.worker import GpuJobTask, Heartbeat, counted_attempt, gpu_task, run_reporting
from leaderboard.tasks.worker_events import CeleryEvents

logger = logging.getLogger("leaderboard.tasks.evaluation")

PROGRESS_SEND_INTERVAL = 2.0  # seconds between progress events within a dataset

__all__ = ["evaluate_submission", "run_submission"]


class Stopped(Exception):
    """The site no longer counts on this task (cancelled, re-queued, finished)."""


def _evaluation_settings(job: dict):
    """The engine's settings: the model at the submission's pinned commit, the job's
    protocol and variant (the site checks each record against them), remote code only
    where an administrator granted it for that commit (decided by the site, in the job)."""
    protocol = job.get("protocol") if isinstance(job.get("protocol"), dict) else {}
    return EvaluationSettings(
        revision=job["revision"],
        few_shot=bool(job["few_shot"]),
        validation_split=job.get("validation_split") is True,
        iterations=int(protocol.get("iterations") or settings.EVALUATION_ITERATIONS),
        limit=protocol.get("limit", settings.EVALUATION_TEST_LIMIT),
        backend=settings.EVALUATION_BACKEND,
        trust_remote_code=job.get("trust_remote_code") is True,
        data_dir=str(settings.DATA_DIR),
        max_train_steps=settings.EVALUATION_MAX_TRAIN_STEPS,
        output_dir=str(settings.EVALUATION_OUTPUT_DIR / f"submission-{int(job['submission'])}"),
    )


def examples_payload(record: dict) -> str | None:
    """The record's examples file (evaluation/examples.py) as base64 text for the ``record``
    event; None when there is none or it is too large to send (the scores still go)."""
    path = record.get("examples_file")
    try:
        data = Path(path).read_bytes() if path else None
    except OSError as exc:
        logger.warning("the examples of %s cannot be read: %s", record.get("dataset"), exc)
        return None
    if data is None or len(data) > MAX_COMPRESSED_BYTES:
        if data is not None:
            logger.warning("the examples of %s are too large to send (%d bytes)", record.get("dataset"), len(data))
        return None
    return base64.b64encode(data).decode("ascii")


def run_submission(job: dict, task_id: str, events=None) -> str:
    """Evaluate one job to the end, reporting through ``events`` (default: to the ``default``
    queue); returns how it ended: finished, failed, gave up, stopped or skipped."""
    submission_id = int(job["submission"])
    events = events or CeleryEvents(submission_id, task_id)
    if not job_control.may_run(submission_id, task_id):
        logger.info("submission %s is not task %s's now (cancelled, re-queued); nothing to do", submission_id, task_id)
        return "skipped"
    attempt = counted_attempt(job, task_id, events)
    if attempt is None:
        return "gave up"
    sent = job_control.sent(task_id)
    return run_reporting(
        events,
        f"submission {submission_id}",
        lambda log: _evaluate(job, task_id, events, attempt, sent, log),
        failed=lambda: {"sent": sorted(sent)},
    )


def _evaluate(job: dict, task_id: str, events, attempt: int, sent: set, log) -> str:
    """Evaluate the datasets not yet sent and report the end: finished, or stopped when the
    site no longer counts on this task."""
    submission_id = int(job["submission"])
    try:
        todo = _start(job, events, attempt, sent)
        if todo:
            with Heartbeat(events):
                evaluate_model(
                    job["model"], todo, _evaluation_settings(job), **_reporting_callbacks(job, task_id, events, sent)
                )
        logger.info("submission %s: evaluated", submission_id)
        events.send("finished", sent=sorted(sent), log=log.text())
        return "finished"
    except Stopped:
        logger.info("submission %s was cancelled or re-queued; stopping", submission_id)
        return "stopped"


def _start(job: dict, events, attempt: int, sent: set) -> list[str]:
    """Report the start of this delivery and log its plan; returns the datasets still to evaluate."""
    submission_id = int(job["submission"])
    events.send(
        "started",
        attempt=attempt,
        worker=f"{socket.gethostname()}:{os.getpid()}",
        unavailable=job.get("unavailable") or {},
    )
    if sent:
        logger.info("submission %s was interrupted; resuming after its finished datasets", submission_id)
    todo = [name for name in job["datasets"] if name not in sent]
    logger.info(
        "submission %s: %s @ %s (%s), %d datasets to evaluate, %d already done",
        submission_id,
        job["model"],
        job["revision"],
        "few-shot" if job["few_shot"] else "zero-shot",
        len(todo),
        len(job.get("stored") or []) + len(job["datasets"]) - len(todo),
    )
    return todo


def _reporting_callbacks(job: dict, task_id: str, events, sent: set) -> dict:
    """The engine's callbacks (``on_progress``, ``on_record``, ``on_dataset_error``) that
    report to the site; ``on_record`` raises :class:`Stopped` once the site no longer
    counts on this task."""
    submission_id = int(job["submission"])
    last_sent = [0.0]

    def on_progress(dataset: str, done_units: int, total_units: int) -> None:
        now = time.monotonic()
        if now - last_sent[0] < PROGRESS_SEND_INTERVAL and done_units < total_units:
            return
        last_sent[0] = now
        events.try_send("progress", dataset=dataset, done=done_units, total=total_units)

    def on_record(record: dict) -> None:
        name = record.get("dataset")
        events.send("record", record=record, examples=examples_payload(record))
        job_control.mark_sent(task_id, name)
        sent.add(name)
        logger.info("submission %s: sent the result of %s", submission_id, name)
        if not job_control.may_run(submission_id, task_id):
            raise Stopped()

    def on_dataset_error(dataset: str, reason: str) -> None:  # this dataset fails, the others go on
        logger.error("submission %s: %s cannot be evaluated: %s", submission_id, dataset, reason)
        events.send("dataset_failed", dataset=dataset, reason=reason)

    return {"on_record": on_record, "on_progress": on_progress, "on_dataset_error": on_dataset_error}


class SubmissionTask(GpuJobTask):
    """An evaluation's death at the hard time limit, reported (``GpuJobTask``)."""

    events_class = CeleryEvents
    hard_limit_reason = (
        "Timed out: the worker stopped the evaluation at the hard limit of {limit} seconds. "
        "Datasets finished before are kept."
    )
    internal_reason = "Internal error ({name}: {exc}); an administrator can re-queue the submission."
    failed_fields = {"sent": []}


@gpu_task("leaderboard.tasks.evaluate_submission", SubmissionTask)
def evaluate_submission(self, job: dict) -> str:
    if not isinstance(job, dict):  # a message from before jobs were carried in the message
        logger.error("evaluate_submission got %r, not a job; the reaper will queue it again", job)
        return "skipped"
    return run_submission(job, task_id=self.request.id or "")
