"""The exact shape of one stored example (:mod:`evaluation.examples` writes them), checked
field by field with bounded sizes, and the trimmed form pages show.

An example is an object with exactly these keys (``attempts`` only when the row was
answered more than once)::

    example_id  str            "<split>:<row>" (the row checked against the record elsewhere)
    input       str            at most MAX_TEXT_CHARS characters
    gold        JSON value     at most MAX_TEXT_CHARS characters as JSON, nested at most 4 deep
    label       JSON value     likewise (a label word, an option number, or null)
    output      str | null     at most MAX_TEXT_CHARS characters (null: labels were scored)
    parsed      JSON value     likewise bounded
    valid       bool
    scores      {key: number}  exactly the task kind's ``example_score_keys``, each in [0, 1]
    iterations  [int, ...]     1 to MAX_DRAWS whole numbers (the record's range is checked elsewhere)
    attempts    [attempt, ...] 2 to MAX_DRAWS of {iteration, prompt_hash, output, parsed, valid, scores}

Anything else (another key, another type, a text past its bound, a missing or foreign
score, NaN) is a :class:`BadExample` naming the example and the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

MAX_TEXT_CHARS = 100_000  # one text field: a long article with room to spare
MAX_DRAWS = 10_000  # draws (and attempts) of one row: 1,000 iterations drawing it ten times
MAX_DEPTH = 4  # lists in dicts in lists: rewriting's {"source", "references": [...]}
MAX_PROMPT_HASH = 128
SHOWN_CHARS = 5_000  # what a page shows of one text field; the rest is cut with an ellipsis
REQUIRED = ("example_id", "input", "gold", "label", "output", "parsed", "valid", "scores", "iterations")
ATTEMPT_FIELDS = frozenset({"iteration", "prompt_hash", "output", "parsed", "valid", "scores"})


class BadExample(ValueError):
    """An example that is not of the shape above; the message names the field."""


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _depth(value: object, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    return level


def _json_value(where: str, value: object) -> None:
    if _depth(value) > MAX_DEPTH:
        raise BadExample(f"{where} is nested more than {MAX_DEPTH} deep")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        raise BadExample(f"{where} is not a JSON value of text, numbers, lists and objects") from None
    if len(text) > MAX_TEXT_CHARS:
        raise BadExample(f"{where} is longer than {MAX_TEXT_CHARS} characters")


def _text(where: str, value: object, *, nullable: bool) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, str):
        raise BadExample(f"{where} must be text{' or null' if nullable else ''}")
    if len(value) > MAX_TEXT_CHARS:
        raise BadExample(f"{where} is longer than {MAX_TEXT_CHARS} characters")


def _scores(where: str, value: object, keys: Sequence[str]) -> None:
    if not isinstance(value, dict) or sorted(value) != sorted(keys):
        raise BadExample(f"{where} must hold exactly the task's scores ({', '.join(keys)})")
    for key, score in value.items():
        if not _is_number(score) or not 0.0 <= score <= 1.0:
            raise BadExample(f"{where}.{key} must be a number from 0 to 1")


def _draws(where: str, value: object) -> None:
    if (
        not isinstance(value, list)
        or not 0 < len(value) <= MAX_DRAWS
        or not all(isinstance(i, int) and not isinstance(i, bool) for i in value)
    ):
        raise BadExample(f"{where} must list 1 to {MAX_DRAWS} iteration numbers")


def _attempt(where: str, attempt: object, keys: Sequence[str]) -> None:
    if not isinstance(attempt, dict) or set(attempt) != ATTEMPT_FIELDS:
        raise BadExample(f"{where} must have exactly the keys {', '.join(sorted(ATTEMPT_FIELDS))}")
    if not isinstance(attempt["iteration"], int) or isinstance(attempt["iteration"], bool):
        raise BadExample(f"{where}.iteration must be a whole number")
    hashed = attempt["prompt_hash"]
    if hashed is not None and not (isinstance(hashed, str) and len(hashed) <= MAX_PROMPT_HASH):
        raise BadExample(f"{where}.prompt_hash must be short text or null")
    _text(f"{where}.output", attempt["output"], nullable=True)
    _json_value(f"{where}.parsed", attempt["parsed"])
    if not isinstance(attempt["valid"], bool):
        raise BadExample(f"{where}.valid must be true or false")
    _scores(f"{where}.scores", attempt["scores"], keys)


def check_example(example: object, score_keys: Sequence[str], number: int) -> dict:
    """``example`` if it has the shape above with the task's ``score_keys``; BadExample
    (naming example ``number``, from 1) otherwise."""
    where = f"example {number}"
    if not isinstance(example, dict):
        raise BadExample(f"{where} is not an object")
    missing = [field for field in REQUIRED if field not in example]
    extra = set(example) - set(REQUIRED) - {"attempts"}
    if missing or extra:
        raise BadExample(f"{where}: fields must be {', '.join(REQUIRED)} (and attempts)")
    if not isinstance(example["example_id"], str) or len(example["example_id"]) > 40:
        raise BadExample(f"{where}.example_id must be short text")
    _text(f"{where}.input", example["input"], nullable=False)
    _text(f"{where}.output", example["output"], nullable=True)
    for field in ("gold", "label", "parsed"):
        _json_value(f"{where}.{field}", example[field])
    if not isinstance(example["valid"], bool):
        raise BadExample(f"{where}.valid must be true or false")
    _scores(f"{where}.scores", example["scores"], score_keys)
    _draws(f"{where}.iterations", example["iterations"])
    if "attempts" in example:
        attempts = example["attempts"]
        if not isinstance(attempts, list) or not 1 < len(attempts) <= MAX_DRAWS:
            raise BadExample(f"{where}.attempts must list 2 to {MAX_DRAWS} attempts")
        for k, attempt in enumerate(attempts):
            _attempt(f"{where}.attempts[{k}]", attempt, score_keys)
    return example


def _cut(value: object) -> object:
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        return value[:SHOWN_CHARS] + "…"
    if not isinstance(value, str | int | float | bool | type(None)):
        text = json.dumps(value, ensure_ascii=False)
        return value if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
    return value


def shown(example: dict) -> dict:
    """A checked example as pages show it: text fields cut at SHOWN_CHARS, the attempts
    counted (``num_attempts``) rather than kept."""
    trimmed = {field: _cut(example[field]) for field in ("input", "gold", "label", "output", "parsed")}
    return {
        **trimmed,
        "example_id": example["example_id"],
        "valid": example["valid"],
        "scores": example["scores"],
        "iterations": example["iterations"],
        "num_attempts": len(example.get("attempts") or ()) or 1,
    }
