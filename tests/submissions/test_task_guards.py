"""evaluate_submission's bookkeeping without a model: what it skips, and resuming when every
dataset is already stored (it finishes and asks for the boards to be re-aggregated)."""

from __future__ import annotations

import base64
import json

import pytest

from leaderboard.models import Dataset, LanguageModel, Submission, SubmissionStatus
from leaderboard.services.results_import import import_record
from leaderboard.tasks.evaluation import run_submission

from .conftest import SMOL

pytestmark = pytest.mark.django_db


@pytest.fixture
def model():
    return LanguageModel.objects.create(model_id=SMOL)


def test_missing_or_finished_submissions_are_skipped(model):
    assert run_submission(987654, task_id="t") == "skipped"
    done = Submission.objects.create(model=model, status=SubmissionStatus.FINISHED, celery_task_id="t")
    assert run_submission(done.pk, task_id="t") == "skipped"
    done.refresh_from_db()
    assert done.status == SubmissionStatus.FINISHED and done.attempts == 0


def test_a_stale_message_after_a_requeue_is_ignored(model):
    submission = Submission.objects.create(model=model, celery_task_id="new-task")
    assert run_submission(submission.pk, task_id="old-task") == "skipped"
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.PENDING and submission.attempts == 0


def test_resume_with_every_dataset_stored_finishes_without_evaluating(datasets, model, empty_gpu_queue):
    Dataset.objects.exclude(name="scala-da").update(in_suite=False)
    submission = Submission.objects.create(
        model=model, languages=["da"], status=SubmissionStatus.RUNNING, attempts=1, celery_task_id="t"
    )
    import_record(
        {
            "dataset": "scala-da",
            "task": "linguistic-acceptability",
            "dataset_languages": ["da"],
            "model": SMOL,
            "results": {"raw": [{"mcc": 0.2, "macro_f1": 0.6}, {"mcc": 0.3, "macro_f1": 0.65}]},
            "few_shot": True,
        },
        source="test",
        submission=submission,
    )
    assert run_submission(submission.pk, task_id="t") == SubmissionStatus.FINISHED
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
