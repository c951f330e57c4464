"""Import EuroEval result records (JSONL) into per-iteration scores.

One record is one model on one dataset in one variant (few-shot / zero-shot, test /
validation split). The same importer loads files published by others and the records
our own workers write. Rules (see the README):

- blank lines are ignored; a malformed line is reported with its line number and skipped;
- ``results.raw`` is a list of per-iteration dicts or ``{"test": [...]}``; metric names
  may carry a ``test_`` prefix; only the task's score metrics are stored;
- ``question-answering`` is the old name of reading comprehension; the ``speed``
  pseudo-task is skipped;
- within a file the newest (last) record of a (model, dataset, variant) wins;
- a record equal to what is stored changes nothing, so re-importing a file is a no-op;
- each record is written in its own transaction: nothing already stored is lost.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from django.db import transaction

from evaluation.revisions import is_commit_id
from evaluation.tasks import METRIC_LABELS, NON_TASKS, UnknownTask, canonical_metric, canonical_task, get_task
from leaderboard.identity import FULL_SPLIT, PUBLISHED, Protocol
from leaderboard.languages import board_of, language_name
from leaderboard.models import (
    Dataset,
    Evaluation,
    IterationScore,
    Language,
    LanguageModel,
    ModelType,
)

IMPORTED, UPDATED, UNCHANGED = "imported", "updated", "unchanged"
FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{64}$")
GENERATIVE_TYPES = {
    "base": ModelType.BASE,
    "instruction_tuned": ModelType.INSTRUCTION_TUNED,
    "instruction-tuned": ModelType.INSTRUCTION_TUNED,
    "reasoning": ModelType.REASONING,
}


class InvalidRecord(ValueError):
    """A record that cannot be imported; the message says why."""


@dataclass
class ImportReport:
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: list[tuple[int, str]] = field(default_factory=list)

    def count(self, outcome: str) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    def skip(self, reason: str, line: int | None = None, detail: str = "") -> None:
        self.skipped[reason] += 1
        if line is not None and detail:
            self.errors.append((line, detail))

    @property
    def total_skipped(self) -> int:
        return sum(self.skipped.values())

    def summary(self) -> str:
        reasons = ", ".join(f"{reason}: {n}" for reason, n in sorted(self.skipped.items()))
        skipped = f"skipped {self.total_skipped}" + (f" ({reasons})" if reasons else "")
        return f"imported {self.imported}, updated {self.updated}, unchanged {self.unchanged}, {skipped}"


@dataclass(frozen=True)
class ParsedRecord:
    """A validated record, normalised: canonical task and metric names, scores per iteration."""

    model_id: str
    dataset: str
    task: str
    languages: tuple[str, ...]
    few_shot: bool
    validation_split: bool
    iterations: tuple[dict[str, float], ...]
    record: dict
    reports_training_loss: bool = False
    dataset_version: str = PUBLISHED
    commit_sha: str = ""
    test_limit: int = FULL_SPLIT

    @property
    def protocol(self) -> Protocol:
        return Protocol(len(self.iterations), self.test_limit)

    @property
    def key(self) -> tuple:
        """The result's identity: model commit, dataset version, variant and protocol."""
        return (
            self.model_id,
            self.dataset,
            self.dataset_version,
            self.commit_sha,
            self.few_shot,
            self.validation_split,
            self.protocol,
        )


