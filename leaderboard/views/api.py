"""JSON / CSV API. Thin: the export service builds the documents.

The JSON document of a board is cached as bytes per board version (the board, its
entries and their models: ``selectors.board_version``), so a reader costs two small
queries, not a rebuild; an aggregation or a model edit changes the version."""

from __future__ import annotations

import json

from django.core.cache import cache
from django.http import HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from leaderboard import selectors
from leaderboard.cache_keys import cache_key
from leaderboard.models import Leaderboard
from leaderboard.services.export import LeaderboardNotFound, leaderboard_csv, leaderboard_document

DOCUMENT_TTL = 600  # seconds; the key changes with the board anyway


@require_GET
def leaderboard_json(request, code: str):
    board = Leaderboard.objects.filter(code=code).first()
    key = cache_key("api-json", code, selectors.board_version(board)) if board is not None else None
    body = cache.get(key) if key else None
    if body is None:
        try:
            body = json.dumps(leaderboard_document(code), ensure_ascii=False).encode("utf-8")
        except LeaderboardNotFound as exc:
            return JsonResponse({"error": str(exc)}, status=404)
        if key:
            cache.set(key, body, DOCUMENT_TTL)
    return HttpResponse(body, content_type="application/json")


@require_GET
def leaderboard_csv_view(request, code: str):
    try:
        body = leaderboard_csv(code)
    except LeaderboardNotFound as exc:
        return JsonResponse({"error": str(exc)}, status=404)
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="glossa-{code}.csv"'
    return response
