"""A published EuroEval board's cells as per-iteration scores (pure: no Django).

A board cell prints ``mean ± x`` of the primary metric (then of the secondary one), ×100,
where x = z·s/√n: the 95% half-width (z = 1.96) or the standard error (z = 1; which one,
per cell: :mod:`leaderboard.published.boards`), over n = 10 iterations. The iterations
themselves are not published. :func:`iteration_values` chooses n values whose sample mean
is the published mean and whose sample standard deviation (ddof 1) is s = x·√n/z: a
two-point set, k values at ``low`` and n − k at ``high``, with

    high − low = d = s·√(n(n − 1)/(k(n − k))),  high = mean + k·d/n,  low = mean − (n − k)·d/n

(k = n/2 gives mean ± s·√((n − 1)/n), the set that strays least from the mean). Every
statistic the rankings read from iterations is a function of (mean, s², n) per entry and
dataset: the Welch t-test, the 95% interval, the pooled spread of EuroEval's 2026 method
(the population variance of all iteration scores of a dataset is
Σ[(n − 1)s² + n(mean − grand mean)²]/Σn). So a board rebuilt from these values ranks
exactly as the published summaries do. :func:`fractions` takes k = n/2 unless that leaves
the metric's range [-1, 1]; then the k nearest n/2 that stays inside (a cell such as
``81.06 ± 17.68``: one failed iteration among good ones), and refuses the cell
(:class:`CellOutOfRange`) only when no k does.

Boards list one entry per model and variant: ``org/model``, ``org/model (val)``,
``claude-x#thinking (zero-shot, val)`` (:func:`entry_identity`). A language's ``_all`` and
``_nlu`` boards print the same cell for the same entry and dataset (EuroEval writes both
from one set of records), so they merge into one set of cells (:func:`merge_boards`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

import numpy as np

from leaderboard.published.boards import PublishedBoard

ITERATIONS = 10  # EuroEval's iterations per dataset (docs/methodology.md §2)
VARIANT_RE = re.compile(r"^(?P<model>.+?)\s+\((?P<tags>[a-z ,-]+)\)$")
VARIANT_TAGS = {"zero-shot", "val", "few-shot"}


class CellOutOfRange(ValueError):
    """The published summary cannot come from scores within the metric's range."""


def iteration_values(mean: float, half_width: float, z: float, n: int = ITERATIONS, low_count: int = 0) -> list[float]:
    """n values, ``low_count`` (default n // 2) of them low, with sample mean ``mean`` and
    sample standard deviation half_width·√n/z: the high values first."""
    k = low_count or n // 2
    if n < 2 or not 0 < k < n or not (math.isfinite(mean) and math.isfinite(half_width)) or half_width < 0 or z <= 0:
        raise ValueError(f"no iterations for {mean} ± {half_width} (z={z}, n={n}, low={k})")
    s = half_width * math.sqrt(n) / z
    d = s * math.sqrt(n * (n - 1) / (k * (n - k)))
    return [mean + k * d / n] * (n - k) + [mean - (n - k) * d / n] * k


def fractions(mean_pct: float, half_width_pct: float, z: float, n: int = ITERATIONS) -> list[float]:
    """:func:`iteration_values` of a cell printed ×100, as fractions in [-1, 1]: the most
    balanced split of low and high values that stays in that range."""
    for k in sorted(range(1, n), key=lambda k: (abs(2 * k - n), k)):
        values = iteration_values(mean_pct / 100.0, half_width_pct / 100.0, z, n, k)
        if max(values) <= 1.0 and min(values) >= -1.0:
            return values
    raise CellOutOfRange(f"{mean_pct} ± {half_width_pct} (z={z}) needs values outside [-100, 100]")


@dataclass(frozen=True)
class EntryIdentity:
    model_id: str
    few_shot: bool
    validation_split: bool


def entry_identity(label: str) -> EntryIdentity:
    """``"org/model (zero-shot, val)"`` → the model id and its variant flags."""
    match = VARIANT_RE.match(label.strip())
    if match:
        tags = {t.strip() for t in match["tags"].split(",")}
        if tags <= VARIANT_TAGS:
            return EntryIdentity(match["model"].strip(), "zero-shot" not in tags, "val" in tags)
    return EntryIdentity(label.strip(), True, False)


@dataclass(frozen=True)
class Cell:
    """One entry's published summaries on one dataset, and the z of its ``±``."""

    primary: tuple[float, float]  # (mean, ±) ×100
    secondary: tuple[float, float] | None
    z: float
    ambiguous: bool = False  # a cell of the build that wrote either format (z 1 or 1.96)


@dataclass
class MergedBoard:
    """The cells of one language's boards: by entry label, then dataset."""

    dataset_tasks: dict[str, str] = field(default_factory=dict)
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)
    metadata: dict[str, dict] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)  # "label / dataset" printed differently

    def add(self, board: PublishedBoard) -> None:
        for d, dataset in enumerate(board.datasets):
            self.dataset_tasks.setdefault(dataset, board.dataset_tasks[d])
        for e, label in enumerate(board.models):
            if e < len(board.metadata):
                self.metadata.setdefault(label, board.metadata[e])
            for d, dataset in enumerate(board.datasets):
                cell = _cell(board, e, d)
                if cell is None:
                    continue
                known = self.cells.setdefault(label, {}).setdefault(dataset, cell)
                if known != cell:
                    self.conflicts.append(f"{label} / {dataset}")

    def summaries(self, datasets: list[str], labels: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N, D) means, ± and z of the primary metric (NaN: no cell) in the given order."""
        shape = (len(labels), len(datasets))
        means, cis, z = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, 1.96)
        for e, label in enumerate(labels):
            for d, dataset in enumerate(datasets):
                cell = self.cells.get(label, {}).get(dataset)
                if cell is not None:
                    (means[e, d], cis[e, d]), z[e, d] = cell.primary, cell.z
        return means, cis, z


def _cell(board: PublishedBoard, e: int, d: int) -> Cell | None:
    mean, ci = board.means[e, d], board.cis[e, d]
    if np.isnan(mean):
        return None
    secondary = None
    if board.secondary_means is not None and not np.isnan(board.secondary_means[e, d]):
        secondary = (float(board.secondary_means[e, d]), float(board.secondary_cis[e, d]))
    ambiguous = board.ambiguous is not None and bool(board.ambiguous[e, d])
    return Cell((float(mean), float(ci)), secondary, float(board.z[e, d]), ambiguous)


def read_ambiguous_as(merged: MergedBoard, readings: dict[str, float]) -> MergedBoard:
    """A copy in which the ambiguous cells (``published_boards.AMBIGUOUS_BUILD``) of each
    entry in ``readings`` (``{label: z}``) read ``±`` with that entry's z."""
    cells = dict(merged.cells)
    for label, z in readings.items():
        cells[label] = {d: replace(c, z=z) if c.ambiguous else c for d, c in merged.cells[label].items()}
    return MergedBoard(dict(merged.dataset_tasks), cells, merged.metadata, list(merged.conflicts))


def merge_boards(boards: list[PublishedBoard]) -> MergedBoard:
    merged = MergedBoard()
    for board in boards:
        merged.add(board)
    return merged
