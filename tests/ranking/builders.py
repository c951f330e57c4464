"""Test data for the ranking tests, written straight through the ORM.

``add_evaluation`` makes one evaluation with its iteration scores. ``load_results_file``
loads a EuroEval results file: through the lead's importer when it is available
(``leaderboard.services.results_import.import_file``), otherwise with a minimal loader
that keeps the fields the ranking reads (skips ``speed``, reads ``raw`` as a list or as
``{"test": [...]}`` with ``test_``-prefixed metric names, keeps the last duplicate).
"""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.tasks import NON_TASKS, canonical_metric, canonical_task, get_task
from leaderboard.languages import board_of
from leaderboard.models import Dataset, Evaluation, IterationScore, Language, LanguageModel


def language(code: str) -> Language:
    lang, _ = Language.objects.get_or_create(code=code, defaults={"name": code, "board": board_of(code)})
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


def add_evaluation(model_id, ds: Dataset, primary: list[float], secondary: list[float] | None = None,
                   *, few_shot: bool = True, validation_split: bool = False) -> Evaluation:
    spec = get_task(ds.task)
    ev = Evaluation.objects.create(
        model=model(model_id), dataset=ds, few_shot=few_shot, validation_split=validation_split,
        num_iterations=len(primary), source="test",
    )
    rows = [IterationScore(evaluation=ev, iteration=i, metric=spec.primary_metric, value=v) for i, v in enumerate(primary)]
    if secondary is not None:
        rows += [IterationScore(evaluation=ev, iteration=i, metric=spec.secondary_metric, value=v) for i, v in enumerate(secondary)]
    IterationScore.objects.bulk_create(rows)
    return ev


def load_results_file(path: Path) -> int:
    try:
        from leaderboard.services.results_import import import_file
    except ImportError:
        import_file = None
    if import_file is not None:
        import_file(path)
        return Evaluation.objects.count()
    records = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec["task"] in NON_TASKS:
            continue
        key = (rec["model"], rec["dataset"], rec.get("few_shot", True), rec.get("validation_split", False))
        records[key] = rec  # the last duplicate wins
    scores = []
    for (model_id, ds_name, few_shot, val), rec in records.items():
        ds = dataset(ds_name, rec["task"], rec["dataset_languages"])
        spec = get_task(ds.task)
        raw = rec["results"]["raw"]
        raw = raw["test"] if isinstance(raw, dict) else raw
        m = model(model_id, num_parameters=rec.get("num_model_parameters"))
        ev = Evaluation.objects.create(model=m, dataset=ds, few_shot=few_shot if few_shot is not None else True,
                                       validation_split=bool(val), num_iterations=len(raw), source=str(path))
        for i, it in enumerate(raw):
            canon = {canonical_metric(k): v for k, v in it.items()}
            for metric in (spec.primary_metric, spec.secondary_metric):
                if metric in canon:
                    scores.append(IterationScore(evaluation=ev, iteration=i, metric=metric, value=canon[metric]))
    IterationScore.objects.bulk_create(scores, batch_size=5000)
    return len(records)
