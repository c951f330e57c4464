"""Which datasets a submission is evaluated on, and which boards datasets feed: reads of the
registry and the data directory, beside ``boards.py``."""

from __future__ import annotations

from django.conf import settings

from evaluation.datasets import discover
from leaderboard.models import Dataset
from leaderboard.registry.languages import language_name


def available_dataset_names() -> set[str]:
    """Datasets the engine can evaluate here: the folders of the data directory."""
    return {info.name for info in discover(settings.DATA_DIR)}


def registered_datasets():
    return Dataset.objects.prefetch_related("languages")


def suite_datasets():
    return Dataset.objects.filter(in_suite=True).prefetch_related("languages")


def board_choices() -> list[tuple[str, str]]:
    """Boards with registered datasets the engine can evaluate here (the suite), for the form."""
    available = available_dataset_names()
    boards: set[str] = set()
    for dataset in suite_datasets():
        if dataset.name in available:
            boards.update(dataset.boards())
    return [(code, f"{language_name(code)} ({code})") for code in sorted(boards, key=language_name)]


def plan_datasets(boards: list[str] | None) -> tuple[list[str], list[str]]:
    """(datasets to evaluate, published leaderboard datasets of those boards that cannot be).

    A submission is evaluated on the suite: every dataset of the data directory in the suite
    (``Dataset.in_suite``) whose language feeds one of ``boards`` (empty: every board).
    Published boards also count
    datasets known only from imported results; those are listed as not evaluable here.
    """
    wanted = set(boards or [])
    available = available_dataset_names()
    planned, missing = [], []
    for dataset in registered_datasets():
        if wanted and not dataset.boards() & wanted:
            continue
        if dataset.name in available and dataset.in_suite:
            planned.append(dataset.name)
        elif dataset.counts_toward_leaderboard and dataset.name not in available:
            missing.append(dataset.name)
    return sorted(planned), sorted(missing)


def boards_of_datasets(names: list[str]) -> list[str]:
    """The boards these datasets feed (``Dataset.boards``), sorted."""
    datasets = Dataset.objects.filter(name__in=names).prefetch_related("languages")
    return sorted(set().union(*(dataset.boards() for dataset in datasets)))
