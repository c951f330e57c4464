"""The GPU worker's bookkeeping without a model, and the default queue's side of it
(services/submission_events.py): what is skipped, what is ignored, what is refused, and
resuming when every dataset is already stored."""

from __future__ import annotations

import base64
import json

import pytest

from leaderboard import job_control
from leaderboard.models import Dataset, LanguageModel, Submission, SubmissionStatus
from leaderboard.services import submission_events
from leaderboard.services.results_import import import_record
from leaderboard.services.submissions import prepare_job
from leaderboard.tasks.evaluation import run_submission
from tests.support.in_process import RecordedEvents, evaluate_in_process, new_task

from .conftest import SMOL
from .records import planned_record

pytestmark = pytest.mark.django_db

SCALA_RECORD = {
    "dataset": "scala-da",
    "task": "linguistic-acceptability",
    "dataset_languages": ["da"],
    "model": SMOL,
    "results": {"raw": [{"mcc": 0.2, "macro_f1": 0.6}, {"mcc": 0.3, "macro_f1": 0.65}]},
    "few_shot": True,
}


@pytest.fixture
def model():
    return LanguageModel.objects.create(model_id=SMOL)


@pytest.fixture
def scala_only(datasets):
    Dataset.objects.exclude(name="scala-da").update(in_suite=False)


def event(submission, kind, **data):
    return {"kind": kind, "submission": submission.pk, "task": submission.celery_task_id, **data}


def test_events_for_a_missing_or_finished_submission_are_ignored_and_stop_its_worker(model):
    assert submission_events.apply({"kind": "started", "submission": 987654, "task": "t"}) is False
    done = Submission.objects.create(model=model, status=SubmissionStatus.FINISHED, celery_task_id="t-done")
    job_control.set_current(done.pk, "t-done")
    with pytest.raises(submission_events.BadEvent):
        submission_events.apply({"kind": "drop_tables", "submission": done.pk, "task": "t-done"})
    assert submission_events.apply(event(done, "started", attempt=1)) is False
    done.refresh_from_db()
    assert done.status == SubmissionStatus.FINISHED and done.attempts == 0


def test_a_stale_message_after_a_requeue_is_skipped_without_a_word(model):
    submission = Submission.objects.create(model=model, languages=["da"])
    current = new_task(submission)
    job = prepare_job(submission.pk, current)
    events = RecordedEvents(submission.pk, "old-task")
    assert run_submission(job, "old-task", events) == "skipped"
    assert events.sent == []  # not even a "started": the worker never loads the model
    # an event from the old task that was already on its way is ignored
    assert submission_events.apply({**event(submission, "started", attempt=1), "task": "old-task"}) is False
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.PENDING and submission.attempts == 0


def test_a_delivery_after_the_last_attempt_gives_up_before_loading(model, settings):
    settings.GLOSSA_MAX_ATTEMPTS = 2
    submission = Submission.objects.create(
        model=model, status=SubmissionStatus.RUNNING, attempts=2, stage="loading the model"
    )
    outcome, events = evaluate_in_process(submission)
    assert outcome == "gave up" and events.kinds() == ["gave_up"]
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FAILED and submission.attempts == 2
    assert submission.failure_reason.startswith("The worker died 2 times while loading the model;")
    assert "may not fit" in submission.failure_reason
    assert job_control.current(submission.pk) == job_control.STOPPED


def test_resume_with_every_dataset_stored_finishes_without_evaluating(
    scala_only, model, empty_gpu_queue, django_capture_on_commit_callbacks
):
    submission = Submission.objects.create(model=model, languages=["da"], status=SubmissionStatus.RUNNING, attempts=1)
    import_record(SCALA_RECORD, source="test", submission=submission)
    with django_capture_on_commit_callbacks(execute=True):
        outcome, events = evaluate_in_process(submission)
    assert outcome == "finished" and events.kinds() == ["started", "finished"]
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FINISHED and submission.attempts == 2
    assert submission.datasets_done == submission.datasets_total == 1
    assert submission.progress["scala-da"] == {"state": "done"}
    assert submission.evaluations.get().scores.count() == 4  # nothing evaluated or written again
    (message,) = empty_gpu_queue.lrange("default", 0, -1)
    message = json.loads(message)
    assert message["headers"]["task"] == "leaderboard.tasks.aggregate_boards"
    args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
    assert args == [] and kwargs == {"board_codes": ["da"], "user_id": None, "trigger": "submission", "method": None}


