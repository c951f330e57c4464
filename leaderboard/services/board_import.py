"""Import EuroEval's published boards as reconstructed evaluations (``manage.py import_board``).

A board CSV (``leaderboards/<language>_<all|nlu>.csv`` of EuroEval/leaderboards) prints,
per entry and dataset, ``mean ± x`` of the primary and secondary metric. Each such cell
becomes one ``Evaluation`` with 10 ``IterationScore`` rows per metric chosen by
:func:`leaderboard.published.cells.iteration_values`: their sample mean and standard error
are exactly the published ones, so the Welch tests, intervals and pooled spreads of every
ranking method are those of the published summaries.

Provenance and identity. Every cell of one board commit is stored on the dataset version
``reconstructed:EuroEval/leaderboards@<commit>`` (:func:`board_fingerprint`), which is
shown with every score on the pages and in every export; the evaluation's ``source`` and
its ``record["reconstructed_from"]`` name the repository, commit and files. Because the
version is part of an evaluation's identity, reconstructed scores never merge with, nor
overwrite, scores evaluated here or imported from records of the same model (those are on
other versions), and a board counts one version per dataset.

The board's datasets count on its language's board from then on: the reconstructed
version becomes each dataset's board version unless the dataset counts a data directory
version (an administrator's or the suite's), and datasets of that language that only
older published results (a ``published`` version: ScandEval's 2023 records) counted stop
counting there; they and their scores are kept as history, listed on the model pages.

The ``_all`` and ``_nlu`` boards of a language print the same cells; :func:`import_boards`
merges the files of one language and writes them in one transaction, in bulk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction
from django.utils import timezone

from evaluation.tasks import UnknownTask, board_metrics, get_task
from leaderboard.identity import (
    FULL_SPLIT,
    PUBLISHED,
    RECONSTRUCTED_REPOSITORY,
    reconstructed_fingerprint,
)
from leaderboard.models import Dataset, DatasetVersion, Evaluation, IterationScore, LanguageModel, ModelType
from leaderboard.published.boards import AMBIGUOUS_BUILD, BoardFormatError, parse_board
from leaderboard.published.cells import CellOutOfRange, MergedBoard, entry_identity, fractions
from leaderboard.published.reproduction import best_reading
from leaderboard.record_fields import InvalidRecord, model_id_field
from leaderboard.registry.languages import EUROEVAL_BOARD_CODES, EUROEVAL_GROUP_FILES
from leaderboard.services.model_metadata import fill_unknown
from leaderboard.services.results_import import ensure_languages

REPOSITORY = RECONSTRUCTED_REPOSITORY
FILE_RE = re.compile(r"^(?P<name>[a-z_]+)_(?P<kind>all|nlu)$")
COMMIT_RE = re.compile(r"^[0-9a-f]{7,40}$")
TYPE_OF_EMOJI = {
    "🧠": ModelType.BASE,
    "📝": ModelType.INSTRUCTION_TUNED,
    "🤔": ModelType.REASONING,
    "🔍": ModelType.ENCODER,
}


RECONSTRUCTED = "reconstructed"


class BoardImportError(ValueError):
    """The file is not a EuroEval board this command imports."""


def board_fingerprint(commit: str) -> str:
    """The dataset version of the cells of the boards at ``commit``."""
    return reconstructed_fingerprint(commit)


@dataclass(frozen=True)
class BoardFile:
    path: Path
    name: str  # EuroEval's English name: danish, mainland_scandinavian
    kind: str  # all or nlu

    @classmethod
    def of(cls, path: Path | str) -> BoardFile:
        path = Path(path)
        match = FILE_RE.match(path.stem)
        if not match:
            raise BoardImportError(f"{path.name}: expected a file named <language>_<all|nlu>.csv")
        if match["name"] not in EUROEVAL_BOARD_CODES and match["name"] not in EUROEVAL_GROUP_FILES:
            raise BoardImportError(f"{path.name}: {match['name']!r} is not a language or group EuroEval publishes")
        return cls(path, match["name"], match["kind"])

    @property
    def is_group(self) -> bool:
        return self.name in EUROEVAL_GROUP_FILES


@dataclass
class BoardImportReport:
    board: str
    files: list[str]
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    entries: int = 0
    history: list[str] = field(default_factory=list)  # datasets that stopped counting
    readings: dict[str, float] = field(default_factory=dict)  # entry → z of its 16.17.0.dev0 cells
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = (
            f"{self.board} ({', '.join(self.files)}): {self.entries} entries; imported {self.imported}, "
            f"updated {self.updated}, unchanged {self.unchanged}"
        )
        if self.readings:
            half = sorted(label for label, z in self.readings.items() if z != 1.0)
            entries, plain = len(self.readings), len(self.readings) - len(half)
            text += f"; {AMBIGUOUS_BUILD} cells of {entries} entries: {plain} read as s/√n"
            text += f", {len(half)} as 95% half-widths ({', '.join(half)})" if half else ""
        if self.history:
            text += f"; no longer counted (history): {', '.join(self.history)}"
        return text + (f"; problems: {len(self.problems)}" if self.problems else "")


def read_language(files: list[BoardFile]) -> tuple[MergedBoard, dict[str, float]]:
    """The merged cells of a language's files, and per entry how its ambiguous cells are read
    (:func:`leaderboard.published.reproduction.best_reading`)."""
    boards = {}
    for board_file in files:
        try:
            boards[board_file.kind] = parse_board(board_file.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, BoardFormatError) as exc:
            raise BoardImportError(f"{board_file.path.name}: {exc}") from None
    merged, readings, _ = best_reading(boards)
    return merged, readings


def import_boards(paths: list[Path | str], commit: str) -> list[BoardImportReport]:
    """Import board files (languages; group files are checked and carry nothing to import)."""
    if not COMMIT_RE.match(commit or ""):
        raise BoardImportError(f"not a commit of {REPOSITORY}: {commit!r}")
    by_language: dict[str, list[BoardFile]] = {}
    reports = []
    for path in paths:
        board_file = BoardFile.of(path)
        if board_file.is_group:
            reports.append(BoardImportReport(board_file.name, [board_file.path.name]))
            reports[-1].problems.append("a group board: its language boards carry its records")
            continue
        by_language.setdefault(board_file.name, []).append(board_file)
    for name, files in sorted(by_language.items()):
        reports.append(import_language(EUROEVAL_BOARD_CODES[name], files, commit))
    return reports


def _source(files: list[BoardFile], commit: str) -> str:
    names = ", ".join(f"leaderboards/{f.path.name}" for f in files)
    return f"reconstructed from {REPOSITORY}@{commit[:12]} {names}"[:300]


@transaction.atomic
def import_language(code: str, files: list[BoardFile], commit: str) -> BoardImportReport:
    merged, readings = read_language(files)
    report = BoardImportReport(code, [f.path.name for f in files])
    report.readings = readings
    report.problems += [f"printed differently on its boards (first kept): {c}" for c in merged.conflicts]
    versions = _dataset_versions(code, merged, commit, report)
    models = _models(merged, report)
    provenance = {"repository": REPOSITORY, "commit": commit, "files": report.files}
    wanted: dict[tuple, tuple[dict, list[tuple[int, str, float]]]] = {}
    for label, cells in merged.cells.items():
        if label not in models:
            continue
        identity = entry_identity(label)
        for dataset, cell in cells.items():
            if dataset not in versions:
                continue
            try:
                rows = _score_rows(merged.dataset_tasks[dataset], cell)
            except CellOutOfRange as exc:
                report.problems.append(f"{label} / {dataset}: {exc}")
                continue
            record = {  # a record's identity fields, so that an export (EEE) carries them
                "model": identity.model_id,
                "dataset": dataset,
                "dataset_languages": [code],
                "task": merged.dataset_tasks[dataset],
                "few_shot": identity.few_shot,
                "validation_split": identity.validation_split,
                "leaderboard_label": label,
                "published_cell": _cell_text(cell),
                "reconstructed_from": provenance,
            }
            key = (models[label].pk, versions[dataset].pk, identity.few_shot, identity.validation_split)
            wanted[key] = (record, rows)
    _write(wanted, versions, models, _source(files, commit), report)
    report.entries = len({label for label in merged.cells if label in models})
    return report


def _cell_text(cell) -> str:
    """The published cell, and how its ``±`` was read (for a cell of the ambiguous build: the
    reading of its entry that reproduces the published rank scores)."""
    parts = [cell.primary] + ([cell.secondary] if cell.secondary else [])
    text = " / ".join(f"{m:.2f} ± {x:.2f}" for m, x in parts) + (" (± is s/√n)" if cell.z == 1.0 else "")
    if cell.ambiguous:
        text += f" ({AMBIGUOUS_BUILD}: ± read as {'s/√n' if cell.z == 1.0 else 'the 95% half-width'} for this entry)"
    return text


def _score_rows(task: str, cell) -> list[tuple[int, str, float]]:
    primary, secondary = board_metrics(task)
    rows = [(i, primary, v) for i, v in enumerate(fractions(*cell.primary, cell.z))]
    if secondary and cell.secondary:
        rows += [(i, secondary, v) for i, v in enumerate(fractions(*cell.secondary, cell.z))]
    return rows


def _dataset_versions(code: str, merged: MergedBoard, commit: str, report) -> dict[str, DatasetVersion]:
    """Each board dataset's reconstructed version (created when new), counted on the board."""
    language = ensure_languages([code])[0]
    fingerprint = board_fingerprint(commit)
    versions = {}
    for name, task in merged.dataset_tasks.items():
        try:
            task = get_task(task).name
        except UnknownTask as exc:
            report.problems.append(f"dataset {name}: {exc}")
            continue
        dataset, _ = Dataset.objects.get_or_create(
            name=name, defaults={"task": task, "origin": "results", "counts_toward_leaderboard": True}
        )
        if dataset.task != task:
            report.problems.append(f"dataset {name} is a {dataset.task} dataset here, the board says {task}")
            continue
        if not dataset.languages.filter(board=language.board).exists():
            dataset.languages.add(language)  # a dataset already feeding the board (nb → no) keeps its tags
        version, _ = DatasetVersion.objects.get_or_create(dataset=dataset, fingerprint=fingerprint)
        counted = dataset.board_version
        if counted is None or counted.origin != "data-dir":
            dataset.board_version = version
            dataset.counts_toward_leaderboard = True
            dataset.save(update_fields=["board_version", "counts_toward_leaderboard", "updated_at"])
        versions[name] = version
    _retire_history(language, set(versions), report)
    return versions


