"""Coverage of the exported rank sets on 12 tied and 12 spaced synthetic Danish boards of 20
models (4 datasets, 10 iterations, noise 0.02), each through import_results → aggregate →
export_leaderboard (``tests/ranking/synthetic_boards.py``).

Runs the end-to-end test with ``GLOSSA_RANK_SET_BOARDS=12`` on the test database (so it
needs what the suite needs: DATABASE_URL etc.), printing per-entry coverage of the
marginal set (``rank_interval``) and of the simultaneous set, and the mean marginal width:

    DATABASE_URL=... CELERY_BROKER_URL=... REDIS_URL=... .venv/bin/python benchmarks/rank_set_coverage.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    env = dict(os.environ, GLOSSA_RANK_SET_BOARDS=os.environ.get("GLOSSA_RANK_SET_BOARDS", "12"))
    started = time.perf_counter()
    test = "tests/ranking/test_rank_sets_end_to_end.py"
    code = subprocess.call(
        ["bash", "scripts/run-tests.sh", test, "-q", "-s", "-p", "no:cacheprovider"], cwd=ROOT, env=env
    )
    print(f"{time.perf_counter() - started:.0f} s wall")
    sys.exit(code)
