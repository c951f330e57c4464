"""Published EuroEval leaderboards: read a board's CSV, re-rank it from its summaries.

A published board gives, per entry, its rank score and per dataset ``mean ± ci`` of the
primary metric (×100), not the raw iteration scores. The Welch test only needs
(mean, s², n), and ci = 1.96·s/√n, so the board can be re-ranked with our algorithm and
compared number by number (``python manage.py reproduce_board FILE``).

Two formats are read:

* the CSV as EuroEval publishes it (``leaderboards/<name>.csv`` of EuroEval/leaderboards):
  a task-type header row with links to ``euroeval.com/tasks/<task>``, a column-name row
  with links to ``euroeval.com/datasets/...``, and cells like
  ``"29.46 ± 1.60 / 51.62 ± 1.14@@29.46"`` (primary / secondary, then a sort key);
* our compact fixture format (tests/ranking/data): ``#`` comment lines, an optional
  ``# tasks: t1;t2;...`` line (one task per dataset column; without it every dataset is
  its own task), then ``model;rank;<dataset>;...`` rows with ``mean ± ci`` or ``-``.

Pure functions: no Django.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

import numpy as np
from scipy import stats

from leaderboard.ranking import aggregate_tasks, dataset_rank_scores_from_summaries

TAG_RE = re.compile(r"<[^>]+>")
TASK_LINK_RE = re.compile(r"euroeval\.com/tasks/([a-z0-9-]+)")
DATASET_LINK_RE = re.compile(r"euroeval\.com/datasets/")
SUMMARY_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*±\s*(\d+(?:\.\d+)?)")
NUMBER_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")
MISSING = {"", "-", "?", "n/a", "nan"}


class BoardFormatError(ValueError):
    """The file is not a published board in a format we read."""


@dataclass(frozen=True)
class PublishedBoard:
    models: list[str]
    published: np.ndarray  # (N,) published rank score; inf = unranked
    datasets: list[str]
    dataset_tasks: list[str]  # the task of each dataset column
    means: np.ndarray  # (N, D) primary metric means ×100; NaN = no result
    cis: np.ndarray  # (N, D) 95% half-widths

    def rerank(self, iterations: int = 10) -> np.ndarray:
        """Our rank score per entry from the summaries: dataset → task → language means."""
        per_dataset = np.stack(
            [dataset_rank_scores_from_summaries(self.means[:, d], self.cis[:, d], iterations)
             for d in range(len(self.datasets))],
            axis=1,
        )
        _, _, language = aggregate_tasks(per_dataset, self.dataset_tasks)
        return language


@dataclass(frozen=True)
class Agreement:
    ranked: int  # entries ranked on the published board
    same_ranked_set: bool  # we rank exactly the entries the board ranks
    mean_abs_diff: float
    median_abs_diff: float
    max_abs_diff: float
    spearman: float
    ours: np.ndarray


def agreement(board: PublishedBoard, iterations: int = 10) -> Agreement:
    ours = board.rerank(iterations)
    ranked = np.isfinite(board.published)
    diff = np.abs(ours[ranked] - board.published[ranked])
    both = ranked & np.isfinite(ours)
    rho = float(stats.spearmanr(ours[both], board.published[both]).statistic) if both.sum() > 2 else float("nan")
    return Agreement(
        ranked=int(ranked.sum()),
        same_ranked_set=bool(np.array_equal(np.isfinite(ours), ranked)),
        mean_abs_diff=float(diff.mean()) if diff.size else float("nan"),
        median_abs_diff=float(np.median(diff)) if diff.size else float("nan"),
        max_abs_diff=float(diff.max()) if diff.size else float("nan"),
        spearman=rho,
        ours=ours,
    )


# --- parsing -------------------------------------------------------------------------------


def parse_board(text: str) -> PublishedBoard:
    """Either format (see the module docstring); raises :class:`BoardFormatError`."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise BoardFormatError("the file is empty")
    first = next((line for line in lines if not line.startswith("#")), "")
    if first.lower().startswith("model;"):
        return _parse_compact(lines)
    return _parse_euroeval_csv(text)


