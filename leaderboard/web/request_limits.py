"""Refuse request bodies before anything reads them.

Django reads a POST body as soon as something asks for ``request.POST``; the CSRF check
does, so a 300 MB multipart POST with a bogus token used to be read in full (file parts
spooled to disk) before the 403. This middleware runs first and answers from the headers
alone, without touching ``wsgi.input``:

* a declared ``Content-Length`` over the limit is refused (413), multipart or not:
  ``GLOSSA_MAX_REQUEST_BYTES`` (64 KiB; the submit form is a few hundred bytes),
  ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (1 MiB) under the admin, whose bulk actions post many ids;
* a body without a declared length (``Transfer-Encoding: chunked``) is refused (411).

What passes is small, and nothing on the site takes files (the admin included: no
``FileField``): ``DATA_UPLOAD_MAX_NUMBER_FILES = 0`` makes Django refuse a multipart body's
first file part (400), and ``FILE_UPLOAD_MAX_MEMORY_SIZE`` is above the body limit, so no
part is ever spooled to disk. (Multipart itself stays allowed below the limit: it is how
Django's test client and some browsers' forms post.)

Gunicorn's sync workers close the connection after the response, so the unread body is
never read. (Django's development server drains it; it is not for production.)
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse


def _refuse(status: int, text: str) -> HttpResponse:
    response = HttpResponse(text + "\n", status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    response["Content-Length"] = str(len(response.content))  # no chunked framing: the middleware runs first
    return response


ADMIN_PREFIX = "/admin/"  # leaderboard/urls/__init__.py


def body_limit(path: str) -> int:
    if path.startswith(ADMIN_PREFIX):
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)
    return int(getattr(settings, "MAX_REQUEST_BYTES", 64 * 1024))


def body_refusal(meta, path: str) -> HttpResponse | None:
    """The refusal for a request's headers (``META``), or None when its body may be read."""
    raw_length = (meta.get("CONTENT_LENGTH") or "").strip()
    if not raw_length:
        if meta.get("HTTP_TRANSFER_ENCODING", "").strip():
            return _refuse(411, "A request body needs a Content-Length.")
        return None
    if not raw_length.isdigit():
        return _refuse(400, "Invalid Content-Length.")
    limit = body_limit(path)
    if int(raw_length) > limit:
        return _refuse(413, f"Request body too large (the limit is {limit} bytes).")
    return None


class RequestBodyLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return body_refusal(request.META, request.path_info) or self.get_response(request)
