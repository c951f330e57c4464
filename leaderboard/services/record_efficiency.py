"""The check of a record's ``efficiency`` object and of a ``glossa-speed`` file (issue #26;
the format is the engine's, ``evaluation/efficiency.py``, schema version 1).

Pure functions: each takes the decoded JSON and returns it (a copy, known keys only) or
raises :class:`InvalidRecord` naming the field, so an import refuses that line with its
number and goes on. ``check_efficiency`` and ``check_speed_report`` are the two places
the site calls. The shape is the engine's validator's to decide (``_validate`` /
``_validate_speed``: bound to ``evaluation.efficiency`` when the engine has it, to this
module's own check of the same contract otherwise); the site adds what it relies on to
group and show numbers (memory measured on the device that ran the model).
"""

from __future__ import annotations

import math
import unicodedata

from leaderboard.services.record_fields import MAX_COUNT, InvalidRecord, _shown

SCHEMA_VERSION = 1
DEVICES = ("cpu", "cuda", "mps", "remote")  # remote: an OpenAI-compatible server, its hardware unseen
MEMORY_KINDS = ("gpu", "resident")
MAX_SECONDS = 10**7  # about 115 days: far above any evaluation
MAX_RATE = 10**9  # tokens per second
MAX_MS = 10**10
REFERENCE_LENGTHS = (100, 1000)  # prompt lengths of the speed benchmark, in reference tokens


def _text(value: object, path: str, limit: int, *, null: bool = False) -> str | None:
    if value is None and null:
        return None
    ok = (
        isinstance(value, str)
        and 0 < len(value) <= limit
        and not any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value)
    )
    if not ok:
        raise InvalidRecord(
            f"{path} must be text of 1 to {limit} printable characters{' or null' * null}, not {_shown(value)}"
        )
    return value


def _choice(value: object, path: str, choices: tuple) -> str:
    if isinstance(value, bool) or value not in choices:
        raise InvalidRecord(f"{path} must be one of {', '.join(map(str, choices))}, not {_shown(value)}")
    return value


def _whole(value: object, path: str, low: int = 0, high: int = MAX_COUNT, *, null: bool = False) -> int | None:
    if value is None and null:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidRecord(
            f"{path} must be a whole number from {low} to {high:g}{' or null' * null}, not {_shown(value)}"
        )
    return value


def _number(value: object, path: str, high: float, *, null: bool = False) -> float | None:
    if value is None and null:
        return None
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or not math.isfinite(value)
        or not 0 <= value <= high
    ):
        raise InvalidRecord(
            f"{path} must be a finite number from 0 to {high:g}{' or null' * null}, not {_shown(value)}"
        )
    return float(value)


def _object(value: object, path: str, keys: frozenset[str], required: frozenset[str]) -> dict:
    if not isinstance(value, dict):
        raise InvalidRecord(f"{path} must be an object, not {_shown(value)}")
    unknown = sorted(str(k)[:40] for k in value if k not in keys)
    if unknown:
        raise InvalidRecord(f"{path} has fields the format does not: {', '.join(unknown[:5])}")
    missing = sorted(required - set(value))
    if missing:
        raise InvalidRecord(f"{path} lacks {', '.join(missing)}")
    return value


HARDWARE_KEYS = frozenset(
    {
        "class",
        "device",
        "device_name",
        "device_count",
        "driver",
        "cpu_model",
        "cpu_threads",
        "torch",
        "vllm",
        "transformers",
        "backend",
        "dtype",
        "quantisation",
        "batch_size",
    }
)
HARDWARE_REQUIRED = HARDWARE_KEYS - {"driver", "vllm", "transformers", "quantisation", "batch_size"}