def _summary(cell: str) -> tuple[float, float]:
    cell = cell.split("@@")[0].split(" / ")[0].strip()
    if cell.lower() in MISSING:
        return np.nan, np.nan
    match = SUMMARY_RE.match(cell)
    if match is None:
        raise BoardFormatError(f"cannot read a score from {cell!r} (expected 'mean ± ci')")
    return float(match.group(1)), float(match.group(2))


def _rank(cell: str) -> float:
    cell = cell.split("@@")[0].strip()
    if cell.lower() in MISSING:
        return np.inf
    match = NUMBER_RE.match(cell)
    if match is None:
        raise BoardFormatError(f"cannot read a rank score from {cell!r}")
    return float(match.group(1))


def _board(models, ranks, datasets, tasks, cells) -> PublishedBoard:
    if not models:
        raise BoardFormatError("the board has no entries")
    if not datasets:
        raise BoardFormatError("the board has no dataset columns")
    parsed = [[_summary(c) for c in row] for row in cells]
    return PublishedBoard(
        models=models,
        published=np.array(ranks, dtype=float),
        datasets=datasets,
        dataset_tasks=tasks,
        means=np.array([[m for m, _ in row] for row in parsed], dtype=float),
        cis=np.array([[c for _, c in row] for row in parsed], dtype=float),
    )


def _parse_compact(lines: list[str]) -> PublishedBoard:
    tasks: list[str] | None = None
    rows = []
    for line in lines:
        if line.startswith("#"):
            if line[1:].strip().lower().startswith("tasks:"):
                tasks = [t.strip() for t in line.split(":", 1)[1].split(";")]
            continue
        rows.append(line.split(";"))
    header, body = rows[0], rows[1:]
    datasets = header[2:]
    if tasks is None:
        tasks = list(datasets)
    if len(tasks) != len(datasets):
        raise BoardFormatError(f"'# tasks:' names {len(tasks)} tasks for {len(datasets)} datasets")
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise BoardFormatError(f"row {number} has {len(row)} fields, the header {len(header)}")
    return _board([r[0] for r in body], [_rank(r[1]) for r in body], datasets, tasks, [r[2:] for r in body])


def _parse_euroeval_csv(text: str) -> PublishedBoard:
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    if len(rows) < 3:
        raise BoardFormatError("expected a task-type row, a column-name row and entries")
    top, names, body = rows[0], rows[1], rows[2:]
    plain = [TAG_RE.sub("", n).strip() for n in names]
    lowered = [p.lower() for p in plain]
    try:
        model_col = lowered.index("model")
    except ValueError:
        raise BoardFormatError("no 'Model' column in the second header row") from None
    rank_col = next((i for i, p in enumerate(lowered) if p in ("rank score", "rank", "mean_rank_score")), None)
    if "rank score" in lowered:  # newer boards: "Rank" is the ordinal position
        rank_col = lowered.index("rank score")
    if rank_col is None:
        raise BoardFormatError("no 'Rank' or 'Rank score' column")
    dataset_cols, tasks, task = [], [], None
    for i, name in enumerate(names):
        link = TASK_LINK_RE.search(top[i]) if i < len(top) else None
        if link:
            task = link.group(1)
        if DATASET_LINK_RE.search(name):
            if task is None:
                raise BoardFormatError(f"dataset column {plain[i]!r} comes before any task column")
            dataset_cols.append(i)
            tasks.append(task)
        elif not link and i < len(top) and top[i].strip() and not top[i].startswith("<span"):
            task = None
    models = [TAG_RE.sub("", row[model_col]).strip() for row in body]
    ranks = [_rank(row[rank_col]) for row in body]
    cells = [[row[i] if i < len(row) else "-" for i in dataset_cols] for row in body]
    return _board(models, ranks, [plain[i].replace("_", "-") for i in dataset_cols], tasks, cells)
