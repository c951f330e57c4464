from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluation.datasets import InvalidDataset
from leaderboard.services.dataset_registry import sync_datasets


class Command(BaseCommand):
    help = "Register every dataset folder (with a dataset.json) found under the data directory."

    def add_arguments(self, parser):
        parser.add_argument("--data-dir", type=Path, default=None, help="default: settings.DATA_DIR")

    def handle(self, *args, data_dir, **options):
        data_dir = data_dir or Path(settings.DATA_DIR)
        if not data_dir.is_dir():
            raise CommandError(f"data directory {data_dir} does not exist (set DATA_DIR)")
        try:
            report = sync_datasets(data_dir)
        except InvalidDataset as exc:
            raise CommandError(str(exc)) from exc
        for name in report.created:
            self.stdout.write(f"registered {name}")
        self.stdout.write(f"{data_dir}: {report.summary()}")
