"""Read-only pages. Views stay thin: selectors read, charts draw, templates render."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from leaderboard import charts, selectors
from leaderboard.models import Dataset, Exam, Leaderboard
from leaderboard.ranking import all_methods
from leaderboard.selectors import compare_board, examples, export
from leaderboard.selectors.compare import compare_page
from leaderboard.selectors.efficiency import model_efficiency
from leaderboard.selectors.examiner import model_exam_results
from leaderboard.selectors.stability import PAGE_MODELS, PAGE_REPEATS, dataset_stability
from leaderboard.services.method_rankings import queue_ranking
from leaderboard.web import http_cache, response_cache
from leaderboard.web.cache_keys import cache_key

FIXED_COLUMNS = [
    ("rank", "Rank", ""),  # the rank columns are explained in words above the table (#rank-explained)
    ("model", "Model", ""),
    ("rankint", "95% set", ""),
    ("rankset", "All rows", ""),
    ("pnext", "P(above next)", ""),
    ("type", "Type", "E encoder · B base decoder · I instruction-tuned · R reasoning"),
    ("params", "Params", "Number of parameters"),
    ("vocab", "Vocab", "Vocabulary size"),
    ("context", "Context", "Maximum context length in tokens"),
    ("score", "Rank score", "Mean rank score (lower is better) with its 95% bootstrap interval"),
]


BITS_PER_BYTE_COLUMN = [
    (
        "bpb",
        "Bits/byte",
        "Bits per byte on the board's held-out test texts (lower: the model predicts the language better); "
        "shown, never part of the rank score",
    )
]


def _query(pairs: list[tuple[str, str]]) -> str:
    return f"?{urlencode(pairs)}" if pairs else ""


def _sort_link(filters: selectors.BoardFilters, key: str) -> tuple[str, str]:
    """The link that sorts by ``key`` (toggling the direction) and the column's aria-sort."""
    base = [(k, v) for k, v in filters.as_query() if k not in ("sort", "dir")]
    if filters.sort == key:
        direction = "desc" if filters.direction == "asc" else "asc"
        state = "ascending" if filters.direction == "asc" else "descending"
    else:
        direction, state = "asc", "none"
    pairs = base + [("sort", key)] + ([("dir", direction)] if direction == "desc" else [])
    return _query(pairs), state


def _board_scatter(data: selectors.Board):
    """The board's scatter JSON, cached per board version and the set of rows it draws: every
    filter (or search string) that shows the same rows shares one entry; sorting changes nothing."""
    key = cache_key("board-scatter:v2", data.board.code, data.version, sorted(row["position"] for row in data.rows))
    found = cache.get(key)
    if isinstance(found, str):
        return charts.embedded(found)
    figure = charts.embed(charts.board_scatter(data.rows))
    cache.set(key, str(figure), selectors.BOARD_CACHE_SECONDS)
    return figure


@require_safe
def home(request):
    return render(request, "leaderboard/home.html", selectors.home_page(request.GET.get("q", "")))


@require_safe
def methodology(request):
    return render(
        request,
        "leaderboard/methodology.html",
        {
            "bootstrap_replicates": settings.RANK_BOOTSTRAP_REPLICATES,
            "ranking_methods": all_methods(),
            "default_method": settings.GLOSSA_RANKING_METHOD,
            **selectors.protocol_context(),
        },
    )


def _board_changes(data: selectors.Board) -> dict | None:
    """What changed on the board since its previous snapshot (stored on the board's row by
    services/snapshots.py), when the board is shown under its own method."""
    changes = getattr(data.board, "changes", None)
    if not changes or data.method.get("name") != data.board.method:
        return None
    try:
        since = datetime.fromisoformat(changes["since"])
    except (KeyError, TypeError, ValueError):
        since = None
    return {**changes, "since": since}


@require_safe
def board(request, code: str):
    # has_exam (the Examiner board link, docs/methodology.md §8) comes with the board row: no query more
    row = (
        Leaderboard.objects.filter(code=code)
        .annotate(has_exam=Exists(Exam.objects.filter(language=OuterRef("code"))))
        .first()
    )
    if row is None:
        raise Http404(f"No leaderboard {code!r}.")
    # Every filter is validated (an unknown sort is the default): the cache key below is made
    # of values from finite sets, and searches (free text) are never cached whole.
    filters = selectors.BoardFilters.from_query(request.GET, selectors.sort_keys(row))
    version = selectors.board_version(row)
    has_exam = row.has_exam
    build = lambda: _board_page(request, code, filters, row, version, has_exam)  # noqa: E731
    if filters.q or (filters.method and filters.method != row.method):  # search, or another method's ranking
        return build()
    parts = (code, version, filters.as_query(), has_exam)
    return response_cache.cached(request, "board-page", parts, build, http_cache.version_time(version))


