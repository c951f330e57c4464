"""A pytest plugin that writes where the suite's time goes, one JSON line per test.

Load it with `-p benchmarks.suite_profile` (for example through
`PYTEST_ADDOPTS="-p benchmarks.suite_profile"` around `make test`); it writes to the file
named by `GLOSSA_PROFILE_OUT` (default `var/suite-profile.jsonl`), appending, one line per
test and process: the test's id, the xdist worker, start and end (epoch seconds), its wall
time (setup, call and teardown together), the CPU seconds of the pytest process and of the
children it reaped meanwhile (Celery workers, CLI runs; not Chromium's or PostgreSQL's),
and the machine's busy fraction over the test from /proc/stat (every process's work,
those included).

`python benchmarks/suite_profile.py FILE` summarises a profile: the slowest tests and
modules, and how busy the machine was overall.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest


def _busy_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of every CPU since boot, from /proc/stat's first line."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _out_path() -> Path:
    return Path(os.environ.get("GLOSSA_PROFILE_OUT", "var/suite-profile.jsonl"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Runs where the test runs (an xdist worker, not the controller that reports it)."""
    start, cpu, (busy, total) = time.time(), _cpu_seconds(), _busy_jiffies()
    yield
    end_busy, end_total = _busy_jiffies()
    line = {
        "test": item.nodeid,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "start": round(start, 3),
        "end": round(time.time(), 3),
        "wall": round(time.time() - start, 3),
        "cpu": round(_cpu_seconds() - cpu, 3),
        "machine_busy": round((end_busy - busy) / max(end_total - total, 1), 3),
    }
    path = _out_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out:
        out.write(json.dumps(line) + "\n")


def summarise(path: Path, top: int = 25) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        return "no tests in the profile"
    by_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for row in rows:
        module = row["test"].split("::")[0]
        by_module[module][0] += row["wall"]
        by_module[module][1] += row["cpu"]
        by_module[module][2] += 1
    span = max(row["end"] for row in rows) - min(row["start"] for row in rows)
    lines = [
        f"{len(rows)} tests, {span:.0f} s from first start to last end, "
        f"{sum(row['wall'] for row in rows):.0f} s of test wall time, "
        f"{sum(row['cpu'] for row in rows):.0f} s of pytest and reaped children's CPU",
        "",
        f"slowest {top} tests (wall, cpu, machine busy):",
    ]
    for row in sorted(rows, key=lambda row: -row["wall"])[:top]:
        lines.append(
            f"  {row['wall']:7.1f} {row['cpu']:7.1f} {row['machine_busy']:5.2f}  {row['worker']:5} {row['test']}"
        )
    lines += ["", f"slowest {top} modules (wall, cpu, tests):"]
    for module, (wall, cpu, count) in sorted(by_module.items(), key=lambda item: -item[1][0])[:top]:
        lines.append(f"  {wall:7.1f} {cpu:7.1f} {count:5d}  {module}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summarise(Path(sys.argv[1]), top=int(sys.argv[2]) if len(sys.argv) > 2 else 25))
