"""The home page: one entry per language (its published board and the board of what this
deployment evaluated itself, each said in a sentence) and one per group, ordered by how many
ranked entries they hold, filtered by a search string (``?q=``; ``static/js/home.js`` filters
the same entries as one types, without a reload)."""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.db.models import Count, Q

from leaderboard.identity import METHODOLOGY_PROTOCOL, suite_language
from leaderboard.models import Leaderboard, LeaderboardEntry
from leaderboard.ranking import entry_display_name
from leaderboard.registry.languages import language_name
from leaderboard.registry.suite import suite_protocol
from leaderboard.selectors.formatting import board_url, model_url, reproduce_command

LEADERS = 3
MAX_QUERY = 100


def _board(board: Leaderboard, counts: dict, leaders: dict) -> dict:
    row = counts.get(board.code, {})
    return {
        "code": board.code,
        "name": board.name,
        "url": board_url(board.code),
        "ranked": row.get("ranked", 0),
        "entries": row.get("entries", 0),
        "datasets": len(board.datasets or []),
        "updated": board.generated_at,
        "leaders": leaders.get(board.code, []),
    }


def _matches(query: str, *texts: str) -> bool:
    return not query or any(query in text.lower() for text in texts)


def home_page(query: str = "") -> dict:
    """``languages`` and ``groups``: entries with their boards, most ranked entries first;
    only those whose name, code or board names contain ``query`` (case-insensitive)."""
    query = query.strip().lower()[:MAX_QUERY]
    counts = {
        row["leaderboard"]: row
        for row in LeaderboardEntry.objects.values("leaderboard").annotate(
            entries=Count("id"), ranked=Count("id", filter=Q(rank__isnull=False))
        )
    }
    leaders: dict[str, list[dict]] = defaultdict(list)
    top = (
        LeaderboardEntry.objects.filter(position__lte=LEADERS, rank__isnull=False)
        .select_related("model")
        .only("leaderboard_id", "position", "few_shot", "validation_split", "model__model_id")
        .order_by("leaderboard_id", "position")
    )
    for entry in top:
        name = entry_display_name(entry.model.model_id, entry.few_shot, entry.validation_split)
        leaders[entry.leaderboard_id].append({"name": name, "url": model_url(entry.model.model_id)})
    by_language: dict[str, dict] = {}
    groups = []
    for board in Leaderboard.objects.all():
        if not board_url(board.code):
            continue  # a board code no address can carry (stored before codes were validated)
        item = _board(board, counts, leaders)
        if board.kind == "group":
            item["languages"] = [language_name(code) for code in board.boards or []]
            item["search"] = " ".join([board.name, board.code, *item["languages"]]).lower()
            groups.append(item)
            continue
        code = suite_language(board.code) or board.code
        entry = by_language.setdefault(code, {"code": code, "name": language_name(code), "published": None})
        entry["suite" if board.is_suite else "published"] = item
    languages = []
    for entry in by_language.values():
        boards = [b for b in (entry.get("published"), entry.get("suite")) if b]
        entry["ranked"] = sum(b["ranked"] for b in boards)
        entry["search"] = " ".join([entry["name"], entry["code"], *(b["name"] for b in boards)]).lower()
        languages.append(entry)
    languages.sort(key=lambda e: (-e["ranked"], e["name"]))
    groups.sort(key=lambda g: (-g["ranked"], g["name"]))
    return {
        "query": query,
        "languages": [e for e in languages if _matches(query, e["search"])],
        "groups": [g for g in groups if _matches(query, g["search"])],
        "total_languages": len(languages),
        "total_groups": len(groups),
        "suite_protocol": suite_protocol().describe(),
    }


def protocol_context() -> dict:
    """The protocol this deployment evaluates submissions with, as pages say it (the demo runs
    3 iterations on 32 test rows, not the methodology's 10 on the full split)."""
    protocol = suite_protocol()
    return {
        "deployment_protocol": protocol.describe(),
        "deployment_iterations": protocol.iterations,
        "deployment_limit": protocol.test_limit or None,
        "deployment_is_methodology": protocol == METHODOLOGY_PROTOCOL,
        "example_command": reproduce_command(
            "ORG/NAME",
            "scala-da",
            few_shot=True,
            validation_split=False,
            iterations=protocol.iterations,
            limit=protocol.test_limit or None,
            backend=str(getattr(settings, "EVALUATION_BACKEND", "") or ""),
            output="results.jsonl",
        ),
    }
