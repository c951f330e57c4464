"""``python manage.py compare_entries CODE "A" "B" [--method NAME]``: A against B on a board."""

import json

from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Leaderboard
from leaderboard.ranking import UnknownMethod
from leaderboard.selectors.compare_entries import EntryNotOnBoard, compare_entries
from leaderboard.services.aggregation import current_ranking


class Command(BaseCommand):
    help = (
        "Print, as JSON, the probability that entry A ranks above entry B on a board (over the "
        "ranking method's paired bootstrap replicates) and their per-dataset differences."
    )

    def add_arguments(self, parser):
        parser.add_argument("code", help="Board code, e.g. da, nl, scandinavian.")
        parser.add_argument("a", help='Entry name as the board shows it, e.g. "org/model (zero-shot)".')
        parser.add_argument("b")
        parser.add_argument(
            "--method", default=None, help="Ranking method (default: the one the board shows); computed once if needed."
        )

    def handle(self, *args, code, a, b, method=None, **options):
        lb = Leaderboard.objects.filter(code=code).first()
        if lb is None:
            raise CommandError(f"no leaderboard {code!r}")
        try:
            result = compare_entries(lb, a, b, current_ranking(lb, method or lb.method))
        except (EntryNotOnBoard, UnknownMethod) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
