"""A speed job on the shared lifecycle, on real PostgreSQL and the real Redis broker: the
reaper takes back a silent or lost one (and fails it after the last attempt), a cancel
revokes its task and ignores its worker, a re-queue sends it again under a new task id,
the admin's actions do both, and the jobs kept on submissions before speed jobs had rows
are migrated into rows."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from leaderboard.jobs import lifecycle
from leaderboard.models import JobStatus, LanguageModel, SpeedBenchmark, SpeedJob, Submission
from leaderboard.services import reaper, speed_jobs
from tests.support.efficiency import speed_report

COMMIT = "c" * 40
pytestmark = pytest.mark.django_db


@pytest.fixture
def broker():
    """The broker's ``gpu`` and ``default`` queues (this suite's own Redis database), emptied before and after."""
    assert settings.CELERY_BROKER_URL.startswith("redis"), "these tests need Redis as the broker"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete("gpu", "default")
    yield client
    client.delete("gpu", "default")


def gpu_messages(broker) -> dict[str, dict]:
    """task id → the message's job, for what waits on the ``gpu`` queue."""
    out = {}
    for raw in broker.lrange("gpu", 0, -1):
        message = json.loads(raw)
        out[message["headers"]["id"]] = json.loads(base64.b64decode(message["body"]))[0][0]
    return out


@pytest.fixture
def queue_job(db, broker, django_capture_on_commit_callbacks):
    """Queue a speed job for a new submission of ``org/speedy``, its message really sent."""

    def queue(model_id: str = "org/speedy") -> SpeedJob:
        model, _ = LanguageModel.objects.get_or_create(model_id=model_id)
        submission = Submission.objects.create(model=model, commit_sha=COMMIT, status=JobStatus.FINISHED)
        with django_capture_on_commit_callbacks(execute=True):
            job = speed_jobs.queue(submission)
        return job

    return queue


def event(job: SpeedJob, kind: str, task: str | None = None, **data) -> dict:
    return {"kind": kind, "speed_job": job.pk, "task": task or job.celery_task_id, **data}


def test_the_reaper_requeues_a_silent_or_lost_job_and_fails_it_after_the_last_attempt(
    queue_job, broker, settings, django_capture_on_commit_callbacks
):
    silent = queue_job()
    old_task = silent.celery_task_id
    assert speed_jobs.apply_event(event(silent, "started", attempt=1))
    long_ago = timezone.now() - timedelta(seconds=settings.GLOSSA_HEARTBEAT_TIMEOUT + 5)
    SpeedJob.objects.filter(pk=silent.pk).update(heartbeat_at=long_ago)
    lost = queue_job("org/other")
    SpeedJob.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(days=1))
    waiting = queue_job("org/third")  # old too, but its message is on the broker: left alone
    SpeedJob.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - timedelta(days=1))
    broker.lrem("gpu", 0, next(m for m in broker.lrange("gpu", 0, -1) if lost.celery_task_id.encode() in m))

    with django_capture_on_commit_callbacks(execute=True):
        report = reaper.reap()
    assert sorted(report.speed_jobs["requeued"]) == sorted([silent.pk, lost.pk])
    assert report.as_json()["speed_jobs"] == report.speed_jobs
    silent.refresh_from_db()
    lost.refresh_from_db()
    assert silent.status == JobStatus.PENDING and silent.celery_task_id != old_task and silent.attempts == 1
    assert SpeedJob.objects.get(pk=waiting.pk).celery_task_id == waiting.celery_task_id
    queued = gpu_messages(broker)
    assert {silent.celery_task_id, lost.celery_task_id, waiting.celery_task_id} <= set(queued)
    assert queued[silent.celery_task_id] == speed_jobs.speed_message(silent)  # the starts made travel with it
    # the old task's report no longer speaks for the job
    assert not speed_jobs.apply_event(event(silent, "finished", old_task, report=speed_report("org/speedy", COMMIT)))
    assert not SpeedBenchmark.objects.exists()

    # the last allowed start made: the next silence fails it with a reason
    SpeedJob.objects.filter(pk=silent.pk).update(
        status=JobStatus.RUNNING, attempts=settings.GLOSSA_MAX_ATTEMPTS, heartbeat_at=long_ago
    )
    assert speed_jobs.reap()["failed"] == [silent.pk]
    silent.refresh_from_db()
    assert silent.status == JobStatus.FAILED and "stopped responding" in silent.failure_reason


