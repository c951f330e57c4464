"""Fixtures for the submission tests: the real data pack's datasets and a clean rate limit."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings

from leaderboard.services import ratelimit

SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"
GEMMA = "google/gemma-3-270m"


def broker():
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


@pytest.fixture
def datasets(db, shared_datasets_dir):
    """The data pack's datasets registered as `make data` does (one official per task and board)."""
    from leaderboard.services.dataset_registry import sync_datasets

    sync_datasets(shared_datasets_dir)


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
    """One real Celery worker per test module, shared by its tests. Module scope, not
    session: a worker left running would evaluate what later tests queue."""
    from .worker import Worker

    broker().delete("gpu", "default", "unacked", "unacked_index")
    running = Worker(tmp_path_factory.mktemp("celery")).start()
    yield running
    running.stop()
    broker().delete("gpu", "default")
