"""``python manage.py reproduce_board FILE``: re-rank a published EuroEval board, compare.

A board EuroEval printed with its 2026 method (``Rank,Model,Rank score,...``: no per-dataset
summaries) is compared with this deployment's board ``--board CODE`` under ``--method``
(default ``euroeval-2026``), aggregated from the imported records behind it; ``--view
all_models`` (the default for a file named ``*all_models*``) compares EuroEval's NLU board.

``--records`` re-ranks a board of EuroEval/leaderboards (``<language>_<all|nlu>.csv``, or a
group's) from what ``import_board`` stores instead: the language's two files merged (its
sibling beside it), each cell as its reconstructed iterations; a group from its languages'
files beside it (``leaderboard/published/reproduction.py``)."""

from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Leaderboard
from leaderboard.published import method_boards
from leaderboard.published import reproduction as br
from leaderboard.published.boards import BoardFormatError, agreement, parse_board
from leaderboard.registry.languages import EUROEVAL_BOARD_CODES, EUROEVAL_GROUP_FILES
from leaderboard.selectors.method_ranks import entry_ranks
from leaderboard.services.aggregation import UnknownMethod
from leaderboard.services.board_import import BoardFile, BoardImportError
from leaderboard.services.method_rankings import computed_ranking


class Command(BaseCommand):
    help = (
        "Re-rank a published EuroEval leaderboard CSV from its per-dataset 'mean ± ci' summaries with "
        "our mean rank score and print how closely the published rank scores are reproduced."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="a board CSV as EuroEval publishes it, or our compact fixture format")
        parser.add_argument("--iterations", type=int, default=10, help="iterations behind each summary")
        parser.add_argument("--show", type=int, default=10, help="list the N largest differences")
        parser.add_argument("--board", help="new-method CSV: the board code to compare with (e.g. nl)")
        parser.add_argument("--method", default="euroeval-2026", help="new-method CSV: the ranking method")
        parser.add_argument("--view", choices=["board", "all_models"], help="new-method CSV: which ranking")
        parser.add_argument("--records", action="store_true", help="from the reconstructed iterations (import_board)")

    def handle(self, *args, path, iterations, show, board=None, method="euroeval-2026", view=None, **options):
        if options.get("records"):
            return self.from_records(Path(path))
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from None
        if method_boards.is_method_board(text):
            view = view or ("all_models" if "all_models" in Path(path).name else "board")
            return self.compare_method_board(text, path, board, method, view, show)
        try:
            board = parse_board(text)
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
                "EuroEval version or written as EEE, on a 2026 board: their ± is s/√n, not 1.96·s/√n)"
            )
        if board.rank_score_interval:
            self.stdout.write(
                "note: this board prints 'rank score ± margin', EuroEval's later bootstrap ranking "
                "(pooled standard deviation, no Welch walk); docs/methodology.md §4 is not meant to reproduce it"
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

    def compare_method_board(self, text, path, code, method, view, show):
        if not code:
            raise CommandError("a new-method board CSV is compared with a board here: give --board CODE")
        try:
            published = method_boards.parse_method_board(text)
        except method_boards.MethodBoardFormatError as exc:
            raise CommandError(f"{path} is not a board we can read: {exc}") from None
        lb = Leaderboard.objects.filter(code=code).first()
        if lb is None:
            raise CommandError(f"no board {code!r} here: import the records behind {path} and aggregate first")
        try:
            ours = entry_ranks(lb, computed_ranking(lb, method), view)
        except UnknownMethod as exc:
            raise CommandError(str(exc)) from None
        result = method_boards.agreement(published, ours)
        ranked = sum(r is not None for r in published.ranks)
        self.stdout.write(
            f"{len(published.models)} entries, {ranked} ranked there, {sum(v[0] is not None for v in ours.values())} "
            f"ranked here ({method}, {view}); compared {result.compared}"
        )
        if not result.same_ranked_set:
            self.stdout.write("note: the entries we rank differ from the entries the board ranks")
        self.stdout.write(
            f"mean absolute difference {result.mean_abs_diff:.4f}, max {result.max_abs_diff:.4f}; "
            f"Spearman {result.spearman:.4f}; neighbouring pairs tied or split alike {result.neighbours_alike:.1%}"
        )
        theirs = {m: s for m, s in zip(published.models, published.scores) if np.isfinite(s)}
        diffs = sorted(
            ((abs(ours[m][1] - s), m, s) for m, s in theirs.items() if m in ours and ours[m][1] is not None),
            reverse=True,
        )
        for _, m, s in diffs[:show]:
            self.stdout.write(f"  {s:6.3f} published, {ours[m][1]:7.3f} ours  {m}")

    def from_records(self, path: Path):
        try:
            board_file = BoardFile.of(path)
            names = {code: name for name, code in EUROEVAL_BOARD_CODES.items()}
            languages = EUROEVAL_GROUP_FILES.get(board_file.name, [EUROEVAL_BOARD_CODES.get(board_file.name)])
            scores = []
            for code in languages:
                files = {k: path.parent / f"{names[code]}_{k}.csv" for k in br.KINDS}
                boards = {k: br.read(p) for k, p in files.items() if p.exists()}
                scores.append(br.best_reading(boards)[2].get(board_file.kind, {}))
            if board_file.is_group:
                labels, published = br.read_group(path)
            else:
                board = br.read(path)
                labels, published = board.models, board.published
        except (OSError, UnicodeDecodeError, BoardFormatError, BoardImportError) as exc:
            raise CommandError(f"cannot reproduce {path} from records: {exc}") from None
        result = br.compare(path.name, labels, published, br.group_scores(scores) if len(scores) > 1 else scores[0])
        self.stdout.write(
            f"{result.entries} entries, {result.ranked} ranked; from the reconstructed iterations: mean absolute "
            f"difference {result.mean_abs_diff:.4f}, max {result.max_abs_diff:.4f}; Spearman {result.spearman:.4f}"
        )
        if not result.same_ranked_set:
            self.stdout.write("note: the entries we rank differ from the entries the board ranks")
