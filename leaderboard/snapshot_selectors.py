"""Reads of board history (``BoardSnapshot``): the changes a board page shows, the history
list, and one past board as a page or an export. The diff itself is pure
(:mod:`leaderboard.board_history`)."""

from __future__ import annotations

from leaderboard.board_history import changes
from leaderboard.models import BoardSnapshot

HISTORY_PAGE = 30
SNAPSHOT_COLUMNS = ("position", "rank", "model", "few_shot", "validation_split", "rank_score", "ci_low", "ci_high")


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
    return BoardSnapshot.objects.filter(leaderboard_id=code, pk=pk).first()


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


def export_rows(snapshot: BoardSnapshot) -> tuple[list[str], list[list]]:
    names = [d["name"] for d in snapshot.datasets]
    header = list(SNAPSHOT_COLUMNS) + ["commit"] + names + ["method", "method_version"]
    rows = []
    for e in snapshot.entries:
        low, high = e.get("ci") or (None, None)
        rows.append(
            [e["position"], e.get("rank"), e["model"], e["few_shot"], e["validation_split"], e.get("rank_score")]
            + [low, high, e.get("commit", "")]
            + [(e.get("scores") or {}).get(n) for n in names]
            + [snapshot.method, snapshot.method_version]
        )
    return header, rows
