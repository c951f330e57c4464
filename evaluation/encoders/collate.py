"""Dynamic padding of tokenized features into tensors.

A feature is a dict of plain lists/ints: ``input_ids``, ``attention_mask``, optionally
``token_type_ids``, and labels (``labels`` as an int or a per-token list,
``start_positions`` / ``end_positions``). Multiple choice features hold one list per
choice (``input_ids: [[...], [...], ...]``). Extra keys (offsets, ids) are ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

IGNORE_INDEX = -100
TENSOR_KEYS = ("input_ids", "attention_mask", "token_type_ids", "labels", "start_positions", "end_positions")


def _pad(seq: list[int], length: int, value: int) -> list[int]:
    return list(seq) + [value] * (length - len(seq))


def make_collate(pad_token_id: int):
    """A collate function that pads a list of encoded features into batch tensors (multiple-choice rows padded per
    choice)."""
    pad_values = {"input_ids": pad_token_id, "attention_mask": 0, "token_type_ids": 0, "labels": IGNORE_INDEX}

    def collate(features: Sequence[dict]) -> dict[str, torch.Tensor]:
        first = features[0]
        multiple_choice = isinstance(first["input_ids"][0], list)
        rows = [f["input_ids"] for f in features]
        if multiple_choice:
            length = max(len(choice) for row in rows for choice in row)
        else:
            length = max(len(row) for row in rows)
        batch: dict[str, torch.Tensor] = {}
        for key in TENSOR_KEYS:
            if key not in first:
                continue
            values = [f[key] for f in features]
            if key in pad_values and isinstance(values[0], list):
                if multiple_choice:
                    values = [[_pad(c, length, pad_values[key]) for c in row] for row in values]
                else:
                    values = [_pad(row, length, pad_values[key]) for row in values]
            batch[key] = torch.tensor(values, dtype=torch.long)
        return batch

    return collate
