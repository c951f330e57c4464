"""The one lifecycle of a GPU job, on the worker's side (queue ``gpu``, no database): how a
job reports, counts its deliveries, keeps its log, says why it failed and reports a death
Celery sees but the job cannot. An evaluation (``tasks/evaluation.py``), an exam run
(``tasks/examination.py``) and a speed benchmark (``tasks/speed.py``) differ only in what
they run and in a few words.

Every event is a message to the kind's event task on the ``default`` queue, where the
site's half (``leaderboard/jobs/lifecycle.apply``) checks it against the job. A heartbeat
thread reports while the models load and run, so the reaper knows the worker is alive. A
result is hours of GPU time: its message is retried while the broker is away
(``GLOSSA_BROKER_RETRY_SECONDS``); progress and heartbeats are best effort.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from collections.abc import Callable

from celery import Task, current_app, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings

from evaluation.errors import EvaluationError
from leaderboard import job_control
from leaderboard.jobs.termination import arm_termination_fallback

logger = logging.getLogger("leaderboard.worker_events")

LOG_LINES = 200
LOG_LINE_CHARS = 500


class JobEvents:
    """Sends the events of one (job, task) to the kind's event task on the ``default`` queue."""

    id_key = "submission"  # the field naming the job in its events
    event_task = "leaderboard.tasks.apply_submission_event"

    def __init__(self, job_id: int, task_id: str):
        self.job_id = job_id
        self.task_id = task_id

    def _event(self, kind: str, data: dict) -> dict:
        return {"kind": kind, self.id_key: self.job_id, "task": self.task_id, **data}

    def _publish(self, event: dict, retry_policy: dict) -> None:
        current_app.send_task(self.event_task, args=[event], queue="default", retry=True, retry_policy=retry_policy)

    def send(self, kind: str, **data) -> None:
        """Send one event; waits out a broker restart for up to GLOSSA_BROKER_RETRY_SECONDS, then raises."""
        event = self._event(kind, data)
        json.dumps(event)  # a value JSON cannot carry is a bug to report now, not a broker to wait for
        deadline = time.monotonic() + settings.GLOSSA_BROKER_RETRY_SECONDS
        pause = 0.5
        while True:
            try:
                self._publish(event, {"max_retries": 3, "interval_start": 0.2, "interval_step": 0.5})
                return
            except SoftTimeLimitExceeded:
                raise
            except Exception as exc:
                if time.monotonic() + pause > deadline:
                    raise
                logger.warning("broker unavailable while sending %s (%s); retrying in %.1f s", kind, exc, pause)
                time.sleep(pause)
                pause = min(pause * 2, 8.0)

    def try_send(self, kind: str, **data) -> None:
        """Send one event if the broker answers now; skipped with a warning otherwise."""
        try:
            self._publish(self._event(kind, data), {"max_retries": 1, "interval_start": 0.2})
        except SoftTimeLimitExceeded:  # the time limit is the job's, not the event's
            raise
        except Exception as exc:
            logger.warning("%s event of %s %s not sent (%s)", kind, self.id_key, self.job_id, exc)


class Heartbeat:
    """``with Heartbeat(events):`` reports at once, then every GLOSSA_HEARTBEAT_SECONDS until the block ends."""

    def __init__(self, events, interval: float | None = None):
        self.events = events
        self.interval = interval or settings.GLOSSA_HEARTBEAT_SECONDS
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.events.try_send("heartbeat")

    def __enter__(self) -> Heartbeat:
        self.events.try_send("heartbeat")
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


class LogBuffer(logging.Handler):
    """Keeps the last ``LOG_LINES`` log lines of the task for the job's page (admins)."""

    def __init__(self, capacity: int = LOG_LINES):
        super().__init__(level=logging.INFO)
        self.lines: collections.deque[str] = collections.deque(maxlen=capacity)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # a broken log call must not break the job
            line = str(record.msg)
        self.lines.append(line if len(line) <= LOG_LINE_CHARS else line[:LOG_LINE_CHARS] + " …")

    def text(self) -> str:
        return "\n".join(self.lines)


