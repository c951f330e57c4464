"""Aggregation: read iteration scores (:mod:`leaderboard.selectors.board_data`), rank them with a ranking method
(:mod:`.board_compute`, :mod:`leaderboard.ranking`), write the cached ``Leaderboard`` /
``LeaderboardEntry`` rows and a ``LeaderboardRanking`` per method (:mod:`.board_write`),
and record an ``AggregationRun`` audit row.

Ranking methods. A board's entries show the deployment's method
(``settings.GLOSSA_RANKING_METHOD``, default ``euroeval-2024``); ``aggregate(...,
method=NAME)`` ranks with any registered method and stores the result as that board's
``LeaderboardRanking`` for NAME (the entries themselves too when NAME is the deployment's
method, when the board has none yet or when they already show NAME).
:func:`current_ranking` serves ``?method=NAME`` from it, computing it once when missing or
older than the board.

Each board is refreshed by one function that reads, computes and writes it
(:func:`aggregate_language_board`, :func:`aggregate_group_board`); a group needs its
language boards' bootstrap draws, so those are refreshed first.

Idempotent: the numbers are deterministic (fixed bootstrap seed, inputs in a fixed
order), rows are only written when a value differs, and the run records how many
entries were created, changed or removed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.models import AggregationRun, JobStatus, Leaderboard, LeaderboardEntry, LeaderboardRanking
from leaderboard.ranking import RankingMethod, UnknownMethod, get_method
from leaderboard.registry import boards as board_registry
from leaderboard.selectors.board_data import (  # noqa: F401  (re-exported)
    BoardData,
    DatasetInfo,
    UnknownBoard,
    board_datasets,
    load_board_data,
    suite_datasets,
)
from leaderboard.selectors.method_view import stored_ranking
from leaderboard.services import board_lock
from leaderboard.services.board_compute import (  # noqa: F401  (re-exported)
    ComputedBoard,
    board_name,
    board_seed,
    compute_group_board,
    compute_language_board,
    group_members,
    plan_boards,
)
from leaderboard.services.board_write import write_board, write_ranking

log = logging.getLogger(__name__)

__all__ = ["UnknownBoard", "UnknownMethod", "aggregate", "board_seed", "current_ranking", "default_method"]


def default_method() -> RankingMethod:
    """The deployment's ranking method (``GLOSSA_RANKING_METHOD``)."""
    return get_method(getattr(settings, "GLOSSA_RANKING_METHOD", "euroeval-2024"))


def resolve(method: str | RankingMethod | None, replicates: int | None) -> tuple[RankingMethod, int]:
    """The method (by name; None = the deployment's) and its number of bootstrap replicates
    (None = the method's own default, else ``RANK_BOOTSTRAP_REPLICATES``)."""
    if method is None:
        method = default_method()
    elif isinstance(method, str):
        method = get_method(method)
    if replicates is None:
        replicates = method.default_replicates
    if replicates is None:
        replicates = settings.RANK_BOOTSTRAP_REPLICATES
        if 0 < replicates < 100:
            log.warning("RANK_BOOTSTRAP_REPLICATES=%s: intervals need at least 100 replicates", replicates)
    return method, replicates


def store_board(board: ComputedBoard, now) -> tuple[int, int]:
    """Write a computed board: its entries when they show this method, else only its
    ``LeaderboardRanking``. Returns (entries on the board, entries created/changed/removed)."""
    lb = Leaderboard.objects.filter(code=board.code).first()
    if lb is None or lb.method == board.method.name or board.method.name == default_method().name:
        return write_board(board, now)
    write_ranking(board, lb, now)
    return len(board.entries), 0


def aggregate_language_board(
    code: str, datasets: list[DatasetInfo], *, method: RankingMethod, replicates: int, now
) -> tuple[ComputedBoard, int, int]:
    """Read, compute and write one language board."""
    board = compute_language_board(load_board_data(code, datasets), method=method, replicates=replicates)
    with transaction.atomic():
        total, changed = store_board(board, now)
    return board, total, changed


def aggregate_group_board(
    group: board_registry.Group, languages: list[ComputedBoard], *, method: RankingMethod, now
) -> tuple[ComputedBoard, int, int]:
    """Compute and write one group board from its (just refreshed) language boards."""
    board = compute_group_board(group.slug, group.name, languages, method)
    with transaction.atomic():
        total, changed = store_board(board, now)
    return board, total, changed


