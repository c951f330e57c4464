"""Bounded retries and the reaper (services/reaper.py, the heartbeat events of
tasks/worker_events.py) on real
PostgreSQL and the real Redis broker: what is taken back, what is failed and why, and
what is left alone. The worker-level faults (a pool process killed at every attempt, a
whole worker killed mid-dataset) are in test_chaos.py."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.celery import app
from leaderboard.models import LanguageModel, Submission, SubmissionStatus
from leaderboard.services import submission_events
from leaderboard.services import submission_lifecycle as lifecycle
from leaderboard.services import submissions as service
from leaderboard.services.broker_probe import queued_task_ids
from leaderboard.services.reaper import reap
from leaderboard.tasks.evaluation import run_submission
from leaderboard.tasks.worker_events import Heartbeat
from tests.support.in_process import DirectEvents, RecordedEvents

from .conftest import SMOL

pytestmark = pytest.mark.django_db


@pytest.fixture
def model():
    return LanguageModel.objects.create(model_id=SMOL)


def age(submission: Submission, seconds: float, **fields) -> None:
    """Make a row look ``seconds`` old (updated_at is auto_now, so write it with update())."""
    when = timezone.now() - timedelta(seconds=seconds)
    Submission.objects.filter(pk=submission.pk).update(updated_at=when, **fields)


def gpu_ids(broker) -> list[str]:
    return [json.loads(m)["headers"]["id"] for m in broker.lrange("gpu", 0, -1)]


def test_a_running_submission_without_heartbeat_is_queued_again(
    model, empty_gpu_queue, settings, django_capture_on_commit_callbacks
):
    settings.GLOSSA_HEARTBEAT_TIMEOUT = 60
    stale = Submission.objects.create(
        model=model, status=SubmissionStatus.RUNNING, attempts=1, celery_task_id="old", stage="evaluating scala-da"
    )
    age(stale, 120, heartbeat_at=timezone.now() - timedelta(seconds=120))
    alive = Submission.objects.create(
        model=model, few_shot=False, status=SubmissionStatus.RUNNING, attempts=1, celery_task_id="alive"
    )
    age(alive, 120, heartbeat_at=timezone.now() - timedelta(seconds=5))

    with django_capture_on_commit_callbacks(execute=True):
        report = reap()
    assert report.requeued == [stale.pk] and report.failed == []
    stale.refresh_from_db()
    alive.refresh_from_db()
    assert stale.status == SubmissionStatus.PENDING and stale.celery_task_id not in ("old", "")
    assert stale.heartbeat_at is None and stale.attempts == 1
    assert gpu_ids(empty_gpu_queue) == [stale.celery_task_id]  # really on the broker
    assert alive.status == SubmissionStatus.RUNNING and alive.celery_task_id == "alive"
    # the old message, should it come back, is ignored: the submission runs only its current task id
    old = RecordedEvents(stale.pk, "old")
    assert run_submission({"submission": stale.pk, "datasets": ["scala-da"]}, "old", old) == "skipped"
    assert old.sent == []
    assert reap().requeued == []  # nothing left to take back


def test_after_the_last_attempt_the_reaper_fails_it_with_a_reason_and_frees_it(model, empty_gpu_queue, settings):
    settings.GLOSSA_HEARTBEAT_TIMEOUT = 60
    settings.GLOSSA_MAX_ATTEMPTS = 3
    stuck = Submission.objects.create(
        model=model,
        commit_sha="c" * 40,
        status=SubmissionStatus.RUNNING,
        attempts=3,
        celery_task_id="t",
        stage="evaluating scala-da",
    )
    age(stuck, 600)  # never wrote a heartbeat
    assert reap().failed == [stuck.pk]
    stuck.refresh_from_db()
    assert stuck.status == SubmissionStatus.FAILED
    assert stuck.failure_reason.startswith("The worker stopped responding 3 times while evaluating scala-da;")
    assert gpu_ids(empty_gpu_queue) == []
    assert service.find_active(model, "c" * 40, True) is None  # it can be submitted again


def test_a_pending_submission_whose_message_is_lost_is_queued_again(
    model, empty_gpu_queue, settings, django_capture_on_commit_callbacks
):
    settings.GLOSSA_PENDING_TIMEOUT = 60
    # sent to the broker (dispatched_at) whose message is gone; held work is the fair queue's
    lost = Submission.objects.create(model=model, celery_task_id="lost-task", dispatched_at=timezone.now())
    age(lost, 120)
    waiting = Submission.objects.create(model=model, few_shot=False, celery_task_id="waiting-task")
    service.enqueue(waiting.pk, "waiting-task")
    age(waiting, 120)
    fresh = Submission.objects.create(
        model=model, commit_sha="f" * 40, celery_task_id="fresh-task", dispatched_at=timezone.now()
    )
    assert queued_task_ids("gpu") == {"waiting-task"}

    with django_capture_on_commit_callbacks(execute=True):
        report = reap()
    assert report.requeued == [lost.pk]
    lost.refresh_from_db()
    assert lost.status == SubmissionStatus.PENDING and lost.celery_task_id != "lost-task"
    assert set(gpu_ids(empty_gpu_queue)) == {"waiting-task", lost.celery_task_id}
    fresh.refresh_from_db()
    assert fresh.celery_task_id == "fresh-task"  # too young to judge
    # a message delivered but not acknowledged (Redis' unacked hash) still counts as held
    empty_gpu_queue.hset("unacked", "tag", json.dumps([{"headers": {"id": fresh.celery_task_id}}, "", "gpu"]))
    try:
        assert "fresh-task" in queued_task_ids("gpu")
    finally:
        empty_gpu_queue.hdel("unacked", "tag")


def test_a_message_taken_by_a_worker_whose_host_died_before_starting_it_is_queued_again(
    model, empty_gpu_queue, settings, django_capture_on_commit_callbacks
):
    """A real consumer takes the message as a gpu worker does (kombu's Redis transport:
    delivered, in the ``unacked`` hash, not acknowledged) and is killed before it reports
    the submission started: Redis would give the message back after its 6 h visibility
    timeout; the reaper queues the submission again once the delivery is older than
    GLOSSA_PENDING_TIMEOUT, and leaves a delivery younger than that alone."""
    import signal
    import subprocess
    import sys

    settings.GLOSSA_PENDING_TIMEOUT = 3
    taken, young = (
        Submission.objects.create(model=model, few_shot=few_shot, celery_task_id=f"taken-{few_shot}")
        for few_shot in (True, False)
    )
    take_one = (
        "import sys, time\nfrom kombu import Connection\n"
        "with Connection(sys.argv[1]) as connection:\n"
        "    message = connection.default_channel.basic_get('gpu', no_ack=False)\n"
        "    print(message.headers['id'], flush=True)\n"
        "    time.sleep(600)\n"
    )

    def taken_by_a_worker_that_dies(submission) -> None:
        service.enqueue(submission.pk, submission.celery_task_id)
        worker = subprocess.Popen(
            [sys.executable, "-c", take_one, settings.CELERY_BROKER_URL], stdout=subprocess.PIPE, text=True
        )
        assert worker.stdout.readline().strip() == submission.celery_task_id
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)

    try:
        taken_by_a_worker_that_dies(taken)
        time.sleep(settings.GLOSSA_PENDING_TIMEOUT + 1)
        taken_by_a_worker_that_dies(young)
        assert {"taken-True", "taken-False"} <= queued_task_ids("gpu")  # both still "delivered"
        assert len(gpu_ids(empty_gpu_queue)) == 0
        age(taken, 120)
        age(young, 120)

        with django_capture_on_commit_callbacks(execute=True):
            report = reap()
        assert report.requeued == [taken.pk]
        taken.refresh_from_db()
        assert taken.status == SubmissionStatus.PENDING and taken.celery_task_id != "taken-True"
        assert gpu_ids(empty_gpu_queue) == [taken.celery_task_id]
        assert Submission.objects.get(pk=young.pk).celery_task_id == "taken-False"  # taken just now: left alone
    finally:
        empty_gpu_queue.delete("unacked", "unacked_index")


def test_an_admin_requeue_restores_the_retry_budget(model, empty_gpu_queue):
    failed = Submission.objects.create(model=model, status=SubmissionStatus.FAILED, attempts=3, celery_task_id="t")
    lifecycle.requeue(failed)
    failed.refresh_from_db()
    assert failed.status == SubmissionStatus.PENDING and failed.attempts == 0


def test_the_heartbeat_is_reported_while_the_block_runs_and_applied_by_the_site(model):
    submission = Submission.objects.create(model=model, status=SubmissionStatus.RUNNING, celery_task_id="t-beat")
    recorded = RecordedEvents(submission.pk, "t-beat")
    with Heartbeat(recorded, interval=0.2):
        time.sleep(0.7)
    beats = len(recorded.sent)
    assert beats >= 3 and set(recorded.kinds()) == {"heartbeat"}  # one at once, then every 0.2 s
    time.sleep(0.4)
    assert len(recorded.sent) == beats  # stopped: nothing more
    assert submission_events.apply(recorded.sent[0]) is True
    submission.refresh_from_db()
    assert submission.heartbeat_at is not None
    DirectEvents(submission.pk, "t-beat").send("heartbeat", stage="evaluating scala-da")
    submission.refresh_from_db()
    assert submission.stage == "evaluating scala-da"


def test_beat_runs_the_reaper_on_the_default_queue(settings):
    entry = app.conf.beat_schedule["reap-submissions"]
    assert entry["task"] == "leaderboard.tasks.reap_submissions" in app.tasks
    assert entry["schedule"] == float(settings.GLOSSA_REAPER_INTERVAL)
    assert app.amqp.router.route({}, "leaderboard.tasks.reap_submissions")["queue"].name == "default"


def test_the_file_system_broker_is_read_too(tmp_path, settings):
    """The embedded default (`make demo`) queues in files: ``<time>_<uuid>.<queue>.msg``."""
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path)}
    (tmp_path / "1_a.gpu.msg").write_text(json.dumps({"headers": {"id": "gpu-task"}, "body": ""}))
    (tmp_path / "2_b.default.msg").write_text(json.dumps({"headers": {"id": "default-task"}}))
    (tmp_path / "3_c.gpu.msg").write_text("not json")
    assert queued_task_ids("gpu") == {"gpu-task"}
    settings.CELERY_BROKER_URL = "amqp://elsewhere"
    assert queued_task_ids("gpu") is None  # unknown brokers: the reaper leaves PENDING work alone
