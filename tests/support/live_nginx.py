"""The repository's nginx configuration (deploy/nginx/glossa.conf.template), run for real.

``LiveNginx(upstream, static_root, work_dir).start()`` fills in the template's variables as
the nginx image does, wraps it in a minimal main configuration (temporary paths under
``work_dir``), starts ``nginx`` in the foreground on a free port and waits until it
answers; ``.url`` is its address, ``.stop()`` ends the process it started. ``available()``
says whether an nginx binary is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.support.live_gunicorn import REPO_ROOT, free_port

TEMPLATE = REPO_ROOT / "deploy" / "nginx" / "glossa.conf.template"
MIME_TYPES = Path("/etc/nginx/mime.types")


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)


def render(template: str, values: dict[str, str]) -> str:
    """``${NAME}`` replaced for the given names only (nginx's own ``$variables`` stay)."""
    return re.sub(r"\$\{([A-Z_]+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


class LiveNginx:
    def __init__(self, upstream: str, static_root: Path, work_dir: Path, *, workers: int = 1):
        self.workers = workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.work_dir = work_dir
        self.upstream = upstream
        self.static_root = static_root
        self.proc: subprocess.Popen | None = None

    def _write_config(self) -> Path:
        for sub in ("cache", "tmp"):
            (self.work_dir / sub).mkdir(parents=True, exist_ok=True)
        site = render(
            TEMPLATE.read_text(),
            {
                "GLOSSA_LISTEN": f"127.0.0.1:{self.port}",
                "GLOSSA_UPSTREAM": self.upstream,
                "GLOSSA_STATIC_ROOT": str(self.static_root),
                "GLOSSA_CACHE_DIR": str(self.work_dir / "cache"),
            },
        )
        (self.work_dir / "glossa.conf").write_text(site)
        tmp = self.work_dir / "tmp"
        user = "user root;\n" if os.geteuid() == 0 else ""  # workers may write the cache dir
        main = (
            f"{user}daemon off;\nworker_processes {self.workers};\npid {self.work_dir / 'nginx.pid'};\n"
            f"error_log {self.work_dir / 'error.log'} warn;\nevents {{ worker_connections 1024; }}\n"
            f"http {{\n  include {MIME_TYPES};\n  access_log off;\n"
            + "".join(
                f"  {kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
            )
            + f"  include {self.work_dir / 'glossa.conf'};\n}}\n"
        )
        (self.work_dir / "nginx.conf").write_text(main)
        return self.work_dir / "nginx.conf"

    def start(self, timeout: float = 20) -> LiveNginx:
        config = self._write_config()
        binary = nginx_binary()
        assert binary, "nginx is not installed"
        check = subprocess.run([binary, "-t", "-c", str(config)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        self.proc = subprocess.Popen([binary, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/static/", timeout=2)
            except urllib.error.HTTPError:
                return self  # nginx answered (a 403/404 for the directory)
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError((self.work_dir / "error.log").read_text()) from None
                time.sleep(0.1)
            else:
                return self
        self.stop()
        raise RuntimeError("nginx did not answer")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def __enter__(self) -> LiveNginx:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
