"""A model's metadata from what a source says about it (a results file, the Hub or the
bundled catalogue): fill what is unknown, never overwrite what a person or an earlier
source recorded. One rule for every writer (``results_import``, ``submissions``)."""

from __future__ import annotations

from leaderboard.models import LanguageModel, ModelType

UNKNOWN_VALUES = (None, "", ModelType.UNKNOWN)
NOT_A_VALUE = (None, "", -1)  # EuroEval writes -1 for "unknown"


def fill_unknown(model: LanguageModel, values: dict) -> list[str]:
    """Set each field of ``values`` that ``model`` does not know yet; returns the names set
    (the caller saves them)."""
    changed = []
    for name, value in values.items():
        if value in NOT_A_VALUE or getattr(model, name) not in UNKNOWN_VALUES:
            continue
        setattr(model, name, value)
        changed.append(name)
    return changed
