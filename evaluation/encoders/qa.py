"""Extractive question answering: windowed contexts and answer-span decoding.

Each (question, context) pair is tokenized as ``[CLS] question [SEP] context [SEP]``;
a context longer than ``max_length`` is split into overlapping windows (``stride``
tokens of overlap). Training windows label the answer's first and last token; a window
that does not contain the whole answer points both at [CLS] (position 0).

Decoding takes, in every window of an example, the ``n_best`` highest start and end
logits, keeps pairs that lie inside the context, with end ≥ start and at most
``max_answer_tokens`` tokens, and answers with the context characters of the pair with
the highest start + end logit over all windows (empty string when no pair is valid).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_MAX_LENGTH = 384
DEFAULT_STRIDE = 128
DEFAULT_N_BEST = 20
DEFAULT_MAX_ANSWER_TOKENS = 30


@dataclass(frozen=True)
class Window:
    """One tokenized window of one example."""

    example: int  # index of the example in the list given to tokenize_windows
    feature: dict  # input_ids, attention_mask, [token_type_ids], [start/end_positions]
    offsets: list[tuple[int, int] | None]  # character span per token; None outside the context


def tokenize_windows(
    tokenizer,
    rows: Sequence[dict],
    *,
    max_length: int = DEFAULT_MAX_LENGTH,
    stride: int = DEFAULT_STRIDE,
    with_labels: bool,
) -> list[Window]:
    """The rows' question and context tokenised into overlapping windows of the context (with the answer's token
    span when ``with_labels``)."""
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError("reading comprehension needs a fast tokenizer (offset mappings)")
    pad_right = tokenizer.padding_side == "right"
    questions = [row["question"].lstrip() for row in rows]
    contexts = [row["context"] for row in rows]
    encoded = tokenizer(
        questions if pad_right else contexts,
        contexts if pad_right else questions,
        truncation="only_second" if pad_right else "only_first",
        max_length=max_length,
        stride=min(stride, max_length // 2),
        return_overflowing_tokens=True,
        return_offsets_mapping=True,
    )
    context_index = 1 if pad_right else 0
    windows = []
    for w in range(len(encoded["input_ids"])):
        example = encoded["overflow_to_sample_mapping"][w]
        sequence_ids = encoded.sequence_ids(w)
        offsets = [
            tuple(span) if sequence_ids[t] == context_index else None
            for t, span in enumerate(encoded["offset_mapping"][w])
        ]
        feature = {"input_ids": encoded["input_ids"][w], "attention_mask": encoded["attention_mask"][w]}
        if "token_type_ids" in encoded:
            feature["token_type_ids"] = encoded["token_type_ids"][w]
        if with_labels:
            start, end = answer_token_span(rows[example], offsets)
            feature["start_positions"], feature["end_positions"] = start, end
        windows.append(Window(example=example, feature=feature, offsets=offsets))
    return windows


def answer_token_span(row: dict, offsets: Sequence[tuple[int, int] | None]) -> tuple[int, int]:
    """Token positions of the first gold answer in this window, or (0, 0) if it is not inside."""
    answers = row["answers"]
    if not answers["text"]:
        return 0, 0
    start_char = answers["answer_start"][0]
    end_char = start_char + len(answers["text"][0])
    context_tokens = [t for t, span in enumerate(offsets) if span is not None]
    if not context_tokens:
        return 0, 0
    first, last = context_tokens[0], context_tokens[-1]
    if _span(offsets, first)[0] > start_char or _span(offsets, last)[1] < end_char:
        return 0, 0
    start = first
    while start <= last and _span(offsets, start)[1] <= start_char:
        start += 1
    end = last
    while end >= first and _span(offsets, end)[0] >= end_char:
        end -= 1
    return start, end


def _span(offsets: Sequence[tuple[int, int] | None], token: int) -> tuple[int, int]:
    """The character span of a context token (the context's tokens are contiguous)."""
    span = offsets[token]
    if span is None:
        raise ValueError(f"token {token} is inside the context's tokens but not of the context")
    return span


def best_span(
    windows: Sequence[tuple[np.ndarray, np.ndarray, Sequence[tuple[int, int] | None]]],
    context: str,
    *,
    n_best: int = DEFAULT_N_BEST,
    max_answer_tokens: int = DEFAULT_MAX_ANSWER_TOKENS,
) -> str:
    """The answer text for one example from its windows' (start_logits, end_logits, offsets)."""
    best_score = -np.inf
    best = ""
    for start_logits, end_logits, offsets in windows:
        length = len(offsets)
        start_logits = np.asarray(start_logits[:length])
        end_logits = np.asarray(end_logits[:length])
        starts = np.argsort(start_logits)[::-1][:n_best]
        ends = np.argsort(end_logits)[::-1][:n_best]
        for s in starts:
            if offsets[s] is None:
                continue
            for e in ends:
                if offsets[e] is None or e < s or e - s + 1 > max_answer_tokens:
                    continue
                score = start_logits[s] + end_logits[e]
                if score > best_score:
                    best_score = score
                    best = context[offsets[s][0] : offsets[e][1]]
    return best
