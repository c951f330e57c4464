"""Board history pages: the list of a board's snapshots and one past board (page, JSON, CSV)."""

from __future__ import annotations

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from leaderboard.models import Leaderboard
from leaderboard.selectors import snapshots
from leaderboard.selectors.board_history import changes


def _page(request) -> int:
    try:
        return max(1, min(int(request.GET.get("page", "1")), 10_000))
    except ValueError:
        return 1


@require_safe
def board_history(request, code: str):
    board = get_object_or_404(Leaderboard, code=code)
    page = _page(request)
    rows = snapshots.history(code, page)
    if not rows and page > 1:
        raise Http404("No such page of history.")
    return render(
        request,
        "leaderboard/board_history.html",
        {"board": board, "rows": rows, "page": page, "more": len(rows) == snapshots.HISTORY_PAGE},
    )


@require_safe
def board_snapshot(request, code: str, pk: int):
    snapshot = snapshots.find(code, pk)
    if snapshot is None:
        raise Http404(f"No snapshot {pk} of leaderboard {code!r}.")
    fmt = request.GET.get("format", "")
    filename = f"glossa-{code}-snapshot-{pk}"
    if fmt == "json":
        response = JsonResponse(snapshots.export_document(snapshot), json_dumps_params={"ensure_ascii": False})
    elif fmt == "csv":
        response = HttpResponse(snapshots.snapshot_csv(snapshot), content_type="text/csv; charset=utf-8")
    elif fmt:
        raise Http404("Exports are ?format=json or ?format=csv.")
    else:
        before = snapshots.previous(snapshot)
        diff = changes(snapshots.as_dict(before), snapshots.as_dict(snapshot)).as_json() if before else None
        names = [d.get("name") for d in snapshot.datasets]
        entries = [dict(e, cells=[(e.get("scores") or {}).get(n) for n in names]) for e in snapshot.entries]
        return render(
            request,
            "leaderboard/board_snapshot.html",
            {
                "board": snapshot.leaderboard,
                "snapshot": snapshot,
                "entries": entries,
                "previous": before,
                "changes": diff,
            },
        )
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response
