"""Re-rank EuroEval's published boards of one commit from the iterations ``import_board``
stores (pure: no Django).

EuroEval computes a language's ``_all`` and ``_nlu`` boards in one pass over the same
records: per dataset, one Welch walk over every entry with a result (σ is the spread of all
their means), then task → language means over the category's datasets (``nlu``: its NLU
tasks; ``all``: every task but the orthogonal ones). A group board's rank score is the mean
of its languages' rank scores. So a language is reproduced from the merged cells of both its
files (:func:`leaderboard.published.cells.merge_boards`), each cell turned into the iteration
values :func:`leaderboard.published.cells.fractions` chooses, ranked by
:func:`leaderboard.ranking.dataset_rank_scores` (the walk the site runs on stored scores).

Cells written by EuroEval's ``16.17.0.dev0`` builds print either ``±``: those builds wrote
the old format (95% half-width) for the ten hours between the 16.17.0 release and the EEE
writer (2026-03-09 11:21 and 21:42 UTC+1), then EEE (s/√n) until 17.0.0 a week later. The
board does not say which; its rank scores do. One run of EuroEval writes one entry's
results on a language with one build, so :func:`best_reading` decides per entry: every
entry's ambiguous cells are read as EEE (the build's usual output) unless reading that
entry's cells as half-widths reproduces the language's published rank scores (both kinds,
summed mean |Δ|) strictly better; sweeps repeat until no entry changes. Stated in every
record ``import_board`` writes. Measured on the boards of 2026-04-17 (BENCHMARKS.md): one
reading per language left the Dutch ``nlu`` board at 0.0058; per entry 2 of its 16
entries read as half-widths (Qwen2.5-72B-Instruct and Qwen3.5-2B (val), the latter so
on 8 languages) and it is 0.0031.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy import stats

from evaluation.tasks import get_task
from leaderboard.published.boards import PublishedBoard, parse_board, parse_group_board, parse_group_languages
from leaderboard.published.cells import CellOutOfRange, MergedBoard, fractions, merge_boards, read_ambiguous_as
from leaderboard.ranking import Z95, aggregate_tasks, dataset_rank_scores

KINDS = ("all", "nlu")
STANDARD_ERROR, HALF_WIDTH = 1.0, Z95  # the z of a ± read as s/√n or as the 95% half-width


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


@lru_cache(maxsize=200_000)
def _iterations(primary: tuple[float, float], z: float) -> tuple[float, ...] | None:
    """A cell's reconstructed iterations (None: out of range); cached, since
    :func:`best_reading` re-ranks the same cells many times."""
    try:
        return tuple(fractions(*primary, z))
    except CellOutOfRange:
        return None


def _dataset_scores(merged: MergedBoard, labels: list[str], dataset: str) -> np.ndarray:
    """One dataset's rank scores of ``labels`` from the reconstructed iterations (inf: no cell)."""
    cells = [merged.cells[label].get(dataset) for label in labels]
    return dataset_rank_scores([_iterations(cell.primary, cell.z) if cell else None for cell in cells])


def _category_scores(merged: MergedBoard, labels: list[str], per_dataset: dict[str, np.ndarray]) -> dict:
    out = {}
    for kind in KINDS:
        datasets = category_datasets(merged, kind)
        if not datasets:
            continue
        matrix = np.stack([per_dataset[d] for d in datasets], axis=1)
        _, _, language = aggregate_tasks(matrix, [merged.dataset_tasks[d] for d in datasets])
        out[kind] = dict(zip(labels, language.tolist()))
    return out


def language_scores(merged: MergedBoard) -> dict[str, dict[str, float]]:
    """``{kind: {entry label: rank score}}`` from the reconstructed iterations (inf: unranked)."""
    labels = list(merged.cells)
    return _category_scores(merged, labels, {d: _dataset_scores(merged, labels, d) for d in merged.dataset_tasks})


def read(path: Path) -> PublishedBoard:
    return parse_board(Path(path).read_text(encoding="utf-8"))


def best_reading(boards: dict[str, PublishedBoard]) -> tuple[MergedBoard, dict[str, float], dict]:
    """The language's merged cells with each entry's ambiguous cells read as standard errors
    (z = 1) or 95% half-widths (z = 1.96) as the module docstring says; the z chosen per
    entry that has such cells (empty: none) and the rank scores under those readings."""
    merged = merge_boards(list(boards.values()))
    labels = list(merged.cells)
    pending = {
        label: sorted(d for d, c in merged.cells[label].items() if c.ambiguous)
        for label in labels
        if any(c.ambiguous for c in merged.cells[label].values())
    }
    readings = dict.fromkeys(pending, STANDARD_ERROR)
    merged = read_ambiguous_as(merged, readings)
    per_dataset = {d: _dataset_scores(merged, labels, d) for d in merged.dataset_tasks}
    scores = _category_scores(merged, labels, per_dataset)
    if not pending:
        return merged, readings, scores

    def error(scores: dict) -> float:
        return sum(compare(k, b.models, b.published, scores.get(k, {})).mean_abs_diff for k, b in boards.items())

    best, changed = error(scores), True
    while changed:
        changed = False
        for label, datasets in pending.items():
            other = HALF_WIDTH if readings[label] == STANDARD_ERROR else STANDARD_ERROR
            trial = read_ambiguous_as(merged, {label: other})
            trial_per_dataset = dict(per_dataset) | {d: _dataset_scores(trial, labels, d) for d in datasets}
            trial_scores = _category_scores(trial, labels, trial_per_dataset)
            trial_error = error(trial_scores)
            if trial_error < best:
                best, changed, merged, per_dataset, scores = trial_error, True, trial, trial_per_dataset, trial_scores
                readings[label] = other
    return merged, readings, scores


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


@dataclass(frozen=True)
class GroupCheck:
    """EuroEval's rule for a group board's ranked set, checked on the board itself, and the
    member files that are older than it."""

    rule_holds: bool  # ranked exactly where every language column is finite
    # (language, entry) with a rank score in the group's column for that language but none on
    # the language's own file: the file lacks results EuroEval ranked the group from. On the
    # boards of 2026-04-17: Portuguese and Polish ``_all``, both last written on 2026-04-14,
    # three days before the group boards (EuroEval rewrites a file only when its change check
    # sees a changed row, and that check drops every row with a missing value)
    stale: list[tuple[str, str]]


def check_group(path: Path, kind: str) -> GroupCheck:
    """``path``: a group board with its languages' ``<language>_<kind>.csv`` beside it."""
    text = Path(path).read_text(encoding="utf-8")
    labels, published = parse_group_board(text)
    columns = parse_group_languages(text)
    every = np.all(np.isfinite(np.stack(list(columns.values()), axis=1)), axis=1)
    stale = []
    for language, column in columns.items():
        board = read(Path(path).parent / f"{language}_{kind}.csv")
        own = dict(zip(board.models, board.published))
        stale += [
            (language, label)
            for label, score in zip(labels, column)
            if np.isfinite(score) and not np.isfinite(own.get(label, np.inf))
        ]
    return GroupCheck(bool(np.array_equal(every, np.isfinite(published))), stale)
