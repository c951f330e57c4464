"""The bootstrap resamples and few-shot selection of docs/methodology.md §1.

``rng = numpy.random.default_rng(4242)``; for each split in the order train, val, test:
``rng.integers(0, n, size=(10, n))``; iteration *i* uses ``idx[i]``. We always draw 10
rows (or more when more iterations are asked for) so iteration *i* is the same whatever
``--iterations`` says. ``--limit K`` keeps the first K test rows *before* bootstrapping,
so the test resamples are drawn from those K rows (n = K).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

SEED = 4242
SPLIT_ORDER = ("train", "val", "test")
NUM_BOOTSTRAPS = 10
CHAR_CAPS = (512, 1024, 2048, 4096, 8192)


def bootstrap_indices(
    sizes: dict[str, int], iterations: int = NUM_BOOTSTRAPS, seed: int = SEED
) -> dict[str, np.ndarray]:
    """Row indices per split, shape ``(max(10, iterations), n)``."""
    rng = np.random.default_rng(seed)
    draws = max(NUM_BOOTSTRAPS, iterations)
    out = {}
    for split in SPLIT_ORDER:
        n = int(sizes.get(split, 0))
        out[split] = rng.integers(0, n, size=(draws, n)) if n > 0 else np.zeros((draws, 0), dtype=np.int64)
    return out


def select_shots(
    train_rows: Sequence[dict],
    indices: Sequence[int],
    *,
    num_shots: int,
    iteration: int,
    text_of: Callable[[dict], str],
    dedupe_key: Callable[[dict], str],
    label_of: Callable[[dict], object] | None = None,
    labels: Sequence | None = None,
    seed: int = SEED,
) -> list[int]:
    """Row ids (into ``train_rows``) of the few-shot examples of iteration ``iteration``.

    The iteration's train resample is shuffled with ``seed + iteration``; the smallest
    character cap in 512…8192 that leaves ``num_shots`` distinct examples is applied;
    duplicates (by ``dedupe_key``) are dropped; with ``label_of`` the picks cycle through
    ``labels`` (stratified), otherwise they are taken in shuffled order.
    """
    if num_shots <= 0 or len(indices) == 0:
        return []
    order = np.random.default_rng(seed + iteration).permutation(len(indices))
    shuffled = [int(indices[k]) for k in order]

    def distinct(cap: int | None) -> list[int]:
        seen, out = set(), []
        for row_id in shuffled:
            row = train_rows[row_id]
            if cap is not None and len(text_of(row)) > cap:
                continue
            key = dedupe_key(row)
            if key in seen:
                continue
            seen.add(key)
            out.append(row_id)
        return out

    candidates: list[int] = []
    for cap in (*CHAR_CAPS, None):
        candidates = distinct(cap)
        if len(candidates) >= num_shots and (
            label_of is None or _covers_labels(candidates, train_rows, label_of, labels)
        ):
            break
    if label_of is None:
        return candidates[:num_shots]
    by_label: dict[object, list[int]] = {}
    for row_id in candidates:
        by_label.setdefault(label_of(train_rows[row_id]), []).append(row_id)
    cycle = [lab for lab in (labels or sorted(by_label, key=str)) if lab in by_label]
    picked: list[int] = []
    while len(picked) < num_shots and any(by_label.get(lab) for lab in cycle):
        for lab in cycle:
            if by_label[lab] and len(picked) < num_shots:
                picked.append(by_label[lab].pop(0))
    return picked


def _covers_labels(candidates, rows, label_of, labels) -> bool:
    if not labels:
        return True
    present = {label_of(rows[r]) for r in candidates}
    return all(lab in present for lab in labels)
