"""The speed benchmark becomes a GPU job of its own (``SpeedJob``, on the shared lifecycle).

The job an administrator queued used to be kept on the submission (``Submission.job["speed"]``:
task, model, commit, backend, state, note); each such dict becomes a ``SpeedJob`` row and
leaves the submission's job. A job still "queued" stays PENDING under its task id: its old
message is skipped by the new worker (it names no speed job) and the reaper then queues it
again once ``GLOSSA_PENDING_TIMEOUT`` has passed; "done" is FINISHED (linked to the
benchmark its submission stored at that commit), "failed" FAILED with its note.
"""

from datetime import datetime

import django.db.models.deletion
from django.db import migrations, models

STATUS_OF_STATE = {"queued": "PENDING", "done": "FINISHED"}  # anything else: FAILED


def _when(value):
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def move_to_rows(apps, schema_editor):
    Submission = apps.get_model("leaderboard", "Submission")
    SpeedJob = apps.get_model("leaderboard", "SpeedJob")
    SpeedBenchmark = apps.get_model("leaderboard", "SpeedBenchmark")
    LanguageModel = apps.get_model("leaderboard", "LanguageModel")
    for submission in Submission.objects.filter(job__has_key="speed").select_related("model"):
        speed = submission.job["speed"]
        rest = {key: value for key, value in submission.job.items() if key != "speed"}
        if isinstance(speed, dict) and speed.get("task"):
            name = str(speed.get("model") or submission.model.model_id)
            model = LanguageModel.objects.filter(model_id=name).first() or submission.model
            commit = str(speed.get("commit") or submission.commit_sha)[:64]
            status = STATUS_OF_STATE.get(speed.get("state"), "FAILED")
            benchmark = None
            if status == "FINISHED":
                found = SpeedBenchmark.objects.filter(submission=submission, model=model, commit_sha=commit)
                benchmark = found.order_by("-updated_at").first()
            job = SpeedJob.objects.create(
                submission=submission,
                model=model,
                commit_sha=commit,
                trust_remote_code=speed.get("trust_remote_code") is True,
                backend=str(speed.get("backend") or "")[:40],
                status=status,
                failure_reason=str(speed.get("note") or "") if status == "FAILED" else "",
                celery_task_id=str(speed["task"])[:64],
                benchmark=benchmark,
                finished_at=_when(speed.get("closed_at")) if status != "PENDING" else None,
            )
            queued_at = _when(speed.get("queued_at"))
            if queued_at is not None:  # created_at is auto_now_add: written afterwards
                SpeedJob.objects.filter(pk=job.pk).update(created_at=queued_at)
        Submission.objects.filter(pk=submission.pk).update(job=rest)


def move_back(apps, schema_editor):
    """Each submission's newest speed job back into ``job["speed"]`` (the older ones are lost)."""
    Submission = apps.get_model("leaderboard", "Submission")
    SpeedJob = apps.get_model("leaderboard", "SpeedJob")
    states = {"PENDING": "queued", "RUNNING": "queued", "FINISHED": "done"}
    for job in SpeedJob.objects.filter(submission__isnull=False).select_related("model").order_by("created_at"):
        submission = Submission.objects.get(pk=job.submission_id)
        speed = {
            "task": job.celery_task_id,
            "submission": submission.pk,
            "model": job.model.model_id,
            "revision": job.commit_sha,
            "commit": job.commit_sha,
            "trust_remote_code": job.trust_remote_code,
            "backend": job.backend,
            "state": states.get(job.status, "failed"),
            "note": job.failure_reason,
            "queued_at": job.created_at.isoformat(),
        }
        Submission.objects.filter(pk=submission.pk).update(job={**submission.job, "speed": speed})


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0021_effsite_efficiency"),
    ]

    operations = [
        migrations.CreateModel(
            name="SpeedJob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("PENDING", "Pending"),
                            ("RUNNING", "Running"),
                            ("FINISHED", "Finished"),
                            ("FAILED", "Failed"),
                            ("CANCELLED", "Cancelled"),
                        ],
                        default="PENDING",
                        max_length=12,
                    ),
                ),
                ("failure_reason", models.TextField(blank=True)),
                ("log_excerpt", models.TextField(blank=True)),
                ("attempts", models.PositiveIntegerField(default=0)),
                ("celery_task_id", models.CharField(blank=True, max_length=64)),
                ("heartbeat_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "commit_sha",
                    models.CharField(help_text="The commit measured (the submission's, when queued).", max_length=64),
                ),
                (
                    "trust_remote_code",
                    models.BooleanField(default=False, help_text="Granted for this commit when queued."),
                ),
                ("backend", models.CharField(help_text="The deployment's backend when queued.", max_length=40)),
                (
                    "benchmark",
                    models.ForeignKey(
                        blank=True,
                        help_text="What it stored.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="jobs",
                        to="leaderboard.speedbenchmark",
                    ),
                ),
                (
                    "model",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="speed_jobs",
                        to="leaderboard.languagemodel",
                    ),
                ),
                (
                    "submission",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="speed_jobs",
                        to="leaderboard.submission",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
                "abstract": False,
                "indexes": [models.Index(fields=["status", "created_at"], name="speed_job_status_idx")],
            },
        ),
        migrations.RunPython(move_to_rows, move_back),
    ]
