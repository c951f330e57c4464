"""Prompt rendering (METHODOLOGY §1, "Prompts").

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

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from evaluation.prompt_languages import ALIASES, LANGUAGES
from evaluation.tasks import engine_task

MC_LETTERS = ("a", "b", "c", "d", "e", "f", "g", "h")
NER_TYPES = ("PER", "LOC", "ORG", "MISC")
MAX_NER_PER_TYPE = 5


class UnsupportedLanguage(ValueError):
    pass


def language_table(code: str) -> dict:
    code = ALIASES.get(code, code)
    try:
        return LANGUAGES[code]
    except KeyError:
        raise UnsupportedLanguage(
            f"no prompts for language {code!r}; add it to evaluation/prompt_languages.py "
            f"(known: {', '.join(sorted(LANGUAGES))})"
        ) from None


def _join_or(words: Sequence[str], or_word: str) -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {or_word} {words[-1]}"


@dataclass
class TaskFormat:
    """How rows of one task in one language become prompt text and labels."""

    task: str
    language: str
    labels: tuple[str, ...] = ()  # canonical labels of classification datasets
    table: dict = field(init=False)
    texts: dict = field(init=False)

    def __post_init__(self):
        self.task = engine_task(self.task).name
        self.table = language_table(self.language)
        self.texts = self.table[self.task]
        if self.task == "sentiment-classification" and not self.labels:
            self.labels = ("positive", "neutral", "negative")
        if self.task == "linguistic-acceptability" and not self.labels:
            self.labels = ("correct", "incorrect")

    # --- label words -------------------------------------------------------------------
    @property
    def is_classification(self) -> bool:
        return self.task in ("sentiment-classification", "linguistic-acceptability")

    @property
    def is_multiple_choice(self) -> bool:
        return self.task in ("knowledge", "common-sense-reasoning")

    def label_words(self, row: dict | None = None) -> list[str]:
        """Translated answer words, in the order of :meth:`canonical_labels`."""
        if self.is_classification:
            return [self.table["labels"].get(lab, lab) for lab in self.labels]
        if self.is_multiple_choice:
            n = len(row["choices"]) if row else 4
            return list(MC_LETTERS[:n])
        return []

    def canonical_labels(self, row: dict | None = None) -> list:
        if self.is_classification:
            return list(self.labels)
        if self.is_multiple_choice:
            return list(range(len(row["choices"]) if row else 4))
        return []

    def ner_keys(self) -> dict[str, str]:
        return {tag: self.table["ner_tags"][tag] for tag in NER_TYPES}

    def labels_phrase(self, row: dict | None = None) -> str:
        if self.task == "named-entity-recognition":
            return _join_or(
                list(self.ner_keys().values()), "og" if self.language in ("da", "nb", "no") else self.table["or"]
            )
        return _join_or(self.label_words(row), self.table["or"])

    # --- rows ------------------------------------------------------------------------------
    def document(self, row: dict) -> str:
        if self.task == "named-entity-recognition":
            return " ".join(row["tokens"])
        if self.task == "reading-comprehension":
            return f"{row['context']}\n{self.table['question']}: {row['question']}"
        if self.is_multiple_choice:
            options = "\n".join(f"{MC_LETTERS[k]}. {choice}" for k, choice in enumerate(row["choices"]))
            return f"{row['question']}\n{self.table['choices']}:\n{options}"
        return row["text"]

    def gold_answer(self, row: dict) -> str:
        """What a perfect model writes after the label prefix (used for the shots)."""
        if self.is_classification:
            return self.table["labels"].get(row["label"], row["label"])
        if self.is_multiple_choice:
            return MC_LETTERS[int(row["label"])]
        if self.task == "named-entity-recognition":
            return json.dumps(bio_to_entities(row["tokens"], row["labels"], self.ner_keys()), ensure_ascii=False)
        if self.task == "reading-comprehension":
            return row["answers"]["text"][0] if row["answers"]["text"] else ""
        return row["target_text"]

    def shot_text(self, row: dict) -> str:
        """The text whose length decides "short examples" and whose value deduplicates."""
        if self.task == "reading-comprehension":
            return row["context"]
        return self.document(row)

    def gold_label(self, row: dict):
        if self.is_classification or self.is_multiple_choice:
            return row["label"] if self.is_classification else int(row["label"])
        return None

    # --- rendering ---------------------------------------------------------------------------
    def block(self, row: dict, with_answer: bool) -> str:
        head = f"{self.texts['doc']}: {self.document(row)}\n{self.texts['label']}:"
        return f"{head} {self.gold_answer(row)}" if with_answer else head

    def prefix(self, row: dict | None = None) -> str:
        return self.texts["prefix"].format(labels=self.labels_phrase(row))

    def render_base(self, shots: Sequence[dict], row: dict) -> str:
        parts = [self.prefix(row)] + [self.block(s, True) for s in shots] + [self.block(row, False)]
        return "\n\n".join(parts)

    def user_turn(self, row: dict) -> str:
        doc = f"{self.texts['doc']}: {self.document(row)}"
        return self.texts["instruction"].format(doc=doc, labels=self.labels_phrase(row))

    def messages(self, shots: Sequence[dict], row: dict) -> list[dict]:
        msgs = []
        for shot in shots:
            msgs.append({"role": "user", "content": self.user_turn(shot)})
            msgs.append({"role": "assistant", "content": self.gold_answer(shot)})
        msgs.append({"role": "user", "content": self.user_turn(row)})
        return msgs


def bio_to_entities(tokens: Sequence[str], tags: Sequence[str], keys: dict[str, str]) -> dict[str, list[str]]:
    """IOB2 tags → ``{translated type: [entity text, ...]}`` (every key present)."""
    out: dict[str, list[str]] = {name: [] for name in keys.values()}
    current: list[str] = []
    current_type = None
    for token, tag in [*zip(tokens, tags, strict=True), ("", "O")]:
        if current and (tag == "O" or tag.startswith("B-") or tag[2:] != current_type):
            if current_type in keys:
                out[keys[current_type]].append(" ".join(current))
            current, current_type = [], None
        if tag.startswith("B-") or (tag.startswith("I-") and not current):
            current, current_type = [token], tag[2:]
        elif tag.startswith("I-"):
            current.append(token)
    return out


def entities_to_bio(tokens: Sequence[str], entities: dict, keys: dict[str, str]) -> list[str]:
    """Predicted ``{translated type: [strings]}`` → IOB2 tags over ``tokens``.

    Every occurrence of an entity's token sequence is tagged (first prediction wins on
    overlaps); strings that do not occur in the sentence are ignored.
    """
    tags = ["O"] * len(tokens)
    by_name = {name: tag for tag, name in keys.items()}
    lowered = [t.lower() for t in tokens]
    for name, values in entities.items():
        tag = by_name.get(name)
        if tag is None or not isinstance(values, list):
            continue
        for value in values:
            if not isinstance(value, str) or not value.strip():
                continue
            words = value.lower().split()
            n = len(words)
            for start in range(len(tokens) - n + 1):
                if lowered[start : start + n] == words and all(t == "O" for t in tags[start : start + n]):
                    tags[start] = f"B-{tag}"
                    for k in range(start + 1, start + n):
                        tags[k] = f"I-{tag}"
    return tags


def ner_json_schema(keys: dict[str, str]) -> dict:
    names = list(keys.values())
    return {
        "type": "object",
        "properties": {
            name: {"type": "array", "items": {"type": "string", "maxLength": 48}, "maxItems": MAX_NER_PER_TYPE}
            for name in names
        },
        "required": names,
        "additionalProperties": False,
    }


def truncate_row(row: dict, task: str, keep_fraction: float) -> dict:
    """A copy of ``row`` with its main text cut to ``keep_fraction`` of its characters."""
    row = dict(row)
    if task == "named-entity-recognition":
        n = max(1, int(len(row["tokens"]) * keep_fraction))
        row["tokens"], row["labels"] = row["tokens"][:n], row["labels"][:n]
    elif task == "reading-comprehension":
        row["context"] = row["context"][: max(1, int(len(row["context"]) * keep_fraction))]
    elif task in ("knowledge", "common-sense-reasoning"):
        row["question"] = row["question"][: max(1, int(len(row["question"]) * keep_fraction))]
    else:
        row["text"] = row["text"][: max(1, int(len(row["text"]) * keep_fraction))]
    return row


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
