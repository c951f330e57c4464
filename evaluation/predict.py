"""Turning model outputs into task predictions (label matching, NER JSON → BIO)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence

from evaluation.answer_formats import entities_to_bio


def _first_line(output: str) -> str:
    text = output.strip().lower()
    return text.splitlines()[0].strip(" .:*\"'") if text else ""


def label_named(output: str, words: Sequence[str]) -> int | None:
    """Index of the label word a generated answer starts with (case-insensitively); None
    when it starts with none of them (an unparseable answer, mapped by similarity)."""
    first = _first_line(output)
    for k, word in enumerate(words):
        if re.match(rf"{re.escape(word.lower())}\b", first):
            return k
    return None


def closest_label(output: str, words: Sequence[str]) -> int:
    """Index of the label word closest to a generated answer.

    An answer that starts with a label word (case-insensitively) picks it; otherwise the
    word with the highest similarity ratio to the answer's first line wins (ties: first).
    """
    first = _first_line(output)
    named = label_named(output, words)
    if named is not None:
        return named
    ratios = [difflib.SequenceMatcher(None, first, word.lower()).ratio() for word in words]
    return max(range(len(words)), key=lambda k: ratios[k])


def parse_ner_output(output: str, keys: Sequence[str]) -> tuple[dict, bool]:
    """The predicted entities and whether the output was valid JSON of the expected shape."""
    try:
        data = json.loads(output)
    except json.JSONDecodeError:
        return {k: [] for k in keys}, False
    if not isinstance(data, dict):
        return {k: [] for k in keys}, False
    valid = set(data) == set(keys) and all(
        isinstance(v, list) and len(v) <= 5 and all(isinstance(x, str) for x in v) for v in data.values()
    )
    cleaned = {
        k: [x for x in data.get(k, []) if isinstance(x, str)] if isinstance(data.get(k), list) else [] for k in keys
    }
    return cleaned, valid


def ner_tags(tokens: Sequence[str], output: str, keys_by_tag: dict[str, str]) -> tuple[list[str], bool]:
    """BIO tags for ``tokens`` from a model's NER output, and whether the output was valid."""
    entities, valid = parse_ner_output(output, list(keys_by_tag.values()))
    return entities_to_bio(tokens, entities, keys_by_tag), valid
