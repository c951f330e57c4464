"""How closely our ranking reproduces published EuroEval boards: one table row per board.

Not a test: run by hand, rows go to BENCHMARKS.md ("Reproducing published EuroEval boards").

    .venv/bin/python benchmarks/published_boards.py BOARD.csv [BOARD.csv ...]

Each BOARD.csv is a board as EuroEval publishes it (github.com/EuroEval/leaderboards,
``leaderboards/<name>.csv``; the fixtures in tests/ranking/data are three of them). The
board is re-ranked from its per-dataset ``mean ± x`` cells with our mean rank score (what
``python manage.py reproduce_board`` does for one board, with the largest differences).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from leaderboard.published.boards import BoardFormatError, agreement, parse_board  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("boards", nargs="+", type=Path)
    args = parser.parse_args()
    print("| board | entries (ranked) | datasets | standard-error cells | mean abs. diff. | median | max | Spearman |")
    print("|---|---|---|---|---|---|---|---|")
    failed = 0
    for path in args.boards:
        try:
            board = parse_board(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, BoardFormatError) as exc:
            print(f"| {path.name} | cannot read: {exc} |||||||")
            failed += 1
            continue
        result = agreement(board)
        print(
            f"| {path.name} | {len(board.models)} ({result.ranked}) | {len(board.datasets)} | "
            f"{board.standard_error_cells} | {result.mean_abs_diff:.4f} | {result.median_abs_diff:.4f} | "
            f"{result.max_abs_diff:.3f} | {result.spearman:.4f} |"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
