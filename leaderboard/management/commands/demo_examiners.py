"""The demo's examiners: the bundled decoders examine in Danish, once (docs/methodology.md §8).

An existing examiner is never changed; with any examiner registered, nothing is added
(a deployment chooses its own in the admin)."""

from django.core.management.base import BaseCommand

from leaderboard.models import Examiner

BUNDLED_DECODERS = ("HuggingFaceTB/SmolLM2-135M-Instruct", "google/gemma-3-270m")


class Command(BaseCommand):
    help = "Register the bundled decoders as Danish examiners when no examiner is registered."

    def add_arguments(self, parser):
        parser.add_argument("--language", action="append", default=None, help="board codes (default: da)")

    def handle(self, *args, language, **options):
        if Examiner.objects.exists():
            self.stdout.write("Examiners: already registered (see /admin/leaderboard/examiner/).")
            return
        languages = language or ["da"]
        for model_id in BUNDLED_DECODERS:
            Examiner.objects.create(model_id=model_id, backend="transformers", languages=languages)
        self.stdout.write(
            f"Examiners: {', '.join(BUNDLED_DECODERS)} examine in {', '.join(languages)} "
            "(a submission that opts in is examined by them)."
        )