def _retire_history(language, current: set[str], report) -> None:
    """Datasets feeding this language's board counted only through older published results
    (``nb`` and ``nn`` datasets on ``no``, too) stop counting."""
    older = (
        Dataset.objects.filter(
            languages__board=language.board, counts_toward_leaderboard=True, board_version__isnull=False
        )
        .exclude(name__in=current)
        .distinct()
        .filter(board_version__fingerprint__startswith=PUBLISHED)
    )
    for dataset in older:
        dataset.counts_toward_leaderboard = False
        dataset.save(update_fields=["counts_toward_leaderboard", "updated_at"])
        report.history.append(dataset.name)


def _models(merged: MergedBoard, report) -> dict[str, LanguageModel]:
    """The board's entries' models (created when new; unknown metadata filled in)."""
    ids = {}
    for label in merged.cells:
        model_id = entry_identity(label).model_id
        try:
            ids[label] = model_id_field({"model": model_id})
        except InvalidRecord as exc:
            report.problems.append(f"entry {label!r}: {exc}")
    existing = {m.model_id: m for m in LanguageModel.objects.filter(model_id__in=set(ids.values()))}
    LanguageModel.objects.bulk_create(
        [LanguageModel(model_id=m) for m in sorted(set(ids.values()) - existing.keys())], ignore_conflicts=True
    )
    stored = {m.model_id: m for m in LanguageModel.objects.filter(model_id__in=set(ids.values()))}
    for label, model_id in ids.items():
        model = stored[model_id]
        changed = fill_unknown(model, _metadata(merged.metadata.get(label, {})))
        if changed:
            model.save(update_fields=changed + ["updated_at"])
    return {label: stored[model_id] for label, model_id in ids.items()}


