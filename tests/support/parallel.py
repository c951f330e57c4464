"""Each test process of a parallel run (pytest-xdist) gets resources of its own.

Loaded with ``-p tests.support.parallel`` (``scripts/run-tests.sh`` does), before Django
reads its settings. In the process that pytest-xdist names ``gwN`` it moves:

* the Celery broker and the cache to Redis databases of their own: process ``gwN`` uses
  the databases numbered 2N below the ones given (``redis://…/15`` and ``/14`` become
  ``/13`` and ``/12`` in ``gw1``), so its workers never take another process' jobs and
  its rate limits and job-control keys are its own;
* ``GLOSSA_VAR_DIR`` to ``<var dir>-gwN`` (uploads, job folders, logs);
* torch's threads (``OMP_NUM_THREADS``, unless set) to its share of the cores, which the
  Celery workers it starts inherit: two processes of two threads each on two cores spend
  their time waiting for each other's threads.

pytest-django already gives each process its own test database (``test_<name>_gwN``).
Without pytest-xdist (one process) nothing changes. The run's longest test modules start
first (:func:`pytest_collection_modifyitems`), so the last one to finish is a short one; this
needs ``--no-loadscope-reorder`` beside ``--dist loadscope`` (``scripts/run-tests.sh``), or
pytest-xdist orders the modules by their number of tests instead.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

# Modules that take a minute or more (BENCHMARKS.md "The whole suite, profiled"): started
# first, longest first, so that no long module starts last and leaves one process alone.
LONG_MODULES = (
    "tests/examiner/test_exam_end_to_end.py",
    "tests/submissions/test_exam_runs.py",
    "tests/pages/test_accessibility.py",
    "tests/submissions/test_chaos.py",
    "tests/ranking/test_euroeval_2026.py",
    "tests/evaluation/test_eval_real_models.py",
    "tests/submissions/test_browser.py",
    "tests/pages/test_browser_compare.py",
    "tests/encoders/test_encoder_finetune.py",
    "tests/submissions/test_hosts.py",
)


def redis_url_for(url: str, process: int) -> str:
    """``url`` with its database number moved 2 × ``process`` down (``/15`` → ``/13`` for process 1)."""
    parts = urlsplit(url)
    if not parts.scheme.startswith("redis") or process == 0:
        return url
    database = int(parts.path.strip("/") or 0) - 2 * process
    if database < 0:
        raise pytest.UsageError(f"no Redis database left for test process {process} below {url}")
    return urlunsplit(parts._replace(path=f"/{database}"))


def _own_resources(worker: str) -> None:
    process = int(worker.removeprefix("gw"))
    for name in ("CELERY_BROKER_URL", "REDIS_URL"):
        if os.environ.get(name):
            os.environ[name] = redis_url_for(os.environ[name], process)
    if os.environ.get("GLOSSA_VAR_DIR"):
        os.environ["GLOSSA_VAR_DIR"] = f"{os.environ['GLOSSA_VAR_DIR']}-{worker}"
    processes = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // processes)))


if os.environ.get("PYTEST_XDIST_WORKER"):
    _own_resources(os.environ["PYTEST_XDIST_WORKER"])


def _module_rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return LONG_MODULES.index(path) if path in LONG_MODULES else len(LONG_MODULES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """In a parallel run, the long modules first (a stable sort: each module's own order is kept)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=_module_rank)
