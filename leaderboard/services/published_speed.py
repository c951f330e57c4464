"""EuroEval's (ScandEval's) ``speed`` pseudo-task records: efficiency data of their own kind
(docs/methodology.md §11), stored as ``PublishedSpeed`` rows and never mixed with Glossa's measurements.

What a speed record holds depends on the ScandEval version that wrote it (read in
ScandEval/ScandEval's ``speed_benchmark.py`` at the commits named below), and the records
carry no unit, so each record's kind is told from its shape and version:

- ``scandeval-cpu-documents`` (ScandEval 6.1-7.x, commit fa187ccd, 2022-12-28, to 49e98233,
  2023-07-10): ``speed`` only. Documents per second on ScandEval's CPU: the document is
  "This is a dummy document. " × 100 (about 600 tokens, cut at the model's maximum
  length), timed over 100 passes after 10 warm-up passes; one bucket.
- ``scandeval-gpu-model-tokens`` (49e98233 on: ScandEval 8-13): ``speed`` and
  ``speed_short``. The model's OWN tokens per second (its tokenizer, so not comparable
  across tokenizers) on ScandEval's GPU, 3 seconds of passes per bucket; iteration i reads
  a long document of 10·(i+1) sentences of about 10 tokens (~100 to ~1,000 tokens) and a
  short one of ⌊2.5·(i+1)⌋ sentences (1.25·(i+1), rounded, from c72800c8 of 2023-07-21,
  the release of 8.0.0). A generative model generates one token per pass.
- ``euroeval-gpu-gpt2-tokens`` (514b174c, EuroEval/ScandEval 14.0 on): the same workload
  counted in GPT-2 tokens per second, comparable across tokenizers (EuroEval's hardware).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from django.db import DatabaseError, transaction

from leaderboard.models import LanguageModel, PublishedSpeed
from leaderboard.record_fields import (
    MAX_ITERATIONS,
    InvalidRecord,
    count_field,
    model_id_field,
    text_field,
)
from leaderboard.selectors.speed_kinds import KINDS, SpeedKind
from leaderboard.services.import_report import ImportReport
from leaderboard.services.model_metadata import fill_unknown

SPEED_TASK = "speed"
MAX_SPEED = 1e9


def is_speed(record: object) -> bool:
    return isinstance(record, dict) and record.get("task") == SPEED_TASK


def _major_version(record: dict) -> int | None:
    for key in ("euroeval_version", "scandeval_version"):
        version = text_field(record, key, 40)
        if version:
            head = version.split(".", 1)[0]
            if not head.isdigit():
                raise InvalidRecord(f"{key} must be a version such as 14.0.1, not {version[:40]!r}")
            return int(head)
    return None


def _iterations(record: dict) -> list[dict[str, float]]:
    results = record.get("results")
    raw = results.get("raw") if isinstance(results, dict) else None
    if isinstance(raw, dict):
        raw = raw.get("test")
    if not isinstance(raw, list) or not 0 < len(raw) <= MAX_ITERATIONS:
        raise InvalidRecord(f"results.raw must hold 1 to {MAX_ITERATIONS} speed iterations")
    iterations = []
    for number, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise InvalidRecord(f"speed iteration {number} is not an object")
        values = {}
        for name, value in entry.items():
            bucket = name.removeprefix("test_") if isinstance(name, str) else ""
            if bucket not in ("speed", "speed_short"):
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_SPEED:
                raise InvalidRecord(f"speed iteration {number}: {name} must be a finite number from 0 to 1e9")
            values[bucket] = float(value)
        if "speed" not in values:
            raise InvalidRecord(f"speed iteration {number} lacks test_speed")
        iterations.append(values)
    shapes = {tuple(sorted(values)) for values in iterations}
    if len(shapes) > 1:
        raise InvalidRecord("speed iterations differ in their buckets (some have test_speed_short, some not)")
    return iterations


def _means(record: dict, buckets: tuple[str, ...], iterations: list[dict]) -> dict:
    """{bucket: {mean, se}}: the record's totals where they are numbers, else the iterations'
    mean and standard error."""
    total = (record.get("results") or {}).get("total")
    total = total if isinstance(total, dict) else {}
    means = {}
    for bucket in buckets:
        values = [values[bucket] for values in iterations]
        mean, se = total.get(f"test_{bucket}"), total.get(f"test_{bucket}_se")
        ok = isinstance(mean, int | float) and not isinstance(mean, bool) and math.isfinite(mean)
        given_se = ok and isinstance(se, int | float) and not isinstance(se, bool) and math.isfinite(se)
        computed_se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else None
        means[bucket] = {
            "mean": float(mean) if ok else statistics.fmean(values),
            "se": float(se) if given_se else computed_se,
        }
    return means


@dataclass(frozen=True)
class ParsedSpeed:
    model_id: str
    kind: SpeedKind
    iterations: list[dict[str, float]]
    means: dict
    record: dict


def parse_speed(record: dict) -> ParsedSpeed:
    """A speed record checked and its kind told; InvalidRecord naming the field otherwise."""
    model_id = model_id_field(record)
    for key in ("num_model_parameters", "vocabulary_size", "max_sequence_length"):
        count_field(record, key)
    iterations = _iterations(record)
    version = _major_version(record)
    if "speed_short" not in iterations[0]:
        kind = KINDS["scandeval-cpu-documents"]
    elif version is not None and version >= 14:
        kind = KINDS["euroeval-gpu-gpt2-tokens"]
    else:
        kind = KINDS["scandeval-gpu-model-tokens"]
    stored = {key: value for key, value in record.items() if key not in ("results", "dataset_languages")}
    return ParsedSpeed(model_id, kind, iterations, _means(record, kind.buckets, iterations), stored)


@transaction.atomic
def store_speed(parsed: ParsedSpeed, source: str) -> str:
    model, _ = LanguageModel.objects.get_or_create(model_id=parsed.model_id)
    changed = fill_unknown(
        model,
        {
            "num_parameters": count_field(parsed.record, "num_model_parameters"),
            "vocabulary_size": count_field(parsed.record, "vocabulary_size"),
            "max_sequence_length": count_field(parsed.record, "max_sequence_length"),
        },
    )
    if changed:
        model.save(update_fields=changed + ["updated_at"])
    values = {"iterations": parsed.iterations, "means": parsed.means, "record": parsed.record}
    row = PublishedSpeed.objects.filter(model=model, protocol=parsed.kind.key, source=source).first()
    if row is None:
        PublishedSpeed.objects.create(model=model, protocol=parsed.kind.key, source=source[:300], **values)
        return "imported"
    if all(getattr(row, key) == value for key, value in values.items()):
        return "unchanged"
    for key, value in values.items():
        setattr(row, key, value)
    row.save()
    return "updated"


class SpeedLines:
    """The speed records of one file: checked line by line (a bad one is an error with its
    line number), the newest record per (model, kind) stored after the file is read."""

    def __init__(self) -> None:
        self.newest: dict[tuple[str, str], ParsedSpeed] = {}

    def add(self, number: int, record: dict, report: ImportReport) -> None:
        try:
            parsed = parse_speed(record)
        except InvalidRecord as exc:
            report.skip("invalid speed record", number, str(exc))
            return
        key = (parsed.model_id, parsed.kind.key)
        if key in self.newest:
            report.skip("superseded by a newer record in the file")
        self.newest[key] = parsed

    def store(self, source: str, report: ImportReport) -> None:
        for parsed in self.newest.values():
            try:
                report.speed[store_speed(parsed, source)] += 1
            except DatabaseError as exc:
                report.skip("refused by the database", None, str(exc)[:200])