def _touched_codes(requested: list[str] | None, available: dict | None = None) -> set[str]:
    """The boards an aggregation of ``requested`` writes (None: all, and the stored ones it may remove)."""
    languages, groups = plan_boards(requested, available or {**board_datasets(), **suite_datasets()})
    stored = set(Leaderboard.objects.values_list("code", flat=True)) if requested is None else set()
    return set(languages) | set(groups) | stored


def aggregate(
    boards: Iterable[str] | None = None,
    *,
    user=None,
    trigger: str = "command",
    replicates: int | None = None,
    method: str | RankingMethod | None = None,
) -> AggregationRun:
    """Recompute the requested boards (all by default) under ``method`` (default: the
    deployment's) and record an AggregationRun.

    Raises :class:`UnknownBoard` for a board without results and :class:`UnknownMethod`
    for an unregistered method; other errors mark the run FAILED (with the message) and
    propagate. Rows of boards that no longer have any leaderboard dataset are removed when
    everything is recomputed.
    """
    method, replicates = resolve(method, replicates)
    requested = None if boards is None else list(boards)
    run = AggregationRun.objects.create(
        boards=requested or [],
        triggered_by=user if getattr(user, "pk", None) else None,
        trigger=trigger,
        method=f"{method.name} v{method.version}",
    )
    started = time.perf_counter()
    try:
        computed, total, changed = _refresh_under_locks(requested, method=method, replicates=replicates)
        run.boards = list(computed)
        run.entries_total = total
        run.entries_changed = changed
        run.status = JobStatus.FINISHED
    except Exception as exc:
        run.status = JobStatus.FAILED
        run.error = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        run.finished_at = timezone.now()
        run.duration_seconds = time.perf_counter() - started
        run.save()
    return run


def _refresh_under_locks(
    requested: list[str] | None, *, method: RankingMethod, replicates: int
) -> tuple[dict[str, ComputedBoard], int, int]:
    """Read, compute and write the requested boards under their locks (board_lock.py),
    taking the locks of boards the data added since planning before writing anything.
    Returns (the computed boards by code, entries on them, entries created/changed/removed)."""
    codes = _touched_codes(requested)
    while True:
        with board_lock.hold(codes):
            available = {**board_datasets(), **suite_datasets()}
            touched = _touched_codes(requested, available)
            if not touched <= codes:  # the data changed since planning: lock those boards too
                codes |= touched
                continue
            return _refresh_boards(requested, available, method=method, replicates=replicates)


def _refresh_boards(
    requested: list[str] | None, available: dict, *, method: RankingMethod, replicates: int
) -> tuple[dict[str, ComputedBoard], int, int]:
    """Refresh the language boards, then the group boards built from them; when everything
    is recomputed, remove the boards that no longer have a dataset."""
    languages, groups = plan_boards(requested, available)
    now = timezone.now()
    computed: dict[str, ComputedBoard] = {}
    total = changed = 0
    for code in languages:
        computed[code], n, c = aggregate_language_board(
            code, available[code], method=method, replicates=replicates, now=now
        )
        total, changed = total + n, changed + c
    registry = board_registry.groups()
    for slug in groups:
        members = [computed[m] for m in group_members(registry[slug], available)]
        computed[slug], n, c = aggregate_group_board(registry[slug], members, method=method, now=now)
        total, changed = total + n, changed + c
    if requested is None:
        changed += _remove_stale_boards(keep=list(computed))
    return computed, total, changed


def _remove_stale_boards(keep: list[str]) -> int:
    """Delete the boards not in ``keep``; returns how many entries went with them."""
    with transaction.atomic():
        stale = Leaderboard.objects.exclude(code__in=keep)
        removed = LeaderboardEntry.objects.filter(leaderboard__in=stale).count()
        stale.delete()
    return removed


def current_ranking(lb: Leaderboard, method_name: str) -> LeaderboardRanking:
    """``lb`` under ``method_name``: the stored ranking when it is as new as the board, else
    computed now (once) and stored. Raises UnknownMethod / UnknownBoard."""
    stored = stored_ranking(lb, method_name)
    if stored is not None:
        return stored
    method = get_method(method_name)
    aggregate([lb.code], trigger="view", method=method)
    return LeaderboardRanking.objects.get(leaderboard=lb, method=method.name)
