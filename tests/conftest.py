"""Shared fixtures. Tests run against the database in DATABASE_URL (PostgreSQL in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"
SHARED_RESULTS = SHARED_DIR / "results" / "scandeval_benchmark_results_2023-07-19.jsonl"
SHARED_DATASETS = SHARED_DIR / "datasets"


@pytest.fixture(scope="session")
def shared_results_file() -> Path:
    if not SHARED_RESULTS.exists():
        pytest.fail(f"shared results file missing: {SHARED_RESULTS}")
    return SHARED_RESULTS


@pytest.fixture(scope="session")
def shared_datasets_dir() -> Path:
    if not SHARED_DATASETS.exists():
        pytest.fail(f"shared datasets missing: {SHARED_DATASETS}")
    return SHARED_DATASETS
