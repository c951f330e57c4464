"""``python manage.py export_eee OUTDIR [--board CODE] [--model ID]``: stored evaluations as
Every Eval Ever files, one ``.json`` log per evaluation (sidecars beside it)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.eee.export import selected_evaluations, write_files
from leaderboard.selectors.export import LeaderboardNotFound


class Command(BaseCommand):
    help = (
        "Write every stored evaluation (or a board's counted ones, or a model's) as an Every Eval Ever "
        "log (schema 0.2.1) into OUTDIR, with its examples as instance-level sidecars."
    )

    def add_arguments(self, parser):
        parser.add_argument("outdir", help="Folder to write into (created when missing).")
        parser.add_argument("--board", default=None, help="Only the evaluations this board counts, e.g. nl.")
        parser.add_argument("--model", default=None, help="Only this model's evaluations (its id).")

    def handle(self, *args, outdir, board=None, model=None, **options):
        try:
            evaluations = selected_evaluations(board=board, model=model)
            logs, files = write_files(Path(outdir), evaluations.iterator(chunk_size=200))
        except LeaderboardNotFound as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"wrote {logs} EEE logs ({files} files) to {outdir}")
