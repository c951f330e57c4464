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

What a published ``±`` means depends on the record behind it. EuroEval records carry
``test_<metric>_se`` = 1.96·s/√n, the 95% half-width, and boards print it. The generator
that wrote the boards from 2026 on (it reads EEE-format records; its CSV names the
metadata columns "Type" and "Vocabulary" where the older one wrote "generative_type" and
"vocabulary_size") falls back to the plain standard error s/√n for records that carry no
``_se``; those records also carry no EuroEval version, so their version cell reads
``<9.2.0``. Such cells are read with z = 1 instead of 1.96 (``PublishedBoard.z``). On the
older boards ``<9.2.0`` means a genuinely old record, whose ``±`` is the 95% half-width.
The same generator converts EEE records back with se = (upper − lower)/3.92 = s/√n, so
cells of records EuroEval wrote in the EEE format also print s/√n: those of version 17 on
and of the development builds after 16.17.0 (``16.17.0.dev0``; a ``X.dev0`` build comes
after release X), where EuroEval began writing EEE (:func:`prints_standard_error`).
Measured: the Bosnian and Albanian boards of EuroEval/leaderboards commit 01a89eb are
reproduced to a mean absolute difference of 0.0035 and 0.0044 with this rule (0.0035 and
0.0034 reading only ``<9.2.0`` so), 0.017 and 0.027 without it; 2025 boards (German,
English) to 0.003, where the rule does not apply;
the boards of commit b31e10f1 (2026-04-17): BENCHMARKS.md.

Pure functions: no Django.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

import numpy as np
from scipy import stats

from leaderboard.ranking import Z95, aggregate_tasks, dataset_rank_scores_from_summaries

TAG_RE = re.compile(r"<[^>]+>")
TASK_LINK_RE = re.compile(r"euroeval\.com/tasks/([a-z0-9-]+)")
DATASET_LINK_RE = re.compile(r"euroeval\.com/datasets/")
SUMMARY_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*±\s*(\d+(?:\.\d+)?)")
NUMBER_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")
MISSING = {"", "-", "?", "n/a", "nan"}
# The 2026 board generator (EEE-format records) names these metadata columns; the older
# one wrote "generative_type" and "vocabulary_size". Its records without a version (shown
# as NO_VERSION) print the standard error s/√n, not 1.96·s/√n: see the module docstring.
EEE_GENERATOR_COLUMNS = {"type", "vocabulary"}
NO_VERSION = "<9.2.0"
VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)(\.dev\d+)?")
FIRST_EEE_BUILD = (16, 17, 0, 1)  # 16.17.0.dev0: the development builds after 16.17.0 wrote EEE
# Builds of that version wrote either format (EEE came in during its development), so the
# meaning of their ``±`` is not on the board: ``PublishedBoard.ambiguous``.
AMBIGUOUS_BUILD = "16.17.0.dev0"


def prints_standard_error(version: str) -> bool:
    """Whether a 2026 board's ``±`` of a record of this EuroEval version is s/√n (see the
    module docstring): records without a version, and records written as EEE."""
    version = version.split("@@")[0].strip()
    if version == NO_VERSION:
        return True
    match = VERSION_RE.match(version)
    if match is None:
        return False
    key = (int(match[1]), int(match[2]), int(match[3]), 1 if match[4] else 0)
    return key >= FIRST_EEE_BUILD


class BoardFormatError(ValueError):
    """The file is not a published board in a format we read."""


