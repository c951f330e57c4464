"""Import EuroEval result records (JSONL) into per-iteration scores.

One record is one model on one dataset in one variant (few-shot / zero-shot, test /
validation split). The same importer loads files published by others and the records
our own workers write. Rules (see the README):

- files are JSONL, gzip-compressed when named ``*.gz``; blank lines are ignored;
- every field is validated (:mod:`leaderboard.record_fields`); a malformed line or invalid record is
  reported with its line number and skipped, and so is one the database refuses;
- ``results.raw`` is a list of per-iteration dicts or ``{"test": [...]}``; metric names
  may carry a ``test_`` prefix; known score metrics are stored, the task's primary one is
  required; scores written in percent are rescaled (:mod:`score_scale`) and counted;
- ``question-answering`` is the old name of reading comprehension; tasks the site does
  not know are skipped and counted; the ``speed`` pseudo-task is EuroEval's own kind of
  efficiency data (``published_speed.py``), stored apart from scores;
- ``efficiency`` (what the evaluation cost, docs/methodology.md §11) is checked (``record_efficiency``)
  and stored as the evaluation's ``EvaluationCost``;
- within a file the newest (last) record of a (model, dataset, variant) wins;
- a record equal to what is stored changes nothing, so re-importing a file is a no-op;
- each record is written in its own transaction: nothing already stored is lost.
"""

from __future__ import annotations

import gzip
import json
import math
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.db import DatabaseError, transaction

from evaluation.compressed import bounded_lines
from evaluation.tasks import METRIC_LABELS, NON_TASKS, TaskSpec, UnknownTask, canonical_metric, get_task
from leaderboard.eee.files import read_results
from leaderboard.eee.records import as_legacy
from leaderboard.identity import FULL_SPLIT, PUBLISHED, Protocol
from leaderboard.models import (
    Dataset,
    Evaluation,
    IterationScore,
    Language,
    LanguageModel,
    ModelType,
)
from leaderboard.record_fields import (
    CONTAMINATION_FIELDS,
    INTRINSIC_FIELDS,
    MAX_ITERATIONS,
    InvalidRecord,
    commit_field,
    count_field,
    dataset_version_field,
    evidence_field,
    examples_fields,
    languages_field,
    limit_field,
    model_id_field,
    seed_field,
    slug_field,
    strict_bool,
    task_field,
    text_field,
    versions_field,
)
from leaderboard.registry.languages import default_board, language_name
from leaderboard.services import published_speed
from leaderboard.services.efficiency_store import store_cost
from leaderboard.services.example_store import (
    CheckedExamples,
    ExamplesNotFound,
    InvalidExamples,
    check_examples,
    examples_for_import,
    store_examples,
)
from leaderboard.services.import_report import ImportReport
from leaderboard.services.model_metadata import TypeSource, apply_catalogue, fill_unknown
from leaderboard.services.record_efficiency import check_efficiency
from leaderboard.services.score_scale import percent_metrics

__all__ = [
    "ImportReport",
    "InvalidRecord",
    "ParsedRecord",
    "SkipRecord",
    "import_file",
    "import_record",
    "parse_record",
    "store_record",
]

IMPORTED, UPDATED, UNCHANGED = "imported", "updated", "unchanged"
PRECISION_MAX = LanguageModel._meta.get_field("precision").max_length
REVISION_MAX = Evaluation._meta.get_field("revision").max_length
MAX_LINE = 10_000_000  # bytes in one JSONL line


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
    rescaled: tuple[str, ...] = ()  # metrics whose raw values were percent
    efficiency: dict | None = None  # checked ``efficiency`` (record_efficiency.py)

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
    """A well-formed record that carries nothing to import (the speed pseudo-task) or
    that the site cannot use (an unknown task). ``reason`` is counted; ``detail``, when
    given, is listed with the line number."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def _raw_iterations(results: dict, validation_split: bool) -> list:
    raw = results.get("raw")
    if isinstance(raw, dict):
        split = "val" if validation_split and "val" in raw else "test"
        raw = raw.get(split)
    if not isinstance(raw, list) or not raw:
        raise InvalidRecord("results.raw holds no per-iteration scores")
    if len(raw) > MAX_ITERATIONS:
        raise InvalidRecord(f"results.raw holds {len(raw)} iterations; at most {MAX_ITERATIONS} are accepted")
    return raw


def _totals(results: dict) -> dict[str, object]:
    total = results.get("total")
    if total is None:
        return {}
    if not isinstance(total, dict):
        raise InvalidRecord("results.total must be an object")
    return {canonical_metric(name): value for name, value in total.items() if isinstance(name, str)}


def _iteration_scores(raw: list, spec: TaskSpec, totals: dict[str, object]) -> tuple[tuple[dict[str, float], ...], set]:
    """Per-iteration scores of the known metrics, as fractions, and the metrics that were
    rescaled from percent. The task's primary metric is required in every iteration."""
    iterations = []
    for number, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise InvalidRecord(f"iteration {number} is not an object")
        scores = {}
        for name, value in entry.items():
            metric = canonical_metric(name) if isinstance(name, str) else ""
            if metric not in METRIC_LABELS:
                continue  # loss, runtime, samples per second: not scores
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise InvalidRecord(f"iteration {number}: {name} is not a finite number")
            scores[metric] = float(value)
        if spec.primary_metric not in scores:
            raise InvalidRecord(f"iteration {number} lacks {spec.primary_metric} for task {spec.name}")
        iterations.append(scores)
    percent = percent_metrics(iterations, totals)
    for scores in iterations:
        for metric in percent & scores.keys():
            scores[metric] /= 100.0
    for metric in sorted({m for scores in iterations for m in scores}):
        stray = [v for scores in iterations if not -1.0 <= (v := scores.get(metric, 0.0)) <= 1.0]
        if stray:
            raise InvalidRecord(f"{metric} outside [-1, 1] ({stray[0]:g}) and its values are not on a percentage scale")
    return tuple(iterations), percent


