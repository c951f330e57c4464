"""Compare two entries of a board under a ranking method: the probability that A ranks above
B over the method's paired bootstrap replicates (both entries' rank scores come from the same
resamples), and the per-dataset differences behind it."""

from __future__ import annotations

import io
import math

import numpy as np

from leaderboard.models import Leaderboard, LeaderboardEntry, LeaderboardRanking
from leaderboard.ranking import entry_display_name, entry_token, win_probability


class EntryNotOnBoard(LookupError):
    pass


def _entry(lb: Leaderboard, name: str) -> LeaderboardEntry:
    for entry in lb.entries.select_related("model"):
        if entry_display_name(entry.model.model_id, entry.few_shot, entry.validation_split) == name:
            return entry
    raise EntryNotOnBoard(f"no entry {name!r} on board {lb.code!r} (names as the board shows them)")


def _diff(x, y) -> float | None:
    if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)):
        return None
    return x - y


def compare_entries(lb: Leaderboard, a: str, b: str, ranking: LeaderboardRanking) -> dict:
    """``a`` against ``b`` (entry display names) on ``lb`` under ``ranking`` (a stored one, of
    any method: ``compare_entries`` computes it first). Raises EntryNotOnBoard."""
    entries = {name: _entry(lb, name) for name in (a, b)}
    decided = {
        name: ranking.entries.get(entry_token((e.model_id, e.few_shot, e.validation_split)))
        for name, e in entries.items()
    }
    for name, d in decided.items():
        if d is None:
            raise EntryNotOnBoard(f"{name!r} was not on board {lb.code!r} when it was ranked with {ranking.method}")
    reps = (
        np.load(io.BytesIO(bytes(ranking.replicates)), allow_pickle=False) if ranking.replicates else np.zeros((0, 0))
    )
    ranked = all(decided[n]["rank_score"] is not None for n in (a, b))
    p = win_probability(reps, decided[a]["column"], decided[b]["column"]) if ranked and reps.shape[0] else None
    datasets = {}
    for name in sorted(set(decided[a]["dataset_rank_scores"]) | set(decided[b]["dataset_rank_scores"])):
        primary = [((entries[n].scores or {}).get(name) or {}).get("primary") or {} for n in (a, b)]
        datasets[name] = {
            "rank_score_difference": _diff(
                decided[a]["dataset_rank_scores"].get(name), decided[b]["dataset_rank_scores"].get(name)
            ),
            "primary_mean_difference": _diff(primary[0].get("mean"), primary[1].get("mean")),
        }
    side = lambda n: {  # noqa: E731
        "name": n,
        "rank": decided[n]["rank"],
        "rank_score": decided[n]["rank_score"],
        "rank_interval": (decided[n].get("extra") or {}).get("rank_interval"),  # the marginal 95% rank set
        "rank_set_simultaneous": (decided[n].get("extra") or {}).get("rank_set_simultaneous"),
    }
    return {
        "board": lb.code,
        "method": {"name": ranking.method, "version": ranking.method_version},
        "a": side(a),
        "b": side(b),
        "p_a_ranks_above_b": None if p is None else round(p, 4),
        "replicates": int(reps.shape[0]),
        "datasets": datasets,
    }
