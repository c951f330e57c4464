"""An Every Eval Ever record → the EuroEval result record the importer reads.

The mapping is that of EuroEval's own reader (``benchmark_result_from_eee_dict`` in
EuroEval's ``eee_utils.py``), read field by field and written anew:

- model: ``model_info.name``; its ``additional_details`` hold the parameter count, the
  context length, the vocabulary size, ``merge``, ``generative`` and ``generative_type``
  as strings (EuroEval writes ``null`` for an unknown generative type);
- dataset: the first result's ``source_data.dataset_name`` (else
  ``eval_library.additional_details.dataset``); task, few-shot, validation split and the
  library versions are in ``eval_library.additional_details``; languages there are a
  JSON-encoded list (``"[\\"nl\\"]"``);
- ``results.raw``: ``eval_library.additional_details.raw_results``, a JSON-encoded list of
  per-iteration score objects; ``results.total``: one entry per ``evaluation_results``
  item (its score; the 95% interval's half width as ``<metric>_se``; the number of failed
  instances from ``score_details.details``);
- the EuroEval version: ``eval_library.version`` unless ``unknown``.

Where EuroEval quietly substitutes a default for a broken value (a raw-results string
that is not JSON becomes no scores, a missing count becomes 0), this reader refuses the
record with the field's path, so a line that cannot be trusted is an error with its line
number and never a zero. Glossa's own exports (:mod:`.writer`) add the identity EEE has no
field for: ``source_data.additional_details.dataset_version``,
``model_info.additional_details.model_commit`` / ``model_revision`` / ``precision``,
``eval_library.additional_details.iterations`` / ``limit`` / ``seed`` / ``efficiency``
(the evaluation's cost, JSON-encoded), and the record's
remaining fields as JSON in ``eval_library.additional_details.glossa_record``.
"""

from __future__ import annotations

import json
import math

from leaderboard.identity import PUBLISHED
from leaderboard.record_fields import InvalidRecord

SCHEMA_VERSIONS = frozenset({"0.2.1"})  # the version EuroEval ≥ 17 writes and the one vendored
MAX_ENCODED = 5_000_000  # characters of one JSON-encoded field (raw results, the Glossa record)
FAILED = "num_failed_instances"
MODEL_COUNTS = ("num_model_parameters", "max_sequence_length", "vocabulary_size")
MODEL_FLAGS = ("merge", "generative", "commercially_licensed", "open", "trained_from_scratch")
MODEL_TEXTS = ("generative_type", "model_commit", "model_revision", "precision")
LIBRARY_FLAGS = ("few_shot", "validation_split", "use_bits_per_character")
LIBRARY_TEXTS = ("transformers_version", "torch_version", "vllm_version", "xgrammar_version", "litellm_version")
LIBRARY_COUNTS = ("iterations", "limit", "seed")


def is_eee(record: object) -> bool:
    """EuroEval's own test: an EEE record is an object with ``schema_version``."""
    return isinstance(record, dict) and "schema_version" in record


def as_legacy(record: object) -> object:
    """``record`` as a EuroEval result record when it is an EEE record; anything else is
    returned unchanged (the importer validates it as it always did)."""
    return legacy_record(record) if is_eee(record) else record


def _object(parent: dict, key: str, path: str) -> dict:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidRecord(f"EEE {path}{key} must be an object")
    return value


