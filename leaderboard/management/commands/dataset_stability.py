"""``python manage.py dataset_stability NAME [--repeats K]``: how many examples the dataset
needs to rank its models (the table of its dataset page, docs/methodology.md §9)."""

from django.core.management.base import BaseCommand, CommandError

from evaluation.stability import DEFAULT_REPEATS, STABLE_TAU
from leaderboard.models import Dataset
from leaderboard.selectors.stability import dataset_stability


class Command(BaseCommand):
    help = (
        "For subsamples of 50, 100, 200, 500, 1000 and all shared test examples (drawn K times), print the "
        "share of model pairs a paired Wilcoxon signed-rank test separates at p < 0.05 and Kendall's tau "
        "against the full ranking, from the stored examples of the models evaluated on the dataset."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="Dataset name, e.g. scala-da.")
        parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS, help="Subsamples per size.")

    def handle(self, *args, name, repeats, **options):
        dataset = Dataset.objects.filter(name=name).first()
        if dataset is None:
            raise CommandError(f"no dataset {name!r}")
        if repeats < 1:
            raise CommandError("--repeats must be at least 1")
        result = dataset_stability(dataset, repeats)
        if result.table is None:
            raise CommandError(
                f"{name}: {result.num_models} model(s) with stored examples sharing at least two examples; "
                "at least two are needed (published results come without examples)"
            )
        table = result.table
        self.stdout.write(
            f"{name} (version {result.version}, {len(table.models)} models, {table.num_examples} shared examples)"
        )
        self.stdout.write(f"{'n':>6} {'repeats':>8} {'separated':>10} {'kendall_tau':>12}")
        for row in table.rows:
            self.stdout.write(f"{row.n:>6} {row.repeats:>8} {row.separated:>10.3f} {row.tau:>12.3f}")
        stable = table.stable_size
        self.stdout.write(f"stable size (mean tau >= {STABLE_TAU}): {stable if stable is not None else 'not reached'}")
