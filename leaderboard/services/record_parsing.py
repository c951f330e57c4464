"""A EuroEval result record, validated and normalised into a :class:`ParsedRecord`.

Every field the site reads is checked (:mod:`record_fields`); ``results.raw`` is a list of
per-iteration dicts or ``{"test": [...]}``; metric names may carry a ``test_`` prefix;
known score metrics are kept, the task's primary one is required; scores written in
percent are rescaled (:mod:`score_scale`); ``question-answering`` is the old name of
reading comprehension; the ``speed`` pseudo-task and tasks the site does not know are
skipped (:class:`SkipRecord`); ``efficiency`` is checked (``record_efficiency``).
Writing a parsed record is :mod:`results_import`'s job.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaluation.tasks import METRIC_LABELS, NON_TASKS, TaskSpec, UnknownTask, canonical_metric, get_task
from leaderboard.identity import FULL_SPLIT, PUBLISHED, Protocol
from leaderboard.models import Evaluation, LanguageModel
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
from leaderboard.services.record_efficiency import check_efficiency
from leaderboard.services.score_scale import percent_metrics

__all__ = ["InvalidRecord", "ParsedRecord", "SkipRecord", "parse_record"]

PRECISION_MAX = LanguageModel._meta.get_field("precision").max_length
REVISION_MAX = Evaluation._meta.get_field("revision").max_length


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