class SkipRecord(Exception):
    """A well-formed record that carries nothing to import (e.g. the speed pseudo-task)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _raw_iterations(results: dict, validation_split: bool) -> list:
    raw = results.get("raw")
    if isinstance(raw, dict):
        split = "val" if validation_split and "val" in raw else "test"
        raw = raw.get(split)
    if not isinstance(raw, list) or not raw:
        raise InvalidRecord("results.raw holds no per-iteration scores")
    return raw


def _percent_metrics(iterations: list[dict[str, float]], total: object) -> set[str]:
    """Metrics whose raw values are written in percent (old files do so for question answering).

    Stored scores are in [0, 1]. ``results.total`` is always ×100, so a raw mean that
    equals the total's mean says the raw values are percent too; without a total, a raw
    value above 1 (no score of ours exceeds 1) says the same.
    """
    totals = {canonical_metric(k): v for k, v in total.items()} if isinstance(total, dict) else {}
    percent = set()
    for metric in iterations[0]:
        values = [scores[metric] for scores in iterations]
        mean = sum(values) / len(values)
        reported = totals.get(metric)
        if isinstance(reported, (int, float)) and not isinstance(reported, bool) and reported != 0:
            if abs(mean - reported) <= 1e-6 * max(1.0, abs(reported)):
                percent.add(metric)
                continue
            if abs(100 * mean - reported) <= 1e-6 * max(1.0, abs(reported)):
                continue
        if any(abs(value) > 1 for value in values):
            percent.add(metric)
    return percent


def _iteration_scores(raw: list, task: str, total: object = None) -> tuple[dict[str, float], ...]:
    spec = get_task(task)
    wanted = {spec.primary_metric, spec.secondary_metric}
    iterations = []
    for number, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise InvalidRecord(f"iteration {number} is not an object")
        scores = {}
        for name, value in entry.items():
            metric = canonical_metric(name)
            if metric not in METRIC_LABELS:
                continue  # loss, runtime, samples per second: not scores
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise InvalidRecord(f"iteration {number}: {name} is not a finite number")
            scores[metric] = float(value)
        if not wanted <= scores.keys():
            missing = ", ".join(sorted(wanted - scores.keys()))
            raise InvalidRecord(f"iteration {number} lacks {missing} for task {task}")
        iterations.append(scores)
    percent = _percent_metrics(iterations, total)
    for scores in iterations:
        for metric in percent:
            scores[metric] /= 100.0
        out_of_range = [m for m, v in scores.items() if not -1.0 <= v <= 1.0]
        if out_of_range:
            raise InvalidRecord(f"{', '.join(out_of_range)} outside [-1, 1] (and not a percentage)")
    return tuple(iterations)


def parse_record(record: object) -> ParsedRecord:
    """Validate and normalise one record; raises InvalidRecord or SkipRecord."""
    if not isinstance(record, dict):
        raise InvalidRecord("a record must be a JSON object")
    for key in ("dataset", "task", "model", "results"):
        if key not in record:
            raise InvalidRecord(f"missing key {key!r}")
    if record["task"] in NON_TASKS:
        raise SkipRecord(f"{record['task']} pseudo-task")
    try:
        task = get_task(record["task"]).name
    except UnknownTask as exc:
        raise SkipRecord(f"unknown task {record['task']}") from exc
    model_id, dataset = record["model"], record["dataset"]
    if not isinstance(model_id, str) or not model_id.strip() or len(model_id) > 300:
        raise InvalidRecord("model must be a non-empty string of at most 300 characters")
    if not isinstance(dataset, str) or not dataset.strip() or len(dataset) > 100:
        raise InvalidRecord("dataset must be a non-empty string of at most 100 characters")
    if not isinstance(record["results"], dict):
        raise InvalidRecord("results must be an object")
    languages = record.get("dataset_languages") or []
    if not isinstance(languages, list) or not all(isinstance(code, str) for code in languages):
        raise InvalidRecord("dataset_languages must be a list of language codes")
    few_shot = record.get("few_shot")
    validation_split = record.get("validation_split")
    few_shot = True if few_shot is None else bool(few_shot)
    validation_split = False if validation_split is None else bool(validation_split)
    raw = _raw_iterations(record["results"], validation_split)
    iterations = _iteration_scores(raw, task, record["results"].get("total"))
    reports_training_loss = any(
        isinstance(entry, dict) and any(canonical_metric(name) == "loss" for name in entry) for entry in raw
    )
    stored = {key: value for key, value in record.items() if key != "results"}
    stored["results"] = {key: value for key, value in record["results"].items() if key != "raw"}
    dataset_version = record.get("dataset_version")
    if dataset_version is None:
        dataset_version = PUBLISHED
    elif not isinstance(dataset_version, str) or not FINGERPRINT.match(dataset_version):
        raise InvalidRecord("dataset_version must be 'sha256:' and 64 hexadecimal digits")
    commit_sha = record.get("model_commit") or ""
    if not isinstance(commit_sha, str) or (commit_sha and not is_commit_id(commit_sha)):
        raise InvalidRecord("model_commit must be a 40-character hexadecimal commit sha "
                            "(or a bundled model's 'bundled:<package>==<version>')")
    test_limit = record.get("limit")
    if test_limit is None:
        test_limit = FULL_SPLIT
    elif not isinstance(test_limit, int) or isinstance(test_limit, bool) or not 0 < test_limit <= 10_000_000:
        raise InvalidRecord("limit must be a positive whole number of test rows, or null for the full split")
    return ParsedRecord(
        model_id=model_id.strip(),
        dataset=dataset.strip(),
        task=canonical_task(task),
        languages=tuple(languages),
        few_shot=few_shot,
        validation_split=validation_split,
        iterations=iterations,
        record=stored,
        reports_training_loss=reports_training_loss,
        dataset_version=dataset_version,
        commit_sha=commit_sha,
        test_limit=test_limit,
    )


def read_records(path: Path) -> Iterator[tuple[int, object | None, str | None]]:
    """Yield (line number, decoded record or None, error or None) for each non-blank line."""
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line), None
            except json.JSONDecodeError as exc:
                yield number, None, f"not valid JSON ({exc.msg} at column {exc.colno})"


def ensure_languages(codes: Iterable[str]) -> list[Language]:
    languages = []
    for code in codes:
        language, _ = Language.objects.get_or_create(
            code=code, defaults={"name": language_name(code), "board": board_of(code)}
        )
        languages.append(language)
    return languages


def _model_type(parsed: ParsedRecord) -> str | None:
    """The model's type from what the record says; old files say nothing, but only a
    fine-tuned encoder reports a training loss per iteration."""
    record = parsed.record
    if record.get("generative") is False or ("generative" not in record and parsed.reports_training_loss):
        return ModelType.ENCODER
    if "#" in str(record.get("model", "")):
        return ModelType.REASONING
    return GENERATIVE_TYPES.get(record.get("generative_type") or "")


def _ensure_model(parsed: ParsedRecord) -> LanguageModel:
    record = parsed.record
    model, _ = LanguageModel.objects.get_or_create(model_id=parsed.model_id)
    # Fill what is unknown; never overwrite metadata a person or an evaluation recorded.
    fields = {
        "num_parameters": record.get("num_model_parameters"),
        "vocabulary_size": record.get("vocabulary_size"),
        "max_sequence_length": record.get("max_sequence_length"),
        "precision": record.get("precision"),
    }
    changed = []
    for name, value in fields.items():
        if value not in (None, "", -1) and getattr(model, name) in (None, ""):
            setattr(model, name, value)
            changed.append(name)
    model_type = _model_type(parsed)
    if model_type and model.model_type == ModelType.UNKNOWN:
        model.model_type = model_type
        changed.append("model_type")
    if changed:
        model.save(update_fields=changed + ["updated_at"])
    return model


def _ensure_dataset(parsed: ParsedRecord) -> Dataset:
    dataset = Dataset.objects.filter(name=parsed.dataset).first()
    if dataset is None:
        # First seen in a results file: created from the record; it counts toward its
        # languages' leaderboards until an admin excludes it.
        dataset = Dataset.objects.create(
            name=parsed.dataset, task=parsed.task, origin="results", counts_toward_leaderboard=True
        )
        dataset.languages.set(ensure_languages(parsed.languages))
    elif dataset.task != parsed.task:
        raise InvalidRecord(f"dataset {parsed.dataset} is a {dataset.task} dataset, the record says {parsed.task}")
    return dataset


def _score_rows(parsed: ParsedRecord) -> set[tuple[int, str, float]]:
    return {(i, metric, value) for i, scores in enumerate(parsed.iterations) for metric, value in scores.items()}


@transaction.atomic
def store_record(parsed: ParsedRecord, *, source: str, submission=None) -> str:
    """Write one parsed record; returns imported / updated / unchanged."""
    model = _ensure_model(parsed)
    dataset = _ensure_dataset(parsed)
    version = dataset.ensure_version(parsed.dataset_version, origin="results")
    evaluation, created = Evaluation.objects.select_for_update().get_or_create(
        model=model,
        dataset_version=version,
        few_shot=parsed.few_shot,
        validation_split=parsed.validation_split,
        commit_sha=parsed.commit_sha,
        num_iterations=len(parsed.iterations),
        test_limit=parsed.test_limit,
        defaults={"source": source, "submission": submission, "dataset": dataset},
    )
    wanted = _score_rows(parsed)
    if not created:
        stored = set(evaluation.scores.values_list("iteration", "metric", "value"))
        if stored == wanted and evaluation.record == parsed.record:
            return UNCHANGED
        evaluation.scores.all().delete()
    evaluation.record = parsed.record
    evaluation.num_iterations = len(parsed.iterations)
    evaluation.revision = str(parsed.record.get("model_revision") or "")
    evaluation.source = source
    if submission is not None:
        evaluation.submission = submission
    evaluation.save()
    IterationScore.objects.bulk_create(
        IterationScore(evaluation=evaluation, iteration=i, metric=metric, value=value)
        for i, metric, value in sorted(wanted)
    )
    return IMPORTED if created else UPDATED


def import_record(record: dict, *, source: str, submission=None) -> str:
    """Validate and store one record (the workers' path); raises InvalidRecord/SkipRecord."""
    return store_record(parse_record(record), source=source, submission=submission)


def import_file(path: Path | str, *, source: str | None = None) -> ImportReport:
    """Import a JSONL file of result records; never raises for a bad line."""
    path = Path(path)
    source = source or path.name
    report = ImportReport()
    newest: dict[tuple, tuple[int, ParsedRecord]] = {}
    for number, record, error in read_records(path):
        if error:
            report.skip("malformed", number, error)
            continue
        try:
            parsed = parse_record(record)
        except SkipRecord as exc:
            report.skip(exc.reason)
            continue
        except InvalidRecord as exc:
            report.skip("invalid record", number, str(exc))
            continue
        if parsed.key in newest:
            report.skip("superseded by a newer record in the file")
        newest[parsed.key] = (number, parsed)
    for number, parsed in newest.values():
        try:
            report.count(store_record(parsed, source=source))
        except InvalidRecord as exc:
            report.skip("invalid record", number, str(exc))
    return report
