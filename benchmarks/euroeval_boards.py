"""Every EuroEval board of one commit, reproduced from what ``import_board`` stores.

Not a test: run by hand, the table goes to BENCHMARKS.md ("EuroEval's boards of 2026-04-17").

    .venv/bin/python benchmarks/euroeval_boards.py [DIR]          # default data/results/euroeval-boards
    .venv/bin/python benchmarks/euroeval_boards.py --site [DIR]   # also the site's boards (DATABASE_URL)

Per board file, two reproductions of the published rank scores (mean |Δ|, max |Δ|, and
whether exactly the published entries are ranked):

* ``summaries``: ``reproduce_board FILE`` (that one file's ``mean ± x`` cells, as before);
* ``records``: both files of the language merged, every cell turned into the 10 iteration
  values ``import_board`` stores, ranked by the site's walk per category (``all``, ``nlu``);
  a group board as the mean of its languages' (``leaderboard/published/reproduction.py``).

``--site`` adds, for each language's ``_all`` board, the site's own board (``aggregate``,
euroeval-2024) after ``make data``: ranked set and mean |Δ| against the published ones.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from leaderboard.published.boards import agreement  # noqa: E402
from leaderboard.published.reproduction import (  # noqa: E402
    best_reading,
    check_group,
    compare,
    group_scores,
    read,
    read_group,
)
from leaderboard.registry.languages import EUROEVAL_BOARD_CODES, EUROEVAL_GROUP_FILES  # noqa: E402


def site_scores(code: str) -> dict[str, float] | None:
    from leaderboard.models import LeaderboardEntry
    from leaderboard.ranking import entry_display_name

    rows = LeaderboardEntry.objects.filter(leaderboard__code=code).select_related("model")
    if not rows:
        return None
    return {
        entry_display_name(e.model.model_id, e.few_shot, e.validation_split): (
            e.rank_score if e.rank_score is not None else float("inf")
        )
        for e in rows
    }


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", nargs="?", type=Path, default=Path("data/results/euroeval-boards"))
    parser.add_argument("--site", action="store_true")
    args = parser.parse_args()
    if args.site:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
        import django

        django.setup()
    header = "| board | entries (ranked) | summaries: mean / max abs. diff. | records: mean / max | same ranked set |"
    print(
        header
        + " entries with 16.17.0.dev0 cells read as 95% half-widths |"
        + (" site: mean abs. diff., same ranked set |" if args.site else "")
    )
    print("|---|---|---|---|---|---|" + ("---|" if args.site else ""))
    per_language: dict[str, dict[str, dict[str, float]]] = {}
    worst = 0.0
    for name in sorted(EUROEVAL_BOARD_CODES):
        files = {k: args.directory / f"{name}_{k}.csv" for k in ("all", "nlu")}
        files = {k: p for k, p in files.items() if p.exists()}
        if not files:
            continue
        boards = {k: read(p) for k, p in files.items()}
        _, readings, scores = best_reading(boards)
        half = sum(z != 1.0 for z in readings.values())
        per_language[name] = scores
        ours_site = site_scores(EUROEVAL_BOARD_CODES[name]) if args.site else None
        for kind, board in boards.items():
            summary = agreement(board)
            records = compare(files[kind].name, board.models, board.published, scores.get(kind, {}))
            worst = max(worst, records.mean_abs_diff)
            line = (
                f"| {files[kind].name} | {records.entries} ({records.ranked}) | "
                f"{summary.mean_abs_diff:.4f} / {summary.max_abs_diff:.3f} | "
                f"{records.mean_abs_diff:.4f} / {records.max_abs_diff:.3f} | {_yes(records.same_ranked_set)} | "
                f"{f'{half} of {len(readings)}' if readings else '–'} |"
            )
            if args.site:
                if kind == "all" and ours_site is not None:
                    site = compare(files[kind].name, board.models, board.published, ours_site)
                    line += f" {site.mean_abs_diff:.4f}, {'yes' if site.same_ranked_set else 'NO'} |"
                else:
                    line += " – |"
            print(line)
    for group, members in sorted(EUROEVAL_GROUP_FILES.items()):
        names = {code: name for name, code in EUROEVAL_BOARD_CODES.items()}
        for kind in ("all", "nlu"):
            path = args.directory / f"{group}_{kind}.csv"
            if not path.exists():
                continue
            labels, published = read_group(path)
            ours = group_scores([per_language.get(names[c], {}).get(kind, {}) for c in members])
            result = compare(path.name, labels, published, ours)
            worst = max(worst, result.mean_abs_diff)
            check = check_group(path, kind)
            stale = "; ".join(f"{entry} on {language}" for language, entry in check.stale)
            print(
                f"| {path.name} | {result.entries} ({result.ranked}) | – | "
                f"{result.mean_abs_diff:.4f} / {result.max_abs_diff:.3f} | {_yes(result.same_ranked_set)} | – |"
                + (" – |" if args.site else "")
                + f" rule on its own columns: {_yes(check.rule_holds)}"
                + (f"; language file without the entry's rank: {stale}" if stale else "")
            )
    print(f"\nlargest mean |Δ| (records): {worst:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
