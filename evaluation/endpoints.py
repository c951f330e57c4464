"""Which OpenAI-compatible endpoints an examiner may call, and which environment variables
may hold their keys: allow-lists the deployment sets, checked when an administrator saves
an ``Examiner`` and again on the GPU worker before any request.

- ``GLOSSA_EXAMINER_HOSTS``: comma-separated host names (``api.example.org``) or
  ``host:port`` pairs an ``openai:URL`` backend may name. Unset or empty: none.
- ``GLOSSA_EXAMINER_KEY_VARS``: comma-separated names of the environment variables an
  examiner's key may be read from. Unset or empty: none (an examiner then sends no key).

A job names a variable, never a key; without these lists a row (or a forged job) could
name any variable of the worker's environment and send it to any address it names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from evaluation.errors import EvaluationError

HOSTS_ENV = "GLOSSA_EXAMINER_HOSTS"
KEY_VARS_ENV = "GLOSSA_EXAMINER_KEY_VARS"


class EndpointRefused(EvaluationError):
    """An endpoint or a key variable the deployment does not allow."""


def _listed(name: str, env: Mapping[str, str] | None) -> frozenset[str]:
    value = (os.environ if env is None else env).get(name, "")
    return frozenset(item.strip() for item in value.split(",") if item.strip())


def check_key_variable(variable: str, env: Mapping[str, str] | None = None) -> None:
    """Nothing when ``variable`` is empty (no key) or listed in GLOSSA_EXAMINER_KEY_VARS."""
    if variable and variable not in _listed(KEY_VARS_ENV, env):
        raise EndpointRefused(f"the key variable {variable[:64]!r} is not one this deployment allows ({KEY_VARS_ENV})")


def endpoint_url(backend: str) -> str | None:
    """The URL of a backend that calls an endpoint (every name starting ``openai``, as
    the loaders read it: ``openai:URL``); None for a local backend."""
    if not backend.startswith("openai"):
        return None
    name, _, url = backend.partition(":")
    if name != "openai":
        raise EndpointRefused(f"{backend[:40]!r} is not a backend: openai:URL calls an endpoint")
    return url


def check_endpoint(backend: str, env: Mapping[str, str] | None = None) -> None:
    """Nothing for a local backend; for ``openai:URL``, an http(s) URL without credentials
    whose host (or host:port) is listed in GLOSSA_EXAMINER_HOSTS."""
    url = endpoint_url(backend)
    if url is None:
        return
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        raise EndpointRefused("the examiner's URL is not a URL") from None
    if parts.scheme not in ("http", "https") or not host or parts.username or parts.password:
        raise EndpointRefused("the examiner's URL must be http(s)://host[:port]/path without credentials")
    allowed = {entry.lower() for entry in _listed(HOSTS_ENV, env)}
    if host not in allowed and f"{host}:{port}" not in allowed:
        raise EndpointRefused(f"the examiner's host {host[:100]!r} is not one this deployment allows ({HOSTS_ENV})")


def check_examiner(backend: str, variable: str, env: Mapping[str, str] | None = None) -> None:
    """Both checks: the endpoint and the key's variable."""
    check_endpoint(backend, env)
    check_key_variable(variable, env)
