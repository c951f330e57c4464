"""The soft time limit, in process: Celery raises SoftTimeLimitExceeded inside the task from
a signal handler; we do the same with SIGALRM while the real engine loads and runs."""

from __future__ import annotations

import signal

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.test import override_settings

from leaderboard.models import Dataset, LanguageModel, Submission, SubmissionStatus
from leaderboard.tasks.evaluation import run_submission

from .conftest import SMOL

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@override_settings(EVALUATION_ITERATIONS=2, EVALUATION_TEST_LIMIT=8, GLOSSA_EVAL_SOFT_TIME_LIMIT=2)
def test_soft_time_limit_fails_the_submission_with_a_reason(datasets):
    Dataset.objects.exclude(name="scala-da").update(counts_toward_leaderboard=False)
    model = LanguageModel.objects.create(model_id=SMOL)
    submission = Submission.objects.create(model=model, languages=["da"])

    def soft_limit(signum, frame):
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, soft_limit)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        assert run_submission(submission.pk) == SubmissionStatus.FAILED
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FAILED
    assert submission.failure_reason.startswith("Timed out: the evaluation took longer than the limit of 2 seconds")
    assert f"submission {submission.pk}" in submission.log_excerpt
    assert submission.finished_at is not None
