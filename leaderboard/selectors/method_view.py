"""A board viewed under another ranking method than the one its entries show.

The entries' scores do not depend on the method; what a method decides (position, rank,
rank score and interval, task and dataset rank scores, its extras) comes from the board's
stored ``LeaderboardRanking`` for that method and is laid over the entries in memory, never
saved.

Reads only: when the stored ranking is missing or older than the board, :func:`ranking_for`
raises :class:`RankingPending`. A request's view then queues its aggregation
(:func:`leaderboard.services.method_rankings.queue_ranking`) and the page shows the board
under its own method meanwhile; a management command computes it first
(:func:`leaderboard.services.method_rankings.computed_ranking`) and passes it on.
"""

from __future__ import annotations

import copy

from leaderboard.models import Leaderboard, LeaderboardEntry, LeaderboardRanking
from leaderboard.ranking import entry_token, get_method


class RankingPending(LookupError):
    """The board's ranking under ``method`` is not stored (or older than the board)."""

    def __init__(self, board: str, method: str):
        super().__init__(f"{board} under {method} is being computed")
        self.board, self.method = board, method


def method_info(lb: Leaderboard, ranking: LeaderboardRanking | None = None) -> dict:
    """``{"name", "version", "label"}`` of what is shown: ``ranking`` if given, else the entries' method."""
    name, version = (ranking.method, ranking.method_version) if ranking else (lb.method, lb.method_version)
    return {"name": name, "version": version, "label": method_label(name), "rank_text": rank_text(name)}


def method_label(name: str) -> str:
    """A method's label for people (its name when it is not registered)."""
    try:
        return get_method(name).label
    except LookupError:
        return name


def rank_text(name: str) -> str:
    """What a method's printed rank is, in a sentence ("" when it is not registered)."""
    try:
        return get_method(name).rank_text
    except LookupError:
        return ""


def stored_ranking(lb: Leaderboard, method: str) -> LeaderboardRanking | None:
    """``lb``'s stored ranking under ``method`` when it is as new as the board (one query);
    None when missing or stale. Raises UnknownMethod."""
    current = get_method(method)
    stored = LeaderboardRanking.objects.filter(leaderboard=lb, method=current.name).first()
    if stored is None or stored.method_version != current.version:
        return None
    if stored.inputs_digest == lb.inputs_digest or (lb.generated_at and stored.generated_at >= lb.generated_at):
        return stored
    return None


def ranking_for(lb: Leaderboard, method: str | None) -> LeaderboardRanking | None:
    """The stored ranking to lay over ``lb``'s entries; None when they already show ``method``.
    Raises :class:`RankingPending` when it is missing or stale, UnknownMethod."""
    if not method or method == lb.method:
        return None
    stored = stored_ranking(lb, method)
    if stored is None:
        raise RankingPending(lb.code, method)
    return stored


def apply_ranking(entries: list[LeaderboardEntry], ranking: LeaderboardRanking | None) -> list[LeaderboardEntry]:
    """``entries`` with ``ranking``'s decisions laid over them, in its order (unchanged if None)."""
    if ranking is None:
        return entries
    out = []
    for entry in entries:
        decided = ranking.entries.get(entry_token((entry.model_id, entry.few_shot, entry.validation_split)))
        if decided is None:
            continue  # not on the board when that ranking was computed
        entry.position = decided["position"]
        entry.rank = decided["rank"]
        entry.rank_score = decided["rank_score"]
        ci = decided.get("rank_score_ci") or [None, None]
        entry.rank_score_ci_low, entry.rank_score_ci_high = ci
        entry.task_rank_scores = decided.get("task_rank_scores") or {}
        scores = copy.deepcopy(entry.scores or {})
        for name, value in (decided.get("dataset_rank_scores") or {}).items():
            if name in scores:
                scores[name]["rank_score"] = value
        entry.scores = scores
        entry.extra = {**(entry.extra or {}), **(decided.get("extra") or {})}
        out.append(entry)
    return sorted(out, key=lambda e: e.position)
