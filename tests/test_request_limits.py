"""Request bodies are refused before they are read (leaderboard/web/request_limits.py).

Against the site served by gunicorn with a raw HTTP client streaming 300 MB: the answer is
413 right after the headers; the client cannot push more than the sockets' buffers (a server
that reads the body takes all 300 MB: without the middleware the CSRF check read it, spooled
its file part to a temporary file and answered 403), and the worker writes (``/proc/<pid>/io``
``wchar``: every write() it makes, to disk or not) almost nothing, so nothing was spooled;
the temp directory stays empty.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
import urllib.request
from pathlib import Path

import pytest
from django.urls import reverse

from tests.submissions.worker import database_url_of_tests
from tests.support.live_gunicorn import LiveGunicorn

MB = 1024 * 1024


@pytest.fixture
def site(transactional_db, tmp_path):
    temp = tmp_path / "server-tmp"
    temp.mkdir()
    server = LiveGunicorn(
        {"DATABASE_URL": database_url_of_tests(), "TMPDIR": str(temp), "GLOSSA_VAR_DIR": str(tmp_path / "var")},
        log_path=tmp_path / "gunicorn.log",
    ).start()
    yield server, temp
    server.stop()


def _worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


def _wchar(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("wchar:"):
                total += int(line.split()[1])
    return total


BOUNDARY = "----glossa"
# A real multipart body: a (bogus) CSRF token field, then a file part whose content follows.
MULTIPART_HEAD = (
    f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n{"b" * 32}\r\n'
    f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="model_id"; filename="big.bin"\r\n'
    "Content-Type: application/octet-stream\r\n\r\n"
).encode()


def stream_post(port: int, path: str, size: int, headers: dict[str, str]) -> tuple[bytes, int]:
    """POST ``size`` bytes (declared), sending as long as the server takes them; returns
    (the response, body bytes the client managed to send)."""
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {size}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    chunk = b"x" * MB
    sent, response = 0, b""
    body_start = MULTIPART_HEAD
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head.encode())
        deadline = time.monotonic() + 60
        while sent < size and time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock], [], 2)
            if readable:
                break  # answered: read the answer, then see whether the server takes more
            if writable:
                try:
                    piece = body_start[sent:] if sent < len(body_start) else chunk[: size - sent]
                    sent += sock.send(piece)
                except OSError:  # the server closed the connection: it will not read the rest
                    break
        with contextlib.suppress(OSError):
            sock.settimeout(10)
            while piece := sock.recv(65536):
                response += piece
        with contextlib.suppress(OSError):  # how much more would it take? (nothing: it closed)
            sock.settimeout(5)
            while sent < size:
                sent += sock.send(chunk[: size - sent])
    return response, sent


def test_a_300_mb_multipart_post_with_a_bogus_csrf_token_is_refused_unread(site):
    server, temp = site
    pids = _worker_pids(server.proc.pid)
    with urllib.request.urlopen(server.url + reverse("submit"), timeout=30) as warm:  # imports done, templates read
        assert warm.status == 200
    before = _wchar(pids)
    response, sent = stream_post(
        server.port,
        reverse("submit"),
        300 * MB,
        {
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
            "Cookie": "csrftoken=" + "a" * 32,
            "X-CSRFToken": "b" * 32,
        },
    )
    written = _wchar(pids) - before
    assert response.startswith(b"HTTP/1.1 413"), response[:200]
    assert b"Request body too large" in response
    assert sent < 64 * MB, f"the server took {sent} bytes of the body"
    assert written < MB, f"the worker wrote {written} bytes"
    assert list(temp.iterdir()) == []


def test_chunked_bodies_need_a_length(site):
    server, temp = site
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /submit/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\n10000\r\n" + b"x" * 0x10000 + b"\r\n"
        )
        assert sock.recv(65536).startswith(b"HTTP/1.1 411")
    assert list(temp.iterdir()) == []


@pytest.mark.django_db
def test_limits_in_process(client, tmp_path, settings):
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    submit = reverse("submit")
    # over the public limit (64 KiB): refused from the header alone, the body is never touched
    big = client.post(submit, "x" * 10, content_type="application/x-www-form-urlencoded", CONTENT_LENGTH="70000")
    assert big.status_code == 413
    assert client.post(submit, "x", content_type="text/plain", CONTENT_LENGTH="-5").status_code == 400
    # the admin's bound is DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB): its bulk actions post many ids
    login = reverse("admin:login")
    assert client.post(login, "x", content_type="text/plain", CONTENT_LENGTH=str(512 * 1024)).status_code != 413
    assert client.post(login, "x", content_type="text/plain", CONTENT_LENGTH=str(2 * MB)).status_code == 413
    # a small multipart body with a file: Django refuses the first file part, nothing is spooled
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = client.post(submit, {"model_id": "org/name", "f": SimpleUploadedFile("a.bin", b"y" * 1000)})
    assert upload.status_code == 400
    assert list(tmp_path.iterdir()) == []
