"""The parallel suite's per-process resources (tests/support/parallel.py)."""

from __future__ import annotations

import pytest

from tests.support.parallel import LONG_MODULES, redis_url_for


def test_each_test_process_gets_redis_databases_of_its_own():
    assert redis_url_for("redis://127.0.0.1:6379/15", 0) == "redis://127.0.0.1:6379/15"
    assert redis_url_for("redis://127.0.0.1:6379/15", 1) == "redis://127.0.0.1:6379/13"
    assert redis_url_for("redis://:secret@cache:6380/14", 3) == "redis://:secret@cache:6380/8"
    assert redis_url_for("filesystem://", 2) == "filesystem://"  # not Redis: nothing to move
    with pytest.raises(pytest.UsageError, match="no Redis database left"):
        redis_url_for("redis://127.0.0.1:6379/1", 1)


def test_the_long_modules_named_for_the_parallel_order_exist():
    from tests.conftest import REPO_ROOT

    assert all((REPO_ROOT / path).is_file() for path in LONG_MODULES)


def test_the_parallel_run_keeps_the_long_modules_first():
    """pytest-xdist's ``loadscope`` reorders the modules by their number of tests unless told
    not to: the long modules (a few tests each) would start last and leave one process alone."""
    from tests.conftest import REPO_ROOT

    parallel = [line for line in (REPO_ROOT / "scripts/run-tests.sh").read_text().splitlines() if "--dist" in line]
    assert parallel and all("--dist loadscope --no-loadscope-reorder" in line for line in parallel)
