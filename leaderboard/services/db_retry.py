"""Riding out a database restart in the worker: a write that meets a lost connection is
tried again on a new one, with growing pauses, for up to ``GLOSSA_DB_RETRY_SECONDS``.

A dataset's record is hours of GPU time; PostgreSQL restarting (a failover, an upgrade)
must not throw it away. Only whole transactions are retried, from outside any atomic
block, so a retry never half-applies a write; what cannot wait (progress within a dataset)
is skipped instead (:func:`best_effort`).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger("leaderboard.db_retry")
TRANSIENT = (OperationalError, InterfaceError)
T = TypeVar("T")


def _reset() -> None:
    with contextlib.suppress(TRANSIENT):
        connection.close()


def with_db_retry(fn: Callable[[], T], what: str, budget: float | None = None) -> T:
    """``fn()``, tried again after a lost database connection until ``budget`` seconds
    (default ``GLOSSA_DB_RETRY_SECONDS``) have passed; then the last error is raised."""
    if connection.in_atomic_block:  # the outer transaction is lost anyway: let it fail whole
        return fn()
    deadline = time.monotonic() + (settings.GLOSSA_DB_RETRY_SECONDS if budget is None else budget)
    pause = 0.5
    while True:
        try:
            return fn()
        except TRANSIENT as exc:
            if time.monotonic() + pause > deadline:
                raise
            logger.warning("database unavailable while %s (%s); retrying in %.1f s", what, exc, pause)
            _reset()
            time.sleep(pause)
            pause = min(pause * 2, 8.0)


def best_effort(fn: Callable[[], None], what: str) -> None:
    """``fn()``, skipped (with a warning) if the database is unavailable right now."""
    try:
        fn()
    except TRANSIENT as exc:
        logger.warning("database unavailable while %s (%s); skipped", what, exc)
        _reset()
