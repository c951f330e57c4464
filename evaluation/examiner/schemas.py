"""The JSON every examiner output must match, and its parsing.

The schemas are given to the backend, which constrains generation to them (XGrammar on
the transformers and vLLM backends, ``response_format`` / ``guided_json`` on a server),
so any examiner, however small, returns a parseable object. Parsing still checks types
and ranges: a server that ignores the constraint, or a cut-off generation, gives an
:class:`InvalidOutput` that the exam records instead of guessing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

QUESTION_CHARS = 300
REFERENCE_CHARS = 400

QUESTION_SCHEMA = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "minLength": 8, "maxLength": QUESTION_CHARS},
        "reference_answer": {"type": "string", "minLength": 1, "maxLength": REFERENCE_CHARS},
    },
    "required": ["question", "reference_answer"],
    "additionalProperties": False,
}

DIMENSIONS = ("accuracy", "coherence", "factuality", "comprehensiveness")
GRADE_SCALES = {**dict.fromkeys(DIMENSIONS, (1, 3)), "overall": (1, 5)}

GRADE_SCHEMA = {
    "type": "object",
    "properties": {
        name: {"type": "integer", "enum": list(range(low, high + 1))} for name, (low, high) in GRADE_SCALES.items()
    },
    "required": list(GRADE_SCALES),
    "additionalProperties": False,
}

COMPARISON_SCHEMA = {
    "type": "object",
    "properties": {"better": {"type": "string", "enum": ["1", "2"]}},
    "required": ["better"],
    "additionalProperties": False,
}


class InvalidOutput(ValueError):
    """The examiner's output is not the JSON asked for."""


def _object(text: str) -> dict:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        raise InvalidOutput(f"not JSON: {str(text)[:80]!r}") from None
    if not isinstance(data, dict):
        raise InvalidOutput("not a JSON object")
    return data


@dataclass(frozen=True)
class WrittenQuestion:
    """A question an examiner wrote, and its reference answer."""

    question: str
    reference_answer: str


def parse_question(text: str) -> WrittenQuestion:
    """The question and reference answer in an examiner's JSON output; :class:`InvalidOutput` when it has none."""
    data = _object(text)
    question, reference = data.get("question"), data.get("reference_answer")
    if not isinstance(question, str) or not isinstance(reference, str):
        raise InvalidOutput("question and reference_answer must be strings")
    question, reference = question.strip(), reference.strip()
    if len(question) < 8 or not reference:
        raise InvalidOutput("empty question or reference answer")
    return WrittenQuestion(question[:QUESTION_CHARS], reference[:REFERENCE_CHARS])


def parse_grade(text: str) -> dict[str, int]:
    """The grades in an examiner's JSON output, each checked against its scale; :class:`InvalidOutput` otherwise."""
    data = _object(text)
    grade = {}
    for name, (low, high) in GRADE_SCALES.items():
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidOutput(f"{name} must be an integer from {low} to {high}, not {value!r}")
        grade[name] = value
    return grade


def parse_comparison(text: str) -> int:
    """1 when the first answer shown is better, 2 when the second is."""
    better = _object(text).get("better")
    if better not in ("1", "2", 1, 2):
        raise InvalidOutput(f"better must be 1 or 2, not {better!r}")
    return int(better)
