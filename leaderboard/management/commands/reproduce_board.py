"""``python manage.py reproduce_board FILE``: re-rank a published EuroEval board, compare."""

from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from leaderboard.published_boards import BoardFormatError, agreement, parse_board


class Command(BaseCommand):
    help = (
        "Re-rank a published EuroEval leaderboard CSV from its per-dataset 'mean ± ci' summaries with "
        "our mean rank score and print how closely the published rank scores are reproduced."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="a board CSV as EuroEval publishes it, or our compact fixture format")
        parser.add_argument("--iterations", type=int, default=10, help="iterations behind each summary")
        parser.add_argument("--show", type=int, default=10, help="list the N largest differences")

    def handle(self, *args, path, iterations, show, **options):
        try:
            board = parse_board(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from None
        except BoardFormatError as exc:
            raise CommandError(f"{path} is not a board we can read: {exc}") from None
        result = agreement(board, iterations)
        tasks = sorted(set(board.dataset_tasks))
        self.stdout.write(
            f"{len(board.models)} entries, {result.ranked} ranked; {len(board.datasets)} datasets "
            f"in {len(tasks)} tasks: {', '.join(board.datasets)}"
        )
        if board.standard_error_cells:
            self.stdout.write(
                f"{board.standard_error_cells} summaries read as standard errors (records without a "
                "EuroEval version on a 2026 board: their ± is s/√n, not 1.96·s/√n)"
            )
        if board.rank_score_interval:
            self.stdout.write(
                "note: this board prints 'rank score ± margin', EuroEval's later bootstrap ranking "
                "(pooled standard deviation, no Welch walk); METHODOLOGY §4 is not meant to reproduce it"
            )
        if not result.same_ranked_set:
            self.stdout.write("note: the entries we rank differ from the entries the board ranks")
        self.stdout.write(
            f"mean absolute difference {result.mean_abs_diff:.4f}, median {result.median_abs_diff:.4f}, "
            f"max {result.max_abs_diff:.4f}; Spearman {result.spearman:.4f}"
        )
        ranked = np.where(np.isfinite(board.published))[0]
        diff = result.ours[ranked] - board.published[ranked]
        for i in ranked[np.argsort(-np.abs(diff))][:show]:
            self.stdout.write(f"  {board.published[i]:6.2f} published, {result.ours[i]:7.3f} ours  {board.models[i]}")
