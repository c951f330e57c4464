"""The one status vocabulary of every job (a submission's evaluation, an exam run, a speed
job and an aggregation run) and the fields every GPU job's row carries
(``leaderboard/jobs/lifecycle.py`` moves the GPU jobs between the statuses)."""

from __future__ import annotations

from django.db import models


class JobStatus(models.TextChoices):
    PENDING = "PENDING", "Pending"
    RUNNING = "RUNNING", "Running"
    FINISHED = "FINISHED", "Finished"
    FAILED = "FAILED", "Failed"
    CANCELLED = "CANCELLED", "Cancelled"


LIVE_STATUSES = (JobStatus.PENDING, JobStatus.RUNNING)  # a worker may still report
ENDED_STATUSES = (JobStatus.FAILED, JobStatus.CANCELLED)  # what an administrator may re-queue
# an aggregation runs in the process that asked for it: it is never pending or cancelled
AGGREGATION_STATUSES = [(s.value, s.label) for s in (JobStatus.RUNNING, JobStatus.FINISHED, JobStatus.FAILED)]


class GpuJob(models.Model):
    """What the shared lifecycle reads and writes on a GPU job's row: its status, why it
    failed, the end of its worker's log, the starts made, the task that owns it now and
    the worker's last sign of life. ``Submission``, ``ExamRun`` and ``SpeedJob`` are GPU jobs."""

    status = models.CharField(max_length=12, choices=JobStatus.choices, default=JobStatus.PENDING)
    failure_reason = models.TextField(blank=True)
    log_excerpt = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    celery_task_id = models.CharField(max_length=64, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]
