"""Test data for the ranking tests, written straight through the ORM.

``add_evaluation`` makes one evaluation with its iteration scores; ``load_results_file``
loads a EuroEval results file through the importer (``results_import.import_file``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evaluation.tasks import canonical_task, get_task
from leaderboard.identity import PUBLISHED
from leaderboard.models import Dataset, Evaluation, IterationScore, Language, LanguageModel
from leaderboard.registry.languages import default_board


def language(code: str) -> Language:
    lang, _ = Language.objects.get_or_create(code=code, defaults={"name": code, "board": default_board(code)})
    return lang


def dataset(name: str, task: str, languages: list[str], counts: bool = True) -> Dataset:
    ds, created = Dataset.objects.get_or_create(
        name=name, defaults={"task": canonical_task(task), "counts_toward_leaderboard": counts, "origin": "results"}
    )
    if created:
        ds.languages.set([language(c) for c in languages])
    return ds


def model(model_id: str, **fields) -> LanguageModel:
    obj, _ = LanguageModel.objects.get_or_create(model_id=model_id, defaults=fields)
    return obj


def add_evaluation(
    model_id,
    ds: Dataset,
    primary: list[float],
    secondary: list[float] | None = None,
    *,
    few_shot: bool = True,
    validation_split: bool = False,
    version: str = PUBLISHED,
    commit: str = "",
    test_limit: int = 0,
) -> Evaluation:
    """One evaluation with its scores; ``version`` is the dataset fingerprint it ran on."""
    spec = get_task(ds.task)
    ev = Evaluation.objects.create(
        model=model(model_id),
        dataset=ds,
        dataset_version=ds.ensure_version(version),
        few_shot=few_shot,
        validation_split=validation_split,
        commit_sha=commit,
        test_limit=test_limit,
        num_iterations=len(primary),
        source="test",
    )
    rows = [
        IterationScore(evaluation=ev, iteration=i, metric=spec.primary_metric, value=v) for i, v in enumerate(primary)
    ]
    if secondary is not None:
        rows += [
            IterationScore(evaluation=ev, iteration=i, metric=spec.secondary_metric, value=v)
            for i, v in enumerate(secondary)
        ]
    IterationScore.objects.bulk_create(rows)
    return ev


def load_results_file(path: Path) -> int:
    """Load a EuroEval results file with the project's importer; returns records imported."""
    from leaderboard.services.results_import import import_file

    report = import_file(path)
    return report.imported


def it(mean: float, seed: int = 0, *, spread: float = 0.02, n: int = 10) -> list[float]:
    """``n`` iteration scores around ``mean`` (deterministic for a seed), clipped to [0, 1]."""
    rng = np.random.default_rng(seed)
    return list(np.round(np.clip(mean + rng.normal(0, spread, n), 0, 1), 6))