@dataclass(frozen=True)
class PublishedBoard:
    models: list[str]
    published: np.ndarray  # (N,) published rank score; inf = unranked
    datasets: list[str]
    dataset_tasks: list[str]  # the task of each dataset column
    means: np.ndarray  # (N, D) primary metric means ×100; NaN = no result
    cis: np.ndarray  # (N, D) the published ± (ci = z·s/√n)
    z: np.ndarray  # (N, D) 1.96 where ± is a 95% half-width, 1 where it is a standard error
    rank_score_interval: bool = False  # the board prints "rank score ± margin" (a later method)
    secondary_means: np.ndarray | None = None  # (N, D) the cell's second "mean ± ci"; NaN: none
    secondary_cis: np.ndarray | None = None
    metadata: tuple[dict, ...] = ()  # per entry: the board's other cells by lower-cased column name
    ambiguous: np.ndarray | None = None  # (N, D) cells of AMBIGUOUS_BUILD (read as z = 1 here)

    @property
    def standard_error_cells(self) -> int:
        return int(((self.z == 1.0) & ~np.isnan(self.means)).sum())

    def rerank(self, iterations: int = 10) -> np.ndarray:
        """Our rank score per entry from the summaries: dataset → task → language means."""
        per_dataset = np.stack(
            [
                dataset_rank_scores_from_summaries(self.means[:, d], self.cis[:, d], iterations, z=self.z[:, d])
                for d in range(len(self.datasets))
            ],
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


def _summary(cell: str, part: int = 0) -> tuple[float, float]:
    parts = cell.split("@@")[0].split(" / ")
    if part >= len(parts):
        return np.nan, np.nan
    cell = parts[part].strip()
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


def _board(
    models, ranks, datasets, tasks, cells, standard_errors=None, rank_score_interval=False, metadata=(), ambiguous=None
) -> PublishedBoard:
    """``standard_errors``: (N, D) booleans, True where the cell's ± is s/√n (default: none)."""
    if not models:
        raise BoardFormatError("the board has no entries")
    if not datasets:
        raise BoardFormatError(
            "the board has no dataset columns (a multilingual board prints only its "
            "languages' rank scores: reproduce each language's board instead)"
        )
    parsed = [[_summary(c) for c in row] for row in cells]
    second = [[_summary(c, 1) for c in row] for row in cells]
    shape = (len(models), len(datasets))
    se = np.zeros(shape, dtype=bool) if standard_errors is None else np.asarray(standard_errors, dtype=bool)
    return PublishedBoard(
        models=models,
        published=np.array(ranks, dtype=float),
        datasets=datasets,
        dataset_tasks=tasks,
        means=np.array([[m for m, _ in row] for row in parsed], dtype=float),
        cis=np.array([[c for _, c in row] for row in parsed], dtype=float),
        z=np.where(se, 1.0, Z95),
        rank_score_interval=rank_score_interval,
        secondary_means=np.array([[m for m, _ in row] for row in second], dtype=float),
        secondary_cis=np.array([[c for _, c in row] for row in second], dtype=float),
        metadata=tuple(metadata),
        ambiguous=None if ambiguous is None else np.asarray(ambiguous, dtype=bool),
    )


def parse_group_board(text: str) -> tuple[list[str], np.ndarray]:
    """A group board (its columns are its languages' rank scores, no datasets): the entry
    labels and their published rank scores (inf: unranked)."""
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    if len(rows) < 3:
        raise BoardFormatError("expected a task-type row, a column-name row and entries")
    names = [TAG_RE.sub("", n).strip().lower() for n in rows[1]]
    if "model" not in names or "rank" not in names:
        raise BoardFormatError("no 'Model' and 'Rank' columns in the second header row")
    model, rank = names.index("model"), names.index("rank")
    labels = [TAG_RE.sub("", row[model]).strip() for row in rows[2:]]
    return labels, np.array([_rank(row[rank]) if rank < len(row) else np.inf for row in rows[2:]], dtype=float)


def parse_group_languages(text: str) -> dict[str, np.ndarray]:
    """A group board's per-language columns: ``{language (lower case, as in its file names):
    the rank score EuroEval computed for each entry on that language}`` (inf: unranked), in
    the order of :func:`parse_group_board`."""
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    names = [TAG_RE.sub("", n).strip() for n in rows[1]]
    skip = {"model", "rank", "rank score", "type", "parameters", "vocabulary", "context", "commercial"}
    skip |= {"merge", "open", "trained from scratch", "european values"}
    return {
        name.lower().replace(" ", "_"): np.array([_rank(row[i]) if i < len(row) else np.inf for row in rows[2:]])
        for i, name in enumerate(names)
        if name.lower() not in skip and not name.lower().endswith("_version")
    }


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
    standard_errors, ambiguous = _version_readings(lowered, dataset_cols, body)
    interval = any("±" in row[rank_col] for row in body if rank_col < len(row))
    metadata = _row_metadata(lowered, body, set(dataset_cols) | {model_col, rank_col})
    return _board(
        models,
        ranks,
        [plain[i].replace("_", "-") for i in dataset_cols],
        tasks,
        cells,
        standard_errors,
        interval,
        metadata,
        ambiguous,
    )


def _version_readings(lowered: list[str], dataset_cols: list[int], body: list[list[str]]):
    """(standard_errors, ambiguous): (N, D) booleans from a 2026 board's version cells; both
    None on older boards (every ``±`` a 95% half-width)."""
    if not set(lowered) >= EEE_GENERATOR_COLUMNS:
        return None, None
    version_cols = [
        lowered.index(f"{lowered[i]}_version") if f"{lowered[i]}_version" in lowered else None for i in dataset_cols
    ]
    versions = [
        [row[c].split("@@")[0].strip() if c is not None and c < len(row) else "" for c in version_cols] for row in body
    ]
    standard_errors = [[bool(v) and prints_standard_error(v) for v in row] for row in versions]
    ambiguous = [[v == AMBIGUOUS_BUILD for v in row] for row in versions]
    return standard_errors, ambiguous


def _row_metadata(lowered: list[str], body: list[list[str]], skip: set[int]) -> list[dict]:
    """Per entry, the board's other cells (type, parameters, ...) by lower-cased column name."""
    return [
        {
            lowered[i]: TAG_RE.sub("", row[i]).split("@@")[0].strip()
            for i in range(min(len(row), len(lowered)))
            if i not in skip
        }
        for row in body
    ]
