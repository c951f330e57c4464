"""``python manage.py import_board FILE... [--commit SHA]``: EuroEval's published boards as
reconstructed evaluations (see ``leaderboard/services/board_import.py`` for the construction).

The commit of EuroEval/leaderboards the files were taken from is ``--commit``, or the first
word of a ``COMMIT`` file beside the first file. A language's ``_all`` and ``_nlu`` files
are merged; group files are read for their names only (their languages carry the cells).
A file that cannot be read stops nothing else: its error is printed and the others import.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.board_import import BoardFile, BoardImportError, import_boards


class Command(BaseCommand):
    help = "Import EuroEval board CSVs (leaderboards/<language>_<all|nlu>.csv) as reconstructed results."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="board CSV files as EuroEval/leaderboards publishes them")
        parser.add_argument("--commit", help="the EuroEval/leaderboards commit they come from (default: COMMIT beside)")

    def handle(self, *args, paths, commit=None, **options):
        commit = commit or self._commit_beside(Path(paths[0]))
        usable, failed = [], 0
        for path in paths:
            try:
                BoardFile.of(path)
                usable.append(path)
            except BoardImportError as exc:
                self.stderr.write(str(exc))
                failed += 1
        for language in self._languages(usable):
            try:
                for report in import_boards(language, commit):
                    self.stdout.write(report.summary())
                    for problem in report.problems[:20]:
                        self.stdout.write(f"  {problem}")
            except BoardImportError as exc:
                self.stderr.write(str(exc))
                failed += 1
        if failed and not usable:
            raise CommandError("no board imported")

    @staticmethod
    def _languages(paths):
        """The files grouped per language (or group), so one bad file fails only its own."""
        groups: dict[str, list[str]] = {}
        for path in paths:
            groups.setdefault(BoardFile.of(path).name, []).append(path)
        return list(groups.values())

    @staticmethod
    def _commit_beside(path: Path) -> str:
        marker = path.parent / "COMMIT"
        try:
            return marker.read_text(encoding="utf-8").split()[0]
        except (OSError, IndexError):
            raise CommandError(f"give --commit SHA (no COMMIT file beside {path})") from None
