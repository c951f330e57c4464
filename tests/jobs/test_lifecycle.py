"""The one lifecycle of GPU jobs (leaderboard/jobs/lifecycle.py), on PostgreSQL: every kind
(an evaluation, an exam run, a speed job) moves by compare-and-set, and an event is checked
against its job the same way for each. The behaviour each kind shows end to end is tested
in tests/submissions (test_exam_runs, test_reaper, test_forged_events, test_event_fuzz),
tests/efficiency/test_speed_jobs.py and tests/jobs/test_speed_job_lifecycle.py."""

from __future__ import annotations

import uuid

import pytest

from leaderboard.jobs import lifecycle
from leaderboard.models import ExamRun, GpuJob, JobStatus, LanguageModel, SpeedJob, Submission
from leaderboard.services import exam_runs, speed_jobs, submission_events
from leaderboard.services import submission_lifecycle as submissions
from leaderboard.services.exam_runs import EXAM_RUNS
from leaderboard.services.speed_jobs import SPEED_JOBS
from leaderboard.services.submission_job import SUBMISSIONS

pytestmark = pytest.mark.django_db  # on_commit never fires: nothing is sent to a broker


def exam_run(status=JobStatus.PENDING, **fields) -> ExamRun:
    task = str(uuid.uuid4())
    return ExamRun.objects.create(
        language="da", round=ExamRun.objects.count() + 1, seed=1, status=status, celery_task_id=task, **fields
    )


def submission(status=JobStatus.PENDING, **fields) -> Submission:
    model, _ = LanguageModel.objects.get_or_create(model_id="org/model")
    return Submission.objects.create(
        model=model, commit_sha=uuid.uuid4().hex, status=status, celery_task_id=str(uuid.uuid4()), **fields
    )


def speed_job(status=JobStatus.PENDING, **fields) -> SpeedJob:
    model, _ = LanguageModel.objects.get_or_create(model_id="org/model")
    return SpeedJob.objects.create(
        model=model,
        commit_sha="c" * 40,
        backend="transformers",
        status=status,
        celery_task_id=str(uuid.uuid4()),
        **fields,
    )


KINDS = [EXAM_RUNS, SUBMISSIONS, SPEED_JOBS]
MAKE = {EXAM_RUNS.name: exam_run, SUBMISSIONS.name: submission, SPEED_JOBS.name: speed_job}


def test_every_kind_is_one_lifecycle_with_one_status_vocabulary():
    assert {kind.model for kind in KINDS} == {ExamRun, Submission, SpeedJob}
    assert all(issubclass(kind.model, GpuJob) for kind in KINDS)  # one set of lifecycle fields
    assert exam_runs.BadExamEvent is submission_events.BadEvent is lifecycle.BadEvent
    choices = {tuple(kind.model._meta.get_field("status").choices) for kind in KINDS}
    assert choices == {tuple(JobStatus.choices)}
    assert len({kind.id_key for kind in KINDS}) == len(KINDS)  # one kind's event names no other kind's job


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_cancel_is_a_compare_and_set_that_only_one_caller_wins(kind):
    row = MAKE[kind.name](JobStatus.RUNNING)
    stale = kind.model.objects.get(pk=row.pk)  # a second actor's copy, read before the first cancel
    assert lifecycle.cancel(kind, row, "first")
    assert not lifecycle.cancel(kind, stale, "second")
    row.refresh_from_db()
    assert (row.status, row.failure_reason) == (JobStatus.CANCELLED, "first") and row.finished_at


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_only_an_ended_job_is_requeued_and_it_gets_a_new_task(kind):
    make = MAKE[kind.name]
    live = make(JobStatus.RUNNING, attempts=2)
    assert lifecycle.requeue(kind, live) is None
    assert kind.model.objects.get(pk=live.pk).status == JobStatus.RUNNING
    ended = make(JobStatus.FAILED, attempts=3, failure_reason="boom")
    task = lifecycle.requeue(kind, ended)
    assert task and task != ended.celery_task_id
    ended.refresh_from_db()
    assert (ended.status, ended.celery_task_id, ended.attempts) == (JobStatus.PENDING, task, 0)
    assert ended.failure_reason == ""