def check_hardware(value: object, path: str = "efficiency.hardware") -> dict:
    """The hardware and software identity: ``class`` (the identity key numbers are grouped
    by, with ``backend``), the device and its count, versions, dtype, batch size."""
    hardware = _object(value, path, HARDWARE_KEYS, HARDWARE_REQUIRED)
    checked = {
        "class": _text(hardware["class"], f"{path}.class", 200),
        "device": _choice(hardware["device"], f"{path}.device", DEVICES),
        "device_name": _text(hardware["device_name"], f"{path}.device_name", 200),
        "device_count": _whole(hardware["device_count"], f"{path}.device_count", 0, 4096),
        "driver": _text(hardware.get("driver"), f"{path}.driver", 100, null=True),
        "cpu_model": _text(hardware["cpu_model"], f"{path}.cpu_model", 200),
        "cpu_threads": _whole(hardware["cpu_threads"], f"{path}.cpu_threads", 1, 100_000),
        "torch": _text(hardware["torch"], f"{path}.torch", 100),
        "vllm": _text(hardware.get("vllm"), f"{path}.vllm", 100, null=True),
        "transformers": _text(hardware.get("transformers"), f"{path}.transformers", 100, null=True),
        "backend": _text(hardware["backend"], f"{path}.backend", 40),
        "dtype": _text(hardware["dtype"], f"{path}.dtype", 40),
        "quantisation": _text(hardware.get("quantisation"), f"{path}.quantisation", 40, null=True),
        "batch_size": _whole(hardware.get("batch_size"), f"{path}.batch_size", 1, 1_000_000, null=True),
    }
    if not checked["class"].startswith(checked["device"] + ":"):
        raise InvalidRecord(
            f"{path}.class must start with its device ({checked['device']}:), not {_shown(checked['class'])}"
        )
    return checked


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


def _latency(value: object, path: str) -> dict:
    latency = _object(value, path, frozenset({"median", "p95"}), frozenset({"median", "p95"}))
    median = _number(latency["median"], f"{path}.median", MAX_MS)
    p95 = _number(latency["p95"], f"{path}.p95", MAX_MS)
    if p95 < median:
        raise InvalidRecord(f"{path}.p95 ({p95:g}) is below its median ({median:g})")
    return {"median": median, "p95": p95}


EFFICIENCY_KEYS = frozenset(
    {
        "schema_version",
        "hardware",
        "wall_seconds",
        "load_seconds",
        "examples",
        "prompt_tokens",
        "generated_tokens",
        "reference_tokenizer",
        "reference_prompt_tokens",
        "prompt_tokens_per_second",
        "generated_tokens_per_second",
        "latency_ms",
        "peak_memory_bytes",
        "peak_memory_kind",
        "energy_joules",
        "energy_unavailable_reason",
    }
)


def _own_validate(value: object) -> dict:
    path = "efficiency"
    found = _object(value, path, EFFICIENCY_KEYS, EFFICIENCY_KEYS - {"energy_joules", "energy_unavailable_reason"})
    if found["schema_version"] != SCHEMA_VERSION or isinstance(found["schema_version"], bool):
        version = _shown(found["schema_version"])
        raise InvalidRecord(f"efficiency.schema_version must be {SCHEMA_VERSION}, not {version}")
    hardware = check_hardware(found["hardware"])
    checked = {
        "schema_version": SCHEMA_VERSION,
        "hardware": hardware,
        "wall_seconds": _number(found["wall_seconds"], f"{path}.wall_seconds", MAX_SECONDS),
        "load_seconds": _number(found["load_seconds"], f"{path}.load_seconds", MAX_SECONDS),
        "examples": _whole(found["examples"], f"{path}.examples", 0, 10_000_000),
        "prompt_tokens": _whole(found["prompt_tokens"], f"{path}.prompt_tokens"),
        "generated_tokens": _whole(found["generated_tokens"], f"{path}.generated_tokens"),
        "reference_tokenizer": _text(found["reference_tokenizer"], f"{path}.reference_tokenizer", 200),
        "reference_prompt_tokens": _whole(found["reference_prompt_tokens"], f"{path}.reference_prompt_tokens"),
        "prompt_tokens_per_second": _number(
            found["prompt_tokens_per_second"], f"{path}.prompt_tokens_per_second", MAX_RATE
        ),
        "generated_tokens_per_second": _number(
            found["generated_tokens_per_second"], f"{path}.generated_tokens_per_second", MAX_RATE
        ),
        "latency_ms": _latency(found["latency_ms"], f"{path}.latency_ms"),
        "peak_memory_bytes": _whole(found.get("peak_memory_bytes"), f"{path}.peak_memory_bytes", 0, 2**62, null=True),
        "peak_memory_kind": None
        if found.get("peak_memory_kind") is None
        else _choice(found["peak_memory_kind"], f"{path}.peak_memory_kind", MEMORY_KINDS),
        "energy_joules": _number(found.get("energy_joules"), f"{path}.energy_joules", 1e15, null=True),
        "energy_unavailable_reason": _text(
            found.get("energy_unavailable_reason"), f"{path}.energy_unavailable_reason", 500, null=True
        ),
    }
    if (checked["energy_joules"] is None) == (checked["energy_unavailable_reason"] is None):
        raise InvalidRecord(
            "efficiency: give energy_joules, or a null energy_joules with energy_unavailable_reason "
            "(not both, not neither)"
        )
    return checked


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
    checked = _checked(_validate, value, "efficiency")
    _memory_matches(checked)
    return checked


