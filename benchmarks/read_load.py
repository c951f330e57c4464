"""Readers under load: 50 concurrent clients on board pages and the JSON API while a
submission evaluates and aggregations re-run (the read-load criterion).

Usage (PostgreSQL + Redis from the environment, as for the tests):

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://.../3 REDIS_URL=redis://.../4 \
        .venv/bin/python benchmarks/read_load.py [--readers 50] [--seconds 120] [--skip-load]

It migrates the database and loads the repository's data (published results, the data
pack, the suite's seeds, the rankings) unless ``--skip-load``; starts gunicorn, a Celery
worker on each queue (``gpu`` evaluates, ``default`` aggregates) and submits the bundled
SmolLM2 on the Danish suite (one iteration on 16 test rows, so it evaluates throughout the
run); then, for ``--seconds``, ``--readers`` threads fetch board pages and the JSON API
while another thread re-runs the aggregation of the boards being read. It prints latency
percentiles per kind of page, the error count and what the worker and aggregations did,
then stops everything and removes the submission it created.

``--through both`` (the default) measures twice under the same load, one phase after the
other: straight at gunicorn, then through the repository's nginx configuration
(deploy/nginx/glossa.conf.template, as compose.yaml runs it: anonymous pages kept for
their s-maxage) in front of the same gunicorn; ``--through gunicorn`` or ``nginx`` one way.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.live_nginx import LiveNginx, nginx_binary  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
PATHS = {
    "board page": ["/leaderboards/da/", "/leaderboards/da-suite/", "/leaderboards/sv/", "/leaderboards/no/"],
    "filtered board": ["/leaderboards/da/?q=gpt&sort=rank", "/leaderboards/sv/?size=small"],
    "JSON API": ["/api/leaderboards/da.json", "/api/leaderboards/da-suite.json", "/api/leaderboards/sv.json"],
    "home": ["/"],
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env: dict, *args: str) -> None:
    subprocess.run([str(BIN / "python"), "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def load_data(env: dict) -> None:
    manage(env, "migrate", "-v0")
    for path in sorted((ROOT / "data/results/published").glob("*.jsonl")):
        manage(env, "import_results", str(path))
    manage(env, "sync_datasets")
    for path in sorted((ROOT / "data/results/suite").glob("*.jsonl")):
        manage(env, "import_results", str(path))
    manage(env, "aggregate")


def reader(base: str, stop: float, samples: list, lock: threading.Lock, offset: int) -> None:
    plan = [(kind, path) for kind, paths in PATHS.items() for path in paths]
    cycle = itertools.islice(itertools.cycle(plan), offset, None)
    with httpx.Client(base_url=base, timeout=30) as client:
        for kind, path in cycle:
            if time.monotonic() >= stop:
                return
            started = time.perf_counter()
            try:
                status = client.get(path).status_code
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            elapsed = time.perf_counter() - started
            with lock:
                samples.append((kind, status, elapsed))


def aggregator(env: dict, stop: float, runs: list, every: float, nice: list[str]) -> None:
    while time.monotonic() < stop:
        started = time.perf_counter()
        result = subprocess.run(
            nice
            + [str(BIN / "python"), "manage.py", "aggregate"]
            + ["-l", "da", "-l", "sv", "-l", "nb", "-l", "da-suite"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        runs.append((result.returncode, time.perf_counter() - started, result.stderr[-300:]))
        time.sleep(max(0.0, every - (time.perf_counter() - started)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--skip-load", action="store_true", help="the database already holds the data")
    parser.add_argument("--aggregate-every", type=float, default=10.0, help="seconds between aggregation starts")
    parser.add_argument(
        "--nice", type=int, default=10, help="niceness of the workers and aggregations (0: as the web server)"
    )
    parser.add_argument("--through", choices=("both", "gunicorn", "nginx"), default="both")
    args = parser.parse_args()
    if args.through != "gunicorn" and nginx_binary() is None:
        sys.exit("nginx is not installed (Debian: apt-get install nginx-light); use --through gunicorn")
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"):
        if not os.environ.get(name):
            sys.exit(f"set {name} (PostgreSQL and Redis): the benchmark measures the production path")
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "LOG_LEVEL": "WARNING",
        "GLOSSA_ITERATIONS": "1",
        "GLOSSA_TEST_LIMIT": "16",
        "GLOSSA_SUBMISSIONS_PER_DAY": "1000",
    }
    os.environ.update({k: env[k] for k in ("GLOSSA_ITERATIONS", "GLOSSA_TEST_LIMIT", "GLOSSA_SUBMISSIONS_PER_DAY")})
    if not args.skip_load:
        print("loading data ...", flush=True)
        load_data(env)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)
    from leaderboard.models import Submission
    from leaderboard.services import submissions

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    logs = ROOT / "var" / "log"
    logs.mkdir(parents=True, exist_ok=True)
    processes = [
        subprocess.Popen(
            [str(BIN / "gunicorn"), "leaderboard.wsgi", "--bind", f"127.0.0.1:{port}"]
            + ["--workers", str(args.workers), "--timeout", "120", "--backlog", "2048"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    nice = ["nice", "-n", str(args.nice)] if args.nice else []
    for queue in ("gpu", "default"):
        processes.append(
            subprocess.Popen(
                nice
                + [str(BIN / "celery"), "-A", "leaderboard", "worker", "-Q", queue, "--concurrency", "1"]
                + ["--prefetch-multiplier", "1", "-n", f"bench-{queue}@%h", "--loglevel", "INFO"]
                + ["--logfile", str(logs / f"read-load-{queue}.log")],
                cwd=ROOT,
                # the gpu worker has no database (README, "Trust boundary"); the default worker applies its events
                env=env if queue == "default" else {**env, "DATABASE_URL": "", "GLOSSA_NO_DATABASE": "1"},
            )
        )
    submission = None
    try:
        for _ in range(150):
            try:
                if httpx.get(base + "/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            sys.exit("gunicorn did not start")
        outcome = submissions.submit("HuggingFaceTB/SmolLM2-135M-Instruct", languages=["da"])
        submission = outcome.submission
        created = "new" if outcome.created else "existing"
        print(f"submission {submission.pk} ({created}) for SmolLM2 on the Danish suite")
        time.sleep(5)  # let the worker pick it up

        shutil.rmtree(logs / "read-load-nginx", ignore_errors=True)  # an empty cache to start with
        modes = ("gunicorn", "nginx") if args.through == "both" else (args.through,)
        phases = {}
        for mode in modes:
            if mode == "gunicorn":
                phases[mode] = run_phase(base, args, env, nice)
                continue
            with LiveNginx(
                f"127.0.0.1:{port}", ROOT / "var" / "staticfiles", logs / "read-load-nginx", workers=2
            ) as proxy:
                phases[mode] = run_phase(proxy.url, args, env, nice)
        submission.refresh_from_db()
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()

    failed = 0
    for mode, (samples, runs, wall) in phases.items():
        failed += report(mode, samples, runs, wall, args)
    print(f"submission {submission.pk}: {submission.status}, progress {submission.progress}")
    Submission.objects.filter(pk=submission.pk).delete()
    return 1 if failed else 0


def run_phase(base: str, args, env: dict, nice: list[str]) -> tuple[list, list, float]:
    """``args.readers`` readers on ``base`` and the aggregation loop, for ``args.seconds``."""
    samples: list = []
    runs: list = []
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds
    threads = [
        threading.Thread(target=reader, args=(base, stop, samples, lock, i), daemon=True) for i in range(args.readers)
    ]
    threads.append(threading.Thread(target=aggregator, args=(env, stop, runs, args.aggregate_every, nice), daemon=True))
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return samples, runs, time.perf_counter() - started


def report(mode: str, samples: list, runs: list, wall: float, args) -> int:
    """Prints one phase's figures; the number of errors and failed aggregations."""
    by_kind = defaultdict(list)
    for kind, _status, elapsed in samples:
        by_kind[kind].append(elapsed)
    statuses = Counter(status for _kind, status, _elapsed in samples)
    errors = sum(n for status, n in statuses.items() if status != 200)
    every = [elapsed for _kind, _status, elapsed in samples]
    print(f"== {mode} ==")
    print(
        f"{len(samples)} requests from {args.readers} readers in {wall:.0f} s ({len(samples) / wall:.1f} req/s), "
        f"gunicorn workers: {args.workers}; workers and aggregations at nice {args.nice}, "
        f"an aggregation started every {args.aggregate_every:.0f} s"
    )
    print(f"statuses: {dict(statuses)}; errors: {errors}")
    print(
        f"all: p50 {statistics.median(every) * 1000:.0f} ms, p95 {percentile(every, 0.95) * 1000:.0f} ms, "
        f"p99 {percentile(every, 0.99) * 1000:.0f} ms"
    )
    for kind, values in by_kind.items():
        print(
            f"  {kind:15s} n={len(values):5d} p50 {statistics.median(values) * 1000:6.0f} ms  "
            f"p95 {percentile(values, 0.95) * 1000:6.0f} ms"
        )
    failed_runs = [r for r in runs if r[0] != 0]
    print(
        f"aggregations of da, sv, nb, da-suite during the run: {len(runs)} "
        f"({len(failed_runs)} failed), median {statistics.median([r[1] for r in runs]):.1f} s each"
    )
    for _rc, _seconds, stderr in failed_runs[:3]:
        print("  failed:", stderr)
    return errors + len(failed_runs)


if __name__ == "__main__":
    sys.exit(main())