def _count(text: str | None) -> int | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return int(value) if 0 < value < 2**62 else None


def _metadata(row: dict) -> dict:
    kind = row.get("type") or row.get("generative_type") or ""
    return {
        "num_parameters": _count(row.get("parameters") or row.get("num_model_parameters")),
        "vocabulary_size": _count(row.get("vocabulary") or row.get("vocabulary_size")),
        "max_sequence_length": _count(row.get("context") or row.get("max_sequence_length")),
        "model_type": TYPE_OF_EMOJI.get(kind) or ModelType.from_euroeval_generative_type(kind),
    }


def _write(wanted: dict, versions: dict, models: dict, source: str, report: BoardImportReport) -> None:
    """Write the wanted evaluations in bulk: unchanged ones are left alone, changed ones get
    their scores replaced, new ones are created."""
    existing = {
        (ev.model_id, ev.dataset_version_id, ev.few_shot, ev.validation_split): ev
        for ev in Evaluation.objects.filter(
            dataset_version__in=list(versions.values()), commit_sha="", test_limit=FULL_SPLIT
        )
    }
    dataset_of = {v.pk: v.dataset_id for v in versions.values()}
    changed, new = [], []
    for key, (record, rows) in wanted.items():
        ev = existing.get(key)
        if ev is not None and ev.record == record and ev.num_iterations == len({i for i, _, _ in rows}):
            report.unchanged += 1
            continue
        if ev is None:
            model_pk, version_pk, few_shot, validation_split = key
            ev = Evaluation(
                model_id=model_pk,
                dataset_id=dataset_of[version_pk],
                dataset_version_id=version_pk,
                few_shot=few_shot,
                validation_split=validation_split,
                num_iterations=len({i for i, _, _ in rows}),
            )
            new.append(ev)
        else:
            changed.append(ev)
        ev.record, ev.source, ev.updated_at = record, source, timezone.now()
    if changed:
        IterationScore.objects.filter(evaluation__in=changed).delete()
        Evaluation.objects.bulk_update(changed, ["record", "source", "updated_at"])
    Evaluation.objects.bulk_create(new, batch_size=2000)
    _insert_scores(
        (ev.pk, i, metric, value)
        for ev in changed + new
        for i, metric, value in wanted[(ev.model_id, ev.dataset_version_id, ev.few_shot, ev.validation_split)][1]
    )
    report.imported += len(new)
    report.updated += len(changed)


def _insert_scores(rows, chunk: int = 20_000) -> None:
    """INSERT (evaluation, iteration, metric, value) rows with ``executemany``: a board holds
    ~10^6 scores, and building a model instance per row cost three quarters of the import
    (profiled: 45 s of 55 s for Danish); the database checks the same constraints."""
    meta = IterationScore._meta
    columns = ", ".join(meta.get_field(name).column for name in ("evaluation", "iteration", "metric", "value"))
    sql = f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({columns}) VALUES (%s, %s, %s, %s)"
    rows = list(rows)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), chunk):
            cursor.executemany(sql, rows[start : start + chunk])
