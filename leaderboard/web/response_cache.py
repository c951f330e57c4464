"""Whole responses cached for anonymous readers, keyed by what they are computed from.

A board page or a board's JSON document is the same for every anonymous reader of one
board version (``selectors.board_version``: the board, its entries and their models)
and one set of validated filters. The first reader renders it; the body is kept with a
gzip-compressed copy, so later readers cost two small queries and a cache read, and no
compression (``GZipMiddleware`` leaves a response that already has a Content-Encoding
alone). Signed-in users and requests carrying flash messages are never served from or
into the cache: their pages differ. The shared cache stores signed JSON
(``cache_backend.py``); an entry of another shape is a miss and the page is built again.

Each such response carries a weak ETag made from its key (``http_cache.board_etag``) and,
when given, a Last-Modified; a request whose validators match is answered 304 before the
cache is read at all (``http_cache.HttpCacheMiddleware`` adds ``Cache-Control``).
"""

from __future__ import annotations

import gzip
from collections.abc import Callable

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from django.utils.http import http_date

from leaderboard.web import http_cache
from leaderboard.web.cache_keys import cache_key

TTL = 600  # seconds; a new board version is a new key anyway


def _well_formed(entry) -> bool:
    """A cached response as :func:`cached` writes it (anything else is a miss)."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("type"), str)
        and isinstance(entry.get("body"), bytes)
        and isinstance(entry.get("gzip"), bytes)
    )


def _respond(request: HttpRequest, entry: dict) -> HttpResponse:
    if "gzip" in request.META.get("HTTP_ACCEPT_ENCODING", "").lower():
        response = HttpResponse(entry["gzip"], content_type=entry["type"])
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(entry["body"], content_type=entry["type"])
    patch_vary_headers(response, ["Accept-Encoding"])
    return response


def cached(
    request: HttpRequest,
    namespace: str,
    parts: tuple,
    build: Callable[[], HttpResponse],
    modified: float | None = None,
) -> HttpResponse:
    """``build()``'s response, from the cache when an equal one was built for these ``parts``;
    304 when the request already holds it. ``modified``: when what ``parts`` name last changed
    (a Unix time, for Last-Modified)."""
    if http_cache.personal(request):
        return build()
    key = cache_key(f"response:{namespace}", *parts)
    etag = http_cache.board_etag(key)
    unchanged = http_cache.not_modified(request, etag, modified)
    if unchanged is not None:
        return unchanged
    entry = cache.get(key)
    if not _well_formed(entry):
        response = build()
        if response.status_code != 200 or response.streaming or response.has_header("Content-Encoding"):
            return response
        body = response.content
        entry = {"type": response["Content-Type"], "body": body, "gzip": gzip.compress(body, compresslevel=6, mtime=0)}
        cache.set(key, entry, TTL)
    response = _respond(request, entry)
    response["ETag"] = etag
    if modified:
        response["Last-Modified"] = http_date(modified)
    return response
