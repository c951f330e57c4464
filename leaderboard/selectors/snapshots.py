"""Reads of board history (``BoardSnapshot``): the changes a board page shows, the history
list, and one past board as a page or an export. The diff itself is pure
(:mod:`leaderboard.selectors.board_history`). A past board's CSV has the columns of the live
board's (:func:`leaderboard.selectors.export.document_csv`), so the two line up; what a
snapshot does not keep (rank sets, model facts, secondary metrics...) is left empty."""

from __future__ import annotations

from leaderboard.models import BoardSnapshot
from leaderboard.selectors.board_history import changes
from leaderboard.selectors.export import document_csv

HISTORY_PAGE = 30


def as_dict(snapshot: BoardSnapshot) -> dict:
    return {
        "id": snapshot.pk,
        "board": snapshot.leaderboard_id,
        "taken_at": snapshot.taken_at.isoformat(),
        "method": snapshot.method,
        "method_version": snapshot.method_version,
        "inputs_digest": snapshot.inputs_digest,
        "datasets": snapshot.datasets,
        "entries": snapshot.entries,
    }


def history(code: str, page: int = 1) -> list[dict]:
    """Newest first: each snapshot with counts of what changed since the one before it."""
    offset = (max(page, 1) - 1) * HISTORY_PAGE
    rows = list(BoardSnapshot.objects.filter(leaderboard_id=code)[offset : offset + HISTORY_PAGE + 1])
    out = []
    for k, snapshot in enumerate(rows[:HISTORY_PAGE]):
        before = rows[k + 1] if k + 1 < len(rows) else None
        diff = changes(as_dict(before), as_dict(snapshot)) if before else None
        out.append(
            {
                "snapshot": snapshot,
                "entries": len(snapshot.entries),
                "ranked": sum(1 for e in snapshot.entries if e.get("rank") is not None),
                "added": len(diff.added) if diff else len(snapshot.entries),
                "removed": len(diff.removed) if diff else 0,
                "moved": len(diff.moved) if diff else 0,
                "reasons": diff.board_reasons[:3] if diff else [],
            }
        )
    return out


def find(code: str, pk: int) -> BoardSnapshot | None:
    return BoardSnapshot.objects.filter(leaderboard_id=code, pk=pk).select_related("leaderboard").first()


def previous(snapshot: BoardSnapshot) -> BoardSnapshot | None:
    return (
        BoardSnapshot.objects.filter(leaderboard_id=snapshot.leaderboard_id, taken_at__lte=snapshot.taken_at)
        .exclude(pk=snapshot.pk)
        .exclude(taken_at=snapshot.taken_at, pk__gt=snapshot.pk)
        .first()
    )


def export_document(snapshot: BoardSnapshot) -> dict:
    """The JSON export of a past board: the snapshot plus what changed since the one before."""
    before = previous(snapshot)
    doc = as_dict(snapshot)
    doc["method"] = {"name": snapshot.method, "version": snapshot.method_version}
    doc.pop("method_version")
    doc["previous"] = before.pk if before else None
    doc["changes"] = changes(as_dict(before), as_dict(snapshot)).as_json() if before else None
    return doc


def snapshot_csv(snapshot: BoardSnapshot) -> str:
    """A past board as CSV, in the live board's schema (:func:`document_csv`)."""
    metrics = {d.get("name"): d.get("primary_metric") for d in snapshot.datasets}
    entries = [
        {
            **{k: e.get(k) for k in ("position", "rank", "model", "few_shot", "validation_split", "rank_score")},
            "name": e.get("name") or e["model"],
            "rank_score_ci": e.get("ci"),
            "commit": e.get("commit") or None,
            "scores": {
                name: {"primary": {"metric": metrics.get(name), "mean": mean}}
                for name, mean in (e.get("scores") or {}).items()
            },
        }
        for e in snapshot.entries
    ]
    return document_csv(
        {
            "kind": snapshot.leaderboard.kind,
            "datasets": snapshot.datasets,
            "boards": sorted({d["board"] for d in snapshot.datasets if d.get("board")}),
            "method": {"name": snapshot.method, "version": snapshot.method_version},
            "entries": entries,
        }
    )
