"""JSON / CSV API. Thin: the export service builds the documents."""

from django.http import HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from leaderboard.services.export import LeaderboardNotFound, leaderboard_csv, leaderboard_document


@require_GET
def leaderboard_json(request, code: str):
    try:
        return JsonResponse(leaderboard_document(code), json_dumps_params={"ensure_ascii": False})
    except LeaderboardNotFound as exc:
        return JsonResponse({"error": str(exc)}, status=404)


@require_GET
def leaderboard_csv_view(request, code: str):
    try:
        body = leaderboard_csv(code)
    except LeaderboardNotFound as exc:
        return JsonResponse({"error": str(exc)}, status=404)
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="glossa-{code}.csv"'
    return response
