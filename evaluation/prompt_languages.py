"""Prompt texts per language (docs/methodology.md §1, "Prompts"), read from data files.

Each language is one file, ``evaluation/prompt_texts/<code>.json``::

    {"code": "pl", "name": "Polish", "aliases": [],
     "or": "lub",            # joins the last two label words: "a, b lub c"
     "ner_and": "i",         # joins the entity types in the NER prompt
     "labels": {...},        # canonical label → the word a model answers with
     "ner_tags": {...},      # PER, LOC, ORG, MISC → the JSON key
     "choices": "...", "question": "...",   # multiple-choice heading, reading-comprehension prefix
     "tasks": {"<task>": {"prefix", "doc", "label", "instruction"}, "<task>": "<other task>"}}

HOW TO ADD A LANGUAGE: write that file (every task of the engine, both styles: ``prefix``,
``doc`` and ``label`` make the base prompt, ``instruction`` the chat turn); add to
``aliases`` the other codes datasets may carry for it (``no``/``nn`` → ``nb``). Each file is
typed at import into a :class:`LanguagePrompts` (a missing word fails there, not
mid-evaluation), :mod:`evaluation.prompts` reads those, and ``tests/evaluation`` renders
every language for every task. Placeholders: ``{labels}`` (the label words joined with
"or"), ``{doc}`` (the document block, e.g. ``Dokument: …``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType


@dataclass(frozen=True)
class TaskPrompt:
    """One task's texts in one language."""

    prefix: str  # the base prompt's first line; may hold {labels}
    doc: str  # the document prefix, e.g. "Sentence"
    label: str  # the answer prefix, e.g. "Sentiment"
    instruction: str  # the chat turn; holds {doc}, may hold {labels}


@dataclass(frozen=True)
class LanguagePrompts:
    """Every string a prompt in one language needs (no language word is written in code)."""

    code: str
    or_word: str  # joins the last two label words: "a, b or c"
    ner_and: str  # joins the entity types in the NER prompt
    labels: Mapping[str, str]  # canonical label → its word
    ner_tags: Mapping[str, str]  # PER, LOC, ORG, MISC → the JSON key
    choices: str  # the heading of multiple-choice options
    question: str  # the question prefix of reading comprehension
    tasks: Mapping[str, TaskPrompt]

    @classmethod
    def from_table(cls, code: str, entry: dict) -> LanguagePrompts:
        """The typed entry; a missing or extra key fails here, at import, not mid-evaluation."""
        fixed = {"or", "ner_and", "labels", "ner_tags", "choices", "question"}
        missing = fixed - set(entry)
        if missing:
            raise ValueError(f"prompt language {code!r} lacks {', '.join(sorted(missing))}")
        tasks = {name: TaskPrompt(**texts) for name, texts in entry.items() if name not in fixed}
        return cls(
            code=code,
            or_word=entry["or"],
            ner_and=entry["ner_and"],
            labels=MappingProxyType(dict(entry["labels"])),
            ner_tags=MappingProxyType(dict(entry["ner_tags"])),
            choices=entry["choices"],
            question=entry["question"],
            tasks=MappingProxyType(tasks),
        )

    def task(self, name: str) -> TaskPrompt:
        """The prompt texts of task ``name``; a KeyError naming the file to add them to."""
        try:
            return self.tasks[name]
        except KeyError:
            raise KeyError(
                f"no {name} prompts for language {self.code!r} in evaluation/prompt_texts/{self.code}.json"
            ) from None


PROMPT_DIR = Path(__file__).with_name("prompt_texts")
FIXED_KEYS = ("or", "ner_and", "labels", "ner_tags", "choices", "question")


def read_language_file(path: Path) -> tuple[dict, dict]:
    """(the file's metadata: code, name, aliases; its flat table entry).

    A task whose value is another task's name shares that task's texts (multiple-choice
    tasks word their prompts alike)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    code = data.get("code")
    if code != path.stem:
        raise ValueError(f'{path.name}: its "code" is {code!r}, not the file\'s name {path.stem!r}')
    tasks = dict(data.get("tasks") or {})
    for name, texts in list(tasks.items()):
        if isinstance(texts, str):
            if not isinstance(tasks.get(texts), dict):
                raise ValueError(f"{path.name}: task {name!r} refers to {texts!r}, which has no texts of its own")
            tasks[name] = tasks[texts]
    entry = {key: data[key] for key in FIXED_KEYS if key in data} | tasks
    meta = {"code": code, "name": data.get("name", code), "aliases": list(data.get("aliases") or [])}
    return meta, entry


def _load() -> tuple[dict[str, dict], dict[str, str], dict[str, str]]:
    table, names, aliases = {}, {}, {}
    for path in sorted(PROMPT_DIR.glob("*.json")):
        meta, entry = read_language_file(path)
        table[meta["code"]] = entry
        names[meta["code"]] = meta["name"]
        aliases.update(dict.fromkeys(meta["aliases"], meta["code"]))
    return table, names, aliases


TABLE, NAMES, ALIASES = _load()
"""TABLE: code → flat entry (the fixed keys and one key per task); NAMES: code → English
name; ALIASES: another code a dataset may carry → the code whose prompts it uses."""

LANGUAGES: dict[str, LanguagePrompts] = {code: LanguagePrompts.from_table(code, entry) for code, entry in TABLE.items()}


class _AnyTask(dict):
    """Every task's texts are the bare document (no prompt words)."""

    def __missing__(self, name: str) -> TaskPrompt:
        return TaskPrompt(prefix="", doc="", label="", instruction="{doc}")


DATASET_TEXT = LanguagePrompts(
    code="",
    or_word="/",
    ner_and="/",
    labels=MappingProxyType({}),
    ner_tags=MappingProxyType({tag: tag for tag in ("PER", "LOC", "ORG", "MISC")}),
    choices="choices",  # the dataset's own field names, not prompt words
    question="question",
    tasks=_AnyTask(),
)
"""The rows as the dataset spells them: what encoders, which need no prompts, show."""
