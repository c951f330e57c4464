"""A board's ranking under another method than its own, when it is not stored yet: queued
for a request (once per board state), computed here for a management command. The reads
are :mod:`leaderboard.selectors.method_view`."""

from __future__ import annotations

import logging

from django.core.cache import cache

from leaderboard.models import Leaderboard, LeaderboardRanking
from leaderboard.services.aggregation import current_ranking
from leaderboard.services.aggregation_queue import enqueue_aggregation
from leaderboard.web.cache_keys import cache_key

log = logging.getLogger(__name__)
QUEUED_SECONDS = 600  # a queued aggregation that never ran is asked for again after this


def queue_ranking(lb: Leaderboard, method: str) -> bool:
    """Queue the aggregation of ``lb`` under ``method`` unless this board state already has
    one queued (however many requests ask: a cache ``add`` is the latch); True when this call
    queued it."""
    stamp = lb.inputs_digest or (lb.generated_at.isoformat() if lb.generated_at else "")
    latch = cache_key("method-queued", lb.code, method, stamp)
    if not cache.add(latch, 1, QUEUED_SECONDS):
        return False
    try:
        enqueue_aggregation([lb.code], trigger="view", method=method)
    except Exception:  # the broker is away: the next request tries again
        cache.delete(latch)
        log.exception("could not queue the %s ranking of board %s", method, lb.code)
        return False
    return True


def computed_ranking(lb: Leaderboard, method: str | None) -> LeaderboardRanking | None:
    """What :func:`~leaderboard.selectors.method_view.ranking_for` reads, computed (once) and
    stored here when missing or stale: for commands, never requests. None when ``lb``'s
    entries already show ``method``."""
    if not method or method == lb.method:
        return None
    return current_ranking(lb, method)
