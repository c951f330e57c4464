"""A board viewed under another ranking method than the one its entries show.

The entries' scores do not depend on the method; what a method decides (position, rank,
rank score and interval, task and dataset rank scores, its extras) comes from the board's
stored ``LeaderboardRanking`` for that method (:func:`aggregation.current_ranking`) and is
laid over the entries in memory, never saved.
"""

from __future__ import annotations

import copy

from leaderboard.models import Leaderboard, LeaderboardEntry, LeaderboardRanking
from leaderboard.ranking import get_method
from leaderboard.services.board_write import entry_token


def method_info(lb: Leaderboard, ranking: LeaderboardRanking | None = None) -> dict:
    """``{"name", "version", "label"}`` of what is shown: ``ranking`` if given, else the entries' method."""
    name, version = (ranking.method, ranking.method_version) if ranking else (lb.method, lb.method_version)
    try:
        label = get_method(name).label
    except LookupError:
        label = name
    return {"name": name, "version": version, "label": label}


def ranking_for(lb: Leaderboard, method: str | None) -> LeaderboardRanking | None:
    """The stored ranking to lay over ``lb``'s entries; None when they already show ``method``."""
    if not method or method == lb.method:
        return None
    from leaderboard.services.aggregation import current_ranking  # aggregation imports this module's peers

    return current_ranking(lb, method)


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
