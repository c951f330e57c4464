"""Re-rank EuroEval's published boards of one commit from the iterations ``import_board``
stores (pure: no Django).

EuroEval computes a language's ``_all`` and ``_nlu`` boards in one pass over the same
records: per dataset, one Welch walk over every entry with a result (σ is the spread of all
their means), then task → language means over the category's datasets (``nlu``: its NLU
tasks; ``all``: every task but the orthogonal ones). A group board's rank score is the mean
of its languages' rank scores. So a language is reproduced from the merged cells of both its
files (:func:`leaderboard.board_cells.merge_boards`), each cell turned into the iteration
values :func:`leaderboard.board_cells.fractions` chooses, ranked by
:func:`leaderboard.ranking.dataset_rank_scores` (the walk the site runs on stored scores).

Cells written by EuroEval's ``16.17.0.dev0`` builds print either ``±`` (those builds wrote
the old format first, then EEE): the board does not say which, its rank scores do.
:func:`best_reading` reads them both ways and keeps the reading under which the language's
published rank scores are reproduced more closely (one choice per language, stated in
every record ``import_board`` writes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from evaluation.tasks import get_task
from leaderboard.board_cells import CellOutOfRange, MergedBoard, fractions, merge_boards, read_ambiguous_as
from leaderboard.published_boards import PublishedBoard, parse_board, parse_group_board
from leaderboard.ranking import aggregate_tasks, dataset_rank_scores

KINDS = ("all", "nlu")


@dataclass(frozen=True)
class Comparison:
    board: str
    entries: int
    ranked: int  # ranked on the published board
    same_ranked_set: bool
    mean_abs_diff: float
    max_abs_diff: float
    spearman: float


def compare(name: str, labels: list[str], published: np.ndarray, ours: dict[str, float]) -> Comparison:
    """Our rank score per label (missing or inf: unranked) against the published ones."""
    mine = np.array([ours.get(label, np.inf) for label in labels], dtype=float)
    ranked = np.isfinite(published)
    both = ranked & np.isfinite(mine)
    diff = np.abs(mine[both] - published[both])
    rho = float(stats.spearmanr(mine[both], published[both]).statistic) if both.sum() > 2 else float("nan")
    return Comparison(
        board=name,
        entries=len(labels),
        ranked=int(ranked.sum()),
        same_ranked_set=bool(np.array_equal(np.isfinite(mine), ranked)),
        mean_abs_diff=float(diff.mean()) if diff.size else float("nan"),
        max_abs_diff=float(diff.max()) if diff.size else float("nan"),
        spearman=rho,
    )


def category_datasets(merged: MergedBoard, kind: str) -> list[str]:
    """The ranked datasets of a category, in board order."""
    return [
        d
        for d, task in merged.dataset_tasks.items()
        if get_task(task).ranked and (kind == "all" or get_task(task).category == "nlu")
    ]


def language_scores(merged: MergedBoard) -> dict[str, dict[str, float]]:
    """``{kind: {entry label: rank score}}`` from the reconstructed iterations (inf: unranked)."""
    labels = list(merged.cells)
    per_dataset = {}
    for dataset in merged.dataset_tasks:
        lists = []
        for label in labels:
            cell = merged.cells[label].get(dataset)
            try:
                lists.append(fractions(*cell.primary, cell.z) if cell else None)
            except CellOutOfRange:
                lists.append(None)
        per_dataset[dataset] = dataset_rank_scores(lists)
    out = {}
    for kind in KINDS:
        datasets = category_datasets(merged, kind)
        if not datasets:
            continue
        matrix = np.stack([per_dataset[d] for d in datasets], axis=1)
        _, _, language = aggregate_tasks(matrix, [merged.dataset_tasks[d] for d in datasets])
        out[kind] = dict(zip(labels, language.tolist()))
    return out


def read(path: Path) -> PublishedBoard:
    return parse_board(Path(path).read_text(encoding="utf-8"))


def best_reading(boards: dict[str, PublishedBoard]) -> tuple[MergedBoard, float | None, dict]:
    """The language's merged cells with its ambiguous cells read as standard errors (z = 1)
    or as 95% half-widths (z = 1.96), whichever reproduces the published rank scores of
    ``boards`` (``{kind: board}``) better; the z chosen (None: no ambiguous cell) and the
    rank scores under it."""
    merged = merge_boards(list(boards.values()))
    if not any(c.ambiguous for row in merged.cells.values() for c in row.values()):
        return merged, None, language_scores(merged)
    best = None
    for z in (1.0, 1.96):
        candidate = read_ambiguous_as(merged, z)
        scores = language_scores(candidate)
        error = sum(
            compare(kind, b.models, b.published, scores.get(kind, {})).mean_abs_diff for kind, b in boards.items()
        )
        if best is None or error < best[0]:
            best = (error, candidate, z, scores)
    return best[1], best[2], best[3]


def reproduce_language(files: dict[str, Path]) -> list[Comparison]:
    """``files``: ``{"all": path, "nlu": path}`` of one language (either may be absent)."""
    boards = {kind: read(path) for kind, path in files.items()}
    _, _, scores = best_reading(boards)
    return [
        compare(files[kind].name, board.models, board.published, scores.get(kind, {})) for kind, board in boards.items()
    ]


def group_scores(member_scores: list[dict[str, float]]) -> dict[str, float]:
    """A group's rank score per entry: the mean of its languages' (inf unless in all of them)."""
    labels = set().union(*member_scores) if member_scores else set()
    return {label: float(np.mean([scores.get(label, np.inf) for scores in member_scores])) for label in labels}


def read_group(path: Path) -> tuple[list[str], np.ndarray]:
    """A group board's entry labels and published rank scores."""
    return parse_group_board(Path(path).read_text(encoding="utf-8"))
