"""The fair queue at scale: 10,000 pending submissions from 500 submitters in PostgreSQL.

Usage (PostgreSQL + Redis from the environment, as for the tests; the database is
migrated and the benchmark's rows are removed at the end):

    DATABASE_URL=postgres://.../glossa_bench CELERY_BROKER_URL=redis://.../11 REDIS_URL=redis://.../10
    (a broker database of its own: its "gpu" list is deleted at the end) \
        .venv/bin/python benchmarks/queue_scale.py [--pending 10000] [--repeat 20]

Times (median and max of ``--repeat`` runs, in one process, Django's test client, so the
numbers are the server's work without the network): picking the next job (the SQL that
``services/dispatch.py`` runs), a whole ``dispatch()`` that sends one message to the real
Redis broker, the queue page, and the page and JSON of the submission that waits last.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")


def timed(fn, repeat: int) -> tuple[float, float, float]:
    """(median wall ms, max wall ms, median CPU ms of this process)."""
    runs, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        runs.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(runs), max(runs), statistics.median(cpu)


def next_job(queue_selector) -> list[int]:
    return list(queue_selector.held().values_list("pk", flat=True)[:1])


def fill(n: int, tag: str) -> list[int]:
    from django.contrib.auth import get_user_model

    from leaderboard.models import LanguageModel, Submission, SubmissionStatus

    rng = random.Random(1)
    users = get_user_model().objects.bulk_create([get_user_model()(username=f"{tag}-u{i}") for i in range(250)])
    models = LanguageModel.objects.bulk_create(
        [
            LanguageModel(model_id=f"{tag}/m{i}", num_parameters=rng.choice([None, 10**8, 10**9, 7 * 10**9]))
            for i in range(2000)
        ]
    )
    rows = []
    for i in range(n):
        if i % 2:
            who = {"submitted_by": users[i % 250], "submitter": f"user:{users[i % 250].pk}"}
        else:
            who = {"client_address": f"10.1.0.{i % 250}", "submitter": f"ip:10.1.0.{i % 250}"}
        model = models[i % 2000]
        rows.append(
            Submission(
                model=model,
                model_parameters=model.num_parameters,
                commit_sha=f"{i:040x}",
                status=SubmissionStatus.PENDING,
                celery_task_id=f"{tag}-{i}",
                priority=1 if i % 997 == 0 else 0,
                **who,
            )
        )
    return [s.pk for s in Submission.objects.bulk_create(rows, batch_size=2000)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pending", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from leaderboard.models import LanguageModel, Submission
    from leaderboard.selectors import queue as queue_selector
    from leaderboard.services.dispatch import dispatch

    call_command("migrate", verbosity=0)
    tag = f"qbench{int(time.time())}"
    start = time.perf_counter()
    pks = fill(args.pending, tag)
    print(f"inserted {len(pks)} pending submissions in {time.perf_counter() - start:.1f} s")
    from django.db import connection

    with connection.cursor() as cursor:  # what autovacuum does in a running deployment
        cursor.execute("VACUUM ANALYZE leaderboard_submission")
    print(f"load average {os.getloadavg()[0]:.1f}")
    try:
        order = list(queue_selector.held().values_list("pk", flat=True))
        last = Submission.objects.get(pk=order[-1])
        client = Client(HTTP_HOST="127.0.0.1")
        results = {
            "next job (held()[:1])": timed(lambda: next_job(queue_selector), args.repeat),
            "queue page GET /queue/": timed(lambda: client.get("/queue/"), args.repeat),
            "last submission's page": timed(lambda: client.get(f"/submissions/{last.pk}/"), args.repeat),
            "last submission's JSON": timed(lambda: client.get(f"/submissions/{last.pk}.json"), args.repeat),
        }
        plan = queue_selector.held().values_list("pk", flat=True)[:1].explain(analyze=True)
        print("the next-job query in PostgreSQL:", [line for line in plan.splitlines() if "Execution Time" in line])
        if os.environ.get("QUEUE_PROFILE"):
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.runcall(lambda: client.get("/queue/"))
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
            print(plan)
        sent = []
        results["dispatch() sending one"] = timed(lambda: sent.extend(dispatch()), 1)
        assert client.get("/queue/").status_code == 200
        for name, (median, worst, cpu) in results.items():
            print(f"{name:32s} median {median:7.1f} ms   max {worst:7.1f} ms   (this process's CPU {cpu:6.1f} ms)")
        print(f"dispatch sent {sent}; queue order head {order[:3]}")
    finally:
        import redis
        from django.conf import settings

        redis.Redis.from_url(settings.CELERY_BROKER_URL).delete("gpu")  # the benchmark's own broker db
        Submission.objects.filter(pk__in=pks).delete()
        LanguageModel.objects.filter(model_id__startswith=f"{tag}/").delete()
        from django.contrib.auth import get_user_model

        get_user_model().objects.filter(username__startswith=f"{tag}-").delete()


if __name__ == "__main__":
    main()
