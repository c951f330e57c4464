"""Time the comparison page on a database loaded as `make data` loads it.

Reads, never writes: run it against the database of a `make data` (published records,
EuroEval's board CSVs, the data pack, the suite seeds, aggregated). It requests, with
Django's test Client in this process, four models of the published Danish board, the two
suite models on the Danish suite board, and the same two without a board, and prints the
median and minimum of ``--repeat`` requests, the queries of one and the page's size.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/glossa \\
        .venv/bin/python benchmarks/compare_speed.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import logging
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
from django.test.utils import CaptureQueriesContext  # noqa: E402

from leaderboard.models import LeaderboardEntry  # noqa: E402

SUITE_PAIR = "models=google/gemma-3-270m&models=sentence-transformers/all-MiniLM-L6-v2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    client = Client(HTTP_HOST="127.0.0.1")
    first = LeaderboardEntry.objects.filter(leaderboard__code="da").order_by("position")
    four = list(dict.fromkeys(first.values_list("model__model_id", flat=True)[:40]))[:4]
    pages = {
        "published Danish board, 4 models": "/compare/?board=da&" + "&".join(f"models={m}" for m in four),
        "Danish suite board, the 2 suite models": f"/compare/?board=da-suite&{SUITE_PAIR}",
        "the 2 suite models without a board": f"/compare/?{SUITE_PAIR}",
    }
    for label, url in pages.items():
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - started)
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        print(
            f"{label}: HTTP {response.status_code}, median {statistics.median(times):.3f} s, "
            f"min {min(times):.3f} s, {len(queries)} queries, {len(response.content) // 1024} KiB"
        )


if __name__ == "__main__":
    main()
