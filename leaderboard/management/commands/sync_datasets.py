"""``manage.py sync_datasets [--data-dir DIR] [--strict]``: register the data directory's folders.

Prints one line per dataset created or given a new version, one line per refused folder
(on stderr, with the reason), then the summary. A refused folder does not stop the others
and the exit status stays 0, so a deployment with one bad folder still registers the
good ones; ``--strict`` makes the command fail (status 1) when any folder was refused.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.dataset_registry import sync_datasets


class Command(BaseCommand):
    help = "Register every dataset folder (with a dataset.json) found under the data directory."

    def add_arguments(self, parser):
        parser.add_argument("--data-dir", type=Path, default=None, help="default: settings.DATA_DIR")
        parser.add_argument("--strict", action="store_true", help="exit with status 1 when a folder is refused")

    def handle(self, *args, data_dir, strict, **options):
        data_dir = data_dir or Path(settings.DATA_DIR)
        if not data_dir.is_dir():
            raise CommandError(f"data directory {data_dir} does not exist (set DATA_DIR)")
        report = sync_datasets(data_dir)
        for name in report.created:
            self.stdout.write(f"registered {name}: {report.notes.get(name, '')}")
        for name in report.new_version:
            self.stdout.write(f"new version of {name}: {report.notes.get(name, '')}")
        for refusal in report.refused:
            self.stderr.write(self.style.ERROR(f"refused {refusal.folder}: {refusal.reason}"))
        self.stdout.write(f"{data_dir}: {report.summary()}")
        if strict and report.refused:
            raise CommandError(f"{len(report.refused)} folder(s) refused (see above)")
