"""Several machines on one: Linux network namespaces joined by virtual links (root only).

:class:`VirtualHosts` makes a bridge in the test's own network namespace (the "site"
machine, address ``<subnet>.1``) and, per host, a network namespace with a veth pair whose
far end is that host's only interface besides its own loopback (``<subnet>.11``, ``.12``,
...). A host's processes see their own loopback and the link, nothing else: PostgreSQL and
Redis (listening on the site's 127.0.0.1 only) are reached through relays
(``tests/support/tcp_relay.py``) bound to the site's link address. Each host's command runs
in its own UTS namespace too, under its own hostname, so a worker names itself as a
worker on another machine would (``socket.gethostname()``).

A host dies with :meth:`VirtualHosts.kill`: every process in its namespace is SIGKILLed
(the kernel closes their sockets) and the namespace and its link are deleted.
:meth:`VirtualHosts.close` removes everything that is left, whatever happened before.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def unavailable_reason() -> str | None:
    """Why virtual hosts cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs the suite as root)"
    for tool in ("ip", "unshare"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (iproute2 / util-linux)"
    probe = f"glossa-probe-{os.getpid()}"  # root in a container may lack CAP_NET_ADMIN / CAP_SYS_ADMIN
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=30)
    if made.returncode != 0:
        return f"root here cannot create a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True, text=True, timeout=30)
    return None


def _run(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def _free_subnet() -> str:
    """A 10.77.N prefix that no interface or route of this machine uses."""
    used = _run("ip", "-4", "addr") + _run("ip", "-4", "route")
    for n in [*range(100 + os.getpid() % 100, 250), *range(100, 250)]:
        if not re.search(rf"\b10\.77\.{n}\.", used):
            return f"10.77.{n}"
    raise RuntimeError("no free 10.77.N.0/24 subnet")


@dataclass
class Host:
    name: str  # its hostname, too
    netns: str
    address: str
    alive: bool = True

    def pids(self) -> list[int]:
        done = subprocess.run(["ip", "netns", "pids", self.netns], capture_output=True, text=True, timeout=30)
        return [int(p) for p in done.stdout.split()] if done.returncode == 0 else []

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run on this host: in its network namespace, under its own hostname (the
        shell execs it, so the process's pid is argv's)."""
        shell = 'hostname "$0" && exec "$@"'
        return ["ip", "netns", "exec", self.netns, "unshare", "--uts", "sh", "-c", shell, self.name, *argv]

    def signal_all(self, signum: int) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)


class VirtualHosts:
    def __init__(self) -> None:
        self.tag = uuid.uuid4().hex[:6]
        self.subnet = _free_subnet()
        self.address = f"{self.subnet}.1"  # the site's end of the links
        self.bridge = f"glb{self.tag}"
        self.hosts: list[Host] = []
        self.relays: list[subprocess.Popen] = []
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        _run("ip", "addr", "add", f"{self.address}/24", "dev", self.bridge)
        _run("ip", "link", "set", self.bridge, "up")

    def add(self, name: str) -> Host:
        index = len(self.hosts) + 1
        host = Host(name, f"glossa-{self.tag}-{name}", f"{self.subnet}.{10 + index}")
        outer, inner = f"glv{self.tag}{index}", f"glp{self.tag}{index}"
        _run("ip", "netns", "add", host.netns)
        self.hosts.append(host)
        _run("ip", "link", "add", outer, "type", "veth", "peer", "name", inner)
        _run("ip", "link", "set", inner, "netns", host.netns)
        _run("ip", "link", "set", outer, "master", self.bridge)
        _run("ip", "link", "set", outer, "up")
        _run("ip", "-n", host.netns, "addr", "add", f"{host.address}/24", "dev", inner)
        _run("ip", "-n", host.netns, "link", "set", inner, "up")
        _run("ip", "-n", host.netns, "link", "set", "lo", "up")
        return host

    def relay(self, target_port: int) -> int:
        """A port on the site's link address that relays to 127.0.0.1:``target_port``."""
        import socket

        with socket.socket() as probe:
            probe.bind((self.address, 0))
            port = probe.getsockname()[1]
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.tcp_relay", f"{self.address}:{port}=127.0.0.1:{target_port}"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.relays.append(process)
        line = process.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"the relay to port {target_port} did not start: {line}{process.stdout.read()}")
        return port

    def kill(self, host: Host, timeout: float = 20) -> None:
        """The host dies: every process in it is killed at once, then its namespace and link go."""
        deadline = time.monotonic() + timeout
        while (pids := host.pids()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.1)
        if host.pids():
            raise RuntimeError(f"processes of {host.name} survived SIGKILL: {host.pids()}")
        subprocess.run(["ip", "netns", "delete", host.netns], capture_output=True, timeout=30)
        host.alive = False

    def close(self) -> None:
        for host in self.hosts:
            if host.alive:
                host.signal_all(signal.SIGCONT)  # a frozen process cannot die of SIGTERM
                try:
                    self.kill(host)
                except RuntimeError:
                    subprocess.run(["ip", "netns", "delete", host.netns], capture_output=True, timeout=30)
        for process in self.relays:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        subprocess.run(["ip", "link", "delete", self.bridge], capture_output=True, timeout=30)
