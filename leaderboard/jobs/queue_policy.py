"""The evaluation queue's order, as a pure function (the SQL in ``selectors/queue.py``
computes the same order in the database; a test holds them equal).

The policy, in order of precedence:

1. **An administrator's priority** (``Submission.priority``, higher first; 0 by default).
2. **Re-runs an administrator asked for** (``rerun``) before new work.
3. **Round-robin between submitters.** A submitter's own pending work is sorted smallest
   model first (parameters; unknown sizes last), then oldest first; its k-th item takes
   turn k. All submitters' first items come before anyone's second, so one person with
   fifty models waits behind nobody and holds nobody back for more than one turn each.
4. Within a turn, the oldest submission first; the id breaks what is left.

A submitter is the signed-in account, else the client address, else "anonymous" (one
submitter for everyone unidentified).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class QueueItem:
    pk: int
    submitter: str
    created_at: datetime
    num_parameters: int | None = None
    priority: int = 0
    rerun: bool = False


def _size_key(item: QueueItem) -> tuple:
    return (item.num_parameters is None, item.num_parameters or 0, item.created_at, item.pk)


def turns(items: list[QueueItem]) -> dict[int, int]:
    """pk → the item's turn (1 = its submitter's first) within its submitter's own work."""
    by_submitter: dict[str, list[QueueItem]] = {}
    for item in items:
        by_submitter.setdefault(item.submitter, []).append(item)
    out = {}
    for own in by_submitter.values():
        for turn, item in enumerate(sorted(own, key=_size_key), start=1):
            out[item.pk] = turn
    return out


def fair_order(items: list[QueueItem]) -> list[QueueItem]:
    """``items`` in the order the queue starts them."""
    turn = turns(items)
    return sorted(items, key=lambda i: (-i.priority, not i.rerun, turn[i.pk], i.created_at, i.pk))


def submitter_key(user_id: int | None, client_address: str | None) -> str:
    """Who a submission counts for: ``user:<id>``, ``ip:<address>`` or ``anonymous``."""
    if user_id is not None:
        return f"user:{user_id}"
    if client_address:
        return f"ip:{client_address}"
    return "anonymous"
