"""Where a board's Every Eval Ever downloads are, for the board's export document."""

from __future__ import annotations

from collections import defaultdict

from django.urls import reverse

from leaderboard.models import Evaluation


def add_eee_links(code: str, entries: list[dict]) -> str:
    """Give each entry ``eee``: dataset → the URL of the EEE log of the evaluation the board
    counts; returns the URL of the board's zip of all of them."""
    from leaderboard.eee.export import counted_evaluation_ids  # imports the export service

    rows = Evaluation.objects.filter(pk__in=counted_evaluation_ids(code)).values_list(
        "pk", "model__model_id", "few_shot", "validation_split", "dataset__name"
    )
    by_entry: dict[tuple, dict[str, str]] = defaultdict(dict)
    for pk, model, few_shot, validation_split, dataset in rows:
        by_entry[(model, few_shot, validation_split)][dataset] = reverse("api-evaluation-eee", args=[pk])
    for entry in entries:
        key = (entry["model"], entry["few_shot"], entry["validation_split"])
        entry["eee"] = dict(sorted(by_entry.get(key, {}).items()))
    return reverse("api-leaderboard-eee", args=[code])