def failure_reason(exc: BaseException) -> str:
    """What a user reads when the job stopped with ``exc``."""
    if isinstance(exc, SoftTimeLimitExceeded):
        return (
            f"Timed out: the evaluation took longer than the limit of {settings.GLOSSA_EVAL_SOFT_TIME_LIMIT} "
            "seconds. Datasets finished before the limit are kept; an administrator can re-queue it."
        )
    if isinstance(exc, EvaluationError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return "Out of memory: the model does not fit in this worker's memory."
    if is_out_of_memory(exc):
        return f"Out of memory on the worker: the model does not fit ({exc})."
    return (
        f"Internal error ({type(exc).__name__}: {exc}). The log shows where; "
        "an administrator can re-queue the submission."
    )


def is_out_of_memory(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name in {"OutOfMemoryError", "OutOfResources"} or "out of memory" in str(exc).lower()


def counted_attempt(job: dict, task_id: str, events) -> int | None:
    """This delivery's attempt (the job's earlier starts + this message's deliveries), or
    None after reporting ``gave_up``: its worker died at each of the last
    ``GLOSSA_MAX_ATTEMPTS`` starts. Counted before anything loads."""
    attempt = int(job.get("attempts") or 0) + job_control.start_attempt(task_id)
    if attempt > settings.GLOSSA_MAX_ATTEMPTS:
        events.send("gave_up", attempt=attempt)
        return None
    return attempt


def run_counted(job: dict, task_id: str, events, what: str, body: Callable[[int, LogBuffer], str]) -> str:
    """This delivery counted (:func:`counted_attempt`: "gave up" after the last), then
    ``body(attempt, log)`` run and reported (:func:`run_reporting`)."""
    attempt = counted_attempt(job, task_id, events)
    if attempt is None:
        return "gave up"
    return run_reporting(events, what, lambda log: body(attempt, log))


def run_reporting(events, what: str, body: Callable[[LogBuffer], str], failed: Callable[[], dict] = dict) -> str:
    """Run ``body`` with the task's log kept; an exception (the soft time limit included)
    is reported as ``failed`` with its reason, the log and ``failed()``'s fields."""
    log = LogBuffer()
    root = logging.getLogger()
    root.addHandler(log)
    try:
        return body(log)
    except Exception as exc:  # SoftTimeLimitExceeded included: it is an Exception
        if not isinstance(exc, SoftTimeLimitExceeded):
            logger.exception("%s failed", what)
        events.send("failed", reason=failure_reason(exc), **failed(), log=log.text())
        return "failed"
    finally:
        root.removeHandler(log)


class GpuJobTask(Task):
    """Reports a job that died in a way the job cannot catch.

    Celery calls ``on_failure`` in the worker's main process after a hard time limit killed
    the pool process (the message is acknowledged, so nothing else would ever finish it).
    A lost worker (crash, SIGKILL) does not come here: its message is re-delivered. A kind
    names its events class and the words of its two reasons (``{limit}``, ``{name}``, ``{exc}``)."""

    events_class: type[JobEvents] = JobEvents
    hard_limit_reason = "Timed out at the hard limit of {limit} seconds."
    internal_reason = "Internal error ({name}: {exc})."
    failed_fields: dict = {}

    def __call__(self, *args, **kwargs):
        arm_termination_fallback()  # a cancel ends the pool process even mid-finaliser
        return super().__call__(*args, **kwargs)

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        job = args[0] if args else kwargs.get("job")
        key = self.events_class.id_key
        if not isinstance(job, dict) or key not in job:
            return
        if isinstance(exc, TimeLimitExceeded):
            reason = self.hard_limit_reason.format(limit=settings.GLOSSA_EVAL_TIME_LIMIT)
        else:
            reason = self.internal_reason.format(name=type(exc).__name__, exc=exc)
        log = str(einfo)[-8000:] if einfo else ""
        self.events_class(int(job[key]), task_id).send("failed", reason=reason, **self.failed_fields, log=log)


def gpu_task(name: str, base: type[GpuJobTask]) -> Callable:
    """The Celery task decorator of a GPU job named ``name``: bound, acknowledged only when
    done and re-delivered when its worker is lost, under the evaluation time limits."""
    return shared_task(
        name=name,
        base=base,
        bind=True,
        acks_late=True,
        reject_on_worker_lost=True,
        soft_time_limit=settings.GLOSSA_EVAL_SOFT_TIME_LIMIT,
        time_limit=settings.GLOSSA_EVAL_TIME_LIMIT,
    )
