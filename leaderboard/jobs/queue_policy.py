"""The evaluation queue's order, as a pure function (the SQL in ``selectors/queue.py``
computes the same order in the database; a test holds them equal).

The policy, in order of precedence:

1. **An administrator's priority** (``Submission.priority``, higher first; 0 by default).
2. **Re-runs an administrator asked for** (``rerun``) before new work.
3. **Round-robin between submitters.** A submitter's own pending work is sorted smallest
   model first (parameters; unknown sizes last), then oldest first; its k-th item takes
   turn k + n, n being how many of the submitter's submissions the workers already have
   (sent to the broker or running: ``in_flight``). All submitters' first items come before
   anyone's second, so one person with fifty models waits behind nobody and holds nobody
   back for more than one turn each, also while the queue runs: a place freed by the
   lab's first evaluation goes to someone with nothing running before the lab's second
   (counting only what still waits would give every lab model turn 1 again and, the lab
   being oldest, the lab the whole queue).
4. Within a turn, the oldest submission first; the id breaks what is left.

A submitter is the signed-in account, else the client address, else "anonymous" (one
submitter for everyone unidentified).
"""

from __future__ import annotations

from collections.abc import Mapping
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


def turns(items: list[QueueItem], in_flight: Mapping[str, int] | None = None) -> dict[int, int]:
    """pk → the item's turn within its submitter's own work (1 = its submitter's first),
    after the ``in_flight`` submissions (submitter → how many) the workers already have."""
    by_submitter: dict[str, list[QueueItem]] = {}
    for item in items:
        by_submitter.setdefault(item.submitter, []).append(item)
    out = {}
    for submitter, own in by_submitter.items():
        for turn, item in enumerate(sorted(own, key=_size_key), start=1 + (in_flight or {}).get(submitter, 0)):
            out[item.pk] = turn
    return out


def fair_order(items: list[QueueItem], in_flight: Mapping[str, int] | None = None) -> list[QueueItem]:
    """``items`` (the waiting work) in the order the queue starts them, given the work the
    workers already have (``in_flight``: submitter → how many)."""
    turn = turns(items, in_flight)
    return sorted(items, key=lambda i: (-i.priority, not i.rerun, turn[i.pk], i.created_at, i.pk))


def submitter_key(user_id: int | None, client_address: str | None) -> str:
    """Who a submission counts for: ``user:<id>``, ``ip:<address>`` or ``anonymous``."""
    if user_id is not None:
        return f"user:{user_id}"
    if client_address:
        return f"ip:{client_address}"
    return "anonymous"
