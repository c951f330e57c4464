"""One cell of a board row, formatted: a dataset's scores with their flags, a number, and
an entry's bits per byte (pure functions of the stored aggregate)."""

from __future__ import annotations

import math
from collections import Counter

from leaderboard.selectors.formatting import DASH, format_number


def score_cell(score: dict | None) -> dict:
    if not score or not score.get("primary") or score["primary"].get("mean") is None:
        return {"sort": None, "primary": DASH, "primary_ci": "", "secondary": "", "secondary_ci": "", "missing": True}
    primary, secondary = score["primary"], score.get("secondary") or {}
    return {
        "sort": primary["mean"],
        "primary": format_number(primary["mean"]),
        "primary_ci": format_number(primary.get("ci")),
        "secondary": format_number(secondary.get("mean")) if secondary.get("mean") is not None else "",
        "secondary_ci": format_number(secondary.get("ci")) if secondary.get("mean") is not None else "",
        "missing": False,
        "flag": _unreadable_flag(score.get("unparseable")),
        "probe": _probe_flag(score.get("measures")),
    }


def _probe_flag(measures) -> str:
    """The membership probe's flag (evaluation/intrinsic.py): worth a look, never a verdict."""
    if not isinstance(measures, dict) or measures.get("probe_flag") is not True:
        return ""
    return (
        f"Membership probe: test texts more familiar to the model than train texts "
        f"(Min-20% Prob AUC {measures.get('probe_auc', 0):.2f}); see the model page"
    )


def _unreadable_flag(counts) -> str:
    """EuroEval's rule: ≥ 10% unparseable or empty answers make a cell doubtful."""
    if not isinstance(counts, dict) or not counts.get("examples"):
        return ""
    return f"{counts['unparseable']} of {counts['examples']} answers unparseable or empty"


def number_cell(value) -> dict:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return {"sort": None, "text": DASH}
    return {"sort": value, "text": format_number(value)}


def pooled_bits_per_byte(scores: dict) -> float | None:
    """The entry's bits per byte over its dataset cells' held-out texts (docs/methodology.md §10; never ranked)."""
    measures = [cell.get("measures") for cell in scores.values() if isinstance(cell, dict)]
    pooled = [m for m in measures if isinstance(m, dict) and m.get("bytes") and m.get("nats") is not None]
    total = sum(m["bytes"] for m in pooled)
    return -sum(m["nats"] for m in pooled) / math.log(2) / total if total else None


def one_budget_per_dataset(measures: dict[tuple[int, int], dict]) -> dict[tuple[int, int], dict]:
    """Bits per byte compare only on the same documents: per dataset (the key's second
    index), the cells measured under the budget most of them used (the larger budget on a
    tie) keep their nats and bytes; the others keep only the probe. Each cell's ``budget``
    (documents per split, characters per document) is taken out."""
    counts = Counter((d, tuple(m["budget"])) for (_, d), m in measures.items() if m.get("budget"))
    chosen: dict[int, tuple] = {}
    for (d, limits), n in sorted(counts.items()):
        if d not in chosen or n >= counts[(d, chosen[d])]:
            chosen[d] = limits
    kept = {}
    for (e, d), cell in measures.items():
        cell = dict(cell)
        limits = cell.pop("budget", None)
        if limits is not None and tuple(limits) != chosen.get(d):
            cell.pop("nats", None), cell.pop("bytes", None)
        if cell:
            kept[(e, d)] = cell
    return kept
