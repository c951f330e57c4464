"""HTTP caching: what a shared cache (the reverse proxy) and a browser may keep, and 304s.

``HttpCacheMiddleware`` (between GZip and the session middleware, so it sees the cookies
and ``Vary`` that the inner middleware add) gives every successful GET or HEAD:

- an anonymous reader's page that sets no cookie: ``public, max-age=0, s-maxage=N``. A
  shared cache keeps it N seconds (``GLOSSA_SHARED_MAX_AGE``, 30 by default); a browser
  keeps it too but asks again each time (``max-age=0``) and gets a 304 while it is current;
- a signed-in user's page, a page with a flash message, or one that sets a cookie (a form's
  CSRF cookie, the session): ``private, no-cache``: no shared cache stores it;
- a validator: the ETag a view set (a board's, from its version: :func:`board_etag`), else
  one from the body; and the answer 304 when the request's ``If-None-Match`` (or, without
  it, ``If-Modified-Since``) matches.

``Vary: Cookie, Accept-Encoding`` is on every such response: the page depends on who is
signed in and the body on the encoding. A view wrapped in :func:`shared_for` is kept by
shared caches for its own (shorter) time: live pages such as the queue.
"""

from __future__ import annotations

import functools
import hashlib
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import http_date, parse_http_date_safe

SAFE_METHODS = ("GET", "HEAD")


@functools.cache
def release() -> str:
    """What changes when the site's code or static files change: a part of every ETag, so a
    deployment is never answered with a 304 for a page built by the previous one."""
    digest = hashlib.sha256()
    manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
    if manifest.is_file():
        digest.update(manifest.read_bytes())
    for template_dir in (Path(settings.BASE_DIR) / "templates", Path(__file__).parent / "templates"):
        if template_dir.is_dir():
            stamps = sorted(f"{p}:{p.stat().st_mtime_ns}" for p in template_dir.rglob("*.html"))
            digest.update("\n".join(stamps).encode())
    return digest.hexdigest()[:12]


def board_etag(key: str) -> str:
    """A weak ETag for a cached board response, from its cache key (board version + filters)
    and the release: equal for the plain and the gzipped body (semantically equal)."""
    return 'W/"' + hashlib.sha256(f"{release()}:{key}".encode()).hexdigest()[:32] + '"'


def version_time(version: str) -> float | None:
    """The latest timestamp in a board version (``selectors.board_version``: ISO times and
    counts joined by ``|``), as a Unix time, or None when it holds none."""
    times = []
    for part in version.split("|"):
        try:
            times.append(datetime.fromisoformat(part).timestamp())
        except ValueError:
            continue
    return max(times) if times else None


def personal(request: HttpRequest) -> bool:
    """A page only this visitor may see: signed in, or carrying a flash message."""
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated) or len(get_messages(request)) > 0


def not_modified(request: HttpRequest, etag: str, last_modified: float | None = None) -> HttpResponse | None:
    """A 304 (with the validators) when the request's validators match, else None."""
    answer = get_conditional_response(request, etag=etag, last_modified=int(last_modified) if last_modified else None)
    if answer is not None:
        answer["ETag"] = etag
        if last_modified:
            answer["Last-Modified"] = http_date(last_modified)
    return answer


def shared_max_age() -> int:
    return int(getattr(settings, "SHARED_MAX_AGE", 30))


def shared_for(seconds: int):
    """A view whose anonymous pages a shared cache keeps ``seconds`` (live pages: short)."""

    def decorate(view):
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            response = view(request, *args, **kwargs)
            response.shared_max_age = seconds
            return response

        return wrapped

    return decorate


class HttpCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method not in SAFE_METHODS or response.status_code not in (200, 304) or response.streaming:
            return response
        patch_vary_headers(response, ["Cookie", "Accept-Encoding"])
        if response.has_header("Cache-Control"):  # the view decided (never_cache, downloads ...)
            return response
        if personal(request) or response.cookies:
            patch_cache_control(response, private=True, no_cache=True)
            return response
        seconds = getattr(response, "shared_max_age", None)
        patch_cache_control(response, public=True, max_age=0, s_maxage=shared_max_age() if seconds is None else seconds)
        if response.status_code == 304:  # a view answered the validators itself (boards)
            return response
        if not response.has_header("ETag"):
            response["ETag"] = '"' + hashlib.sha256(response.content).hexdigest()[:32] + '"'
        last_modified = parse_http_date_safe(response.get("Last-Modified", ""))
        return get_conditional_response(request, etag=response["ETag"], last_modified=last_modified, response=response)
