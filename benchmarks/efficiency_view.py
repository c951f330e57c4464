"""Time a board's efficiency view (docs/methodology.md §11) with N entries × D datasets, every evaluation
measured (half the models on a CPU identity, half on a GPU one), and a model page with
its cost section (median of R requests).

Builds the board as ``pages_speed.py`` does (scratch test database, real aggregation), then
stores an ``EvaluationCost`` for every evaluation. Cold: the board's version changes before
each request (what a re-aggregation does to the cache), so the selector, the Pareto fronts,
the Plotly figure and the template all run; warm: the cached page.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/glossa_x \\
        .venv/bin/python benchmarks/efficiency_view.py [--entries 300] [--datasets 10] [--repeat 15]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pages_speed import build_board, time_url  # noqa: E402  (sets Django up)


def measure_everything() -> int:
    from leaderboard.models import Evaluation, EvaluationCost
    from leaderboard.services.efficiency_store import cost_fields
    from tests.support.efficiency import CPU, GPU, efficiency

    rows = []
    for number, evaluation in enumerate(Evaluation.objects.order_by("pk").only("pk", "model_id")):
        hardware = GPU if evaluation.model_id % 2 else CPU
        rate = 100.0 + (number * 37) % 900 + (8000.0 if hardware is GPU else 0.0)
        rows.append(EvaluationCost(evaluation=evaluation, **cost_fields(efficiency(hardware, rate=rate))))
    EvaluationCost.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=300)
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--profile", action="store_true", help="print where one cold request spends its time")
    args = parser.parse_args()
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False, keepdb=False)
    try:
        build_board(args.entries, args.datasets)
        costs = measure_everything()
        client = Client()
        if args.profile:
            import cProfile
            import pstats

            from benchmarks.pages_speed import touch_board

            client.get("/leaderboards/da/efficiency/")  # imports, template compilation
            touch_board()
            with cProfile.Profile() as profile:
                client.get("/leaderboards/da/efficiency/")
            pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
            return
        print(f"board: {args.entries} entries × {args.datasets} datasets, {costs} costs, {args.repeat} requests each")
        for label, url, cold in (
            ("efficiency view, cold", "/leaderboards/da/efficiency/", True),
            ("efficiency view, cached", "/leaderboards/da/efficiency/", False),
            ("efficiency view, memory axis, cold", "/leaderboards/da/efficiency/?cost=memory", True),
            ("model page with its costs", "/models/org/model-0001/", False),
        ):
            median, best, queries, size = time_url(client, url, args.repeat, cold)
            print(f"{label:36s} median {median:7.1f} ms  min {best:7.1f} ms  {queries} queries  {size / 1024:.0f} KiB")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
