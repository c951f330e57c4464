"""``python manage.py aggregate [--language CODE ...]``: recompute leaderboards."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.aggregation import UnknownBoard, aggregate


class Command(BaseCommand):
    help = (
        "Recompute the cached leaderboards from the stored iteration scores: every language "
        "and group board by default, or the given boards (a language board also refreshes "
        "the groups that contain it)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--language",
            "-l",
            action="append",
            dest="languages",
            metavar="CODE",
            help="Board or language code (da, nb → no, scandinavian); repeatable.",
        )
        parser.add_argument(
            "--replicates",
            type=int,
            default=None,
            help="Bootstrap replicates for the rank-score interval (default: settings.RANK_BOOTSTRAP_REPLICATES).",
        )

    def handle(self, *args, languages=None, replicates=None, **options):
        if replicates is not None and replicates < 0:
            raise CommandError("--replicates must be 0 or more")
        try:
            run = aggregate(languages, trigger="command", replicates=replicates)
        except UnknownBoard as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Aggregated {', '.join(run.boards) or 'no boards'}: {run.entries_total} entries, "
            f"{run.entries_changed} changed, in {run.duration_seconds:.2f} s (run #{run.pk})."
        )
