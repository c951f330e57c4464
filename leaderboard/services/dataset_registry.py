"""Register the datasets found in the data directory (``DATA_DIR``).

A folder with a valid ``dataset.json`` is a dataset: no code change to add one. The rules
(README, "Data"):

- **The folder's name is the dataset's name.** ``evaluation.datasets.discover`` refuses a
  folder whose ``dataset.json`` says another name, or that is not a valid dataset at all
  (bad JSON, wrong types, unknown task, bad language codes, missing split files); a
  refused folder is reported and the others are registered.
- **A name keeps its task and languages.** A folder named like an existing dataset that
  declares another task or other languages is refused: nothing about that dataset changes.
- **Other content is another version.** A folder with the name and task of an existing
  dataset but other split files (another fingerprint) adds a :class:`DatasetVersion`; the
  dataset's ``board_version`` (what its boards count) does not change, and the scores of
  the other versions stay theirs. A dataset first registered from the data directory has
  its folder's version as board version; an admin changes it.
- A newly registered dataset counts toward its languages' leaderboards unless that board
  already has a counting dataset of the same task (one official dataset per task and
  language, as EuroEval does) or ranks published results: a results file's datasets, or
  one of EuroEval's boards reconstructed from its published cells (its columns are the
  published ones). Re-running the sync never changes an admin's choice.

The dataset's description, license, etc. are taken from the folder that holds its board
version; another version's folder only fills fields that are empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.db import DatabaseError, transaction
from django.db.models import Q

from evaluation.datasets import SPLITS, DatasetContent, DatasetInfo, InvalidDataset, Refusal, discover
from leaderboard.identity import RECONSTRUCTED_PREFIX, short_fingerprint
from leaderboard.models import Dataset, DatasetVersion
from leaderboard.registry.boards import boards_of
from leaderboard.services.results_import import ensure_languages

DESCRIPTIVE = ("source", "license", "citation", "description")


@dataclass
class SyncReport:
    """What a sync did, folder by folder (names; ``refused`` with the reason)."""

    created: list[str] = field(default_factory=list)
    new_version: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)  # same version, descriptive fields changed
    unchanged: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)  # name → what happened, for created / new version

    def summary(self) -> str:
        return (
            f"created {len(self.created)}, new version {len(self.new_version)}, updated {len(self.updated)}, "
            f"unchanged {len(self.unchanged)}, refused {len(self.refused)}"
        )


class Refused(Exception):
    """This folder cannot be registered; the message says why. Nothing was changed."""


def _counts_on_arrival(task: str, boards: set[str]) -> bool:
    """Whether a dataset first seen in the data directory counts toward ``boards``: not
    where one of them already counts a dataset of this task (one official dataset per task
    and language), nor where one ranks published results (a dataset first seen in a results
    file, or EuroEval's board reconstructed from its cells by ``import_board``): a task its
    entries were never evaluated on would leave every one of them unranked (the data pack's
    SIB-200 sets did so to all 30 published boards). The data pack's datasets rank on the
    language's "evaluated here" suite board."""
    counting = Dataset.objects.filter(counts_toward_leaderboard=True, languages__board__in=boards).filter(
        Q(task=task) | Q(origin="results") | Q(board_version__fingerprint__startswith=RECONSTRUCTED_PREFIX)
    )
    return not counting.exists()


def _descriptive(info: DatasetInfo) -> dict:
    return {"labels": list(info.labels), **{key: getattr(info, key) for key in DESCRIPTIVE}}


def _version_fields(info: DatasetInfo, content: DatasetContent) -> dict:
    sizes = {f"{split}_size": content.sizes[split] for split in SPLITS}
    return {"origin": "data-dir", "path": str(info.path or ""), **sizes}


def _check_identity(dataset: Dataset, info: DatasetInfo) -> None:
    """A folder may add a version to a dataset, never re-type it."""
    if dataset.task != info.task:
        raise Refused(
            f"dataset {dataset.name!r} is a {dataset.task} dataset; the folder declares {info.task}. "
            "A folder cannot change a dataset's task: rename the folder (and its dataset.json name)"
        )
    known = sorted(language.code for language in dataset.languages.all())
    if known and known != sorted(info.languages):
        raise Refused(
            f"dataset {dataset.name!r} is in {', '.join(known)}; the folder declares {', '.join(info.languages)}. "
            "A folder cannot change a dataset's languages: rename the folder (and its dataset.json name)"
        )


def _fill_version(version: DatasetVersion, fields: dict) -> None:
    """A version first seen in a results file learns its sizes and folder from the folder."""
    missing = {key: value for key, value in fields.items() if key != "origin" and not getattr(version, key)}
    if missing:
        DatasetVersion.objects.filter(pk=version.pk).update(**missing)


def _describe(dataset: Dataset, info: DatasetInfo, content: DatasetContent, is_board_version: bool) -> list[str]:
    """Update the dataset's own fields from the folder; returns the names changed."""
    values = _descriptive(info)
    if is_board_version:
        values.update({f"{split}_size": content.sizes[split] for split in SPLITS}, path=str(info.path or ""))
    else:  # another version's folder only fills what is empty
        values = {key: value for key, value in values.items() if not getattr(dataset, key)}
    changed = [key for key, value in values.items() if getattr(dataset, key) != value]
    for key in changed:
        setattr(dataset, key, values[key])
    if changed:
        dataset.save(update_fields=[*changed, "updated_at"])
    if not dataset.languages.exists():
        dataset.languages.set(ensure_languages(info.languages))
        changed.append("languages")
    return changed


def _create(info: DatasetInfo, content: DatasetContent) -> Dataset:
    boards = set(boards_of(info.languages).values())
    dataset = Dataset.objects.create(
        name=info.name,
        task=info.task,
        origin="data-dir",
        counts_toward_leaderboard=_counts_on_arrival(info.task, boards),
        path=str(info.path or ""),
        **{f"{split}_size": content.sizes[split] for split in SPLITS},
        **_descriptive(info),
    )
    dataset.languages.set(ensure_languages(info.languages))
    dataset.ensure_version(content.fingerprint, **_version_fields(info, content))  # its board version
    return dataset


@transaction.atomic
def register(info: DatasetInfo, report: SyncReport) -> Dataset:
    """Register one checked folder (see the module docstring). Raises :class:`Refused` or
    InvalidDataset (split sizes, encoding) with nothing changed."""
    content = info.content  # reads the split files; InvalidDataset when they do not match dataset.json
    dataset = Dataset.objects.select_for_update().filter(name=info.name).first()
    if dataset is None:
        dataset = _create(info, content)
        report.created.append(info.name)
        report.notes[info.name] = f"version {short_fingerprint(content.fingerprint)}"
        return dataset
    _check_identity(dataset, info)
    fields = _version_fields(info, content)
    existing = dataset.versions.filter(fingerprint=content.fingerprint).first()
    version = dataset.ensure_version(content.fingerprint, **fields)
    if existing:
        _fill_version(version, fields)
    changed = _describe(dataset, info, content, dataset.board_version_id == version.pk)
    if existing is None:
        report.new_version.append(info.name)
        counted = dataset.board_version.fingerprint if dataset.board_version else "none"
        report.notes[info.name] = f"version {version.short} added; boards count {short_fingerprint(counted)}" + (
            " (this one)" if dataset.board_version_id == version.pk else ", an admin can change it"
        )
    else:
        (report.updated if changed else report.unchanged).append(info.name)
    return dataset


def sync_datasets(data_dir: Path | str) -> SyncReport:
    """Register every folder of ``data_dir``; a bad or refused folder is reported in
    ``refused`` and the others are registered all the same."""
    report = SyncReport()
    found = discover(data_dir)
    report.refused.extend(found.refused)
    for info in found.datasets:
        try:
            register(info, report)
        except (Refused, InvalidDataset) as exc:
            report.refused.append(Refusal(info.name, str(exc)))
        except DatabaseError as exc:  # e.g. a value the database refuses: this folder only
            report.refused.append(Refusal(info.name, f"the database refused it ({type(exc).__name__}: {exc})"))
    return report
