"""Board history: a ``BoardSnapshot`` of a board each time an aggregation changes what it
shows (entries, method or version, inputs). Called by ``board_write.write_board`` inside
the board's transaction and lock, so snapshots are in the order the boards were written.
"""

from __future__ import annotations

from leaderboard.models import BoardSnapshot, LanguageModel, Leaderboard
from leaderboard.ranking import entry_display_name
from leaderboard.selectors.board_history import changes

SNAPSHOT_ENTRY_FIELDS = ("position", "rank", "rank_score", "commit")


def snapshot_entries(values: dict[tuple, dict]) -> list[dict]:
    """The snapshot form of a board's entry values (``board_write._entry_values``)."""
    model_ids = dict(LanguageModel.objects.filter(pk__in={k[0] for k in values}).values_list("pk", "model_id"))
    out = []
    for key, vals in sorted(values.items(), key=lambda kv: kv[1]["position"]):
        model_id = model_ids.get(key[0], str(key[0]))
        low, high = vals.get("rank_score_ci_low"), vals.get("rank_score_ci_high")
        out.append(
            {
                "model": model_id,
                "name": entry_display_name(model_id, key[1], key[2]),
                "few_shot": bool(key[1]),
                "validation_split": bool(key[2]),
                "position": vals["position"],
                "rank": vals["rank"],
                "rank_score": vals["rank_score"],
                "ci": [low, high] if low is not None and high is not None else None,
                "commit": vals.get("commit_sha", ""),
                "scores": {
                    name: (score.get("primary") or {}).get("mean") for name, score in (vals.get("scores") or {}).items()
                },
            }
        )
    return out


def _same(snapshot: BoardSnapshot, lb: Leaderboard, entries: list[dict]) -> bool:
    return (
        snapshot.method == lb.method
        and snapshot.method_version == lb.method_version
        and snapshot.inputs_digest == lb.inputs_digest
        and snapshot.entries == entries
    )


def record(lb: Leaderboard, values: dict[tuple, dict], now) -> BoardSnapshot | None:
    """Keep a snapshot of ``lb`` as just written, unless it equals the latest one."""
    entries = snapshot_entries(values)
    latest = BoardSnapshot.objects.filter(leaderboard=lb).first()
    if latest is not None and _same(latest, lb, entries):
        return None
    snapshot = BoardSnapshot.objects.create(
        leaderboard=lb,
        taken_at=now,
        method=lb.method,
        method_version=lb.method_version,
        inputs_digest=lb.inputs_digest,
        datasets=lb.datasets,
        entries=entries,
    )
    # What the board page says changed: computed once here, read with the board's own row.
    if latest is None:
        lb.changes = {}
    else:
        diff = changes(snapshot_dict(latest), snapshot_dict(snapshot))
        lb.changes = {"since": latest.taken_at.isoformat(), "previous": latest.pk, **diff.as_json()}
    lb.save(update_fields=["changes"])
    return snapshot


def snapshot_dict(snapshot: BoardSnapshot) -> dict:
    return {"method": snapshot.method, "method_version": snapshot.method_version, "entries": snapshot.entries}
