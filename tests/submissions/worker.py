"""A real Celery worker in a subprocess, on Redis, against pytest-django's test database."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

from django.conf import settings

REPO = Path(__file__).resolve().parents[2]


def database_url_of_tests() -> str:
    db = settings.DATABASES["default"]
    assert db["ENGINE"].endswith("postgresql"), "the worker tests need PostgreSQL (DATABASE_URL)"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


class Worker:
    """``celery -A leaderboard worker -Q QUEUES --concurrency 1 -P prefork`` and its log.

    A ``gpu`` worker is started as production starts it: with no database at all
    (``GLOSSA_NO_DATABASE=1``, no ``DATABASE_URL``): what it evaluates reaches the database
    only through the ``default`` worker (issue #13.5).

    ``host`` (a :class:`tests.support.hosts.Host`): the worker runs on that virtual machine
    (its network namespace and hostname); its URLs in ``env`` must then name addresses
    reachable from there."""

    def __init__(self, log_dir: Path, queues: str = "default", host=None, **env: str):
        self.queues = queues
        self.host = host
        self.log_path = log_dir / f"worker-{queues.replace(',', '-')}-{uuid.uuid4().hex[:6]}.log"
        self.name = f"test-{queues.replace(',', '-')}-{uuid.uuid4().hex[:8]}@%h"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url_of_tests(),
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            "REDIS_URL": settings.REDIS_URL,
            "HF_HUB_OFFLINE": "1",
            "GLOSSA_ITERATIONS": "2",
            "GLOSSA_TEST_LIMIT": "8",
            "GLOSSA_MAX_TRAIN_STEPS": "4",
            "DB_CONN_MAX_AGE": "0",
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2"),  # a parallel run's share
            "TOKENIZERS_PARALLELISM": "false",
            **env,
        }
        if "gpu" in queues.split(","):
            assert "default" not in queues.split(","), "a gpu worker has no database: it cannot apply events"
            self.env.pop("DATABASE_URL")
            self.env["GLOSSA_NO_DATABASE"] = "1"
            self.env.pop("SECRET_KEY", None)
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> Worker:
        return self.launch().wait_ready(timeout)

    def launch(self) -> Worker:
        """Start the process; :meth:`wait_ready` waits for it (several start in parallel)."""
        self.log = self.log_path.open("ab")
        argv = [
            str(REPO / ".venv" / "bin" / "celery"),
            "-A",
            "leaderboard",
            "worker",
            "-Q",
            self.queues,
            "--concurrency",
            "1",
            "-P",
            "prefork",
            "--prefetch-multiplier",
            "1",
            "-n",
            self.name,
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
        ]
        self.process = subprocess.Popen(
            self.host.command(argv) if self.host is not None else argv,
            cwd=REPO,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        return self

    def wait_ready(self, timeout: float = 60) -> Worker:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited ({self.process.returncode}):\n{self.text()[-3000:]}")
            if " ready." in self.text():
                return self
            time.sleep(0.2)
        raise RuntimeError(f"the worker did not start within {timeout} s:\n{self.text()[-3000:]}")

    def text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def children(self) -> list[int]:
        pid = self.process.pid
        try:
            return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except FileNotFoundError:
            return []

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)  # cold shutdown: do not wait for a running task
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.log.close()


class Workers:
    """A ``default`` worker (the database side) and ``gpu`` workers (none), stopped together."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.started: list[Worker] = []

    def default(self, **env: str) -> Worker:
        worker = Worker(self.log_dir, "default", **env).start()
        self.started.append(worker)
        return worker

    def gpu(self, **env: str) -> Worker:
        if not any(w.queues == "default" and w.process.poll() is None for w in self.started):
            self.default(**{k: v for k, v in env.items() if k.startswith("GLOSSA_")})
        worker = Worker(self.log_dir, "gpu", **env).start()
        self.started.append(worker)
        return worker

    def stop(self) -> None:
        for worker in self.started:
            worker.stop()


def wait_for(predicate, timeout: float, what: str, worker: Worker | None = None, interval: float = 0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    log = f"\nworker log:\n{worker.text()[-4000:]}" if worker else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}{log}")
