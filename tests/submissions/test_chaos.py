"""Faults staged on real parts (issue #13): PostgreSQL, Redis, real Celery worker
subprocesses and the real engine on the bundled SmolLM2.

* A pool process killed at every attempt (a model the GPU cannot hold is OOM-killed at
  each load): after GLOSSA_MAX_ATTEMPTS the submission is FAILED with a reason, the
  message is gone and the next submission runs.
* A whole worker killed (main process and pool: the machine died) mid-dataset: its
  message sits unacknowledged in Redis for the 6 h visibility timeout; the reaper sees the
  heartbeat stop, queues the submission again, and a new worker finishes it with exactly
  one score per evaluation, iteration and metric.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from leaderboard.models import Dataset, Evaluation, Submission, SubmissionStatus
from leaderboard.services import submissions as service
from leaderboard.services.reaper import reap

from .conftest import SMOL, broker
from .test_worker import DATASETS, assert_scores_complete, finished_or_failed
from .worker import Worker, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def danish(datasets):
    Dataset.objects.update(in_suite=False)
    Dataset.objects.filter(name__in=DATASETS).update(in_suite=True)


@pytest.fixture
def workers(tmp_path, empty_gpu_queue):
    started: list[Worker] = []

    def start(**env) -> Worker:
        worker = Worker(tmp_path, GLOSSA_HEARTBEAT_SECONDS="1", **env).start()
        started.append(worker)
        return worker

    broker().delete("unacked", "unacked_index")
    yield start
    for worker in started:
        worker.stop()
    broker().delete("gpu", "default", "unacked", "unacked_index")


def running_pid(pk: int, attempt: int, worker: Worker) -> int | None:
    row = Submission.objects.filter(pk=pk).values("status", "attempts", "progress").first()
    if row["status"] != SubmissionStatus.RUNNING or row["attempts"] != attempt:
        return None
    pid = int(str(row["progress"].get("_worker", ":0")).rsplit(":", 1)[1] or 0)
    return pid if pid in worker.children() else None


def test_a_pool_process_killed_at_every_attempt_fails_after_the_last_and_frees_the_queue(danish, workers):
    worker = workers(GLOSSA_MAX_ATTEMPTS="2")
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    for attempt in (1, 2):
        pid = wait_for(lambda a=attempt: running_pid(pk, a, worker), 120, f"attempt {attempt}", worker, 0.05)
        os.kill(pid, signal.SIGKILL)  # as the kernel's OOM killer would
    wait_for(lambda: finished_or_failed(pk), 120, "the submission to fail", worker)
    submission = Submission.objects.get(pk=pk)
    assert submission.status == SubmissionStatus.FAILED and submission.attempts == 2
    assert submission.failure_reason.startswith("The worker died 2 times while loading the model;")
    assert "WorkerLostError" in worker.text() and "succeeded in" in worker.text()  # the last delivery is acked
    assert broker().llen("gpu") == 0 and broker().hlen("unacked") == 0  # acknowledged, not re-delivered again

    # the queue is free, and the same model, commit and variant can be submitted again
    again = service.submit(SMOL, few_shot=False, languages=["da"])
    assert again.created and again.submission.pk != pk
    wait_for(lambda: finished_or_failed(again.submission.pk), 300, "the next submission", worker)
    again.submission.refresh_from_db()
    assert again.submission.status == SubmissionStatus.FINISHED, again.submission.failure_reason
    assert again.submission.attempts == 1
    assert_scores_complete(again.submission)


def test_a_worker_killed_with_its_machine_is_reaped_and_finished_by_another(danish, workers, settings):
    first = workers()
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    wait_for(lambda: Submission.objects.get(pk=pk).datasets_done >= 1, 240, "the first dataset", first, 0.1)
    done_before = set(Evaluation.objects.filter(submission_id=pk).values_list("pk", "updated_at"))
    os.killpg(first.process.pid, signal.SIGKILL)  # main process and pool at once
    first.process.wait(timeout=10)
    assert broker().hlen("unacked") == 1  # Redis would return it only after the visibility timeout

    second = workers()
    settings.GLOSSA_HEARTBEAT_TIMEOUT = 3
    assert reap().requeued == []  # the heartbeat is still fresh: nothing is taken back too early
    time.sleep(4)
    report = reap()
    assert report.requeued == [pk] and report.failed == []
    wait_for(lambda: finished_or_failed(pk), 300, "the reaped submission to finish", second)
    submission = Submission.objects.get(pk=pk)
    assert submission.status == SubmissionStatus.FINISHED, (submission.failure_reason, submission.log_excerpt)
    assert submission.attempts == 2 and submission.datasets_done == submission.datasets_total == 2
    assert done_before <= set(Evaluation.objects.filter(submission_id=pk).values_list("pk", "updated_at"))
    assert "1 datasets to evaluate, 1 already done" in second.text()  # resumed after the stored dataset
    assert_scores_complete(submission)


def test_redis_restarting_mid_evaluation_loses_no_result(danish, workers):
    """Redis restarts without persistence: every connection drops and the broker's data
    (the waiting and the unacknowledged messages) is gone. The running evaluation does not
    need the broker: it finishes, and its results are complete."""
    worker = workers()
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    wait_for(lambda: Submission.objects.get(pk=pk).datasets_done >= 1, 240, "the first dataset", worker, 0.1)
    redis = broker()
    redis.flushdb()  # what a restart without persistence leaves of the broker
    killed = redis.client_kill_filter(_type="normal", skipme=True)  # and every client connection drops
    assert killed >= 1  # the worker's own connections among them
    wait_for(lambda: finished_or_failed(pk), 300, "the submission to finish", worker)
    submission = Submission.objects.get(pk=pk)
    assert submission.status == SubmissionStatus.FINISHED, (submission.failure_reason, submission.log_excerpt)
    assert submission.attempts == 1
    assert_scores_complete(submission)
    # the worker reconnected: it still takes new work
    again = service.submit(SMOL, few_shot=True, languages=["da"]).submission.pk
    wait_for(lambda: Submission.objects.get(pk=again).status != SubmissionStatus.PENDING, 120, "a new task", worker)


def postgres_cluster() -> list[str] | None:
    """``pg_ctlcluster VERSION main`` for the local PostgreSQL, or None if it is managed otherwise."""
    import shutil
    from pathlib import Path

    versions = sorted(Path("/etc/postgresql").glob("*/main")) if Path("/etc/postgresql").is_dir() else []
    if not versions or not shutil.which("pg_ctlcluster"):
        return None
    return ["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1].parent.name, "main"]


def test_postgresql_restarting_during_a_result_write_loses_nothing(danish, workers):
    """PostgreSQL goes down while the worker evaluates, so the dataset's record meets no
    database; the worker keeps the record, tries again, and stores it once PostgreSQL is
    back: the submission finishes with every score exactly once."""
    import subprocess

    from django.db import connection

    cluster = postgres_cluster()
    if cluster is None:
        pytest.skip("PostgreSQL is not a local pg_ctlcluster cluster here")
    worker = workers(GLOSSA_DB_RETRY_SECONDS="180")
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    wait_for(lambda: Submission.objects.get(pk=pk).datasets_done >= 1, 240, "the first dataset", worker, 0.1)
    connection.close()
    subprocess.run([*cluster, "stop", "-m", "fast"], check=True, timeout=60)
    try:
        wait_for(lambda: "database unavailable while storing the scores of" in worker.text(), 240, "a write", worker)
    finally:
        subprocess.run([*cluster, "start"], check=True, timeout=60)
        for _ in range(60):
            if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"], check=False).returncode == 0:
                break
            time.sleep(0.5)
        connection.close()
    wait_for(lambda: finished_or_failed(pk), 240, "the submission to finish", worker)
    submission = Submission.objects.get(pk=pk)
    assert submission.status == SubmissionStatus.FINISHED, (submission.failure_reason, submission.log_excerpt)
    assert submission.attempts == 1  # the same delivery rode it out
    assert_scores_complete(submission)