def _check_metadata(record: dict) -> None:
    """Fields that end up in columns or on pages: types and sizes that fit."""
    for key in ("num_model_parameters", "vocabulary_size", "max_sequence_length"):
        count_field(record, key)
    text_field(record, "precision", PRECISION_MAX)
    text_field(record, "model_revision", REVISION_MAX)
    text_field(record, "generative_type", 40)
    for key in ("backend", "prompt_style", "created_at", "euroeval_version"):
        text_field(record, key, 200)
    strict_bool(record, "generative", None)
    versions_field(record)
    seed_field(record)
    examples_fields(record)


def parse_record(record: object) -> ParsedRecord:
    """Validate and normalise one record; raises InvalidRecord or SkipRecord.

    Every field the site reads is checked (names, language codes, booleans, numbers and
    text lengths); unknown extra fields are kept as they are in the stored record.
    """
    if not isinstance(record, dict):
        raise InvalidRecord("a record must be a JSON object")
    for key in ("dataset", "task", "model", "results"):
        if key not in record:
            raise InvalidRecord(f"missing key {key!r}")
    task_name = task_field(record)
    if task_name in NON_TASKS:
        raise SkipRecord(f"{task_name} pseudo-task")
    try:
        spec = get_task(task_name)
    except UnknownTask as exc:
        raise SkipRecord(f"unknown task {task_name}", str(exc)) from exc
    model_id = model_id_field(record)
    dataset = slug_field(record, "dataset")
    if not isinstance(record["results"], dict):
        raise InvalidRecord("results must be an object")
    languages = languages_field(record)
    few_shot = strict_bool(record, "few_shot", True)
    validation_split = strict_bool(record, "validation_split", False)
    _check_metadata(record)
    evidence_field(record, "intrinsic", INTRINSIC_FIELDS)
    evidence_field(record, "contamination", CONTAMINATION_FIELDS)
    efficiency = check_efficiency(record)
    dataset_version = dataset_version_field(record)
    commit_sha = commit_field(record)
    test_limit = limit_field(record)
    raw = _raw_iterations(record["results"], validation_split)
    iterations, rescaled = _iteration_scores(raw, spec, _totals(record["results"]))
    reports_training_loss = any(
        isinstance(entry, dict) and any(isinstance(n, str) and canonical_metric(n) == "loss" for n in entry)
        for entry in raw
    )
    stored = {key: value for key, value in record.items() if key != "results"}
    stored["results"] = {key: value for key, value in record["results"].items() if key != "raw"}
    if efficiency is not None:
        stored["efficiency"] = efficiency
    return ParsedRecord(
        model_id=model_id,
        dataset=dataset,
        task=spec.name,
        languages=languages,
        few_shot=few_shot,
        validation_split=validation_split,
        iterations=iterations,
        record=stored,
        reports_training_loss=reports_training_loss,
        dataset_version=dataset_version or PUBLISHED,
        commit_sha=commit_sha or "",
        test_limit=FULL_SPLIT if test_limit is None else test_limit,
        rescaled=tuple(sorted(rescaled)),
        efficiency=efficiency,
    )


