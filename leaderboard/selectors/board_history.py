"""What changed between two snapshots of a board, and why. Pure functions over the
``BoardSnapshot`` JSON (``entries``: ``{model, name, few_shot, validation_split, position,
rank, rank_score, ci, commit, scores: {dataset: mean}}``); no database.

An entry's rank score on a dataset depends on its own iteration scores, on the best mean
of the dataset (the anchor walk starts there) and on σ, the spread of all entries' means
(docs/methodology.md §4). So when an entry moves, the reasons are: its own scores changed (new
scores, another commit), or a dataset's best mean or spread changed (another entry
arrived, left or was re-evaluated), or the ranking method's version changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

REL_TOLERANCE = 1e-9


def entry_key(entry: dict) -> tuple:
    return (entry["model"], bool(entry["few_shot"]), bool(entry["validation_split"]))


def dataset_summary(entries: list[dict]) -> dict[str, tuple[float, float, str]]:
    """Per dataset: (best mean, population σ of the entries' means, the best entry's name)."""
    by_dataset: dict[str, list[tuple[float, str]]] = {}
    for e in entries:
        for name, mean in (e.get("scores") or {}).items():
            if mean is not None and math.isfinite(mean):
                by_dataset.setdefault(name, []).append((mean, e.get("name") or e["model"]))
    out = {}
    for name, values in by_dataset.items():
        means = [m for m, _ in values]
        centre = sum(means) / len(means)
        sigma = math.sqrt(sum((m - centre) ** 2 for m in means) / len(means))
        best = max(values, key=lambda v: v[0])
        out[name] = (best[0], sigma, best[1])
    return out


def _differs(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return not math.isclose(a, b, rel_tol=REL_TOLERANCE, abs_tol=1e-12)


@dataclass
class Move:
    entry: dict
    before: dict
    reasons: list[str]

    @property
    def direction(self) -> str:
        old, new = self.before.get("rank"), self.entry.get("rank")
        if old is None or new is None:
            return "ranked" if old is None else "unranked"
        return "up" if new < old else "down"


@dataclass
class Changes:
    added: list[dict] = field(default_factory=list)
    removed: list[dict] = field(default_factory=list)
    moved: list[Move] = field(default_factory=list)
    board_reasons: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.moved)

    def as_json(self) -> dict:
        def brief(e: dict) -> dict:
            return {k: e.get(k) for k in ("model", "name", "few_shot", "validation_split", "rank", "rank_score")}

        return {
            "added": [brief(e) for e in self.added],
            "removed": [brief(e) for e in self.removed],
            "moved": [
                {**brief(m.entry), "rank_before": m.before.get("rank"), "direction": m.direction, "reasons": m.reasons}
                for m in self.moved
            ],
            "board_reasons": self.board_reasons,
        }


def board_reasons(before: dict, after: dict) -> list[str]:
    """Board-wide causes: the method's version, and datasets whose best mean or spread changed."""
    reasons = []
    if (before.get("method"), before.get("method_version")) != (after.get("method"), after.get("method_version")):
        reasons.append(
            f"the ranking method changed from {before.get('method')} v{before.get('method_version')} "
            f"to {after.get('method')} v{after.get('method_version')}"
        )
    old, new = dataset_summary(before["entries"]), dataset_summary(after["entries"])
    for name in sorted(set(old) | set(new)):
        if name not in old:
            reasons.append(f"dataset {name} now counts")
        elif name not in new:
            reasons.append(f"dataset {name} no longer counts")
        else:
            if _differs(old[name][0], new[name][0]):
                reasons.append(
                    f"the best mean on {name} changed ({old[name][0]:.2f} → {new[name][0]:.2f}, now {new[name][2]})"
                )
            if _differs(old[name][1], new[name][1]):
                reasons.append(
                    f"the spread (σ) of the means on {name} changed ({old[name][1]:.3f} → {new[name][1]:.3f})"
                )
    return reasons


def own_reasons(before: dict, after: dict) -> list[str]:
    """Causes in the entry itself: another commit, new or changed scores."""
    reasons = []
    if before.get("commit") != after.get("commit"):
        reasons.append(f"its scores are now those of commit {str(after.get('commit'))[:12] or '(none)'}")
    old, new = before.get("scores") or {}, after.get("scores") or {}
    changed = sorted(n for n in set(old) | set(new) if _differs(old.get(n), new.get(n)))
    if changed:
        reasons.append("new scores on " + ", ".join(changed))
    return reasons


def changes(before: dict, after: dict) -> Changes:
    """``before`` and ``after`` are snapshots as dicts (``method``, ``method_version``,
    ``entries``). An entry *moved* when its printed rank changed or it became (un)ranked."""
    old = {entry_key(e): e for e in before["entries"]}
    new = {entry_key(e): e for e in after["entries"]}
    result = Changes(board_reasons=board_reasons(before, after))
    result.added = [new[k] for k in new if k not in old]
    result.removed = [old[k] for k in old if k not in new]
    for key, entry in new.items():
        prev = old.get(key)
        if prev is None or prev.get("rank") == entry.get("rank"):
            continue
        reasons = own_reasons(prev, entry) or list(result.board_reasons)
        if result.added and not own_reasons(prev, entry):
            reasons.append(f"{len(result.added)} entr{'y' if len(result.added) == 1 else 'ies'} joined the board")
        result.moved.append(Move(entry, prev, reasons or ["other entries' significance tests changed"]))
    result.moved.sort(key=lambda m: (m.entry.get("rank") is None, m.entry.get("position") or 0))
    return result