def test_a_cancel_revokes_the_task_and_a_requeue_sends_it_again_under_a_new_task(
    queue_job, broker, monkeypatch, django_capture_on_commit_callbacks
):
    revoked = []
    monkeypatch.setattr(lifecycle.current_app.control, "revoke", lambda task, **kw: revoked.append((task, kw)))
    job = queue_job()
    first = job.celery_task_id
    assert speed_jobs.apply_event(event(job, "started", attempt=1))
    assert speed_jobs.cancel(job) and not speed_jobs.cancel(job)  # compare-and-set: once
    assert revoked == [(first, {"terminate": True, "signal": "SIGTERM"})]
    job.refresh_from_db()
    assert (job.status, job.failure_reason) == (JobStatus.CANCELLED, "Cancelled by an administrator.")
    report = speed_report("org/speedy", COMMIT)
    assert not speed_jobs.apply_event(event(job, "finished", report=report))  # its worker is ignored
    assert not SpeedBenchmark.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        assert speed_jobs.requeue(job)
    job.refresh_from_db()
    assert (job.status, job.attempts, job.failure_reason) == (JobStatus.PENDING, 0, "")
    assert job.celery_task_id != first and job.celery_task_id in gpu_messages(broker)
    assert not speed_jobs.apply_event(event(job, "finished", first, report=report))  # the old task's
    assert speed_jobs.apply_event(event(job, "finished", report=report))
    job.refresh_from_db()
    assert job.status == JobStatus.FINISHED and job.benchmark == SpeedBenchmark.objects.get()
    assert not speed_jobs.requeue(job) and not speed_jobs.cancel(job)  # a finished job stays finished


def test_the_admin_cancels_and_requeues_speed_jobs(queue_job, broker, client, monkeypatch):
    monkeypatch.setattr(lifecycle.current_app.control, "revoke", lambda task, **kw: None)
    job = queue_job()
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    changelist = reverse("admin:leaderboard_speedjob_changelist")
    assert client.get(changelist).status_code == 200
    assert client.get(reverse("admin:leaderboard_speedjob_change", args=[job.pk])).status_code == 200
    client.post(changelist, {"action": "cancel_jobs", "_selected_action": [job.pk]})
    assert SpeedJob.objects.get(pk=job.pk).status == JobStatus.CANCELLED
    client.post(changelist, {"action": "requeue_jobs", "_selected_action": [job.pk]})
    job.refresh_from_db()
    assert job.status == JobStatus.PENDING


@pytest.mark.django_db(transaction=True)
def test_the_jobs_kept_on_submissions_are_migrated_into_rows():
    before, after = [("leaderboard", "0021_effsite_efficiency")], [("leaderboard", "0022_speedjob")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        _migrate_jobs_kept_on_submissions(executor, before, after)
    finally:  # the database as every other test expects it
        MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


def _migrate_jobs_kept_on_submissions(executor, before, after) -> None:
    apps = executor.loader.project_state(before).apps
    Model, Old, Bench = (apps.get_model("leaderboard", n) for n in ("LanguageModel", "Submission", "SpeedBenchmark"))
    model = Model.objects.create(model_id="org/speedy")
    speed = {"submission": 0, "model": "org/speedy", "revision": COMMIT, "commit": COMMIT, "backend": "vllm"}
    queued = {**speed, "task": "t-queued", "state": "queued", "queued_at": "2026-11-20T10:00:00+00:00"}
    failed = {**speed, "task": "t-failed", "state": "failed", "note": "OOM", "closed_at": "2026-11-20T11:00:00+00:00"}
    done = {**speed, "task": "t-done", "state": "done", "trust_remote_code": True}
    rows = {}
    for name, job in (("queued", queued), ("failed", failed), ("done", done), ("none", None)):
        extra = {"speed": job} if job else {}
        rows[name] = Old.objects.create(
            model=model, commit_sha=COMMIT, status="FAILED", job={"task": "t-eval", **extra}
        )
    bench = Bench.objects.create(
        model=model, commit_sha=COMMIT, hardware_class="x", backend="vllm", submission=rows["done"]
    )

    MigrationExecutor(connection).migrate(after)
    jobs = {job.celery_task_id: job for job in SpeedJob.objects.all()}
    assert set(jobs) == {"t-queued", "t-failed", "t-done"}
    assert all(s.job == {"task": "t-eval"} for s in Submission.objects.all())  # the evaluation's job kept
    q, f, d = jobs["t-queued"], jobs["t-failed"], jobs["t-done"]
    assert (q.status, q.submission_id, q.commit_sha, q.backend) == (
        JobStatus.PENDING,
        rows["queued"].pk,
        COMMIT,
        "vllm",
    )
    assert q.created_at.isoformat() == "2026-11-20T10:00:00+00:00" and q.finished_at is None
    assert (f.status, f.failure_reason, f.finished_at.hour) == (JobStatus.FAILED, "OOM", 11)
    assert (d.status, d.benchmark_id, d.trust_remote_code) == (JobStatus.FINISHED, bench.pk, True)