def test_an_exam_run_that_is_running_is_not_requeued_by_the_admins_action():
    run = exam_run(JobStatus.RUNNING)
    task = run.celery_task_id
    exam_runs.requeue(run)
    run.refresh_from_db()
    assert (run.status, run.celery_task_id) == (JobStatus.RUNNING, task)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_take_back_does_nothing_to_a_job_that_moved_on(kind, settings):
    row = MAKE[kind.name](JobStatus.RUNNING)
    expected = {"status": JobStatus.RUNNING, "celery_task_id": "a task it no longer has"}
    assert lifecycle.take_back(kind, row.pk, expected, "stopped responding") is None
    expected["celery_task_id"] = row.celery_task_id
    assert lifecycle.take_back(kind, row.pk, expected, "stopped responding") == "requeued"
    row.refresh_from_db()
    assert row.status == JobStatus.PENDING and row.celery_task_id != expected["celery_task_id"]
    kind.model.objects.filter(pk=row.pk).update(status=JobStatus.RUNNING, attempts=settings.GLOSSA_MAX_ATTEMPTS)
    expected["celery_task_id"] = row.celery_task_id
    assert lifecycle.take_back(kind, row.pk, expected, "stopped responding") == "failed"
    assert kind.model.objects.get(pk=row.pk).status == JobStatus.FAILED


@pytest.mark.parametrize(
    "event",
    [
        None,
        {"kind": "nope", "run": 1, "task": "t"},
        {"kind": "heartbeat", "run": "1", "task": "t"},
        {"kind": "heartbeat", "run": 1},
        {"kind": "heartbeat", "run": 1, "task": "x" * 65},
        {"kind": "heartbeat", "submission": 1, "task": "t"},  # another kind's event
    ],
)
def test_what_is_not_an_exam_event_is_refused_before_any_row_is_read(event):
    with pytest.raises(lifecycle.BadEvent):
        exam_runs.apply_event(event)
    if event and "run" in event:  # nor is it a speed job's
        with pytest.raises(lifecycle.BadEvent):
            speed_jobs.apply_event(event)


def test_an_event_speaks_for_a_job_only_with_its_current_task_while_it_is_live():
    run = exam_run()
    beat = {"kind": "heartbeat", "run": run.pk, "task": run.celery_task_id}
    assert not exam_runs.apply_event({**beat, "task": "an older task"})
    assert exam_runs.apply_event(beat)
    assert ExamRun.objects.get(pk=run.pk).heartbeat_at is not None
    exam_runs.cancel(run)
    assert not exam_runs.apply_event(beat)
    row = submission(JobStatus.FAILED)
    assert not submission_events.apply({"kind": "heartbeat", "submission": row.pk, "task": row.celery_task_id})
    job = speed_job()
    beat = {"kind": "heartbeat", "speed_job": job.pk, "task": job.celery_task_id}
    assert not speed_jobs.apply_event({**beat, "task": "an older task"})
    assert speed_jobs.apply_event(beat) and SpeedJob.objects.get(pk=job.pk).heartbeat_at is not None
    assert speed_jobs.apply_event({**beat, "kind": "started", "attempt": 2})
    assert (SpeedJob.objects.get(pk=job.pk).status, SpeedJob.objects.get(pk=job.pk).attempts) == (JobStatus.RUNNING, 2)
    speed_jobs.cancel(job)
    assert not speed_jobs.apply_event(beat)


def test_a_submission_cancelled_takes_its_live_exam_runs_with_it():
    row = submission(JobStatus.RUNNING)
    live, done = exam_run(submission=row), exam_run(JobStatus.FINISHED, submission=row)
    assert submissions.cancel(row)
    assert ExamRun.objects.get(pk=live.pk).status == JobStatus.CANCELLED
    assert ExamRun.objects.get(pk=done.pk).status == JobStatus.FINISHED
