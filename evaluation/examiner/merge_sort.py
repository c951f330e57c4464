"""Ranking by pairwise comparison, arranged as a merge sort (Bai et al. 2023, §3.2).

A comparison judges one pair in both orders (A shown first, then B shown first) to cancel
the examiner's position bias: the pair is ordered when both orders agree and tied when
they disagree. A tie keeps the merge stable (the earlier item stays first). Merge sort
makes at most n⌈log₂ n⌉ - 2^⌈log₂ n⌉ + 1 ≤ ⌈n log₂ n⌉ comparisons; every one is counted
and returned with both verdicts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

# judge(first_shown, second_shown) -> 1 when the first shown is better, 2 when the second is
Judge = Callable[[str, str], int]


@dataclass(frozen=True)
class Judgment:
    """One pair judged in both orders: each order's winner, and the outcome (a tie when they disagree)."""

    pair: tuple[str, str]  # as the merge met them
    ab: str  # the winner when pair[0] was shown first
    ba: str  # the winner when pair[1] was shown first
    outcome: str  # the winner, or "tie" when the two orders disagree

    @classmethod
    def from_verdicts(cls, a: str, b: str, ab: str, ba: str) -> Judgment:
        """The pair's judgment from its two verdicts: the winner when they agree, else a tie."""
        return cls((a, b), ab, ba, ab if ab == ba else "tie")

    def to_dict(self) -> dict:
        """The judgment as JSON."""
        return {"pair": list(self.pair), "ab": self.ab, "ba": self.ba, "outcome": self.outcome}


@dataclass
class Ranking:
    """The order a merge sort found (best first), and the judgments it took."""

    order: list[str]  # best first
    judgments: list[Judgment] = field(default_factory=list)

    @property
    def comparisons(self) -> int:
        """How many pairs were judged."""
        return len(self.judgments)

    def ties(self) -> list[tuple[str, str]]:
        """The pairs whose two orders disagreed."""
        return [j.pair for j in self.judgments if j.outcome == "tie"]

    def tiers(self) -> list[list[str]]:
        """The order in tiers: neighbours that were compared directly and tied share one."""
        tied = {frozenset(pair) for pair in self.ties()}
        tiers: list[list[str]] = []
        for item in self.order:
            if tiers and frozenset((tiers[-1][-1], item)) in tied:
                tiers[-1].append(item)
            else:
                tiers.append([item])
        return tiers


def comparison_bound(n: int) -> int:
    """⌈n log₂ n⌉: the most comparisons a ranking of n items may make."""
    return math.ceil(n * math.log2(n)) if n > 1 else 0


def judge_both_orders(a: str, b: str, judge: Judge) -> Judgment:
    """Ask ``judge`` about ``a`` and ``b`` in both orders and combine the verdicts."""
    return Judgment.from_verdicts(a, b, a if judge(a, b) == 1 else b, b if judge(b, a) == 1 else a)


def merge_sort_steps(items: Sequence[str]) -> Generator[tuple[str, str], Judgment, Ranking]:
    """The merge sort as a generator: it yields each pair to judge, is sent the
    :class:`Judgment`, and returns the :class:`Ranking`. An exam drives many of these at
    once and judges their pending pairs in one batch."""
    judgments: list[Judgment] = []

    def sort(part: list[str]) -> Generator[tuple[str, str], Judgment, list[str]]:
        if len(part) <= 1:
            return part
        middle = len(part) // 2
        left = yield from sort(part[:middle])
        right = yield from sort(part[middle:])
        merged: list[str] = []
        i = j = 0
        while i < len(left) and j < len(right):
            judgment = yield (left[i], right[j])
            judgments.append(judgment)
            if judgment.outcome == right[j]:
                merged.append(right[j])
                j += 1
            else:  # the left one won, or a tie: stable
                merged.append(left[i])
                i += 1
        return merged + left[i:] + right[j:]

    order = yield from sort(list(items))
    return Ranking(order, judgments)


def merge_sort_ranking(items: Sequence[str], judge: Judge) -> Ranking:
    """The merge sort driven by one judge, one comparison at a time."""
    steps = merge_sort_steps(items)
    try:
        pair = next(steps)
        while True:
            pair = steps.send(judge_both_orders(*pair, judge))
    except StopIteration as done:
        return done.value


def borda_points(tiers: Sequence[Sequence[str]]) -> dict[str, float]:
    """Each item's share of the others it beats, in [0, 1]; a tie counts half."""
    n = sum(len(tier) for tier in tiers)
    if n < 2:
        return {item: 0.5 for tier in tiers for item in tier}
    points: dict[str, float] = {}
    below = n
    for tier in tiers:
        below -= len(tier)
        for item in tier:
            points[item] = (below + (len(tier) - 1) / 2) / (n - 1)
    return points
