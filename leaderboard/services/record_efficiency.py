"""The check of a record's ``efficiency`` object and of a ``glossa-speed`` file (docs/methodology.md §11;
the format is the engine's, ``evaluation/efficiency.py``, schema version 1).

Pure functions: each takes the decoded JSON and returns it (a copy, known keys only) or
raises :class:`InvalidRecord` naming the field, so an import refuses that line with its
number and goes on. ``check_efficiency`` and ``check_speed_report`` are the two places
the site calls. The shape is the engine's validators' to decide
(``evaluation.efficiency``); the site adds what it relies on to group and show numbers
(memory measured on the device that ran the model).
"""

from __future__ import annotations

from evaluation.efficiency import validate_efficiency, validate_speed_report
from leaderboard.record_fields import InvalidRecord


def _memory_matches(efficiency: dict) -> None:
    """GPU memory is measured where there is a GPU, resident memory on a CPU, none on a
    remote server: a CPU run reporting GPU memory is not what it says (the site's check,
    on top of the engine's)."""
    device, kind = efficiency["hardware"]["device"], efficiency["peak_memory_kind"]
    wanted = {"cpu": "resident", "cuda": "gpu", "remote": None}.get(device, kind)
    if kind != wanted or (efficiency["peak_memory_bytes"] is None) != (wanted is None):
        raise InvalidRecord(
            f"efficiency.peak_memory_kind is {kind!r} on a {device} device; it must be {wanted!r}, "
            "with peak_memory_bytes null exactly when the device is remote"
        )


def _checked(validate, value: object, what: str) -> dict:
    try:
        return validate(value)
    except InvalidRecord:
        raise
    except (ValueError, TypeError, KeyError) as exc:  # the engine's InvalidEfficiency is a ValueError
        raise InvalidRecord(f"{what}: {str(exc)[:300]}") from None


def check_efficiency(record: dict) -> dict | None:
    """The record's ``efficiency`` checked (None when it has none or it is null: not
    measured); InvalidRecord naming the field otherwise."""
    value = record.get("efficiency")
    if value is None:
        return None
    checked = _checked(validate_efficiency, value, "efficiency")
    _memory_matches(checked)
    return checked


def check_speed_report(value: object) -> dict:
    """A ``glossa-speed`` report (``python -m evaluation speed``) checked; InvalidRecord otherwise."""
    return _checked(validate_speed_report, value, "speed")
