"""Prompt rendering (docs/methodology.md §1, "Prompts").

Base models get plain text::

    <prefix>

    <doc prefix>: <shot text>
    <label prefix>: <shot label>

    ...

    <doc prefix>: <new text>
    <label prefix>:

Instruction-tuned models get the shots as user/assistant turns of their own chat
template, the instruction carrying the document. Texts per language live in
:mod:`evaluation.prompt_languages` (which documents how to add a language). When a prompt
is too long for the model, shots are dropped first, then the text is truncated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from evaluation.answer_formats import NER_TYPES
from evaluation.errors import EvaluationError
from evaluation.prompt_languages import ALIASES, DATASET_TEXT, LANGUAGES, LanguagePrompts, TaskPrompt
from evaluation.tasks import engine_task


class UnsupportedLanguage(EvaluationError, ValueError):
    """A language (or a task or label word in it) that has no prompt texts."""


def language_table(code: str) -> LanguagePrompts:
    """The prompt texts of a language (its aliases accepted); :class:`UnsupportedLanguage` naming the known ones
    otherwise."""
    code = ALIASES.get(code, code)
    try:
        return LANGUAGES[code]
    except KeyError:
        raise UnsupportedLanguage(
            f"no prompts for language {code!r}; add evaluation/prompt_texts/{code}.json "
            f"(see evaluation/prompt_languages.py; known: {', '.join(sorted(LANGUAGES))})"
        ) from None


@dataclass
class TaskFormat:
    """How rows of one task in one language become prompt text and labels; what depends on
    the task comes from its kind (:mod:`evaluation.task_kinds`).

    ``language=None`` gives the dataset's own text with no prompt words (labels as the
    dataset spells them): what an encoder's per-example evidence shows, in any language.
    Building a format for a language checks everything its prompts need (the task's texts,
    a word for every label) and raises :class:`UnsupportedLanguage` naming what is missing."""

    task: str
    language: str | None
    labels: tuple[str, ...] = ()  # canonical labels of classification datasets
    table: LanguagePrompts = field(init=False)
    texts: TaskPrompt = field(init=False)

    def __post_init__(self):
        spec = engine_task(self.task)
        self.task = spec.name
        self.kind = spec.kind
        self.labels = tuple(self.labels) or spec.default_labels
        if self.language is None:
            self.table = DATASET_TEXT
            self.texts = DATASET_TEXT.task(self.task)
            return
        self.table = language_table(self.language)
        try:
            self.texts = self.table.task(self.task)
        except KeyError as exc:
            raise UnsupportedLanguage(exc.args[0]) from None
        self._check_label_words()

    @classmethod
    def dataset_text(cls, task: str, labels: tuple[str, ...] = ()) -> TaskFormat:
        """The rows as the dataset's own text: no prompts needed (encoders)."""
        return cls(task, None, labels)

    def _check_label_words(self) -> None:
        if not self.kind.label_based:
            return
        missing = [
            label for label in self.canonical_labels() if isinstance(label, str) and label not in self.table.labels
        ]
        if missing:
            raise UnsupportedLanguage(
                f"language {self.table.code!r} has no word for the {self.task} label(s) "
                f'{", ".join(map(repr, missing))}; add them to the "labels" of '
                f"evaluation/prompt_texts/{self.table.code}.json"
            )

    # --- label words -------------------------------------------------------------------
    @property
    def is_label_based(self) -> bool:
        """Whether the task's answers are label words."""
        return self.kind.label_based

    def label_words(self, row: dict | None = None) -> list[str]:
        """Translated answer words, in the order of :meth:`canonical_labels`."""
        return self.kind.label_words(self, row)

    def canonical_labels(self, row: dict | None = None) -> list:
        """The labels the answer words stand for, in the same order."""
        return self.kind.canonical_labels(self, row)

    def ner_keys(self) -> dict[str, str]:
        """The language's word for each NER entity type, by tag."""
        return {tag: self.table.ner_tags[tag] for tag in NER_TYPES}

    def labels_phrase(self, row: dict | None = None) -> str:
        """The answer words joined with the language's "or" (as the prompt lists them)."""
        return self.kind.labels_phrase(self, row)

    # --- rows ------------------------------------------------------------------------------
    def document(self, row: dict) -> str:
        """The row's text as the prompt shows it."""
        return self.kind.document(self, row)

    def gold_answer(self, row: dict) -> str:
        """What a perfect model writes after the label prefix (used for the shots)."""
        return self.kind.gold_answer(self, row)

    def shot_text(self, row: dict) -> str:
        """The text whose length decides "short examples" and whose value deduplicates."""
        return self.kind.shot_text(self, row)

    def gold_label(self, row: dict):
        """The label the row's shots are stratified by."""
        return self.kind.gold_label(row)

    # --- rendering ---------------------------------------------------------------------------
    def block(self, row: dict, with_answer: bool) -> str:
        """The row as one block of a base prompt: its document and label prefix, with the answer for a shot."""
        head = f"{self.texts.doc}: {self.document(row)}\n{self.texts.label}:"
        return f"{head} {self.gold_answer(row)}" if with_answer else head

    def prefix(self, row: dict | None = None) -> str:
        """The prompt's opening line, naming the labels."""
        return self.texts.prefix.format(labels=self.labels_phrase(row))

    def render_base(self, shots: Sequence[dict], row: dict) -> str:
        """The base model's prompt: the opening line, the shots with their answers and the row."""
        parts = [self.prefix(row)] + [self.block(s, True) for s in shots] + [self.block(row, False)]
        return "\n\n".join(parts)

    def user_turn(self, row: dict) -> str:
        """The user's turn of a chat prompt for the row."""
        doc = f"{self.texts.doc}: {self.document(row)}"
        return self.texts.instruction.format(doc=doc, labels=self.labels_phrase(row))

    def messages(self, shots: Sequence[dict], row: dict) -> list[dict]:
        """The chat prompt: a user and assistant turn per shot, then the row's user turn."""
        msgs = []
        for shot in shots:
            msgs.append({"role": "user", "content": self.user_turn(shot)})
            msgs.append({"role": "assistant", "content": self.gold_answer(shot)})
        msgs.append({"role": "user", "content": self.user_turn(row)})
        return msgs


def truncate_row(row: dict, task: str, keep_fraction: float) -> dict:
    """A copy of ``row`` with its main text cut to ``keep_fraction`` of its characters."""
    return engine_task(task).kind.truncate(row, keep_fraction)


def fit_prompt(
    render: Callable[[Sequence[dict], dict], str],
    shots: Sequence[dict],
    row: dict,
    task: str,
    count_tokens: Callable[[str], int],
    max_tokens: int,
) -> tuple[str, int, bool]:
    """Render, dropping shots from the end and then truncating the text until it fits.

    Returns (prompt, number of shots kept, whether the text was truncated).
    """
    shots = list(shots)
    prompt = render(shots, row)
    if len(prompt) <= max_tokens or count_tokens(prompt) <= max_tokens:  # a token is at least one character
        return prompt, len(shots), False
    while shots:
        shots.pop()
        prompt = render(shots, row)
        if count_tokens(prompt) <= max_tokens:
            return prompt, len(shots), False
    fraction = 1.0
    while fraction > 0.01:
        fraction *= 0.8
        prompt = render([], truncate_row(row, task, fraction))
        if count_tokens(prompt) <= max_tokens:
            return prompt, 0, True
    return prompt, 0, True