RUN_KEYS = frozenset(
    {
        "prompt_reference_tokens",
        "batch_size",
        "repetitions",
        "median_seconds",
        "prompt_tokens_per_second",
        "generated_tokens_per_second",
        "latency_ms",
        "peak_memory_bytes",
    }
)
SPEED_KEYS = frozenset({"kind", "schema_version", "model", "model_commit", "hardware", "runs", "created_at"})


def _own_validate_speed(value: object) -> dict:
    found = _object(value, "speed", SPEED_KEYS, SPEED_KEYS)
    if found["kind"] != "glossa-speed" or found["schema_version"] != SCHEMA_VERSION:
        raise InvalidRecord("speed: kind must be 'glossa-speed' and schema_version 1")
    runs = found["runs"]
    if not isinstance(runs, list) or not 0 < len(runs) <= 64:
        raise InvalidRecord("speed.runs must be a list of 1 to 64 runs")
    checked_runs = []
    for number, run in enumerate(runs):
        path = f"speed.runs[{number}]"
        run = _object(run, path, RUN_KEYS, RUN_KEYS)
        _choice(run["prompt_reference_tokens"], f"{path}.prompt_reference_tokens", REFERENCE_LENGTHS)
        checked_runs.append(
            {
                "prompt_reference_tokens": run["prompt_reference_tokens"],
                "batch_size": _whole(run["batch_size"], f"{path}.batch_size", 1, 1_000_000),
                "repetitions": _whole(run["repetitions"], f"{path}.repetitions", 1, 10**9),
                "median_seconds": _number(run["median_seconds"], f"{path}.median_seconds", MAX_SECONDS),
                **{
                    key: _number(run[key], f"{path}.{key}", MAX_RATE)
                    for key in ("prompt_tokens_per_second", "generated_tokens_per_second")
                },
                "latency_ms": _latency(run["latency_ms"], f"{path}.latency_ms"),
                "peak_memory_bytes": _whole(run["peak_memory_bytes"], f"{path}.peak_memory_bytes", 0, 2**62),
            }
        )
    return {
        "kind": "glossa-speed",
        "schema_version": SCHEMA_VERSION,
        "model": _text(found["model"], "speed.model", 300),
        "model_commit": _text(found["model_commit"], "speed.model_commit", 200, null=True),
        "hardware": check_hardware(found["hardware"], "speed.hardware"),
        "runs": checked_runs,
        "created_at": _text(found["created_at"], "speed.created_at", 40),
    }


def check_speed_report(value: object) -> dict:
    """A ``glossa-speed`` report (``python -m evaluation speed``) checked; InvalidRecord otherwise."""
    return _checked(_validate_speed, value, "speed")


# The binding: the engine's pure validators (evaluation/efficiency.py) are the reference
# for the shape when the engine has them; this module's own check of the contract otherwise.
try:
    from evaluation.efficiency import validate_efficiency as _validate
    from evaluation.efficiency import validate_speed_report as _validate_speed
except ImportError:  # an engine without efficiency measurement
    _validate, _validate_speed = _own_validate, _own_validate_speed
