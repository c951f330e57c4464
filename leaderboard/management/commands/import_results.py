from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.results_import import import_file


class Command(BaseCommand):
    help = "Import EuroEval result records (JSONL) and print imported / updated / skipped counts."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, help="JSONL files of result records")
        parser.add_argument("--max-errors", type=int, default=20, help="how many bad lines to list")

    def handle(self, *args, files, max_errors, **options):
        for path in files:
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            report = import_file(path)
            for line, message in report.errors[:max_errors]:
                self.stderr.write(f"{path}:{line}: skipped: {message}")
            if len(report.errors) > max_errors:
                self.stderr.write(f"... and {len(report.errors) - max_errors} more bad lines")
            self.stdout.write(f"{path.name}: {report.summary()}")
