"""What the public may read of a worker's failure: the reason, without the machine's
insides. A failure reason is written for users, but it can quote an exception, and an
exception can quote a path, a host, an internal URL or an address. Those are replaced;
the full text and the worker's log stay for staff (submission page when signed in as
staff, and the admin)."""

from __future__ import annotations

import re

PUBLIC_HOSTS = ("huggingface.co", "hf.co")
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)]+", re.IGNORECASE)
PATH = re.compile(r"(?<![\w.:/])(?:~|/)(?:[\w.@+-]+/)+[\w.@+-]*")
IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b")
IPV6 = re.compile(r"\b(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\b", re.IGNORECASE)
HOST_PID = re.compile(r"\b(?=[\w.-]*[a-z])[\w.-]+:\d{2,7}\b", re.IGNORECASE)  # worker@host:pid, db:5432
INTERNAL_HOST = re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.(?:internal|local|lan|corp|svc|cluster\.local)\b", re.IGNORECASE)


def _url(match: re.Match) -> str:
    url = match.group(0)
    host = url.split("://", 1)[1].split("/", 1)[0].split("@")[-1].split(":")[0].lower()
    if host in PUBLIC_HOSTS or host.endswith(tuple("." + h for h in PUBLIC_HOSTS)):
        return url
    return "[internal URL]"


def public_reason(text: str | None) -> str:
    """``text`` with internal URLs, file paths, addresses and host names replaced."""
    if not text:
        return ""
    text = URL.sub(_url, text)
    text = PATH.sub(lambda m: "[path]/" + m.group(0).rstrip("/").rsplit("/", 1)[-1], text)
    text = IPV4.sub("[address]", text)
    text = IPV6.sub(lambda m: "[address]" if m.group(0).count(":") >= 2 and len(m.group(0)) > 4 else m.group(0), text)
    text = INTERNAL_HOST.sub("[host]", text)
    return HOST_PID.sub("[host]", text)
