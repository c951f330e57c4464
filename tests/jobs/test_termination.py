"""A cancelled GPU job's pool process ends even when the SIGTERM lands in a finaliser.

Each case runs a real process with billiard's own terminate handlers installed, as a
Celery pool process has them, and sends it SIGTERM where the race put it: inside a
``__del__`` (where Python ignores the handler's SystemExit), or in plain code."""

from __future__ import annotations

import subprocess
import sys
import time

PROCESS = r"""
import os, signal, sys, time
from billiard.common import reset_signals
from leaderboard.jobs.termination import arm_termination_fallback

reset_signals()  # billiard's handlers, as in a pool process
if sys.argv[1] == "armed":
    assert arm_termination_fallback(grace=1.0)
    assert not arm_termination_fallback(grace=1.0)  # once is enough


class Finaliser:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)  # the handler runs here, inside __del__


try:
    if sys.argv[2] == "in-finaliser":
        Finaliser()
    else:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)
    print("after the signal", flush=True)
    time.sleep(6)
    print("ran on to the end", flush=True)
finally:
    print("finally ran", flush=True)
"""


def run(armed: bool, where: str) -> tuple[int, str, float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", PROCESS, "armed" if armed else "plain", where],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return done.returncode, done.stdout, time.monotonic() - started


def test_without_the_fallback_a_signal_in_a_finaliser_is_lost_and_the_job_runs_on():
    code, out, _ = run(armed=False, where="in-finaliser")
    assert "ran on to the end" in out and code == 0, (code, out)


def test_with_the_fallback_a_signal_in_a_finaliser_still_ends_the_process():
    code, out, elapsed = run(armed=True, where="in-finaliser")
    assert "ran on to the end" not in out and code == 128 + 15, (code, out)
    assert elapsed < 5, elapsed


def test_with_the_fallback_a_plain_signal_still_unwinds_through_finally_blocks():
    code, out, elapsed = run(armed=True, where="plain")
    assert out.splitlines() == ["finally ran"] and code == 15, (code, out)  # billiard's exit status
    assert elapsed < 5, elapsed


def test_the_fallback_leaves_a_process_without_a_python_handler_alone():
    check = (
        "import signal\nfrom leaderboard.jobs.termination import arm_termination_fallback\n"
        "assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL\n"
        "assert not arm_termination_fallback()\nassert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL\n"
    )
    subprocess.run([sys.executable, "-c", check], check=True, timeout=30)


def test_the_fallback_wraps_only_a_pool_processs_handler():
    check = (
        "import signal\nfrom leaderboard.jobs.termination import arm_termination_fallback\n"
        "def warm_shutdown(signum, frame): pass\n"
        "signal.signal(signal.SIGTERM, warm_shutdown)\n"
        "assert not arm_termination_fallback()\nassert signal.getsignal(signal.SIGTERM) is warm_shutdown\n"
    )
    subprocess.run([sys.executable, "-c", check], check=True, timeout=30)
