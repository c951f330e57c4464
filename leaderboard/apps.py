from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _seed_board_registry(sender, using="default", **kwargs) -> None:
    # imports the models: apps.py is loaded while the app registry is still being populated
    from leaderboard.registry.boards import seed_if_empty

    seed_if_empty(using)


class LeaderboardConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboard"
    verbose_name = "Glossa leaderboard"

    def ready(self) -> None:
        # An empty registry (a new database, or one flushed) gets the seed languages and
        # groups back; a registry with any row is the administrators' and is left alone.
        post_migrate.connect(_seed_board_registry, sender=self, dispatch_uid="glossa-seed-board-registry")
