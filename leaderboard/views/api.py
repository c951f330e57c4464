"""JSON / CSV API. Thin: the export selector (``selectors/export.py``) builds the documents.

The JSON document of a board is cached whole per board version (the board, its entries
and their models: ``selectors.board_version``; ``web/response_cache.py``), so a reader costs
two small queries, not a rebuild; an aggregation or a model edit changes the version."""

from __future__ import annotations

import json

from django.http import HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from leaderboard import selectors
from leaderboard.models import Leaderboard
from leaderboard.selectors.export import LeaderboardNotFound, leaderboard_csv, leaderboard_document
from leaderboard.web import http_cache, response_cache


def _document(code: str) -> HttpResponse:
    try:
        body = json.dumps(leaderboard_document(code), ensure_ascii=False).encode("utf-8")
    except LeaderboardNotFound as exc:
        return JsonResponse({"error": str(exc)}, status=404)
    return HttpResponse(body, content_type="application/json")


@require_GET
def leaderboard_json(request, code: str):
    board = Leaderboard.objects.filter(code=code).first()
    if board is None:
        return _document(code)  # the 404 document, with its reason
    version = selectors.board_version(board)
    build = lambda: _document(code)  # noqa: E731
    return response_cache.cached(request, "api-json", (code, version), build, http_cache.version_time(version))


@require_GET
def leaderboard_csv_view(request, code: str):
    try:
        body = leaderboard_csv(code)
    except LeaderboardNotFound as exc:
        return JsonResponse({"error": str(exc)}, status=404)
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="glossa-{code}.csv"'
    return response
