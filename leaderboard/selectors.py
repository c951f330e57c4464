"""Reads shared by pages, the API and commands."""

from __future__ import annotations

from django.db.models import Count, Max

from leaderboard.models import Evaluation, Language


def home_boards() -> list[dict]:
    """Language boards that have results: code, name, number of models, last update."""
    rows = (
        Evaluation.objects.values("dataset__languages__board")
        .annotate(models=Count("model", distinct=True), updated=Max("updated_at"))
        .order_by("dataset__languages__board")
    )
    names = {lang.code: lang.name for lang in Language.objects.all()}
    return [
        {
            "code": row["dataset__languages__board"],
            "name": names.get(row["dataset__languages__board"], row["dataset__languages__board"]),
            "models": row["models"],
            "updated": row["updated"],
        }
        for row in rows
        if row["dataset__languages__board"]
    ]
