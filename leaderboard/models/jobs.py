"""The one status vocabulary of every job: a submission's evaluation, an exam run and an
aggregation run (``leaderboard/jobs/lifecycle.py`` moves the GPU jobs between them)."""

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
