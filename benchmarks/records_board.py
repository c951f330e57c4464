"""A board built from EuroEval result records, against the board EuroEval published.

Not a test: run by hand against a scratch database (it migrates it and fills it), rows go
to BENCHMARKS.md ("Boards built from current EuroEval records").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/scratch \\
      .venv/bin/python benchmarks/records_board.py RECORDS.jsonl.gz BOARD.csv CODE

It imports the records with the real importer, aggregates board CODE with the default
method, and compares the ranked/unranked split and the rank scores with BOARD.csv.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")


def main() -> int:
    import django

    django.setup()
    import numpy as np
    from django.core.management import call_command
    from scipy import stats

    from leaderboard.models import LeaderboardEntry
    from leaderboard.published.boards import parse_board
    from leaderboard.ranking import entry_display_name
    from leaderboard.services.aggregation import aggregate
    from leaderboard.services.results_import import import_file

    records, board_csv, code = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    report = import_file(records)
    imported = time.perf_counter() - started
    started = time.perf_counter()
    aggregate([code])
    aggregated = time.perf_counter() - started
    published = parse_board(board_csv.read_text(encoding="utf-8"))
    ours = {
        entry_display_name(e.model.model_id, e.few_shot, e.validation_split): e.rank_score
        for e in LeaderboardEntry.objects.filter(leaderboard_id=code).select_related("model")
    }
    theirs = dict(zip(published.models, published.published))
    ranked_theirs = {n for n, s in theirs.items() if np.isfinite(s)}
    ranked_ours = {n for n, s in ours.items() if s is not None}
    names = sorted(ranked_theirs & ranked_ours)
    diff = np.abs(np.array([ours[n] for n in names]) - np.array([theirs[n] for n in names]))
    rho = stats.spearmanr([ours[n] for n in names], [theirs[n] for n in names]).statistic
    print(f"import: {report.summary()} in {imported:.1f} s; aggregate {code}: {aggregated:.1f} s")
    print(
        "| board | records | entries ours / published | ranked ours / published | same ranked set "
        "| mean abs. diff. | median | max | Spearman |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {board_csv.name} | {report.imported} | {len(ours)} / {len(theirs)} | {len(ranked_ours)} / "
        f"{len(ranked_theirs)} | {'yes' if ranked_ours == ranked_theirs else 'no'} | {diff.mean():.4f} | "
        f"{np.median(diff):.4f} | {diff.max():.3f} | {rho:.4f} |"
    )
    return 0 if ranked_ours == ranked_theirs else 1


if __name__ == "__main__":
    sys.exit(main())
