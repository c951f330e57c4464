"""Checks for the fields of a result record, one pure function per kind of field.

Every check takes the record and a key and returns the field's value, or raises
:class:`InvalidRecord` with a message naming the field. Bounds follow the database
columns the values end up in, so that a record that passes never fails to store.
"""

from __future__ import annotations

import math
import re
import unicodedata

from evaluation.revisions import is_commit_id
from leaderboard.identity import RECONSTRUCTED_RE

# Dataset names as EuroEval and our data folders write them: ``scala-da``, ``wiki-lingua-nl``.
DATASET_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
# ISO 639-1 (two letters) or 639-3 (three letters) language codes.
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")
# Task names as result files write them (known or not): ``linguistic-acceptability``.
TASK_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,59}$")
FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{64}$")

MODEL_ID_MAX = 300  # LanguageModel.model_id
MAX_LANGUAGES = 300
MAX_COUNT = 10**15  # parameters, vocabulary, context length: far above any real model
MAX_ITERATIONS = 1000


class InvalidRecord(ValueError):
    """A record that cannot be imported; the message says why."""


def _shown(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _has_control_or_space(text: str) -> bool:
    return any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in text)


def slug_field(record: dict, key: str, pattern: re.Pattern = DATASET_NAME) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not pattern.match(value):
        raise InvalidRecord(
            f"{key} must be a name of lowercase letters, digits, '.', '_' or '-' (at most 100), not {_shown(value)}"
        )
    return value


def task_field(record: dict) -> str:
    value = record.get("task")
    if not isinstance(value, str) or not TASK_NAME.match(value):
        raise InvalidRecord(f"task must be a task name (lower-case letters, digits, - and _), not {_shown(value)}")
    return value


def model_id_field(record: dict) -> str:
    """Hub ids (``org/name``), API models (``claude-sonnet-4-6``), variants (``org/name#low``,
    ``org/name@revision``), local paths: anything printable without spaces, at most 300."""
    value = record.get("model")
    if not isinstance(value, str) or not 0 < len(value) <= MODEL_ID_MAX or _has_control_or_space(value):
        raise InvalidRecord(
            f"model must be a model id of at most {MODEL_ID_MAX} characters without spaces or control characters, "
            f"not {_shown(value)}"
        )
    if any(part in (".", "..") for part in value.split("/")):
        raise InvalidRecord(f"model must not contain '.' or '..' path segments, not {_shown(value)}")
    return value


def languages_field(record: dict) -> tuple[str, ...]:
    value = record.get("dataset_languages")
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_LANGUAGES:
        raise InvalidRecord("dataset_languages must be a list of language codes")
    bad = [code for code in value if not isinstance(code, str) or not LANGUAGE_CODE.match(code)]
    if bad:
        raise InvalidRecord(f"dataset_languages: {_shown(bad[0])} is not a two- or three-letter language code")
    return tuple(dict.fromkeys(value))


def strict_bool(record: dict, key: str, default: bool | None) -> bool | None:
    """``true``, ``false`` or ``null``/absent (the default); ``"false"`` or 0 is an error."""
    value = record.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InvalidRecord(f"{key} must be true, false or null, not {_shown(value)}")
    return value


def count_field(record: dict, key: str) -> int | None:
    """A whole count (parameters, vocabulary, context length): null or -1 when unknown,
    otherwise 0 ≤ n < 10^15. An integral float (``7e9``) is accepted."""
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not -1 <= value < MAX_COUNT:
        raise InvalidRecord(f"{key} must be a whole number from 0 to 10^15, -1 or null, not {_shown(value)}")
    return value


def text_field(record: dict, key: str, max_length: int) -> str | None:
    """Short text shown on pages or stored in a column: a string of at most ``max_length``
    characters without control characters, or null."""
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > max_length or any(unicodedata.category(ch) == "Cc" for ch in value):
        raise InvalidRecord(f"{key} must be text of at most {max_length} characters, not {_shown(value)}")
    return value


def versions_field(record: dict) -> dict | None:
    """``{"package": "version"}``: at most 50 entries of short text or numbers."""
    value = record.get("versions")
    if value is None:
        return None
    ok = (
        isinstance(value, dict)
        and len(value) <= 50
        and all(
            isinstance(k, str)
            and len(k) <= 100
            and (isinstance(v, str) and len(v) <= 100 or isinstance(v, (int, float)) and not isinstance(v, bool))
            for k, v in value.items()
        )
    )
    if not ok:
        raise InvalidRecord("versions must map package names to version strings")
    return value


