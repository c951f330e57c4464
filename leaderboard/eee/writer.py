"""A stored evaluation → an Every Eval Ever log (schema 0.2.1) and its instance-level rows.

The log is laid out as EuroEval's writer lays it out (so EuroEval reads it back), with
what the schema demands where EuroEval's writer does not: every ``additional_details``
value is a string and a value that is unknown is left out, never ``null``.

Glossa's identity travels along: the dataset version (fingerprint) in the result's
``source_data.additional_details.dataset_version``, the model commit in
``model_info.additional_details.model_commit``, the protocol in
``eval_library.additional_details.protocol`` (``iterations`` and ``limit`` as the record
has them), the evaluation's cost (docs/methodology.md §11) JSON-encoded in
``eval_library.additional_details.efficiency``, and every other field of the stored record as JSON in
``eval_library.additional_details.glossa_record``, so :mod:`.records` gives the record back.
Per-iteration scores are the stored ones (fractions, canonical metric names with the
split's prefix); ``results.total`` is the record's, or computed from the scores and marked
``glossa_derived`` when the record had none.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from evaluation.metrics import totals as euroeval_totals
from evaluation.tasks import canonical_metric
from leaderboard.eee.records import (
    FAILED,
    LIBRARY_COUNTS,
    LIBRARY_FLAGS,
    LIBRARY_TEXTS,
    MODEL_COUNTS,
    MODEL_FLAGS,
    MODEL_TEXTS,
)

SCHEMA_VERSION = "0.2.1"
INSTANCE_SCHEMA_VERSION = "instance_level_eval_0.2.1"
MAPPED = frozenset(
    {"dataset", "task", "dataset_languages", "model", "results", "euroeval_version", "dataset_version", "efficiency"}
    | set(MODEL_COUNTS + MODEL_FLAGS + MODEL_TEXTS + LIBRARY_FLAGS + LIBRARY_TEXTS + LIBRARY_COUNTS)
)
SIGNED_METRICS = frozenset({"mcc"})  # in [-100, 100]; the others in [0, 100]


@dataclass(frozen=True)
class StoredEvaluation:
    """What the log is written from: the stored record (without raw scores), the stored
    per-iteration scores, and the identity the database holds."""

    record: dict
    iterations: list[dict[str, float]]
    dataset_version: str
    commit: str
    protocol: str
    retrieved: int  # Unix time the log describes (the evaluation's last change)
    evaluated_at: str  # ISO time of the evaluation
    source: str = ""
    encoder: bool = False
    examples_file: str = ""  # name of Glossa's examples file written beside the log


def _text(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _strings(values: dict) -> dict[str, str]:
    """The schema's ``additional_details``: strings only, unknown values left out."""
    return {key: _text(value) for key, value in values.items() if value is not None}


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def evaluation_id(stored: StoredEvaluation) -> str:
    record = stored.record
    return f"{record.get('dataset')}/{record.get('model')}/{stored.retrieved}"


def _split(record: dict) -> str:
    return "val" if record.get("validation_split") else "test"


def raw_results(stored: StoredEvaluation) -> list[dict[str, float]]:
    prefix = _split(stored.record) + "_"
    return [{prefix + metric: value for metric, value in sorted(scores.items())} for scores in stored.iterations]


def _totals(stored: StoredEvaluation) -> tuple[dict, bool]:
    """The record's ``results.total`` (its numbers), or one computed from the scores."""
    total = (stored.record.get("results") or {}).get("total")
    if isinstance(total, dict) and any(_finite(v) and not k.endswith("_se") for k, v in total.items()):
        return {k: v for k, v in total.items() if isinstance(k, str) and _finite(v)}, False
    metrics = sorted({m for scores in stored.iterations for m in scores})
    complete = [{m: scores[m] for m in metrics} for scores in stored.iterations if all(m in scores for m in metrics)]
    return euroeval_totals(complete, _split(stored.record)), True


