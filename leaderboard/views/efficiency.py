"""A board's efficiency view (docs/methodology.md §11): what its entries cost to run, apart from the
ranking. Thin: the selector reads, the chart module draws; cached for anonymous readers
per board version, cost-data stamp and (validated) axis."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_safe

from leaderboard import charts, efficiency_charts
from leaderboard.models import Leaderboard
from leaderboard.selectors import board_version
from leaderboard.selectors.efficiency import COST_AXES, DEFAULT_AXIS, board_efficiency, efficiency_stamp
from leaderboard.web import http_cache, response_cache


@require_safe
def board(request, code: str):
    row = Leaderboard.objects.filter(code=code).first()
    if row is None:
        raise Http404(f"No leaderboard {code!r}.")
    axis = request.GET.get("cost", DEFAULT_AXIS)
    axis = axis if axis in COST_AXES else DEFAULT_AXIS  # an unknown axis is the default, never a new entry
    version = board_version(row)

    def build():
        context = board_efficiency(row, axis)
        points = context["points"]
        context["chart"] = (
            charts.embed(efficiency_charts.quality_cost(points, context["axis_label"])) if points else None
        )
        return render(request, "leaderboard/board_efficiency.html", context)

    parts = (code, version, efficiency_stamp(), axis)
    return response_cache.cached(request, "board-efficiency", parts, build, http_cache.version_time(version))
