from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.exam_import import MAX_DOCUMENT_BYTES, ExamImportError, import_exam


class Command(BaseCommand):
    help = "Import exam documents written by `python -m evaluation examine` (language models as examiners)."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, help="JSONL exam documents")

    def handle(self, *args, files, **options):
        failed = 0
        for path in files:
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            if path.stat().st_size > MAX_DOCUMENT_BYTES:
                self.stderr.write(f"{path}: refused: larger than {MAX_DOCUMENT_BYTES // 2**20} MB")
                failed += 1
                continue
            try:
                report = import_exam(path.read_bytes(), source=path.name)
            except ExamImportError as exc:  # one bad document does not stop the others
                self.stderr.write(f"{path}: refused, nothing stored: {exc}")
                failed += 1
                continue
            self.stdout.write(f"{path.name}: {report.summary()}")
        if failed:
            raise CommandError(f"{failed} of {len(files)} exam documents were refused")
