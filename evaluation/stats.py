"""The one dataset statistic (docs/methodology.md §3): the mean of a metric's iteration scores and
its 95% half-width ``1.96 · s / √n`` (``s`` the sample standard deviation, ddof = 1).

The engine writes it into result records (``metrics.totals``), aggregation shows it per
board cell (``leaderboard.ranking.core.dataset_score``) and pages recompute it from the
stored iteration scores (model pages): one function, so they cannot disagree. Pure numpy.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

Z95 = 1.96


def mean_ci(values: Iterable[float | None]) -> tuple[float, float | None]:
    """``(mean, half-width)`` of the values (None and NaN ignored); the half-width is None
    with fewer than two values. Raises ValueError when no value is left."""
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        raise ValueError("a mean ± CI needs at least one value")
    mean = float(np.mean(arr))
    if arr.size < 2:
        return mean, None
    return mean, Z95 * float(np.std(arr, ddof=1)) / np.sqrt(arr.size)