def _board_page(
    request, code: str, filters: selectors.BoardFilters, row: Leaderboard, version: str, has_exam: bool = False
):
    data = _get_board(code, filters, row, version)
    if data is None:
        raise Http404(f"No leaderboard {code!r}.")
    fixed = []
    for key, label, title in FIXED_COLUMNS + (BITS_PER_BYTE_COLUMN if data.shows_bits_per_byte else []):
        url, state = _sort_link(filters, key)
        fixed.append({"key": key, "label": label, "title": title, "sort_url": url, "sort_state": state})
    for column in data.columns:
        column.sort_url, column.sort_state = _sort_link(filters, column.key)
    query = _query(filters.as_query())
    others = [(k, v) for k, v in filters.as_query() if k != "method"]
    methods = [
        {
            "name": m.name,
            "label": m.label,
            "current": m.name == data.method.get("name"),
            "url": _query(others + ([] if m.name == data.board.method else [("method", m.name)])) or request.path,
        }
        for m in all_methods()
    ]
    context = {
        "methods": methods,
        "data": data,
        "board": data.board,
        "filters": filters,
        "fixed_columns": fixed,
        "num_columns": len(fixed) + len(data.columns),
        "type_options": [
            (key, selectors.TYPE_SHORT_LABELS[key], badge, label)
            for key, (badge, label) in selectors.MODEL_TYPES.items()
        ],
        "size_options": [(key, label) for key, (label, _, _) in selectors.SIZE_BUCKETS.items()],
        "shot_options": [("", "All")] + list(selectors.SHOTS.items()),
        "export_query": query,
        "scatter": _board_scatter(data),
        "changes": _board_changes(data),
        "examiner_url": reverse("examiner-board", args=[code]) if has_exam else None,
    }
    return render(request, "leaderboard/board.html", context)


def _get_board(code: str, filters: selectors.BoardFilters, row: Leaderboard, version: str | None = None):
    """The board as shown; a method whose ranking is not stored yet is queued (once per
    board state) and the board shown under its own method meanwhile."""
    data = selectors.get_board(code, filters, board=row, version=version)
    if data is not None and data.pending_method:
        queue_ranking(row, data.pending_method["name"])
    return data


@require_safe
def board_export(request, code: str, fmt: str):
    if fmt not in ("csv", "json"):
        raise Http404("Exports are .csv or .json.")
    row = Leaderboard.objects.filter(code=code).first()
    if row is None:
        raise Http404(f"No leaderboard {code!r}.")
    filters = selectors.BoardFilters.from_query(request.GET, selectors.sort_keys(row))
    data = _get_board(code, filters, row)
    filename = f"glossa-{code}-leaderboard.{fmt}"
    document = export.shown_document(data)  # the API's document, filtered and ordered as shown
    if fmt == "json":
        response = JsonResponse(document, json_dumps_params={"ensure_ascii": False})
    else:
        response = HttpResponse(export.document_csv(document), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_safe
def model_by_id(request):
    """The model page of an id given as ``?id=`` (a local path such as ``/mnt/x/``)."""
    model_id = request.GET.get("id", "")
    if not model_id or len(model_id) > 300:
        raise Http404("No such model on Glossa.")
    return model(request, model_id)


@require_safe
def model(request, model_id: str):
    found = selectors.find_model(model_id)
    if found is None:
        raise Http404(f"No model {model_id!r} on Glossa.")
    context = selectors.model_page(found)
    context["exam_results"] = model_exam_results(found)
    context["efficiency"] = model_efficiency(found)  # the costs, apart from the scores (methodology §11)
    context["strip"] = charts.embed(charts.model_strip(context["evaluations"])) if context["evaluations"] else None
    context["task_bars"] = (
        charts.embed(charts.model_task_bars(context["evaluations"])) if context["evaluations"] else None
    )
    return render(request, "leaderboard/model.html", context)


@require_safe
def compare(request):
    """Two to four models side by side (docs/methodology.md §7a): ``?models=A&models=B``, on a
    board with ``&board=CODE`` and the board's view (its filters, validated) to link back to."""
    models, code = request.GET.getlist("models"), request.GET.get("board", "")
    context = compare_board.board_page(models, code, request.GET) if code else compare_page(models)
    return render(request, "leaderboard/compare.html", context)


@require_safe
def model_examples(request, model_id: str, dataset: str):
    """The prediction browser; ``?format=jsonl`` downloads the selection."""
    found = selectors.find_model(model_id)
    if found is None:
        raise Http404(f"No model {model_id!r} on Glossa.")
    evaluation = request.GET.get("evaluation", "")
    context = examples.example_page(
        found,
        dataset,
        examples.ExampleFilters.from_query(request.GET),
        int(evaluation) if evaluation.isascii() and evaluation.isdigit() else None,
    )
    if context is None:
        raise Http404(
            f"No examples of {found.model_id} on {dataset}: published results come without them; "
            "evaluations run by Glossa store them."
        )
    if request.GET.get("format") == "jsonl":
        lines = examples.download_lines(context["selected"])
        body = "".join(line + "\n" for line in lines)
        response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{found.model_id}-{dataset}").strip("-")
        response["Content-Disposition"] = f'attachment; filename="glossa-{name}-examples.jsonl"'
        return response
    return render(request, "leaderboard/examples.html", context)


@require_safe
def dataset(request, name: str):
    found = get_object_or_404(Dataset.objects.prefetch_related("languages"), name=name)
    context = selectors.dataset_page(found, settings.DATA_DIR)
    rows = context["leaderboard"]
    context["distribution"] = (
        charts.embed(charts.dataset_distribution(rows, context["primary_metric"])) if rows else None
    )
    context["stability"] = stability = dataset_stability(found, PAGE_REPEATS, PAGE_MODELS)
    context["stability_chart"] = (
        charts.embed(charts.dataset_stability(stability.table.rows)) if stability.table else None
    )
    return render(request, "leaderboard/dataset.html", context)