def read_records(path: Path) -> Iterator[tuple[int, object | None, str | None]]:
    """Yield (line number, decoded record or None, error or None) for each non-blank line
    of a JSONL file, gzip-compressed when its name ends in ``.gz``. Lines are read in
    bounded chunks: one longer than MAX_LINE bytes is an error and is never held whole. A
    file that cannot be read to its end (a truncated archive) yields one last error
    instead of raising."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    number = 0
    try:
        with opener(path, "rb") as handle:
            for number, line in enumerate(bounded_lines(handle, MAX_LINE), start=1):
                yield from _decode_line(number, line)
    except (OSError, EOFError, zlib.error) as exc:
        yield number + 1, None, f"file unreadable from here on ({type(exc).__name__}: {exc})"


def _decode_line(number: int, line: bytes | None) -> Iterator[tuple[int, object | None, str | None]]:
    if line is None:
        yield number, None, f"line longer than {MAX_LINE} bytes"
        return
    text = line.decode("utf-8", errors="replace")
    if not text.strip():
        return
    try:
        yield number, json.loads(text), None
    except json.JSONDecodeError as exc:
        yield number, None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        yield number, None, "not valid JSON (nested too deep)"


def ensure_languages(codes: Iterable[str]) -> list[Language]:
    languages = []
    for code in codes:
        language, _ = Language.objects.get_or_create(
            code=code, defaults={"name": language_name(code), "board": default_board(code)}
        )
        languages.append(language)
    return languages


def _model_type(parsed: ParsedRecord) -> tuple[str | None, TypeSource]:
    """The model's type from what the record says, and how sure that is. Old files say
    nothing; one that reports a training loss was fine-tuned, which suggests an encoder but
    ScandEval fine-tuned decoders too (gpt2 in 2023): the weakest claim, which any statement
    or config replaces (``model_metadata``)."""
    record = parsed.record
    if record.get("generative") is False:
        return ModelType.ENCODER, TypeSource.RECORD
    if "generative" not in record and parsed.reports_training_loss:
        return ModelType.ENCODER, TypeSource.FINE_TUNED
    if "#" in str(record.get("model", "")):
        return ModelType.REASONING, TypeSource.RECORD
    return ModelType.from_euroeval_generative_type(record.get("generative_type")), TypeSource.RECORD


def _ensure_model(parsed: ParsedRecord) -> LanguageModel:
    record = parsed.record
    model, _ = LanguageModel.objects.get_or_create(model_id=parsed.model_id)
    model_type, type_source = _model_type(parsed)
    changed = fill_unknown(
        model,
        {
            "num_parameters": count_field(record, "num_model_parameters"),
            "vocabulary_size": count_field(record, "vocabulary_size"),
            "max_sequence_length": count_field(record, "max_sequence_length"),
            "precision": record.get("precision"),
            "model_type": model_type,
        },
        type_source,
    )
    changed += [name for name in apply_catalogue(model) if name not in changed]
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
def store_record(parsed: ParsedRecord, *, source: str, submission=None, examples: CheckedExamples | None = None) -> str:
    """Write one parsed record, and its per-example evidence when given (already checked
    with ``example_store.check_examples``); returns imported / updated / unchanged."""
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
    examples_changed = examples is not None and store_examples(evaluation, examples)
    if not created:
        stored = set(evaluation.scores.values_list("iteration", "metric", "value"))
        if stored == wanted and evaluation.record == parsed.record:
            return UPDATED if examples_changed else UNCHANGED
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
    store_cost(evaluation, parsed.efficiency)
    return IMPORTED if created else UPDATED


def import_record(record: dict, *, source: str, submission=None, examples: bytes | None = None) -> str:
    """Validate and store one record (the workers' path) with its examples when given;
    raises InvalidRecord/SkipRecord, and InvalidExamples before anything is stored."""
    parsed = parse_record(record)
    checked = check_examples(examples, parsed.record, len(parsed.iterations)) if examples is not None else None
    return store_record(parsed, source=source, submission=submission, examples=checked)


def _examples_beside(path: Path, parsed: ParsedRecord, number: int, report: ImportReport) -> CheckedExamples | None:
    """The checked examples the record names, from beside ``path``; None (the reason
    reported, the record still imported) when they are missing or wrong."""
    try:
        return examples_for_import(path, parsed.record, len(parsed.iterations))
    except ExamplesNotFound as exc:
        report.examples_problem("examples not found", number, str(exc))
    except InvalidExamples as exc:
        report.examples_problem("examples refused", number, str(exc))
    return None


def import_file(path: Path | str, *, source: str | None = None) -> ImportReport:
    """Import a JSONL (or gzip-compressed JSONL) file of result records.

    Never raises for a bad line: a malformed line, an invalid record or one the database
    refuses is counted and listed with its line number, and the other records import.
    """
    path = Path(path)
    source = source or path.name
    report = ImportReport()
    newest: dict[tuple, tuple[int, ParsedRecord]] = {}
    speeds = published_speed.SpeedLines()
    for number, record, error in read_results(path, read_records):  # JSONL, or a .json EEE log
        if error:
            report.skip("malformed", number, error)
            continue
        if published_speed.is_speed(record):  # EuroEval's speed pseudo-task: its own kind
            speeds.add(number, record, report)
            continue
        try:
            parsed = parse_record(as_legacy(record))  # an EEE record becomes EuroEval's record
        except SkipRecord as exc:
            report.skip(exc.reason, number, exc.detail)
            continue
        except InvalidRecord as exc:
            report.skip("invalid record", number, str(exc))
            continue
        if parsed.key in newest:
            report.skip("superseded by a newer record in the file")
        newest[parsed.key] = (number, parsed)
    for number, parsed in newest.values():
        examples = _examples_beside(path, parsed, number, report)
        try:
            report.count(store_record(parsed, source=source, examples=examples))
            report.with_examples += examples is not None
        except InvalidRecord as exc:
            report.skip("invalid record", number, str(exc))
            continue
        except DatabaseError as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            report.skip("refused by the database", number, f"the database refused the record: {first_line}")
            continue
        if parsed.rescaled:
            report.rescaled += 1
    speeds.store(source, report)
    return report
