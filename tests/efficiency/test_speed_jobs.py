"""The speed benchmark of a submission (docs/methodology.md §11): an admin queues a speed job
on the ``gpu`` queue (a real message on the real broker), and its report is stored only
when it is the job's: its current task id while it is live, the submitted model at the
submitted commit, the contract's shape. The stored benchmark is the efficiency view's
primary numbers and shows on the model page. The lifecycle (reaper, cancel, re-queue) of
a speed job: tests/jobs/test_speed_job_lifecycle.py."""

from __future__ import annotations

import base64
import json

import pytest
import redis
from bs4 import BeautifulSoup
from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.jobs import lifecycle
from leaderboard.models import JobStatus, LanguageModel, SpeedBenchmark, SpeedJob, Submission, SubmissionStatus
from leaderboard.public_text import public_reason
from leaderboard.record_fields import InvalidRecord
from leaderboard.services import speed_jobs
from leaderboard.tasks.speed import apply_speed_event, run_speed_benchmark, run_speed_job
from tests.support.efficiency import GPU, speed_report

COMMIT = "c" * 40


@pytest.fixture
def broker():
    """The broker's ``gpu`` and ``default`` queues (this suite's own Redis database), emptied
    before and after."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete("gpu", "default")
    yield client
    client.delete("gpu", "default")


@pytest.fixture
def submission(db):
    model = LanguageModel.objects.create(model_id="org/speedy")
    return Submission.objects.create(
        model=model, commit_sha=COMMIT, status=SubmissionStatus.FINISHED, job={"task": "t-eval", "datasets": []}
    )


@pytest.mark.django_db(transaction=True)
def test_the_admin_action_queues_the_job_on_the_gpu_queue_and_keeps_it(client, submission, broker):
    admin = User.objects.create_superuser("root", "root@example.org", "pw")
    client.force_login(admin)
    response = client.post(
        reverse("admin:leaderboard_submission_changelist"),
        {"action": "benchmark_speed", "_selected_action": [submission.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert Submission.objects.get(pk=submission.pk).job == {"task": "t-eval", "datasets": []}  # untouched
    job = SpeedJob.objects.select_related("model").get()
    assert (job.model.model_id, job.commit_sha, job.status, job.submission_id) == (
        "org/speedy",
        COMMIT,
        JobStatus.PENDING,
        submission.pk,
    )
    messages = broker.lrange("gpu", 0, -1)
    assert len(messages) == 1
    message = json.loads(messages[0])
    assert message["headers"]["task"] == "leaderboard.tasks.run_speed_benchmark"
    assert message["headers"]["id"] == job.celery_task_id
    args = json.loads(base64.b64decode(message["body"]))[0]
    assert args == [speed_jobs.speed_message(job)]
    assert args[0]["speed_job"] == job.pk and args[0]["revision"] == COMMIT


def finished(job: SpeedJob, report: dict) -> dict:
    return {"speed_job": job.pk, "task": job.celery_task_id, "kind": "finished", "report": report}


@pytest.mark.django_db
def test_only_the_jobs_own_report_is_stored(client, submission):
    job = speed_jobs.queue(submission)
    good = speed_report("org/speedy", COMMIT)
    assert not speed_jobs.apply_event(finished(job, good) | {"task": "forged"})  # another task id: not the job's
    with pytest.raises(lifecycle.BadEvent):
        speed_jobs.apply_event({"speed_job": "1; drop", "task": job.celery_task_id, "kind": "finished"})
    with pytest.raises(lifecycle.BadEvent):  # the shape an evaluation's event has: not a speed job's
        speed_jobs.apply_event({"submission": submission.pk, "task": job.celery_task_id, "kind": "finished"})
    assert not SpeedBenchmark.objects.exists()
    assert SpeedJob.objects.get(pk=job.pk).status == JobStatus.PENDING

    # the job's task id, but another model's report: refused, the job failed with the reason
    assert speed_jobs.apply_event(finished(job, speed_report("org/other", COMMIT)))
    assert not SpeedBenchmark.objects.exists()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and "org/other" in job.failure_reason
    # the right model at another commit: refused the same way
    job = speed_jobs.queue(Submission.objects.get(pk=submission.pk))  # the admin asks again
    assert speed_jobs.apply_event(finished(job, speed_report("org/speedy", "d" * 40)))
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and "d" * 40 in job.failure_reason

    job = speed_jobs.queue(Submission.objects.get(pk=submission.pk))
    hostile = speed_report("org/speedy", COMMIT)
    hostile["runs"][0]["prompt_reference_tokens"] = 5000
    assert speed_jobs.apply_event(finished(job, hostile))
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and "prompt_reference_tokens" in job.failure_reason

    job = speed_jobs.queue(Submission.objects.get(pk=submission.pk))
    assert speed_jobs.apply_event(finished(job, speed_report("org/speedy", COMMIT, GPU)))
    # a repeated event after the job finished changes nothing
    assert not speed_jobs.apply_event(finished(job, speed_report("org/speedy", COMMIT, GPU, 1.0)))
    bench = SpeedBenchmark.objects.get()
    assert (bench.hardware_class, bench.backend, bench.commit_sha) == (GPU["class"], "vllm", COMMIT)
    assert bench.submission_id == submission.pk and len(bench.runs) == 4
    assert bench.runs == speed_report("org/speedy", COMMIT, GPU)["runs"]
    job.refresh_from_db()
    assert (job.status, job.benchmark_id, job.failure_reason) == (JobStatus.FINISHED, bench.pk, "")

    page = BeautifulSoup(client.get(reverse("model", args=["org/speedy"])).content, "html.parser")
    table = page.select_one("#model-efficiency table.speed-benchmark")
    rows = [[td.get_text(strip=True) for td in tr.find_all("td")] for tr in table.find("tbody").find_all("tr")]
    assert rows[0] == ["100", "1", "10", "250", "12.5", "400 ms", "440 ms", "1.00 GB"]


@pytest.mark.django_db
def test_a_new_request_replaces_the_live_job_an_older_one_left(submission):
    older = speed_jobs.queue(submission)
    newer = speed_jobs.queue(Submission.objects.get(pk=submission.pk))
    older.refresh_from_db()
    assert (older.status, older.failure_reason) == (JobStatus.CANCELLED, "Replaced by a newer request.")
    assert not speed_jobs.apply_event(finished(older, speed_report("org/speedy", COMMIT)))
    assert SpeedJob.objects.get(pk=newer.pk).status == JobStatus.PENDING
    assert not SpeedBenchmark.objects.exists()


@pytest.mark.django_db
def test_a_submission_without_a_commit_is_refused_and_a_report_file_imports():
    model = LanguageModel.objects.create(model_id="org/nocommit")
    with pytest.raises(speed_jobs.SpeedRefused):
        speed_jobs.queue(Submission.objects.create(model=model))
    assert speed_jobs.import_report_file(json.dumps(speed_report("org/file", None)), source="f.json") == "imported"
    with pytest.raises(InvalidRecord, match="runs"):
        speed_jobs.import_report_file(json.dumps(speed_report("org/file", None) | {"runs": []}), source="f.json")


@pytest.mark.django_db
def test_the_gpu_task_reports_a_failure_by_event_and_the_site_records_it(submission, broker):
    """The gpu side's task body, run here on a model that cannot be resolved offline: its
    events go through the real broker to the default side, which fails the job."""
    LanguageModel.objects.filter(pk=submission.model_id).update(model_id="org/not-on-this-machine")
    submission.refresh_from_db()
    job = speed_jobs.queue(submission)
    message = speed_jobs.speed_message(SpeedJob.objects.select_related("model").get(pk=job.pk))
    assert run_speed_job(message, job.celery_task_id) == "failed"
    events = []
    for raw in reversed(broker.lrange("default", 0, -1)):  # pushed on the left: the oldest is last
        body = json.loads(raw)
        assert body["headers"]["task"] == "leaderboard.tasks.apply_speed_event"
        events.append(json.loads(base64.b64decode(body["body"]))[0][0])
    assert [e["kind"] for e in events if e["kind"] != "heartbeat"] == ["started", "failed"]
    assert {(e["task"], e["speed_job"]) for e in events} == {(job.celery_task_id, job.pk)}
    assert all(apply_speed_event.run(event) is True for event in events)
    job.refresh_from_db()
    failed = events[-1]
    assert (job.status, job.attempts) == (JobStatus.FAILED, 1)
    assert job.failure_reason == public_reason(failed["reason"]) and job.failure_reason
    assert apply_speed_event.run(failed | {"task": "forged"}) is False  # another task id: ignored
    assert apply_speed_event.run({"kind": "failed", "submission": submission.pk}) is False  # not a speed event
    assert not SpeedBenchmark.objects.exists()
    # a message from before speed jobs had rows names no job: skipped, nothing reported
    assert run_speed_benchmark.run({"task": "t-old", "submission": submission.pk, "model": "org/x"}) == "skipped"


@pytest.mark.django_db
def test_a_worker_that_gave_up_fails_the_job_as_the_reaper_would(submission):
    """After the last delivery the worker says ``gave_up``: the job fails with the kind's one
    reason for a dead worker, the same words the reaper writes for it."""
    job = speed_jobs.queue(submission)
    event = {"kind": "gave_up", "speed_job": job.pk, "task": job.celery_task_id, "attempt": 3}
    assert speed_jobs.apply_event({"kind": "started", "speed_job": job.pk, "task": job.celery_task_id, "attempt": 3})
    assert speed_jobs.apply_event(event) is True
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.attempts == 3
    assert job.failure_reason == speed_jobs.SPEED_JOBS.died_reason(job, "died")
    assert job.failure_reason.startswith("The benchmark's worker died after 3 start(s);")


@pytest.mark.django_db
def test_the_admin_lists_costs_benchmarks_and_published_speeds_read_only(client):
    speed_jobs.import_report_file(json.dumps(speed_report("org/file", None)), source="f.json")
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    for name in ("evaluationcost", "speedbenchmark", "publishedspeed"):
        assert client.get(reverse(f"admin:leaderboard_{name}_changelist")).status_code == 200
        assert client.get(reverse(f"admin:leaderboard_{name}_add")).status_code == 403
    bench = SpeedBenchmark.objects.get()
    page = client.get(reverse("admin:leaderboard_speedbenchmark_change", args=[bench.pk]))
    assert page.status_code == 200 and b'name="_save"' not in page.content
