from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.record_fields import InvalidRecord
from leaderboard.services.speed_jobs import MAX_REPORT_BYTES, import_report_file


class Command(BaseCommand):
    help = "Import speed benchmark reports written by `python -m evaluation speed --output FILE` (methodology §11)."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, help="glossa-speed JSON reports")

    def handle(self, *args, files, **options):
        failed = 0
        for path in files:
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            if path.stat().st_size > MAX_REPORT_BYTES:
                self.stderr.write(f"{path}: refused: larger than {MAX_REPORT_BYTES} bytes")
                failed += 1
                continue
            try:
                outcome = import_report_file(path.read_text(encoding="utf-8", errors="replace"), source=path.name)
            except InvalidRecord as exc:  # one bad report does not stop the others
                self.stderr.write(f"{path}: refused: {exc}")
                failed += 1
                continue
            self.stdout.write(f"{path.name}: {outcome}")
        if failed:
            raise CommandError(f"{failed} of {len(files)} speed reports were refused")