def _result(name: str, total: dict, stored: StoredEvaluation, derived: bool) -> dict:
    score = total[name]
    details = {}
    if FAILED in total:
        details[FAILED] = str(total[FAILED])
    if derived:
        details["glossa_derived"] = "true"
    uncertainty: dict = {}
    half = total.get(f"{name}_se")
    if _finite(half):
        uncertainty["confidence_interval"] = {
            "lower": score - half,
            "upper": score + half,
            "confidence_level": 0.95,
            "method": "bootstrap",
        }
        details[f"{name}_se"] = repr(float(half)) if isinstance(half, float) else str(half)
    if stored.iterations:
        uncertainty["num_samples"] = len(stored.iterations)
    score_details: dict = {"score": score, "details": details}
    if uncertainty:
        score_details["uncertainty"] = uncertainty
    record = stored.record
    source_details = _strings(
        {"dataset_version": stored.dataset_version, "split": _split(record), "protocol": stored.protocol}
    )
    return {
        "evaluation_result_id": f"{record.get('dataset')}/{name}",
        "evaluation_name": name,
        "source_data": {
            "dataset_name": str(record.get("dataset")),
            "source_type": "hf_dataset",
            "hf_split": _split(record),
            "additional_details": source_details,
        },
        "metric_config": {
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": -100 if canonical_metric(name) in SIGNED_METRICS else 0,
            "max_score": 100,
        },
        "score_details": score_details,
    }


def _model_info(stored: StoredEvaluation) -> dict:
    record = stored.record
    details = {key: record.get(key) for key in MODEL_COUNTS + MODEL_FLAGS + MODEL_TEXTS}
    if stored.commit:
        details["model_commit"] = stored.commit
    if details.get("generative") is None and stored.encoder:
        details["generative"] = False
    info = {"name": str(record.get("model")), "id": str(record.get("model")), "additional_details": _strings(details)}
    backend = record.get("backend")
    versions = record.get("versions") if isinstance(record.get("versions"), dict) else {}
    if isinstance(backend, str) and backend:
        engine = {"name": backend}
        if isinstance(versions.get(backend), str):
            engine["version"] = versions[backend]
        info["inference_engine"] = engine
    return info


def _library(stored: StoredEvaluation) -> dict:
    record = stored.record
    # Fields EEE has no place for, and mapped ones written as null (left out of the EEE fields).
    extra = {key: value for key, value in record.items() if key not in MAPPED or value is None}
    if stored.examples_file:
        extra["examples_file"] = stored.examples_file
    else:
        extra.pop("examples_file", None)
    extra.pop("predictions_file", None)  # a path on the machine that ran it
    details = {
        "dataset": record.get("dataset"),
        "languages": json.dumps(list(record.get("dataset_languages") or []), ensure_ascii=False),
        "task": record.get("task"),
        **{key: record.get(key) for key in LIBRARY_FLAGS + LIBRARY_TEXTS + LIBRARY_COUNTS},
        "protocol": stored.protocol,
        "raw_results": json.dumps(raw_results(stored), ensure_ascii=False),
        # what the evaluation cost (docs/methodology.md §11), JSON-encoded: EEE has no field for it
        "efficiency": json.dumps(record["efficiency"], ensure_ascii=False) if record.get("efficiency") else None,
        "glossa_record": json.dumps(extra, ensure_ascii=False, sort_keys=True) if extra else None,
    }
    euroeval = record.get("euroeval_version")
    name, version = ("euroeval", euroeval) if isinstance(euroeval, str) and euroeval else ("glossa", None)
    if name == "glossa" and isinstance(record.get("versions"), dict):
        version = record["versions"].get("glossa")
    return {"name": name, "version": str(version or "unknown"), "additional_details": _strings(details)}


def eee_log(stored: StoredEvaluation) -> dict:
    """The evaluation as one EEE log (schema 0.2.1)."""
    total, derived = _totals(stored)
    metrics = [name for name in total if not name.endswith("_se") and name != FAILED]
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id(stored),
        "evaluation_timestamp": stored.evaluated_at,
        "retrieved_timestamp": str(stored.retrieved),
        "source_metadata": {
            "source_name": "Glossa",
            "source_type": "evaluation_run",
            "source_organization_name": "Glossa",
            "evaluator_relationship": "third_party",
            "additional_details": _strings({"source": stored.source or None}),
        },
        "model_info": _model_info(stored),
        "eval_library": _library(stored),
        "evaluation_results": [_result(name, total, stored, derived) for name in metrics],
    }
