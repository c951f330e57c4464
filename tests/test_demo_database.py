"""`make demo` runs on the embedded default, SQLite: every migration must apply to a new
SQLite database, not only to PostgreSQL (an index with NULLS LAST once broke it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_migration_applies_to_a_new_sqlite_database(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["GLOSSA_VAR_DIR"] = str(tmp_path)
    manage = [sys.executable, str(ROOT / "manage.py")]
    migrated = subprocess.run(
        [*manage, "migrate", "--noinput"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    assert (tmp_path / "glossa.sqlite3").is_file()
    shown = subprocess.run(
        [*manage, "showmigrations", "--plan"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr[-3000:]
    plan = shown.stdout.splitlines()
    assert plan and all(line.startswith("[X]") for line in plan), [line for line in plan if not line.startswith("[X]")]
