"""Fixtures for the submission tests: the real data pack's datasets and a clean rate limit."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings

from leaderboard import job_control
from leaderboard.services import ratelimit

SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"
GEMMA = "google/gemma-3-270m"


def broker():
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


@pytest.fixture(autouse=True)
def clean_job_control():
    """No job-control state (leaderboard/job_control.py) from an earlier test or an earlier
    run: delivery counts outlive a run in a Redis that is not wiped (a CI machine's), and
    submission ids repeat after each database flush."""
    client = broker()
    stale = list(client.scan_iter(f"{job_control.PREFIX}:*"))
    if stale:
        client.delete(*stale)


@pytest.fixture
def datasets(db, shared_datasets_dir):
    """The data pack's datasets registered as `make data` does (one official per task and board)."""
    from leaderboard.services.dataset_registry import sync_datasets

    sync_datasets(shared_datasets_dir)


@pytest.fixture(autouse=True)
def workers_protocol(settings):
    """The protocol a job asks for is the site's (``submission_job.deployment_protocol``):
    the one the test workers are started with (``worker.Worker``: 2 iterations, 8 test rows)."""
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 2, 8


@pytest.fixture(autouse=True)
def clean_rate_limit():
    """Every test starts with no submissions counted for the test client's address."""
    for address in ("127.0.0.1", "10.0.0.1", "10.0.0.2", "unknown"):
        ratelimit.reset(address)
    yield
    for address in ("127.0.0.1", "10.0.0.1", "10.0.0.2", "unknown"):
        ratelimit.reset(address)


@pytest.fixture
def empty_gpu_queue():
    """Messages queued by a test are removed so no later worker evaluates them."""
    assert settings.CELERY_BROKER_URL.startswith("redis"), "the submission tests need Redis as the broker"
    broker().delete("gpu", "default")
    yield broker()
    broker().delete("gpu", "default")


@pytest.fixture(scope="module")
def worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """Real Celery workers per test module, shared by its tests: a ``gpu`` worker without a
    database (yielded) and the ``default`` worker that applies its events. Module scope, not
    session: a worker left running would evaluate what later tests queue."""
    from .worker import Workers

    broker().delete("gpu", "default", "unacked", "unacked_index")
    workers = Workers(tmp_path_factory.mktemp("celery"))
    yield workers.gpu()
    workers.stop()
    broker().delete("gpu", "default")
