"""Writing computed boards: the cached ``Leaderboard`` / ``LeaderboardEntry`` rows (what the
board shows, under the deployment's ranking method) and a ``LeaderboardRanking`` per
(board, method) for viewing a board under another method. Rows are only written when a
value differs.
"""

from __future__ import annotations

import io

import numpy as np

from leaderboard.models import Leaderboard, LeaderboardEntry, LeaderboardRanking
from leaderboard.ranking import entry_token
from leaderboard.selectors.board_data import EntryKey
from leaderboard.services import snapshots
from leaderboard.services.board_compute import ComputedBoard, _finite

ENTRY_FIELDS = (
    "position",
    "rank",
    "rank_score",
    "rank_score_ci_low",
    "rank_score_ci_high",
    "task_rank_scores",
    "scores",
    "missing_datasets",
    "excluded",
    "commit_sha",
    "extra",
)


def _entry_values(board: ComputedBoard) -> dict[EntryKey, dict]:
    res = board.result
    values = {}
    for position, e in enumerate(res.positions(), start=1):
        ranked = bool(np.isfinite(res.rank_scores[e]))
        values[board.entries[e]] = {
            "position": position,
            "rank": int(res.ranks[e]) if ranked else None,
            "rank_score": _finite(res.rank_scores[e]),
            "rank_score_ci_low": _finite(res.ci_low[e]) if ranked else None,
            "rank_score_ci_high": _finite(res.ci_high[e]) if ranked else None,
            **board.rows[e],
        }
    return values


def write_board(board: ComputedBoard, now) -> tuple[int, int]:
    """Upsert one board's rows; returns (entries on the board, entries created/changed/removed)."""
    lb, created = Leaderboard.objects.get_or_create(code=board.code, defaults={"name": board.name, "kind": board.kind})
    write_ranking(board, lb, now)
    wanted = _entry_values(board)
    existing = {(r.model_id, r.few_shot, r.validation_split): r for r in lb.entries.all()}
    changed = 0
    to_create, to_update = [], []
    for key, vals in wanted.items():
        row = existing.pop(key, None)
        if row is None:
            to_create.append(
                LeaderboardEntry(leaderboard=lb, model_id=key[0], few_shot=key[1], validation_split=key[2], **vals)
            )
        elif any(getattr(row, f) != v for f, v in vals.items()):
            for f, v in vals.items():
                setattr(row, f, v)
            to_update.append(row)
    if existing:
        LeaderboardEntry.objects.filter(pk__in=[r.pk for r in existing.values()]).delete()
    LeaderboardEntry.objects.bulk_create(to_create, batch_size=500)
    LeaderboardEntry.objects.bulk_update(to_update, ENTRY_FIELDS, batch_size=500)
    changed = len(to_create) + len(to_update) + len(existing)
    meta = {
        "name": board.name,
        "kind": board.kind,
        "boards": board.boards,
        "datasets": board.datasets,
        "num_entries": len(wanted),
        "method": board.method.name,
        "method_version": board.method.version,
        "inputs_digest": board.digest,
    }
    if created or changed or any(getattr(lb, f) != v for f, v in meta.items()) or lb.generated_at is None:
        for f, v in meta.items():
            setattr(lb, f, v)
        lb.generated_at = now
        lb.save()
        snapshots.record(lb, wanted, now)
    return len(wanted), changed


def ranking_entries(board: ComputedBoard) -> dict[str, dict]:
    """What a method decides per entry, JSON-ready (see ``LeaderboardRanking``)."""
    res = board.result
    out = {}
    for position, e in enumerate(res.positions(), start=1):
        ranked = bool(np.isfinite(res.rank_scores[e]))
        low, high = (_finite(res.ci_low[e]), _finite(res.ci_high[e])) if ranked else (None, None)
        row = board.rows[e]
        out[entry_token(board.entries[e])] = {
            "column": int(e),
            "position": position,
            "rank": int(res.ranks[e]) if ranked else None,
            "rank_score": _finite(res.rank_scores[e]),
            "rank_score_ci": [low, high] if low is not None and high is not None else None,
            "task_rank_scores": row["task_rank_scores"],
            "dataset_rank_scores": {name: s.get("rank_score") for name, s in row["scores"].items()},
            "extra": row["extra"],
        }
    return out


def replicates_bytes(replicates: np.ndarray) -> bytes:
    """``(B, N)`` replicates as float32 ``.npy`` bytes (``inf`` kept for unranked columns)."""
    buf = io.BytesIO()
    np.save(buf, np.asarray(replicates, dtype=np.float32), allow_pickle=False)
    return buf.getvalue()


def write_ranking(board: ComputedBoard, lb: Leaderboard, now) -> LeaderboardRanking:
    """Store ``board`` under its method for ``lb`` (replacing that method's previous one)."""
    ranking, _ = LeaderboardRanking.objects.update_or_create(
        leaderboard=lb,
        method=board.method.name,
        defaults={
            "method_version": board.method.version,
            "inputs_digest": board.digest,
            "generated_at": now,
            "entries": ranking_entries(board),
            "replicates": replicates_bytes(board.result.replicates),
        },
    )
    return ranking
