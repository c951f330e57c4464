"""``python manage.py aggregate [--language CODE ...] [--method NAME]``: recompute leaderboards."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.ranking import method_names
from leaderboard.services.aggregation import UnknownBoard, UnknownMethod, aggregate


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
            help=(
                "Bootstrap replicates for the rank-score interval (default: the method's own, else "
                "settings.RANK_BOOTSTRAP_REPLICATES)."
            ),
        )
        parser.add_argument(
            "--method",
            default=None,
            help=(
                f"Ranking method ({', '.join(method_names())}; default: settings.GLOSSA_RANKING_METHOD). "
                "Another method than the deployment's is stored beside the board (?method=NAME)."
            ),
        )

    def handle(self, *args, languages=None, replicates=None, method=None, **options):
        if replicates is not None and replicates < 0:
            raise CommandError("--replicates must be 0 or more")
        try:
            run = aggregate(languages, trigger="command", replicates=replicates, method=method)
        except (UnknownBoard, UnknownMethod) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Aggregated {', '.join(run.boards) or 'no boards'} with {run.method}: {run.entries_total} entries, "
            f"{run.entries_changed} changed, in {run.duration_seconds:.2f} s (run #{run.pk})."
        )