def pattern_field(record: dict, key: str, pattern: re.Pattern, what: str) -> str | None:
    value = record.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not pattern.match(value):
        raise InvalidRecord(f"{key} must be {what}, not {_shown(value)}")
    return value


def dataset_version_field(record: dict) -> str | None:
    """``dataset_version``: a data directory fingerprint (``sha256:`` and 64 hex digits) or
    the version of cells reconstructed from EuroEval's boards (``import_board``'s, as
    ``export_eee`` writes it), so that such an evaluation comes back as the same identity."""
    value = record.get("dataset_version")
    if isinstance(value, str) and RECONSTRUCTED_RE.match(value):
        return value
    return pattern_field(
        record, "dataset_version", FINGERPRINT, "'sha256:' and 64 hexadecimal digits (or a board reconstruction's)"
    )


def commit_field(record: dict) -> str | None:
    """``model_commit``: a Hub commit (40 hex digits) or a bundled model's one revision."""
    value = record.get("model_commit")
    if value is None or value == "":
        return None
    if not is_commit_id(value):
        raise InvalidRecord(
            f"model_commit must be a 40-character hexadecimal commit sha or 'bundled:<package>==<version>', "
            f"not {_shown(value)}"
        )
    return value


def limit_field(record: dict) -> int | None:
    value = record.get("limit")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= 10_000_000:
        raise InvalidRecord("limit must be a positive whole number of test rows, or null for the full split")
    return value


INTRINSIC_FIELDS = {
    "texts": int,
    "bytes": int,
    "tokens": int,
    "nats": float,
    "bits_per_byte": float,
    "bits_per_byte_se": float,
    "perplexity": float,
    "max_texts": int,  # the budget: documents per split, characters per document
    "max_chars": int,
}
CONTAMINATION_FIELDS = {
    "statistic": str,
    "k": float,
    "test_mean": float,
    "train_mean": float,
    "auc": float,
    "auc_se": float,
    "p_value": float,
    "n_test": int,
    "n_train": int,
    "flag": bool,
}


def evidence_field(record: dict, key: str, fields: dict[str, type]) -> dict | None:
    """An engine measure beside the scores (``intrinsic``, ``contamination``:
    evaluation/intrinsic.py): an object of known keys, finite numbers, a short name."""
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= set(fields):
        raise InvalidRecord(f"{key} must be an object with some of {', '.join(fields)}; got {_shown(value)}")
    for name, kind in fields.items():
        item = value.get(name)
        if item is None:
            continue
        if kind is bool:
            ok = isinstance(item, bool)
        elif kind is str:
            ok = isinstance(item, str) and len(item) <= 40
        else:
            ok = (
                isinstance(item, int | float)
                and not isinstance(item, bool)
                and math.isfinite(item)
                and (kind is float or float(item).is_integer() and 0 <= item <= MAX_COUNT)
            )
        if not ok:
            raise InvalidRecord(
                f"{key}.{name} must be {'a whole number' if kind is int else kind.__name__}; got {_shown(item)}"
            )
    return value


def seed_field(record: dict) -> int | None:
    value = record.get("seed")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or abs(value) >= 2**63:
        raise InvalidRecord(f"seed must be a whole number or null, not {_shown(value)}")
    return value


def iterations_field(record: dict) -> int | None:
    """``iterations``: how many bootstrap iterations ran, 1 to MAX_ITERATIONS, or null."""
    value = record.get("iterations")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= MAX_ITERATIONS:
        raise InvalidRecord(f"iterations must be a whole number from 1 to {MAX_ITERATIONS}, not {_shown(value)}")
    return value


MAX_SPLITS = 10


def split_sizes_field(record: dict) -> dict[str, int] | None:
    """``dataset_split_sizes``: ``{"train": 1024, "val": 256, "test": 2048}`` (at most ten
    splits named in short text, each a count of rows from 0 to 10^7), or null."""
    value = record.get("dataset_split_sizes")
    if value is None:
        return None
    ok = (
        isinstance(value, dict)
        and len(value) <= MAX_SPLITS
        and all(
            isinstance(k, str)
            and 0 < len(k) <= 20
            and isinstance(v, int)
            and not isinstance(v, bool)
            and 0 <= v <= 10_000_000
            for k, v in value.items()
        )
    )
    if not ok:
        raise InvalidRecord(f"dataset_split_sizes must map split names to row counts, not {_shown(value)}")
    return value


def examples_fields(record: dict) -> None:
    """The fields the examples check reads: ``iterations``, ``dataset_split_sizes`` and
    ``examples_file`` (a file name of at most 1,000 characters)."""
    iterations_field(record)
    split_sizes_field(record)
    text_field(record, "examples_file", 1000)
