"""The Pareto front of quality against cost (docs/methodology.md §11): pure, no Django.

A point is on the front when no other point is at least as good on both axes and better on
one. Quality is the rank score (lower is better); cost is throughput (higher is better) or
memory (lower is better). Equal points are all on the front or all off it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def pareto_front(points: Sequence[tuple[float, float]], *, maximise_x: bool, minimise_y: bool = True) -> list[int]:
    """Indices of the non-dominated ``(x, y)`` points, in order of x from best to worst.
    Points with a coordinate that is not a finite number are never on the front."""
    keyed = []
    for index, (x, y) in enumerate(points):
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        keyed.append(((-x if maximise_x else x), (y if minimise_y else -y), index))
    keyed.sort()
    front: list[int] = []
    best: tuple[float, float] | None = None
    for u, v, index in keyed:  # both coordinates to minimise now, sorted by u then v
        if best is None or v < best[1]:
            best = (u, v)
            front.append(index)
        elif (u, v) == best:  # the same point as the last one on the front
            front.append(index)
    return front
