"""Word-level NER labels ↔ sub-word tokens.

A fast tokenizer's ``word_ids()`` says, for each sub-word token, which word it came
from (``None`` for special tokens such as [CLS], [SEP] and padding). Training labels
go on the first sub-token of each word; every other position gets -100 (ignored by the
loss). Predictions are read back from the same first sub-tokens. Words cut off by
truncation get the prediction ``O``.
"""

from __future__ import annotations

from collections.abc import Sequence

IGNORE_INDEX = -100
OUTSIDE = "O"


def first_subtoken_positions(word_ids: Sequence[int | None]) -> dict[int, int]:
    """word index → position of its first sub-token."""
    positions: dict[int, int] = {}
    for position, word in enumerate(word_ids):
        if word is not None and word not in positions:
            positions[word] = position
    return positions


def align_labels(word_ids: Sequence[int | None], word_labels: Sequence[str], label2id: dict[str, int]) -> list[int]:
    """Per-token label ids: the word's label on its first sub-token, -100 elsewhere."""
    aligned = [IGNORE_INDEX] * len(word_ids)
    for word, position in first_subtoken_positions(word_ids).items():
        label = word_labels[word]
        try:
            aligned[position] = label2id[label]
        except KeyError:
            raise ValueError(f"unknown NER tag {label!r}; known tags: {', '.join(label2id)}") from None
    return aligned


def word_predictions(
    word_ids: Sequence[int | None], token_label_ids: Sequence[int], id2label: dict[int, str], num_words: int
) -> list[str]:
    """One tag per word, read from the word's first sub-token (``O`` for truncated words)."""
    tags = [OUTSIDE] * num_words
    for word, position in first_subtoken_positions(word_ids).items():
        if word < num_words:
            tags[word] = id2label[int(token_label_ids[position])]
    return repair_iob2(tags)


def repair_iob2(tags: Sequence[str]) -> list[str]:
    """Make a predicted tag sequence valid IOB2: an ``I-X`` that does not continue an
    entity of type X starts one (``B-X``). seqeval would read it the same way; doing it
    here keeps the stored predictions readable."""
    repaired = []
    previous = OUTSIDE
    for tag in tags:
        if tag.startswith("I-") and previous[2:] != tag[2:]:
            tag = "B-" + tag[2:]
        repaired.append(tag)
        previous = tag
    return repaired
