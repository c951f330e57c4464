"""Read a board's ranks under a method, by entry name: for comparisons with published boards
(``reproduce_board``, which computes the ranking first) and tests."""

from __future__ import annotations

from leaderboard.models import LanguageModel, Leaderboard, LeaderboardRanking
from leaderboard.ranking import entry_display_name


def entry_ranks(
    lb: Leaderboard, stored: LeaderboardRanking | None, view: str = "board"
) -> dict[str, tuple[int | None, float | None]]:
    """Entry display name → (rank, rank score) on ``lb`` under the ranking ``stored`` (None:
    the method its entries show); ``view`` ``"board"`` is the board's ranking, any other name
    a ranking the method stores per entry under ``extra[view]`` (``euroeval-2026``:
    ``all_models``)."""
    if stored is not None:
        decided = {tuple(int(p) for p in token.split(":")): v for token, v in stored.entries.items()}
    else:
        decided = {
            (e.model_id, int(e.few_shot), int(e.validation_split)): {
                "rank": e.rank,
                "rank_score": e.rank_score,
                "extra": e.extra or {},
            }
            for e in lb.entries.all()
        }
    names = dict(LanguageModel.objects.filter(pk__in={k[0] for k in decided}).values_list("pk", "model_id"))
    out = {}
    for (pk, few_shot, val), v in decided.items():
        if view != "board":
            v = (v.get("extra") or {}).get(view) or {"rank": None, "rank_score": None}
        out[entry_display_name(names[pk], bool(few_shot), bool(val))] = (v["rank"], v["rank_score"])
    return out
