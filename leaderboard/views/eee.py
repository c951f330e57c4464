"""Every Eval Ever downloads. Thin: :mod:`leaderboard.eee.export` writes the files.

- ``/api/evaluations/<pk>/eee.json``: one evaluation's EEE log;
- ``/api/evaluations/<pk>/eee-instances.jsonl``: its examples as EEE instance-level rows
  (404 when it has none: published results come without examples);
- ``/api/leaderboards/<code>/eee.zip``: the board's counted evaluations, logs and sidecars.
"""

from __future__ import annotations

import json

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_GET

from leaderboard import selectors
from leaderboard.eee.export import INSTANCES_SUFFIX, board_zip, evaluation_files
from leaderboard.models import Evaluation, Leaderboard
from leaderboard.selectors.export import LeaderboardNotFound
from leaderboard.web import response_cache


def _evaluation(pk: int) -> Evaluation:
    return get_object_or_404(Evaluation.objects.select_related("model", "dataset", "dataset_version"), pk=pk)


def _attachment(body: bytes, content_type: str, name: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
def evaluation_log(request, pk: int):
    evaluation = _evaluation(pk)
    files = evaluation_files(evaluation)
    log = json.loads(files.files[f"{files.stem}.json"])
    if "detailed_evaluation_results" in log:
        log["detailed_evaluation_results"]["file_path"] = reverse("api-evaluation-eee-instances", args=[pk])
    body = json.dumps(log, ensure_ascii=False, indent=2).encode("utf-8")
    return _attachment(body, "application/json", f"{files.stem}.json")


@require_GET
def evaluation_instances(request, pk: int):
    files = evaluation_files(_evaluation(pk))
    name = f"{files.stem}{INSTANCES_SUFFIX}"
    if name not in files.files:
        raise Http404("this evaluation has no stored examples")
    return _attachment(files.files[name], "application/jsonl; charset=utf-8", name)


def _board_zip_response(code: str) -> HttpResponse:
    try:
        body = board_zip(code)
    except LeaderboardNotFound as exc:
        return JsonResponse({"error": str(exc)}, status=404)
    return _attachment(body, "application/zip", f"glossa-{code}-eee.zip")


@require_GET
def board_logs(request, code: str):
    """Built once per board version for anonymous readers (``response_cache``), as the
    board's JSON document is: a zip of a large board is thousands of logs."""
    board = Leaderboard.objects.filter(code=code).first()
    if board is None:
        return _board_zip_response(code)  # the 404 document, with its reason
    version = selectors.board_version(board)
    return response_cache.cached(request, "api-eee-zip", (code, version), lambda: _board_zip_response(code))
