"""Register the datasets found in the data directory (``DATA_DIR``).

A folder with a ``dataset.json`` is a dataset: no code change to add one. A newly
registered dataset counts toward its languages' leaderboards unless that board already
has a counting dataset of the same task (one official dataset per task and language, as
EuroEval does; the rest are listed and evaluated but do not move the ranking). Admins
change this per dataset. Re-running the sync never changes an admin's choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from evaluation.datasets import DatasetInfo, discover
from leaderboard.languages import board_of
from leaderboard.models import Dataset
from leaderboard.services.results_import import ensure_languages


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"created {len(self.created)}, updated {len(self.updated)}, unchanged {len(self.unchanged)}"


def _board_has_official(task: str, boards: set[str]) -> bool:
    counting = Dataset.objects.filter(task=task, counts_toward_leaderboard=True).prefetch_related("languages")
    return any(board_of(lang.code) in boards for dataset in counting for lang in dataset.languages.all())


def _fields(info: DatasetInfo) -> dict:
    return {
        "task": info.task,
        "train_size": info.splits.get("train"),
        "val_size": info.splits.get("val"),
        "test_size": info.splits.get("test"),
        "labels": list(info.labels),
        "source": info.source,
        "license": info.license,
        "citation": info.citation,
        "description": info.description,
        "path": str(info.path or ""),
    }


@transaction.atomic
def register(info: DatasetInfo, report: SyncReport) -> Dataset:
    values = _fields(info)
    dataset = Dataset.objects.filter(name=info.name).first()
    if dataset is None:
        boards = {board_of(code) for code in info.languages}
        dataset = Dataset.objects.create(
            name=info.name,
            origin="data-dir",
            counts_toward_leaderboard=not _board_has_official(info.task, boards),
            **values,
        )
        dataset.languages.set(ensure_languages(info.languages))
        report.created.append(info.name)
        return dataset
    changed = [name for name, value in values.items() if getattr(dataset, name) != value]
    for name in changed:
        setattr(dataset, name, values[name])
    if changed:
        dataset.save()
    if {lang.code for lang in dataset.languages.all()} != set(info.languages):
        dataset.languages.set(ensure_languages(info.languages))
        changed.append("languages")
    (report.updated if changed else report.unchanged).append(info.name)
    return dataset


def sync_datasets(data_dir: Path | str) -> SyncReport:
    report = SyncReport()
    for info in discover(data_dir):
        register(info, report)
    return report
