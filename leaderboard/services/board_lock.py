"""One aggregation at a time per board: a lock taken before the scores are read.

Two aggregations of the same board at once (two submissions finishing, an admin re-run
while the ``default`` worker runs another) would both insert the board's entries (one fails
on ``one_entry_per_board_variant``), or the one that read older scores would commit last
and overwrite the newer result. Holding a per-board lock from before the scores are read
until the rows are written serialises them: the second run waits, then reads what the
first one committed plus anything newer, so the newest data always wins.

* PostgreSQL: ``pg_advisory_xact_lock(key)`` per board, inside a transaction that
  :func:`hold` opens and that lasts until the body is done (the locks go with it, even if
  the process dies). ``key`` is a stable signed 64-bit number derived from the board code.
* Other databases (the embedded SQLite): one ``flock`` file per board under
  ``VAR_DIR/locks/`` (every process of an embedded deployment shares that directory), and no
  transaction: SQLite's deferred transactions would fail, not wait, when two readers both
  start writing.

Locks are always taken in sorted order, so two runs asking for overlapping sets of boards
never deadlock.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

_NAMESPACE = b"glossa:board:"


def lock_key(code: str) -> int:
    """A stable signed 64-bit advisory-lock key for board ``code`` (same in every process)."""
    digest = hashlib.blake2b(_NAMESPACE + code.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _lock_file(code: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", code)[:64]
    return Path(settings.VAR_DIR) / "locks" / f"board-{safe}-{lock_key(code) & 0xFFFFFFFF:08x}.lock"


@contextlib.contextmanager
def _file_locks(codes: list[str]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for code in codes:
            path = _lock_file(code)
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = stack.enter_context(open(path, "a+"))
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
        yield


@contextlib.contextmanager
def hold(codes: Iterable[str]) -> Iterator[None]:
    """Hold the locks of ``codes`` for the body (blocking until the other holders are done).

    On PostgreSQL the body runs in a transaction (the advisory locks are transaction
    scoped); read the scores inside it so the read happens after the previous holder's
    commit."""
    ordered = sorted(set(codes))
    if connection.vendor == "postgresql":
        with transaction.atomic():
            with connection.cursor() as cursor:
                for code in ordered:
                    cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_key(code)])
            yield
    else:
        with _file_locks(ordered):
            yield
