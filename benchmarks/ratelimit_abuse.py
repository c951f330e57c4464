"""1,000 rate-limited POSTs to /submit/ cost nothing: no Hub call, no new row.

Usage (PostgreSQL + Redis from the environment, as for the tests):

    DATABASE_URL=postgres://... REDIS_URL=redis://.../8 CELERY_BROKER_URL=redis://.../7 \
        .venv/bin/python benchmarks/ratelimit_abuse.py [--posts 1000]

It migrates the database, starts a local stand-in for the Hugging Face Hub
(``tests/support/fake_hub.py``, which logs every request) and gunicorn with ``HF_ENDPOINT``
pointing at it (online, as in production). It first sends a few allowed attempts for models
that do not exist (what a lookup costs), then fills the client's daily submission slots and
sends ``--posts`` POSTs, each for another model id that does not exist, with a valid CSRF
token, and counts the Hub's requests and the rows of ``LanguageModel`` and ``Submission``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Measure:
    posts: int
    statuses: dict[int, int]
    hub_calls: int
    new_rows: int
    seconds: float
    p50_ms: float
    p95_ms: float


def post_many(base: str, model_ids: list[str], hub, count_rows) -> Measure:
    """POST each model id once (one client, one CSRF token); count Hub requests and new rows."""
    import httpx

    with httpx.Client(base_url=base, timeout=60) as client:
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get("/submit/").text).group(1)
        hub_before, rows_before = len(hub.requests), count_rows()
        statuses: dict[int, int] = {}
        times = []
        started = time.perf_counter()
        for model_id in model_ids:
            t0 = time.perf_counter()
            response = client.post(
                "/submit/",
                data={"csrfmiddlewaretoken": token, "model_id": model_id, "revision": "main", "few_shot": "few"},
                headers={"Referer": base + "/submit/"},
            )
            times.append(time.perf_counter() - t0)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        elapsed = time.perf_counter() - started
    times.sort()
    return Measure(
        posts=len(model_ids),
        statuses=statuses,
        hub_calls=len(hub.requests) - hub_before,
        new_rows=count_rows() - rows_before,
        seconds=elapsed,
        p50_ms=1000 * statistics.median(times),
        p95_ms=1000 * times[min(len(times) - 1, int(0.95 * len(times)))],
    )


def fill_slots(address: str = "127.0.0.1") -> int:
    """Take every submission slot of ``address`` for today (as five earlier submissions would)."""
    from leaderboard.services import ratelimit

    ratelimit.reset(address)
    taken = 0
    while ratelimit.reserve(address).allowed:
        taken += 1
    return taken


def count_rows() -> int:
    from leaderboard.models import LanguageModel, Submission

    return LanguageModel.objects.count() + Submission.objects.count()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--lookups", type=int, default=5, help="allowed attempts first, for comparison")
    args = parser.parse_args()
    for name in ("DATABASE_URL", "REDIS_URL"):
        if not os.environ.get(name):
            sys.exit(f"set {name} (PostgreSQL and Redis): the benchmark measures the production path")
    sys.path.insert(0, str(ROOT))
    home = Path(tempfile.mkdtemp(prefix="glossa-abuse-"))
    env = {
        "HF_HUB_OFFLINE": "0",
        "HF_HOME": str(home / "hf"),
        "GLOSSA_MODEL_CACHE": str(home / "models"),
        "GLOSSA_SUBMISSIONS_PER_DAY": "5",
        "GLOSSA_LOOKUPS_PER_HOUR": str(args.lookups + 10),
        "LOG_LEVEL": "WARNING",
    }
    python = str(ROOT / ".venv" / "bin" / "python")
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env={**os.environ, **env}, check=True)
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    import django

    django.setup()
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)
    from leaderboard.services import ratelimit
    from tests.support.fake_hub import FakeHub
    from tests.support.live_gunicorn import LiveGunicorn

    with FakeHub() as hub, LiveGunicorn({**env, "HF_ENDPOINT": hub.endpoint}, workers=2) as server:
        ratelimit.reset("127.0.0.1")
        allowed = post_many(server.url, [f"nobody-{i}/lookup-{i}" for i in range(args.lookups)], hub, count_rows)
        taken = fill_slots()
        limited = post_many(server.url, [f"attacker-{i}/model-{i}" for i in range(args.posts)], hub, count_rows)
        ratelimit.reset("127.0.0.1")
    print(f"allowed attempts for unknown models: {allowed}")
    print(f"slots filled: {taken}")
    print(f"rate-limited: {limited}")
    print(
        f"| {limited.posts} rate-limited POSTs (distinct unknown model ids, valid CSRF) | "
        f"statuses {limited.statuses} | Hub calls {limited.hub_calls} | new rows {limited.new_rows} | "
        f"{limited.seconds:.1f} s, p50 {limited.p50_ms:.1f} ms, p95 {limited.p95_ms:.1f} ms |"
    )
    print(
        f"| {allowed.posts} allowed attempts for unknown models | statuses {allowed.statuses} | "
        f"Hub calls {allowed.hub_calls} | new rows {allowed.new_rows} | p50 {allowed.p50_ms:.1f} ms |"
    )
    return 0 if limited.hub_calls == 0 and limited.new_rows == 0 and set(limited.statuses) == {429} else 1


if __name__ == "__main__":
    sys.exit(main())
