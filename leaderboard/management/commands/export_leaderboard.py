"""``python manage.py export_leaderboard CODE``: the board as JSON (same as the API)."""

import json

from django.core.management.base import BaseCommand, CommandError

from leaderboard.ranking import UnknownMethod
from leaderboard.selectors.export import LeaderboardNotFound, board_document, document_csv, get_leaderboard
from leaderboard.services.method_rankings import computed_ranking


class Command(BaseCommand):
    help = "Print a leaderboard as the JSON document of GET /api/leaderboards/CODE.json (or CSV)."

    def add_arguments(self, parser):
        parser.add_argument("code", help="Board code, e.g. da, no, scandinavian.")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        parser.add_argument(
            "--method", default=None, help="Ranking method (default: the one the board shows); computed once if needed."
        )

    def handle(self, *args, code, format, method=None, **options):
        try:
            lb = get_leaderboard(code)
            document = board_document(lb, computed_ranking(lb, method))
        except (LeaderboardNotFound, UnknownMethod) as exc:
            raise CommandError(str(exc)) from None
        if format == "csv":
            self.stdout.write(document_csv(document), ending="")
        else:
            self.stdout.write(json.dumps(document, indent=2, ensure_ascii=False))
