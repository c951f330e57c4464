"""Seeded choices that depend only on the item they are about, so that a pool's sample is
the same whether it is drawn from the full source or from a fixture holding just the items
that were used (what makes the builders' tests byte-exact on small fixtures)."""

from __future__ import annotations

import hashlib
import random

SEED = 4242
# EuroEval's val and train sizes: the share of val where one file gives both
VAL_TRAIN_SIZES = {"val": 256, "train": 1024}


def item_key(text: str, purpose: str = "order", seed: int = SEED) -> bytes:
    """A stable pseudo-random sort key of ``text``."""
    return hashlib.sha256(f"{seed}\x00{purpose}\x00{text}".encode()).digest()


def item_rng(text: str, purpose: str, seed: int = SEED) -> random.Random:
    """A generator of its own for decisions about ``text``."""
    return random.Random(int.from_bytes(item_key(text, purpose, seed)[:8], "big"))


def split_sizes(pool: int, wanted: dict[str, int]) -> dict[str, int]:
    """``wanted`` (test, val, train) when the pool has enough items, else the pool cut in the
    same proportions, the remainder to the first split (test, where it comes first)."""
    total = sum(wanted.values())
    if pool >= total:
        return dict(wanted)
    sizes = {name: pool * size // total for name, size in wanted.items()}
    sizes[next(iter(wanted))] += pool - sum(sizes.values())
    return sizes


def cut_in_order(ordered: list, sizes: dict[str, int]) -> dict[str, list]:
    """``ordered`` cut into consecutive slices of ``sizes``, in the order of ``sizes``."""
    splits, start = {}, 0
    for name, size in sizes.items():
        splits[name] = ordered[start : start + size]
        start += size
    return splits


def take_splits(items: list, key, wanted: dict[str, int]) -> dict[str, list]:
    """The items sorted by ``key`` (duplicates by key dropped) and cut, in the order of
    ``wanted``, into splits of its sizes."""
    unique = {}
    for item in items:
        unique.setdefault(key(item), item)
    ordered = [unique[k] for k in sorted(unique)]
    return cut_in_order(ordered, split_sizes(len(ordered), wanted))


def usable_in_key_order(items: list, key, unusable, seen: set[bytes], counts) -> list:
    """``items`` sorted by ``key``, without the ``unusable`` ones (counted as ``dropped``) and
    without those whose key was ``seen`` before (counted as ``duplicates``); ``seen`` grows."""
    kept = []
    for item in sorted(items, key=key):
        if unusable(item):
            counts["dropped"] += 1
        elif key(item) in seen:
            counts["duplicates"] += 1
        else:
            seen.add(key(item))
            kept.append(item)
    return kept


def cut_val_train(items: list) -> tuple[list, list]:
    """``items`` cut, in order, into val and train in EuroEval's proportion (a fifth to val)."""
    n_val = len(items) * VAL_TRAIN_SIZES["val"] // sum(VAL_TRAIN_SIZES.values())
    return items[:n_val], items[n_val:]
