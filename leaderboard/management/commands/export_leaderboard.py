"""``python manage.py export_leaderboard CODE``: the board as JSON (same as the API)."""

import json

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.export import LeaderboardNotFound, leaderboard_csv, leaderboard_document


class Command(BaseCommand):
    help = "Print a leaderboard as the JSON document of GET /api/leaderboards/CODE.json (or CSV)."

    def add_arguments(self, parser):
        parser.add_argument("code", help="Board code, e.g. da, no, scandinavian.")
        parser.add_argument("--format", choices=["json", "csv"], default="json")

    def handle(self, *args, code, format, **options):
        try:
            if format == "csv":
                self.stdout.write(leaderboard_csv(code), ending="")
            else:
                self.stdout.write(json.dumps(leaderboard_document(code), indent=2, ensure_ascii=False))
        except LeaderboardNotFound as exc:
            raise CommandError(str(exc)) from None
