"""Computing boards for aggregation: a language board from its :class:`BoardData` and a group
board from its language boards, under one ranking method (:mod:`leaderboard.ranking`).
Pure of database writes; plan_boards only reads which language codes exist.

Boards. A dataset counts toward the board of each of its languages
(``Language.board``: most codes are their own board, ``nb`` and ``nn`` feed ``no``) when
``Dataset.counts_toward_leaderboard`` is set. A language board exists when at least one
such dataset has an evaluation. A group board (``LanguageGroup``, read through
``board_registry``) is the method's combination of its language boards' rank scores; it
exists when more than half of its language boards exist, and is computed from those
(:func:`group_members`). Asking for one language board also refreshes the groups that
contain it, and asking for a group refreshes its language boards (a group needs their
bootstrap draws).
"""

from __future__ import annotations

import hashlib
import math
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from leaderboard import ranking
from leaderboard.identity import suite_code, suite_language
from leaderboard.ranking.rank_sets import rank_sets_from_replicates
from leaderboard.ranking.registry import RankingMethod
from leaderboard.registry import boards as board_registry
from leaderboard.registry.languages import language_name
from leaderboard.selectors.board_data import BoardData, DatasetInfo, EntryKey, UnknownBoard


def _finite(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _metric_json(metric: str, values: list[float] | None) -> dict | None:
    if not values:
        return None
    score = ranking.dataset_score(values)
    return {"metric": metric, "mean": score.mean * 100, "ci": None if score.ci is None else score.ci * 100}


@dataclass
class ComputedBoard:
    code: str
    name: str
    kind: str
    boards: list[str]
    datasets: list[dict]
    entries: list[EntryKey]
    result: ranking.BoardRanking
    rows: list[dict]  # per entry (input order): the LeaderboardEntry field values
    method: RankingMethod | None = None
    digest: str = ""  # identity of the inputs (see BoardData.digest)


def board_seed(code: str) -> int:
    """The bootstrap seed of a board: fixed, and different per board so that a group's
    languages draw independently."""
    return ranking.DEFAULT_SEED + zlib.crc32(code.encode()) % 100_000


def board_name(code: str) -> str:
    language = suite_language(code)
    if language is not None:
        return f"{language_name(language)} (evaluated here)"
    return language_name(code)


def add_rank_uncertainty(result: ranking.BoardRanking, rows: list[dict]) -> None:
    """Add to each ranked entry's ``extra`` its 95% confidence sets for the rank
    (:mod:`leaderboard.ranking.rank_sets`): ``rank_set_marginal`` (this entry alone; also
    ``rank_interval``, the set whose lower end a method's rank is) and
    ``rank_set_simultaneous`` (every entry of the board at once), and the probability that
    it ranks above the next entry on the board (``p_above_next``), whatever the method. A
    method that gives no sets gets them from its bootstrap replicates."""
    sets = result.rank_sets
    if sets is None and result.replicates.shape[0] > 1:
        sets = rank_sets_from_replicates(-result.rank_scores, -result.replicates)
    order = [e for e in result.positions() if np.isfinite(result.rank_scores[e])]
    for k, e in enumerate(order):
        extra = rows[e]["extra"]
        if sets is not None and sets.marginal(e) is not None:
            extra["rank_set_marginal"] = sets.marginal(e)
            extra["rank_set_simultaneous"] = sets.simultaneous(e)
            extra["rank_interval"] = sets.marginal(e)
        if k + 1 < len(order) and result.replicates.shape[0]:
            extra["p_above_next"] = round(ranking.win_probability(result.replicates, e, order[k + 1]), 4)


def compute_language_board(data: BoardData, *, method: RankingMethod, replicates: int) -> ComputedBoard:
    """Rank on the board's ranked datasets with ``method``; orthogonal ones
    (``TaskSpec.ranked`` False) are shown with their scores but neither rank nor leave an
    entry unranked."""
    ranked = [d for d, info in enumerate(data.datasets) if info.ranked]
    column = {d: k for k, d in enumerate(ranked)}
    result = method.rank_language_board(
        data.primary_array()[ranked],
        [data.datasets[d].task for d in ranked],
        data.entries,
        replicates=replicates,
        seed=board_seed(data.code) if method.fixed_seed is None else method.fixed_seed,
    )
    rows = []
    for e in range(len(data.entries)):
        per_ds = data.values.get(e, {})
        scores, missing = {}, []
        for d, info in enumerate(data.datasets):
            metrics = per_ds.get(d)
            if not metrics:
                if info.ranked:
                    missing.append(info.name)
                continue
            scores[info.name] = {
                "primary": _metric_json(info.primary_metric, metrics.get(info.primary_metric)),
                "secondary": _metric_json(info.secondary_metric, metrics.get(info.secondary_metric)),
                "rank_score": _finite(result.dataset_rank_scores[e, column[d]]) if info.ranked else None,
                "dataset_version": info.version,
                "evaluation": data.evaluations.get((e, d)),
            }
            if (e, d) in data.flags:  # too many unreadable answers: shown with the count, still counted
                scores[info.name]["unparseable"] = data.flags[(e, d)]
            if (e, d) in data.measures:  # shown beside the scores, never ranked
                scores[info.name]["measures"] = data.measures[(e, d)]
        rows.append(
            {
                "task_rank_scores": {t: _finite(result.task_rank_scores[e, k]) for k, t in enumerate(result.tasks)},
                "scores": scores,
                "missing_datasets": missing,
                "excluded": data.excluded.get(e, []),
                "commit_sha": data.commits.get(e, ""),
                "extra": dict(result.extra[e]) if result.extra else {},
            }
        )
    add_rank_uncertainty(result, rows)
    return ComputedBoard(
        code=data.code,
        name=board_name(data.code),
        kind="language",
        boards=[],
        datasets=[d.as_json() for d in data.datasets],
        entries=data.entries,
        result=result,
        rows=rows,
        method=method,
        digest=data.digest(),
    )


def compute_group_board(code: str, name: str, languages: list[ComputedBoard], method: RankingMethod) -> ComputedBoard:
    entries = sorted({key for board in languages for key in board.entries})
    idx = {key: e for e, key in enumerate(entries)}
    n, reps, contrasts = len(entries), [], []
    scores = np.full((n, len(languages)), np.inf)
    for k, board in enumerate(languages):
        cols = np.array([idx[key] for key in board.entries], dtype=int)
        scores[cols, k] = board.result.rank_scores
        r = np.full((board.result.replicates.shape[0], n), np.inf)
        r[:, cols] = board.result.replicates
        reps.append(r)
        if board.result.contrast is not None:
            contrasts.append(board.result.contrast.reindexed(cols, n))
    result = method.rank_group_board(scores, reps, contrasts if len(contrasts) == len(languages) else None)
    missing_by_entry: dict[int, list[str]] = defaultdict(list)
    excluded_by_entry: dict[int, list[dict]] = defaultdict(list)
    commits_by_entry: dict[int, str] = {}
    for board in languages:
        position = {key: e for e, key in enumerate(board.entries)}
        for key in entries:
            if key not in position:
                missing_by_entry[idx[key]].extend(d["name"] for d in board.datasets)
            else:
                row = board.rows[position[key]]
                missing_by_entry[idx[key]].extend(row["missing_datasets"])
                excluded_by_entry[idx[key]].extend(dict(item, board=board.code) for item in row["excluded"])
                commits_by_entry.setdefault(idx[key], row["commit_sha"])
    rows = [
        {
            "task_rank_scores": {},
            "scores": {},
            "missing_datasets": sorted(missing_by_entry[e]),
            "excluded": excluded_by_entry[e],
            "commit_sha": commits_by_entry.get(e, ""),
            "extra": {"language_rank_scores": {b.code: _finite(scores[e, k]) for k, b in enumerate(languages)}},
        }
        for e in range(n)
    ]
    add_rank_uncertainty(result, rows)
    datasets = [dict(d, board=b.code) for b in languages for d in b.datasets]
    digest = hashlib.sha256("|".join(b.digest for b in languages).encode()).hexdigest()[:16]
    return ComputedBoard(
        code, name, "group", [b.code for b in languages], datasets, entries, result, rows, method, digest
    )


def plan_boards(
    requested: Iterable[str] | None, available: dict[str, list[DatasetInfo]]
) -> tuple[list[str], list[str]]:
    """(language boards, group boards) to compute for a request (None = everything).

    ``available`` holds published and suite boards; asking for a language (``da``, ``nb``)
    refreshes both of its boards, and either alone is enough for the request to be known."""
    registry = board_registry.groups()
    groups_ok = {slug for slug, group in registry.items() if group_members(group, available)}
    if requested is None:
        return sorted(available), sorted(groups_ok)
    languages: set[str] = set()
    groups: set[str] = set()
    for code in requested:
        if code in available and suite_language(code) is not None:
            languages.add(code)
            continue
        if code in registry:
            if code not in groups_ok:
                missing = [m for m in registry[code].boards if m not in available]
                raise UnknownBoard(
                    f"group {code!r} has no board for more than half of its languages: {', '.join(missing)}"
                )
            groups.add(code)
        else:
            board = board_registry.board_of(code)
            found = [b for b in (board, suite_code(board)) if b in available]
            if not found:
                raise UnknownBoard(f"no leaderboard datasets with results for language {code!r}")
            languages.update(found)
            if board not in available:
                continue
            groups.update(slug for slug in groups_ok if board in registry[slug].boards)
    for slug in groups:
        languages.update(group_members(registry[slug], available))
    return sorted(languages), sorted(groups)


def group_members(group: board_registry.Group, available) -> list[str]:
    """The member boards a group board is computed from: those with results. EuroEval's rule
    (its generator, ``compute_ranks``): a language enters a group's mean through its datasets,
    so a language without any (no board yet: Belarusian and Luxembourgish on 2026-04-17,
    when EuroEval's group configs did not list them) is left out, while an entry without
    results on a member's datasets stays unranked. Empty when more than half of the group's
    languages have no board: a "European" board of three languages would be another board
    under the group's name."""
    present = [m for m in group.boards if m in available]
    return present if 2 * len(present) > len(group.boards) else []
