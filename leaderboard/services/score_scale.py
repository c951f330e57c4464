"""Which metrics of a record are written in percent (×100) rather than as fractions.

Stored scores are fractions (MCC in [-1, 1], the rest in [0, 1]). Some files write raw
scores in percent (old files do so for question answering). The scale is decided per
record and per metric, never from a single stray value:

1. ``results.total`` is always in percent. When the raw mean equals the total, the raw
   values are percent; when 100 × the raw mean equals it, they are fractions. Totals are
   rounded to two decimals, so equal means within 0.006.
2. Without a total that settles it, a metric is percent only when its values are on a
   percentage scale as a whole: all within [-100, 100] and most of them (more than half)
   outside [-1, 1]. A fraction-scale metric with one stray value stays as written, and
   the stray value then makes the record invalid.
"""

from __future__ import annotations

import math

ROUNDING = 0.006  # totals are printed with two decimals


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _scale_from_total(mean: float, total: float) -> bool | None:
    """True: percent; False: fractions; None: the total does not settle it."""
    tolerance = ROUNDING + 1e-6 * abs(total)
    if abs(100 * mean - total) <= tolerance:
        return False
    if abs(mean - total) <= tolerance:
        return True
    return None


def _scale_from_range(values: list[float]) -> bool:
    if any(abs(v) > 100 for v in values):
        return False
    return sum(abs(v) > 1 for v in values) * 2 > len(values)


def percent_metrics(iterations: list[dict[str, float]], totals: dict[str, object]) -> set[str]:
    """The metrics (keys of the iteration dicts) whose raw values are percent.

    ``totals`` maps canonical metric names to the record's ``results.total`` values.
    """
    percent = set()
    metrics = {metric for scores in iterations for metric in scores}
    for metric in sorted(metrics):
        values = [scores[metric] for scores in iterations if metric in scores]
        total = _number(totals.get(metric))
        decided = None
        if total is not None and total != 0:
            decided = _scale_from_total(sum(values) / len(values), total)
        if decided is None:
            decided = _scale_from_range(values)
        if decided:
            percent.add(metric)
    return percent
