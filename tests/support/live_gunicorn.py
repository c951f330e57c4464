"""The site served by gunicorn (as in production: sync workers) in a child process.

``LiveGunicorn(env).start()`` binds a free port on 127.0.0.1 and waits until ``/`` answers;
``.url`` is its address and ``.stop()`` ends the process it started. The child gets the
parent's environment plus ``env`` (database, Redis, ``HF_ENDPOINT``, ``TMPDIR`` ...).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveGunicorn:
    def __init__(self, env: dict[str, str], *, workers: int = 1, log_path: Path | None = None):
        self.env = {**os.environ, **env}
        self.workers = workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None
        self._log = None

    def start(self, timeout: float = 60) -> LiveGunicorn:
        self._log = open(self.log_path, "ab") if self.log_path else None  # noqa: SIM115 (closed in stop())
        log = self._log or subprocess.DEVNULL
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.proc = subprocess.Popen(
            [
                str(gunicorn),
                "leaderboard.wsgi",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(self.workers),
                "--worker-tmp-dir",
                "/dev/shm" if Path("/dev/shm").is_dir() else str(REPO_ROOT / "var"),
                "--timeout",
                "60",
            ],
            cwd=REPO_ROOT,
            env=self.env,
            stdout=log,
            stderr=log,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode} (log: {self.log_path})")
            try:
                with urllib.request.urlopen(self.url + "/methodology/", timeout=5):
                    return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer within {timeout} s (log: {self.log_path})")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LiveGunicorn:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
