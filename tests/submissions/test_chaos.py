"""Faults staged on real parts (issue #13): PostgreSQL, Redis, real Celery worker
subprocesses and the real engine on the bundled SmolLM2. The ``gpu`` workers run without a
database (``GLOSSA_NO_DATABASE=1``); a ``default`` worker applies what they report.

* A pool process killed at every attempt (a model the GPU cannot hold is OOM-killed at
  each load): after GLOSSA_MAX_ATTEMPTS the submission is FAILED with a reason, the
  message is gone and the next submission runs.
* A whole worker killed (main process and pool: the machine died) mid-dataset: its
  message sits unacknowledged in Redis for the 6 h visibility timeout; the reaper sees the
  heartbeat stop, queues the submission again, and a new worker finishes it with exactly
  one score per evaluation, iteration and metric.
* A Redis server really restarted (a private one) mid-evaluation; PostgreSQL stopped while
  a result is being written: the submission finishes with every score exactly once.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from django.utils import timezone

from leaderboard.models import Dataset, Evaluation, Submission, SubmissionStatus
from leaderboard.services import submissions as service
from leaderboard.services.reaper import reap

from .conftest import SMOL, broker
from .test_worker import DATASETS, assert_scores_complete, finished_or_failed
from .worker import Worker, Workers, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def danish(datasets):
    Dataset.objects.update(in_suite=False)
    Dataset.objects.filter(name__in=DATASETS).update(in_suite=True)


@pytest.fixture
def workers(tmp_path, empty_gpu_queue):
    broker().delete("unacked", "unacked_index")
    pool = Workers(tmp_path)
    yield pool
    pool.stop()
    broker().delete("gpu", "default", "unacked", "unacked_index")


def gpu_worker(workers: Workers, **env) -> Worker:
    return workers.gpu(GLOSSA_HEARTBEAT_SECONDS="1", **env)


def unacked(queue: str) -> int:
    """Messages of ``queue`` delivered and not yet acknowledged (kombu's ``unacked`` hash)."""
    return sum(1 for entry in broker().hvals("unacked") if json.loads(entry)[2] == queue)


def running_pid(pk: int, attempt: int, worker: Worker) -> int | None:
    row = Submission.objects.filter(pk=pk).values("status", "attempts", "progress").first()
    if row["status"] != SubmissionStatus.RUNNING or row["attempts"] != attempt:
        return None
    pid = int(str(row["progress"].get("_worker", ":0")).rsplit(":", 1)[1] or 0)
    return pid if pid in worker.children() else None


def test_a_pool_process_killed_at_every_attempt_fails_after_the_last_and_frees_the_queue(danish, workers):
    worker = gpu_worker(workers, GLOSSA_MAX_ATTEMPTS="2")
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    for attempt in (1, 2):
        pid = wait_for(lambda a=attempt: running_pid(pk, a, worker), 120, f"attempt {attempt}", worker, 0.05)
        os.kill(pid, signal.SIGKILL)  # as the kernel's OOM killer would
    wait_for(lambda: finished_or_failed(pk), 120, "the submission to fail", worker)
    submission = Submission.objects.get(pk=pk)
    assert submission.status == SubmissionStatus.FAILED and submission.attempts == 2
    assert submission.failure_reason.startswith("The worker died 2 times while loading the model;")
    assert "WorkerLostError" in worker.text() and "succeeded in" in worker.text()  # the last delivery is acked
    assert broker().llen("gpu") == 0 and unacked("gpu") == 0  # acknowledged, not re-delivered again

    # the queue is free, and the same model, commit and variant can be submitted again
    again = service.submit(SMOL, few_shot=False, languages=["da"])
    assert again.created and again.submission.pk != pk
    wait_for(lambda: finished_or_failed(again.submission.pk), 300, "the next submission", worker)
    again.submission.refresh_from_db()
    assert again.submission.status == SubmissionStatus.FINISHED, again.submission.failure_reason
    assert again.submission.attempts == 1
    assert_scores_complete(again.submission)


def test_a_worker_killed_with_its_machine_is_reaped_and_finished_by_another(danish, workers, settings):
    first = gpu_worker(workers)
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    wait_for(lambda: Submission.objects.get(pk=pk).datasets_done >= 1, 240, "the first dataset", first, 0.1)
    done_before = set(Evaluation.objects.filter(submission_id=pk).values_list("pk", "updated_at"))
    os.killpg(first.process.pid, signal.SIGKILL)  # main process and pool at once
    first.process.wait(timeout=10)
    assert unacked("gpu") == 1  # Redis would return it only after the visibility timeout

    second = gpu_worker(workers)
    # the timeout is set from the last heartbeat's real age (the second worker's start-up time
    # varies with the machine's load): fresh now, stale four seconds later
    silent = Submission.objects.get(pk=pk)
    age = (timezone.now() - (silent.heartbeat_at or silent.updated_at)).total_seconds()
    settings.GLOSSA_HEARTBEAT_TIMEOUT = age + 3
    assert reap().requeued == []  # the heartbeat is still fresh: nothing is taken back too early
    time.sleep(4 + 1)
    report = reap()
    assert report.requeued == [pk] and report.failed == []
    wait_for(lambda: finished_or_failed(pk), 300, "the reaped submission to finish", second)
    submission = Submission.objects.get(pk=pk)
    assert submission.status == SubmissionStatus.FINISHED, (submission.failure_reason, submission.log_excerpt)
    assert submission.attempts == 2 and submission.datasets_done == submission.datasets_total == 2
    assert done_before <= set(Evaluation.objects.filter(submission_id=pk).values_list("pk", "updated_at"))
    assert "1 datasets to evaluate, 1 already done" in second.text()  # resumed after the stored dataset
    assert_scores_complete(submission)


class PrivateRedis:
    """A redis-server of this test's own (no persistence, as the machine's), so that a real
    restart disturbs nothing else."""

    def __init__(self, folder):
        import shutil
        import socket

        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.skip("redis-server is not installed here")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.folder = folder
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self) -> None:
        import subprocess

        import redis

        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            + ["--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: redis-server shuts down; --save "" keeps nothing
            self.process.wait(timeout=20)

    def restart(self) -> None:
        self.stop()
        time.sleep(1.0)  # the workers see the connection refused, not just dropped
        self.start()


@pytest.fixture
def private_redis(settings, tmp_path):
    """The broker of this test (site, workers, job control) is a private Redis."""
    from leaderboard import job_control
    from leaderboard.celery import app

    server = PrivateRedis(tmp_path)
    server.start()
    previous = app.conf.broker_url
    settings.CELERY_BROKER_URL = server.url

    def use(url):
        app.conf.update(broker_url=url, broker_write_url=url, broker_read_url=url)
        app._pool = None
        app.amqp._producer_pool = None
        job_control._store.cache_clear()

    use(server.url)
    yield server
    use(previous)
    server.stop()


def test_redis_restarting_mid_evaluation_loses_no_result(danish, private_redis, workers):
    """Redis really restarts (without persistence) while the worker evaluates: every
    connection drops, the server refuses connections for a second, and it comes back
    empty (the waiting and the unacknowledged messages, the job-control keys are gone).
    The running evaluation does not need the broker until it reports: its events wait for
    the broker, and the submission finishes with complete results."""
    worker = gpu_worker(workers)
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    wait_for(lambda: Submission.objects.get(pk=pk).datasets_done >= 1, 240, "the first dataset", worker, 0.1)
    private_redis.restart()
    wait_for(lambda: finished_or_failed(pk), 300, "the submission to finish", worker)
    submission = Submission.objects.get(pk=pk)
    assert submission.status == SubmissionStatus.FINISHED, (submission.failure_reason, submission.log_excerpt)
    assert submission.attempts == 1
    assert_scores_complete(submission)
    # both workers reconnected: they still take new work and report it
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


@pytest.mark.serial
def test_postgresql_restarting_during_a_result_write_loses_nothing(danish, workers):
    """PostgreSQL goes down while the worker evaluates, so the dataset's record meets no
    database; the worker keeps the record, tries again, and stores it once PostgreSQL is
    back: the submission finishes with every score exactly once."""
    import subprocess

    from django.db import connection

    cluster = postgres_cluster()
    if cluster is None:
        pytest.skip("PostgreSQL is not a local pg_ctlcluster cluster here")
    default = workers.default(GLOSSA_DB_RETRY_SECONDS="180")
    worker = gpu_worker(workers)
    pk = service.submit(SMOL, few_shot=False, languages=["da"]).submission.pk
    wait_for(lambda: Submission.objects.get(pk=pk).datasets_done >= 1, 240, "the first dataset", worker, 0.1)
    connection.close()
    subprocess.run([*cluster, "stop", "-m", "fast"], check=True, timeout=60)
    try:
        wait_for(lambda: "database unavailable while applying a record" in default.text(), 240, "a write", default)
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
