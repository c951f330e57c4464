"""The exam's domains (data, with their names per language) and its cognitive levels."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from evaluation.errors import EvaluationError

DATA = Path(__file__).with_name("data") / "domains.json"


@dataclass(frozen=True)
class Level:
    """A kind of exam question (memorisation, comprehension, analysis) and how the examiner is told to write one."""

    name: str
    instruction: str  # what a question of this level asks for, told to the examiner


LEVELS: tuple[Level, ...] = (
    Level("memorisation", "a memorisation question: it asks to recall one specific fact (who, what, when or where)"),
    Level(
        "comprehension",
        "a comprehension question: it asks to explain, describe or summarise a concept in one's own words",
    ),
    Level(
        "analysis",
        "an analysis question: it asks to compare, find causes or consequences, or reason about a situation",
    ),
)
LEVEL_NAMES = tuple(level.name for level in LEVELS)


def level(name: str) -> Level:
    """The level of that name; :class:`EvaluationError` naming the known ones otherwise."""
    for candidate in LEVELS:
        if candidate.name == name:
            return candidate
    raise EvaluationError(f"unknown exam level {name!r}; choose from {', '.join(LEVEL_NAMES)}")


@dataclass(frozen=True)
class Domain:
    """A subject exam questions are written about, named in the exam's language."""

    key: str  # language-independent, e.g. "food_drink"
    name: str  # in the exam's language, e.g. "Mad og drikke"


@dataclass(frozen=True)
class Taxonomy:
    """An exam language's name and its domains, at a version."""

    language: str
    language_name: str  # in English, as the examiner's instructions name it
    domains: tuple[Domain, ...]
    version: int


@cache
def _data() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def exam_languages() -> tuple[str, ...]:
    """The codes of the languages exams can be written in."""
    return tuple(_data()["languages"])


def taxonomy(language: str) -> Taxonomy:
    """The domains of ``language``; :class:`EvaluationError` when it has none."""
    data = _data()
    entry = data["languages"].get(language)
    if entry is None:
        raise EvaluationError(
            f"no exam taxonomy for language {language!r}; add its domain names to {DATA.name} "
            f"(languages: {', '.join(sorted(data['languages']))})"
        )
    names = entry["domains"]
    missing = [key for key in data["domains"] if key not in names]
    if missing:
        raise EvaluationError(f"the {language} exam taxonomy lacks names for {', '.join(missing)}")
    domains = tuple(Domain(key, names[key]) for key in data["domains"])
    return Taxonomy(language, entry["name"], domains, int(data["version"]))