def test_a_record_of_another_model_or_commit_is_refused_and_a_repeat_is_stored_once(scala_only, model):
    submission = Submission.objects.create(model=model, languages=["da"], commit_sha="a" * 40)
    prepare_job(submission.pk, new_task(submission))
    submission_events.apply(event(submission, "started", attempt=1))

    forged = {**SCALA_RECORD, "model": "someone/else", "model_commit": "a" * 40}
    assert submission_events.apply(event(submission, "record", record=forged)) is True
    submission.refresh_from_db()
    assert submission.progress["scala-da"]["state"] == "failed"
    assert "not of the submitted" in submission.progress["scala-da"]["note"]
    assert not submission.evaluations.exists() and not LanguageModel.objects.filter(model_id="someone/else").exists()

    wrong_commit = {**SCALA_RECORD, "model_commit": "b" * 40}
    submission_events.apply(event(submission, "record", record=wrong_commit))
    submission.refresh_from_db()
    assert "not the submitted commit" in submission.progress["scala-da"]["note"]

    good = planned_record(submission)
    for _ in range(2):  # a re-delivered event
        submission_events.apply(event(submission, "record", record=good))
    submission.refresh_from_db()
    assert submission.progress["scala-da"] == {"state": "done"} and submission.datasets_done == 1
    assert submission.evaluations.get().scores.count() == 4


def test_examples_that_are_not_the_records_leave_the_scores_stored_with_a_note(scala_only, model):
    from evaluation.examples import encode_examples
    from leaderboard.models import EvaluationExamples

    submission = Submission.objects.create(model=model, languages=["da"], commit_sha="a" * 40)
    prepare_job(submission.pk, new_task(submission))
    submission_events.apply(event(submission, "started", attempt=1))
    record = planned_record(submission)
    wrong = encode_examples([])  # no example, where 2 iterations of 8 rows make 16 draws
    submission_events.apply(event(submission, "record", record=record, examples=base64.b64encode(wrong).decode()))
    submission.refresh_from_db()
    assert submission.progress["scala-da"]["state"] == "done"
    assert submission.progress["scala-da"]["note"].startswith("stored without its examples:")
    assert submission.evaluations.get().scores.count() == 4 and not EvaluationExamples.objects.exists()


def test_a_terminal_event_waits_for_the_records_sent_before_it(scala_only, model):
    submission = Submission.objects.create(model=model, languages=["da"])
    prepare_job(submission.pk, new_task(submission))
    submission_events.apply(event(submission, "started", attempt=1))
    finished = event(submission, "finished", sent=["scala-da"], log="the log")
    with pytest.raises(submission_events.NotYet, match="scala-da"):
        submission_events.apply(finished)  # the default queue applied it before the record
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.RUNNING
    submission_events.apply(event(submission, "record", record=planned_record(submission)))
    assert submission_events.apply(finished) is True
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FINISHED and submission.log_excerpt == "the log"
    assert job_control.current(submission.pk) == job_control.STOPPED  # a late duplicate would stop at once


def test_a_record_that_never_arrives_fails_the_submission_by_name(scala_only, model):
    submission = Submission.objects.create(model=model, languages=["da"])
    prepare_job(submission.pk, new_task(submission))
    submission_events.fail_undelivered(event(submission, "finished", sent=["scala-da"]), "scala-da")
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FAILED
    assert submission.failure_reason.startswith("The results of scala-da were sent by the worker but never arrived")
