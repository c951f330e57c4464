"""200 concurrent submissions against a local gunicorn: every one accepted once or refused
with a reason, no server error, no duplicate queued.

Usage (PostgreSQL + Redis from the environment, as for the tests):

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://.../3 REDIS_URL=redis://.../4 \
        .venv/bin/python benchmarks/submission_load.py [--requests 200] [--limit 25]

It migrates the database, registers the data pack's datasets, starts gunicorn on
127.0.0.1 (no worker consumes the queue), fires the requests from one thread each, then
checks the database and the broker and removes what it created. All requests come from
one address (no proxy header is trusted), so the per-address rate limit is set by
``GLOSSA_SUBMISSIONS_PER_DAY`` (``--limit``) to let some through and refuse the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
MODELS = ["HuggingFaceTB/SmolLM2-135M-Instruct", "google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2"]
BAD_IDS = ["<script>alert(1)</script>", "no-slash", "org/na--me", "-org/name", "org/name.", "a/b/c", "org/na me"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def plan(n: int, run: str) -> list[dict]:
    """60% valid (each distinct model/revision/variant three times), 20% bad ids, 20% unknown models."""
    valid = int(n * 0.6)
    distinct = valid // 3
    keys = [(MODELS[i % 3], f"{run}-r{i // 6}", "few" if (i // 3) % 2 == 0 else "zero") for i in range(distinct)]
    requests = [{"model_id": m, "revision": r, "few_shot": v, "kind": "valid"} for m, r, v in keys for _ in range(3)]
    while len(requests) < valid:
        requests.append({"model_id": keys[0][0], "revision": keys[0][1], "few_shot": keys[0][2], "kind": "valid"})
    bad = (n - valid) // 2
    requests += [
        {"model_id": BAD_IDS[i % len(BAD_IDS)], "revision": "main", "few_shot": "few", "kind": "bad id"}
        for i in range(bad)
    ]
    requests += [
        {"model_id": f"nobody-{run}/model-{i}", "revision": "main", "few_shot": "few", "kind": "unknown"}
        for i in range(n - valid - bad)
    ]
    # interleave deterministically so duplicates and refusals race each other
    return [requests[(i * 7) % len(requests)] for i in range(len(requests))] if len(requests) % 7 else requests


def submit_one(base: str, item: dict) -> dict:
    started = time.perf_counter()
    with httpx.Client(base_url=base, timeout=60, follow_redirects=False) as client:
        form = client.get("/submit/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
        response = client.post(
            "/submit/",
            data={
                "csrfmiddlewaretoken": token,
                "model_id": item["model_id"],
                "revision": item["revision"],
                "few_shot": item["few_shot"],
            },
            headers={"Referer": base + "/submit/"},
        )
        elapsed = time.perf_counter() - started  # GET form + POST
        outcome = {
            "kind": item["kind"],
            "status": response.status_code,
            "seconds": elapsed,
            "key": (item["model_id"], item["revision"], item["few_shot"]),
        }
        if response.status_code == 302:
            page = client.get(response.headers["location"])
            outcome["outcome"] = (
                "queued"
                if "is queued for evaluation" in page.text
                else ("existing" if "already submitted" in page.text else "redirect?")
            )
            outcome["submission"] = int(response.headers["location"].rstrip("/").split("/")[-1])
        else:
            errors = re.findall(r'<ul class="errorlist"[^>]*>\s*<li>(.*?)</li>', response.text, re.S)
            outcome["outcome"] = "refused"
            outcome["reason"] = errors[0][:60] if errors else "(no reason shown)"
        return outcome


def sequential_posts(base: str, items: list[dict], results: list[dict], n: int = 30) -> dict[str, float]:
    """Median time of one POST at a time (no concurrency): the server's own cost per kind."""
    queued = next(r["key"] for r in results if r["outcome"] == "queued")
    kinds = {
        "duplicate": {"model_id": queued[0], "revision": queued[1], "few_shot": queued[2]},
        "bad id": next(i for i in items if i["kind"] == "bad id"),
        "unknown": next(i for i in items if i["kind"] == "unknown"),
    }
    medians = {}
    with httpx.Client(base_url=base, timeout=60) as client:
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get("/submit/").text).group(1)
        for kind, item in kinds.items():
            times = []
            for _ in range(n):
                started = time.perf_counter()
                client.post(
                    "/submit/",
                    headers={"Referer": base + "/submit/"},
                    data={
                        "csrfmiddlewaretoken": token,
                        "model_id": item["model_id"],
                        "revision": item["revision"],
                        "few_shot": item["few_shot"],
                    },
                )
                times.append(time.perf_counter() - started)
            medians[kind] = statistics.median(times)
        times = []
        for _ in range(n):
            started = time.perf_counter()
            client.get("/submit/")
            times.append(time.perf_counter() - started)
        medians["form page (GET)"] = statistics.median(times)
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--limit", type=int, default=25, help="GLOSSA_SUBMISSIONS_PER_DAY for the server")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--keep", action="store_true", help="keep the created submissions and messages")
    args = parser.parse_args()
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"):
        if not os.environ.get(name):
            sys.exit(f"set {name} (PostgreSQL and Redis): the benchmark measures the production path")
    env = {**os.environ, "GLOSSA_SUBMISSIONS_PER_DAY": str(args.limit), "HF_HUB_OFFLINE": "1", "LOG_LEVEL": "WARNING"}
    python = str(ROOT / ".venv" / "bin" / "python")
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "sync_datasets"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)
    import redis
    from django.conf import settings

    from leaderboard.models import Submission
    from leaderboard.services import ratelimit

    ratelimit.reset("127.0.0.1")
    run = "bench-" + uuid.uuid4().hex[:8]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            str(ROOT / ".venv" / "bin" / "gunicorn"),
            "leaderboard.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(args.workers),
            "--timeout",
            "120",
            "--backlog",
            "2048",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(100):
            try:
                if httpx.get(base + "/submit/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            sys.exit("gunicorn did not start")
        items = plan(args.requests, run)
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(items)) as pool:
            results = list(pool.map(lambda item: submit_one(base, item), items))
        wall = time.perf_counter() - started
        single = sequential_posts(base, items, results)
    finally:
        server.terminate()
        server.wait(timeout=30)

    # --- checks ------------------------------------------------------------------------
    statuses = Counter(r["status"] for r in results)
    outcomes = Counter((r["kind"], r["outcome"], r.get("reason", "")[:40]) for r in results)
    server_errors = [r for r in results if r["status"] >= 500]
    no_reason = [r for r in results if r["outcome"] == "refused" and r["reason"] == "(no reason shown)"]
    ours = Submission.objects.filter(revision__startswith=run)
    per_key = Counter((s.model.model_id, s.revision, s.few_shot) for s in ours.select_related("model"))
    duplicates = {key: n for key, n in per_key.items() if n > 1}
    queued = [r for r in results if r["outcome"] == "queued"]
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    task_ids = set(ours.values_list("celery_task_id", flat=True))
    messages = [m for m in broker.lrange("gpu", 0, -1) if json.loads(m)["headers"]["id"] in task_ids]
    # every response of a key points to that key's one submission
    by_key: dict = {}
    for r in results:
        if "submission" in r:
            by_key.setdefault(r["key"], set()).add(r["submission"])
    split_keys = {k: v for k, v in by_key.items() if len(v) > 1}
    latencies = sorted(r["seconds"] for r in results)

    print(
        f"requests: {len(results)} in {wall:.2f} s ({len(results) / wall:.1f} req/s), "
        f"gunicorn workers: {args.workers}, "
        f"rate limit: {args.limit}/address/day"
    )
    p50, p95 = statistics.median(latencies), latencies[int(0.95 * (len(latencies) - 1))]
    print(f"latency (GET form + POST) p50 {p50:.3f} s, p95 {p95:.3f} s, max {latencies[-1]:.3f} s")
    print("one request at a time, median of 30: " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in single.items()))
    print("HTTP statuses:", dict(sorted(statuses.items())))
    for (kind, outcome, reason), n in sorted(outcomes.items()):
        print(f"  {n:4d}  {kind:8s} {outcome:9s} {reason}")
    print(
        f"submissions created: {ours.count()}, responses 'queued': {len(queued)}, broker messages: {len(messages)}, "
        f"distinct valid keys: {len({r['key'] for r in results if r['kind'] == 'valid'})}"
    )
    problems = []
    if server_errors:
        problems.append(f"{len(server_errors)} server errors")
    if no_reason:
        problems.append(f"{len(no_reason)} refusals without a reason")
    if duplicates:
        problems.append(f"duplicate submissions: {duplicates}")
    if split_keys:
        problems.append(f"one key answered with several submissions: {split_keys}")
    if not (ours.count() == len(queued) == len(messages)):
        problems.append("created, 'queued' answers and broker messages differ")
    if ours.count() > args.limit:
        problems.append(f"rate limit exceeded: {ours.count()} > {args.limit}")
    if not args.keep:
        for message in messages:
            broker.lrem("gpu", 0, message)
        ours.delete()
        ratelimit.reset("127.0.0.1")
    print("OK" if not problems else "PROBLEMS: " + "; ".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
