"""Forward batches (evaluation/backends/batching.py): every row once, within the limits, and the
least padding over every split into consecutive runs of the length-sorted rows."""

from __future__ import annotations

import itertools
import random

from evaluation.backends.batching import greedy_batches, padded_batches


def _cost(lengths, batches, batch_cost):
    return sum(len(b) * max(lengths[k] for k in b) + batch_cost for b in batches)


def _brute_force(lengths, max_batch, budget, batch_cost):
    """The least cost over every split of the sorted rows into consecutive runs (small inputs only)."""
    order = sorted(range(len(lengths)), key=lambda k: -lengths[k])
    best = None
    for cuts in itertools.product([False, True], repeat=len(order) - 1):
        batches, start = [], 0
        for i, cut in enumerate(cuts, start=1):
            if cut:
                batches.append(order[start:i])
                start = i
        batches.append(order[start:])
        fits = all(len(b) <= max_batch and (len(b) == 1 or len(b) * lengths[b[0]] <= budget) for b in batches)
        if fits and (best is None or _cost(lengths, batches, batch_cost) < best):
            best = _cost(lengths, batches, batch_cost)
    return best


def test_padded_batches_are_the_least_padding_within_the_limits():
    rng = random.Random(3)
    for _ in range(60):
        lengths = [rng.randint(1, 300) for _ in range(rng.randint(1, 11))]
        max_batch, budget, batch_cost = rng.randint(1, 5), rng.choice([200, 600, 8192]), rng.choice([0, 16, 200])
        batches = padded_batches(lengths, max_batch, budget, batch_cost)
        assert sorted(k for b in batches for k in b) == list(range(len(lengths)))
        assert all(len(b) <= max_batch for b in batches)
        assert all(len(b) == 1 or len(b) * max(lengths[k] for k in b) <= budget for b in batches)
        assert all(lengths[b[0]] == max(lengths[k] for k in b) for b in batches)  # longest first
        assert _cost(lengths, batches, batch_cost) == _brute_force(lengths, max_batch, budget, batch_cost)


def test_padded_batches_pad_less_than_greedy_ones_where_lengths_spread():
    lengths = [280, 270, 252, 248, 247, 238, 235, 234, 232, 220, 218, 212, 211, 206, 206, 204]
    lengths += [201, 196, 188, 173, 158, 145, 136, 120, 120, 113, 110, 100, 90, 87, 82, 78]
    greedy = list(greedy_batches(lengths, 8, 8192))
    tight = padded_batches(lengths, 8, 8192)
    assert [len(b) for b in greedy] == [8, 8, 8, 8]
    assert _cost(lengths, tight, 0) < _cost(lengths, greedy, 0) - 400
    assert len(tight) <= 16
