"""The speed benchmark of a submission (issue #26.5): an admin queues it on the ``gpu``
queue (a real message on the real broker), and its report is stored only when it is the
job's: its task id, the submitted model at the submitted commit, the contract's shape.
The stored benchmark is the efficiency view's primary numbers and shows on the model page."""

from __future__ import annotations

import base64
import json

import pytest
import redis
from bs4 import BeautifulSoup
from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.models import LanguageModel, SpeedBenchmark, Submission, SubmissionStatus
from leaderboard.record_fields import InvalidRecord
from leaderboard.services import speed_jobs
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
    job = Submission.objects.get(pk=submission.pk).job
    assert job["task"] == "t-eval"  # the evaluation's job is untouched
    speed = job["speed"]
    assert (speed["model"], speed["commit"], speed["state"]) == ("org/speedy", COMMIT, "queued")
    messages = broker.lrange("gpu", 0, -1)
    assert len(messages) == 1
    message = json.loads(messages[0])
    assert message["headers"]["task"] == "leaderboard.tasks.run_speed_benchmark"
    assert message["headers"]["id"] == speed["task"]
    args = json.loads(base64.b64decode(message["body"]))[0]
    assert args == [{k: v for k, v in speed.items() if k not in ("state", "queued_at")}]


@pytest.mark.django_db
def test_only_the_jobs_own_report_is_stored(client, submission):
    task = speed_jobs.queue(submission)
    event = {"submission": submission.pk, "task": task, "kind": "finished"}
    with pytest.raises(speed_jobs.BadSpeedEvent):  # another task id: not the job's
        speed_jobs.apply_event(event | {"task": "forged", "report": speed_report("org/speedy", COMMIT)})
    with pytest.raises(speed_jobs.BadSpeedEvent):
        speed_jobs.apply_event({"submission": "1; drop", "task": task})
    assert not SpeedBenchmark.objects.exists()

    # the job's task id, but another model's report: refused, the job failed with the reason
    assert speed_jobs.apply_event(event | {"report": speed_report("org/other", COMMIT)}) == "refused"
    assert not SpeedBenchmark.objects.exists()
    job = Submission.objects.get(pk=submission.pk).job["speed"]
    assert job["state"] == "failed" and "org/other" in job["note"]

    task = speed_jobs.queue(Submission.objects.get(pk=submission.pk))  # the admin asks again
    event = {"submission": submission.pk, "task": task, "kind": "finished"}
    hostile = speed_report("org/speedy", COMMIT)
    hostile["runs"][0]["prompt_reference_tokens"] = 5000
    assert speed_jobs.apply_event(event | {"report": hostile}) == "refused"
    assert "prompt_reference_tokens" in Submission.objects.get(pk=submission.pk).job["speed"]["note"]

    task = speed_jobs.queue(Submission.objects.get(pk=submission.pk))
    event = {"submission": submission.pk, "task": task, "kind": "finished"}
    assert speed_jobs.apply_event(event | {"report": speed_report("org/speedy", COMMIT, GPU)}) == "imported"
    assert speed_jobs.apply_event(event | {"report": speed_report("org/speedy", COMMIT, GPU, 1.0)}).startswith(
        "ignored"
    )  # a repeated event after the job is done changes nothing
    bench = SpeedBenchmark.objects.get()
    assert (bench.hardware_class, bench.backend, bench.commit_sha) == (GPU["class"], "vllm", COMMIT)
    assert bench.submission_id == submission.pk and len(bench.runs) == 4

    page = BeautifulSoup(client.get(reverse("model", args=["org/speedy"])).content, "html.parser")
    table = page.select_one("#model-efficiency table.speed-benchmark")
    rows = [[td.get_text(strip=True) for td in tr.find_all("td")] for tr in table.find("tbody").find_all("tr")]
    assert rows[0] == ["100", "1", "10", "250", "12.5", "400 ms", "440 ms", "1.00 GB"]


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
    ``failed`` event goes through the real broker to the default side, which closes the job."""
    from leaderboard.tasks.speed import apply_speed_event, run_speed_benchmark

    LanguageModel.objects.filter(pk=submission.model_id).update(model_id="org/not-on-this-machine")
    submission.refresh_from_db()
    task = speed_jobs.queue(submission)
    job = {k: v for k, v in Submission.objects.get(pk=submission.pk).job["speed"].items() if k != "state"}
    assert run_speed_benchmark.run(job) is False
    messages = broker.lrange("default", 0, -1)
    assert len(messages) == 1
    message = json.loads(messages[0])
    assert message["headers"]["task"] == "leaderboard.tasks.apply_speed_event"
    event = json.loads(base64.b64decode(message["body"]))[0][0]
    assert (event["kind"], event["task"], event["submission"]) == ("failed", task, submission.pk)
    assert apply_speed_event.run(event) is True
    closed = Submission.objects.get(pk=submission.pk).job["speed"]
    assert closed["state"] == "failed" and closed["note"] == event["reason"] and closed["note"]
    assert apply_speed_event.run(event | {"task": "forged"}) is False  # another task id: dropped
    assert not SpeedBenchmark.objects.exists()


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
