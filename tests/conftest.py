"""Shared fixtures. Tests run against the database in DATABASE_URL (PostgreSQL in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "data"  # the repository's own data (data/NOTICE.md)
SHARED_RESULTS = DATA_DIR / "results" / "published" / "scandeval_benchmark_results_2023-07-19.jsonl"
SHARED_DATASETS = DATA_DIR / "datasets"


@pytest.fixture(scope="session")
def shared_results_file() -> Path:
    if not SHARED_RESULTS.exists():
        pytest.fail(f"published results file missing: {SHARED_RESULTS}")
    return SHARED_RESULTS


@pytest.fixture(scope="session")
def shared_datasets_dir() -> Path:
    if not SHARED_DATASETS.exists():
        pytest.fail(f"dataset pack missing: {SHARED_DATASETS}")
    return SHARED_DATASETS
