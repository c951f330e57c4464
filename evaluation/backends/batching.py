"""Which prompts go into which forward batch: length-sorted batches, greedy or with the least padding.

Pure functions over token counts; the transformers backend pads each batch to its longest row.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

BATCH_COST = 16  # a forward batch's fixed cost, in padded tokens: what another batch must save to pay off


def greedy_batches(lengths: Sequence[int], max_batch: int, token_budget: int) -> Iterator[list[int]]:
    """Index lists, longest first, each filled up to ``max_batch`` rows and ``token_budget`` padded tokens."""
    order = sorted(range(len(lengths)), key=lambda k: -lengths[k])
    batch: list[int] = []
    for k in order:
        longest = lengths[batch[0]] if batch else lengths[k]
        if batch and (len(batch) + 1) * longest > token_budget or len(batch) >= max_batch:
            yield batch
            batch = []
        batch.append(k)
    if batch:
        yield batch


def padded_batches(
    lengths: Sequence[int], max_batch: int, token_budget: int, batch_cost: int = BATCH_COST
) -> list[list[int]]:
    """Index lists, longest first, cut where the padded tokens plus ``batch_cost`` per batch are
    fewest: the rows sorted by length, an exact minimum over every split into consecutive runs of
    at most ``max_batch`` rows and ``token_budget`` padded tokens (a row over the budget alone).
    For one forward pass per batch (no decoding after it, whose cost is per batch, not per token)."""
    order = sorted(range(len(lengths)), key=lambda k: -lengths[k])
    n = len(order)
    best = [0] + [-1] * n  # best[i]: the least cost of the first i sorted rows
    cut = [0] * (n + 1)
    for i in range(1, n + 1):
        for start in range(i - 1, max(-1, i - 1 - max_batch), -1):
            width = lengths[order[start]]  # the longest row of order[start:i]
            if start < i - 1 and (i - start) * width > token_budget:
                break
            cost = best[start] + (i - start) * width + batch_cost
            if best[i] < 0 or cost < best[i]:
                best[i], cut[i] = cost, start
    batches: list[list[int]] = []
    i = n
    while i > 0:
        batches.append(order[cut[i] : i])
        i = cut[i]
    return batches[::-1]
