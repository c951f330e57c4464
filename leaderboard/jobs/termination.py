"""A terminated GPU job ends, whatever it was running when the signal came.

A cancel revokes the job's task with ``SIGTERM`` (``lifecycle.revoke_task``). In the pool
process, billiard's handler raises ``SystemExit`` so that the job's ``finally`` blocks run;
but when the signal lands while Python runs a ``__del__`` method (a finaliser of a regex,
a tensor, a file), Python prints and ignores the exception, and the job ran on to its end.
:func:`arm_termination_fallback` wraps that handler: it still raises ``SystemExit`` first,
and a timer ends the process with ``os._exit`` if it is alive ``grace`` seconds later.
Standard library only: the pool process runs it before each GPU job.
"""

from __future__ import annotations

import os
import signal
import threading

GRACE_SECONDS = 10.0
POOL_HANDLER_MODULE = "billiard.common"  # where a pool process's terminate handler lives


def arm_termination_fallback(grace: float = GRACE_SECONDS) -> bool:
    """Wrap this process's ``SIGTERM`` handler with the fallback; only a pool process's
    handler (billiard's) is wrapped: False for the default action (it ends the process
    already), for any other handler (a worker's own warm shutdown waits for its job, as it
    should) and off the main thread (only it may set handlers). Arming twice wraps once."""
    if threading.current_thread() is not threading.main_thread():
        return False
    current = signal.getsignal(signal.SIGTERM)
    if getattr(current, "__module__", None) != POOL_HANDLER_MODULE:
        return False

    def end_for_sure(signum, frame):
        timer = threading.Timer(grace, os._exit, args=(128 + signum,))
        timer.daemon = True
        timer.start()
        current(signum, frame)

    signal.signal(signal.SIGTERM, end_for_sure)
    return True