def _decoded(text: object, path: str) -> object:
    if not isinstance(text, str):
        raise InvalidRecord(f"EEE {path} must be a JSON-encoded string, not {type(text).__name__}")
    if len(text) > MAX_ENCODED:
        raise InvalidRecord(f"EEE {path} is longer than {MAX_ENCODED} characters")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecord(f"EEE {path} is not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InvalidRecord(f"EEE {path} is not valid JSON (nested too deep)") from None


def _number(value: object, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidRecord(f"EEE {path} must be a finite number, not {json.dumps(value)[:40]}")
    return float(value) if isinstance(value, float) else value


def _flag(value: object, path: str) -> bool | None:
    """``"true"`` / ``"false"`` (any case), a JSON boolean, or null; anything else is an error."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise InvalidRecord(f"EEE {path} must be 'true' or 'false', not {json.dumps(value)[:40]}")


def _count(value: object, path: str) -> int | None:
    """A whole number written as a string (``"7000000000"``, ``"-1"``) or as a number."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit() and len(text) <= 20:
            return int(text)
    elif isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidRecord(f"EEE {path} must be a whole number, not {json.dumps(value)[:40]}")


def _text(value: object, path: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise InvalidRecord(f"EEE {path} must be a string, not {json.dumps(value)[:40]}")


def _languages(value: object) -> list:
    """A JSON-encoded list (EuroEval), a list, or one bare code (EuroEval's fallback)."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str) and value.isalpha() and len(value) <= 3:
        return [value]
    languages = _decoded(value, "eval_library.additional_details.languages")
    if not isinstance(languages, list):
        raise InvalidRecord("EEE eval_library.additional_details.languages must encode a list of language codes")
    return languages


def _result_totals(results: object) -> tuple[dict, str]:
    """``results.total`` from ``evaluation_results``, and the first result's dataset name."""
    if not isinstance(results, list):
        raise InvalidRecord("EEE evaluation_results must be a list")
    total: dict = {}
    dataset = ""
    for number, item in enumerate(results):
        path = f"evaluation_results[{number}]."
        if not isinstance(item, dict):
            raise InvalidRecord(f"EEE {path[:-1]} must be an object")
        name = _text(item.get("evaluation_name"), path + "evaluation_name")
        if not name:
            raise InvalidRecord(f"EEE {path}evaluation_name is missing")
        if number == 0:
            dataset = _text(_object(item, "source_data", path).get("dataset_name"), path + "source_data.dataset_name")
        details = _object(item, "score_details", path)
        extra = _object(details, "details", path + "score_details.")
        if extra.get("glossa_derived") == "true":
            continue  # a total Glossa computed for the export; the record had none
        total[name] = _number(details.get("score"), path + "score_details.score")
        interval = _object(_object(details, "uncertainty", path + "score_details."), "confidence_interval", path)
        if "lower" in interval and "upper" in interval:
            lower = _number(interval["lower"], path + "confidence_interval.lower")
            upper = _number(interval["upper"], path + "confidence_interval.upper")
            total[f"{name}_se"] = (upper - lower) / 2
            if isinstance(extra.get(f"{name}_se"), str):  # Glossa's exact half width
                total[f"{name}_se"] = _number_text(extra[f"{name}_se"], path + f"score_details.details.{name}_se")
        failed = extra.get(FAILED)
        if failed is not None and FAILED not in total:
            total[FAILED] = _number_text(failed, path + f"score_details.details.{FAILED}")
    return total, dataset or ""


def _number_text(value: object, path: str) -> float:
    if isinstance(value, str) and len(value) <= 40:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise InvalidRecord(f"EEE {path} must be a number written as a string, not {json.dumps(value)[:40]}")


def _raw_results(library: dict) -> list:
    if library.get("raw_results") is None:
        raise InvalidRecord("EEE eval_library.additional_details.raw_results is missing: no per-iteration scores")
    raw = _decoded(library["raw_results"], "eval_library.additional_details.raw_results")
    if not isinstance(raw, (list, dict)):
        raise InvalidRecord("EEE eval_library.additional_details.raw_results must encode a list of iterations")
    return raw


def _model_fields(model_details: dict) -> dict:
    path = "model_info.additional_details."
    fields: dict = {}
    for key in MODEL_COUNTS:
        if (value := _count(model_details.get(key), path + key)) is not None:
            fields[key] = value
    for key in MODEL_FLAGS:
        if (value := _flag(model_details.get(key), path + key)) is not None:
            fields[key] = value
    for key in MODEL_TEXTS:
        if (value := _text(model_details.get(key), path + key)) is not None:
            fields[key] = value
    return fields


def _library_fields(library: dict, details: dict) -> dict:
    path = "eval_library.additional_details."
    fields: dict = {}
    for key in LIBRARY_FLAGS:
        if (value := _flag(details.get(key), path + key)) is not None:
            fields[key] = value
    for key in LIBRARY_TEXTS:
        if (value := _text(details.get(key), path + key)) is not None:
            fields[key] = value
    for key in LIBRARY_COUNTS:
        if (value := _count(details.get(key), path + key)) is not None:
            fields[key] = value
    version = _text(library.get("version"), "eval_library.version")
    if str(library.get("name", "")).lower() == "euroeval" and version and version != "unknown":
        fields["euroeval_version"] = version
    return fields


def _glossa_fields(details: dict) -> dict:
    """The record fields a Glossa export kept as JSON (what EEE has no field for)."""
    if details.get("glossa_record") is None:
        return {}
    fields = _decoded(details["glossa_record"], "eval_library.additional_details.glossa_record")
    if not isinstance(fields, dict):
        raise InvalidRecord("EEE eval_library.additional_details.glossa_record must encode an object")
    return fields


def _schema_version(record: dict) -> None:
    version = record.get("schema_version")
    if isinstance(version, str) and version.startswith("instance_level_eval"):
        raise InvalidRecord("an EEE instance-level row (a sidecar of per-example records), not an evaluation log")
    if version not in SCHEMA_VERSIONS:
        known = ", ".join(sorted(SCHEMA_VERSIONS))
        raise InvalidRecord(f"EEE schema_version {json.dumps(version)[:40]} is not one this site reads ({known})")


def legacy_record(record: dict) -> dict:
    """The EuroEval result record an EEE record describes; InvalidRecord naming the field
    when a field is missing, of the wrong type, or not decodable."""
    _schema_version(record)
    model_info = _object(record, "model_info", "")
    library = _object(record, "eval_library", "")
    details = _object(library, "additional_details", "eval_library.")
    total, dataset = _result_totals(record.get("evaluation_results", []))
    first = (record.get("evaluation_results") or [{}])[0]
    source_details = _object(_object(first, "source_data", ""), "additional_details", "source_data.")
    converted = {
        "dataset": dataset or _text(details.get("dataset"), "eval_library.additional_details.dataset") or "",
        "task": _text(details.get("task"), "eval_library.additional_details.task") or "",
        "dataset_languages": _languages(details.get("languages")),
        "model": _text(model_info.get("name"), "model_info.name") or "",
        "results": {"raw": _raw_results(details), "total": total},
        **_model_fields(_object(model_info, "additional_details", "model_info.")),
        **_library_fields(library, details),
    }
    if details.get("efficiency") is not None:  # Glossa's export: the cost, checked by the importer
        converted["efficiency"] = _decoded(details["efficiency"], "eval_library.additional_details.efficiency")
    version = _text(source_details.get("dataset_version"), "source_data.additional_details.dataset_version")
    if version and not version.startswith(PUBLISHED):
        converted["dataset_version"] = version
    return {**_glossa_fields(details), **converted}
