"""Time a leaderboard page with 500 entries × 10 datasets (median of N requests).

Builds the board in a scratch database (Django's test database machinery, destroyed
afterwards) the way the product does: models, dataset versions, evaluations and their
iteration scores, then the real aggregation (``services.aggregation.aggregate``). It
requests the board with Django's test Client, so the numbers cover the whole view:
queries, selector, template and the Plotly figure.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/glossa_pages \
        .venv/bin/python benchmarks/pages_speed.py [--entries 500] [--datasets 10] [--repeat 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

TASKS = [
    "sentiment-classification",
    "linguistic-acceptability",
    "named-entity-recognition",
    "reading-comprehension",
    "knowledge",
]


def build_board(entries: int, datasets: int, seed: int = 7) -> None:
    """``entries`` models with 10 iteration scores on each of ``datasets`` Danish datasets,
    aggregated into the ``da`` board (a synthetic quality per model, noise per iteration)."""
    import random

    from evaluation.tasks import get_task
    from leaderboard.identity import PUBLISHED
    from leaderboard.models import Dataset, Evaluation, IterationScore, Language, LanguageModel
    from leaderboard.services.aggregation import aggregate

    rng = random.Random(seed)
    danish, _ = Language.objects.get_or_create(code="da", defaults={"name": "Danish", "board": "da"})
    rows = []
    for d in range(datasets):
        task = TASKS[d % len(TASKS)]
        ds = Dataset.objects.create(name=f"ds-{d}", task=task, counts_toward_leaderboard=True)
        ds.languages.add(danish)
        version = ds.ensure_version(PUBLISHED)
        metric = get_task(task).primary_metric
        for e in range(entries):
            model, _ = LanguageModel.objects.get_or_create(
                model_id=f"org/model-{e:04d}", defaults={"num_parameters": rng.choice([1, 3, 8, 70]) * 10**9}
            )
            quality = 0.2 + 0.7 * (1 - e / entries)
            ev = Evaluation.objects.create(
                model=model, dataset=ds, dataset_version=version, num_iterations=10, source="benchmark"
            )
            rows += [
                IterationScore(evaluation=ev, iteration=i, metric=metric, value=quality + rng.gauss(0, 0.02))
                for i in range(10)
            ]
    IterationScore.objects.bulk_create(rows, batch_size=5000)
    aggregate(["da"])


def touch_board() -> None:
    """What re-aggregation does to the cache: a new ``generated_at`` makes a new board version."""
    from django.utils import timezone

    from leaderboard.models import Leaderboard

    Leaderboard.objects.filter(code="da").update(generated_at=timezone.now())


def time_url(client: Client, url: str, repeat: int, cold: bool = False) -> tuple[float, float, int, int]:
    client.get(url)  # warm-up: template compilation, connection
    times = []
    for _ in range(repeat):
        if cold:
            touch_board()
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.status_code
    if cold:
        touch_board()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return statistics.median(times), min(times), len(queries), len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False, keepdb=False)
    try:
        build_board(args.entries, args.datasets)
        client = Client()
        print(f"board: {args.entries} entries × {args.datasets} datasets, {args.repeat} requests each")
        for label, url, cold in (
            ("board page", "/leaderboards/da/", False),
            (
                "board page, filtered + sorted",
                "/leaderboards/da/?type=base&type=encoder&size=lt2&size=2-10&sort=ds:ds-3",
                False,
            ),
            ("board page, cold (new version)", "/leaderboards/da/", True),
            ("CSV export", "/leaderboards/da/export.csv", False),
            ("JSON export", "/leaderboards/da/export.json", False),
        ):
            median, best, queries, size = time_url(client, url, args.repeat, cold)
            print(f"{label:32s} median {median:7.1f} ms  min {best:7.1f} ms  {queries} queries  {size / 1024:.0f} KiB")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
