"""The ``efficiency`` object of a record and the speed benchmark's report: their shape, checked.

What an evaluation cost, measured where it ran (:mod:`evaluation.measurement` measures it;
:mod:`evaluation.hardware` names the machine). The site calls :func:`validate_efficiency` on
every imported record and :func:`validate_speed_report` on every speed file: each returns a
clean copy or raises :class:`InvalidEfficiency` naming the field. Pure Python, no Django.

Every number is finite, non-negative and below a bound no real run reaches (a year of wall
time, a petabyte of memory), booleans are not numbers, no key is missing and none is extra.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

SCHEMA_VERSION = 1
SPEED_KIND = "glossa-speed"
DEVICES = ("cpu", "cuda", "mps", "remote")  # remote: an OpenAI-compatible server (openai backend)
MEMORY_KINDS = ("gpu", "resident")
PROMPT_LENGTHS = (100, 1000)  # the speed benchmark's prompts, in reference tokens

YEAR_SECONDS = 366 * 24 * 3600.0
MAX_TOKENS = 10**13
MAX_BYTES = 10**15
MAX_JOULES = 10**12  # about 280 MWh
MAX_RATE = 10**9  # tokens per second
MAX_COUNT = 10**9  # devices, threads, batch size, examples, repetitions
MAX_TEXT = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")


class InvalidEfficiency(ValueError):
    """An efficiency object or speed report that does not have the contract's shape."""


def _fail(path: str, why: str):
    raise InvalidEfficiency(f"efficiency field {path}: {why}")


def _number(value, path: str, bound: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        _fail(path, f"must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        _fail(path, "must be finite")
    if value < 0 or value > bound:
        _fail(path, f"must lie between 0 and {bound:g}, got {value!r}")
    return float(value)


def _integer(value, path: str, bound: int, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, f"must be a whole number, got {type(value).__name__}")
    if value < minimum or value > bound:
        _fail(path, f"must lie between {minimum} and {bound}, got {value!r}")
    return int(value)


def _text(value, path: str) -> str:
    if not isinstance(value, str):
        _fail(path, f"must be text, got {type(value).__name__}")
    if not value.strip() or len(value) > MAX_TEXT or _CONTROL.search(value):
        _fail(path, f"must be 1 to {MAX_TEXT} printable characters")
    return value


def _optional(check, value, path: str, *args):
    return None if value is None else check(value, path, *args)


def _choice(value, path: str, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        _fail(path, f"must be one of {', '.join(choices)}")
    return value


def _version(value) -> None:
    if type(value) is not int or value != SCHEMA_VERSION:
        _fail("schema_version", f"must be {SCHEMA_VERSION}")


def _keys(obj, path: str, keys: set[str]) -> Mapping:
    if not isinstance(obj, Mapping):
        _fail(path, f"must be an object, got {type(obj).__name__}")
    missing, extra = keys - set(obj), set(obj) - keys
    if missing:
        _fail(path, f"misses {', '.join(sorted(missing))}")
    if extra:
        _fail(path, f"has unknown keys {', '.join(sorted(map(str, extra)))[:MAX_TEXT]}")
    return obj


HARDWARE_KEYS = {
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


def validate_hardware(obj, path: str = "hardware") -> dict:
    """The ``hardware`` object of an efficiency record, checked and cleaned; a bad field raises, naming its path."""
    hw = _keys(obj, path, HARDWARE_KEYS)
    clean = {
        "class": _text(hw["class"], f"{path}.class"),
        "device": _choice(hw["device"], f"{path}.device", DEVICES),
        "device_name": _text(hw["device_name"], f"{path}.device_name"),
        "device_count": _integer(hw["device_count"], f"{path}.device_count", MAX_COUNT, 1),
        "cpu_model": _text(hw["cpu_model"], f"{path}.cpu_model"),
        "cpu_threads": _integer(hw["cpu_threads"], f"{path}.cpu_threads", MAX_COUNT, 1),
        "torch": _text(hw["torch"], f"{path}.torch"),
        "backend": _text(hw["backend"], f"{path}.backend"),
        "dtype": _text(hw["dtype"], f"{path}.dtype"),
        "batch_size": _optional(_integer, hw["batch_size"], f"{path}.batch_size", MAX_COUNT, 1),
    }
    for key in ("driver", "vllm", "transformers", "quantisation"):
        clean[key] = _optional(_text, hw[key], f"{path}.{key}")
    if not clean["class"].startswith(clean["device"] + ":"):
        _fail(f"{path}.class", f"must start with the device ({clean['device']}:)")
    return clean


def validate_latency(obj, path: str) -> dict:
    """A latency object (median and 95th percentile, milliseconds), checked; a p95 below the median is refused."""
    lat = _keys(obj, path, {"median", "p95"})
    median = _number(lat["median"], f"{path}.median", YEAR_SECONDS * 1000)
    p95 = _number(lat["p95"], f"{path}.p95", YEAR_SECONDS * 1000)
    if p95 < median:
        _fail(f"{path}.p95", "cannot be below the median")
    return {"median": median, "p95": p95}


EFFICIENCY_KEYS = {
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


def validate_efficiency(obj) -> dict:
    """A clean copy of a record's ``efficiency`` object, or :class:`InvalidEfficiency`."""
    eff = _keys(obj, "efficiency", EFFICIENCY_KEYS)
    _version(eff["schema_version"])
    clean = {"schema_version": SCHEMA_VERSION, "hardware": validate_hardware(eff["hardware"])}
    for key in ("wall_seconds", "load_seconds"):
        clean[key] = _number(eff[key], key, YEAR_SECONDS)
    for key in ("examples", "prompt_tokens", "generated_tokens", "reference_prompt_tokens"):
        clean[key] = _integer(eff[key], key, MAX_TOKENS)
    for key in ("prompt_tokens_per_second", "generated_tokens_per_second"):
        clean[key] = _number(eff[key], key, MAX_RATE)
    clean["reference_tokenizer"] = _text(eff["reference_tokenizer"], "reference_tokenizer")
    clean["latency_ms"] = validate_latency(eff["latency_ms"], "latency_ms")
    clean["peak_memory_bytes"] = _optional(_integer, eff["peak_memory_bytes"], "peak_memory_bytes", MAX_BYTES)
    clean["peak_memory_kind"] = _optional(_choice, eff["peak_memory_kind"], "peak_memory_kind", MEMORY_KINDS)
    clean["energy_joules"] = _optional(_number, eff["energy_joules"], "energy_joules", MAX_JOULES)
    clean["energy_unavailable_reason"] = _optional(_text, eff["energy_unavailable_reason"], "energy_unavailable_reason")
    if (clean["energy_joules"] is None) == (clean["energy_unavailable_reason"] is None):
        _fail("energy_joules", "give either energy_joules or energy_unavailable_reason, not both or neither")
    _check_memory(clean)
    return clean


def _check_memory(clean: dict) -> None:
    """Memory is measured on the machine that ran the model: unknown (null) only for a remote server."""
    remote = clean["hardware"]["device"] == "remote"
    if remote != (clean["peak_memory_bytes"] is None) or remote != (clean["peak_memory_kind"] is None):
        _fail("peak_memory_bytes", "is null exactly when the model ran on a remote server (device remote)")


RUN_KEYS = {
    "prompt_reference_tokens",
    "batch_size",
    "repetitions",
    "median_seconds",
    "prompt_tokens_per_second",
    "generated_tokens_per_second",
    "latency_ms",
    "peak_memory_bytes",
}


def validate_speed_run(obj, path: str) -> dict:
    """One run of a speed report (prompt length, batch size, timings), checked and cleaned."""
    run = _keys(obj, path, RUN_KEYS)
    length = run["prompt_reference_tokens"]
    if isinstance(length, bool) or length not in PROMPT_LENGTHS:
        _fail(f"{path}.prompt_reference_tokens", f"must be one of {PROMPT_LENGTHS}")
    return {
        "prompt_reference_tokens": int(length),
        "batch_size": _integer(run["batch_size"], f"{path}.batch_size", MAX_COUNT, 1),
        "repetitions": _integer(run["repetitions"], f"{path}.repetitions", MAX_COUNT, 1),
        "median_seconds": _number(run["median_seconds"], f"{path}.median_seconds", YEAR_SECONDS),
        "prompt_tokens_per_second": _number(
            run["prompt_tokens_per_second"], f"{path}.prompt_tokens_per_second", MAX_RATE
        ),
        "generated_tokens_per_second": _number(
            run["generated_tokens_per_second"], f"{path}.generated_tokens_per_second", MAX_RATE
        ),
        "latency_ms": validate_latency(run["latency_ms"], f"{path}.latency_ms"),
        "peak_memory_bytes": _integer(run["peak_memory_bytes"], f"{path}.peak_memory_bytes", MAX_BYTES),
    }


SPEED_KEYS = {"kind", "schema_version", "model", "model_commit", "hardware", "runs", "created_at"}
MAX_RUNS = 64


def validate_speed_report(obj) -> dict:
    """A clean copy of a speed benchmark report (``python -m evaluation speed``), or :class:`InvalidEfficiency`."""
    report = _keys(obj, "speed", SPEED_KEYS)
    if report["kind"] != SPEED_KIND:
        _fail("kind", f"must be {SPEED_KIND!r}")
    _version(report["schema_version"])
    runs = report["runs"]
    if not isinstance(runs, list) or not 1 <= len(runs) <= MAX_RUNS:
        _fail("runs", f"must be a list of 1 to {MAX_RUNS} runs")
    created = report["created_at"]
    if not isinstance(created, str) or not _ISO.match(created):
        _fail("created_at", "must be an ISO 8601 date and time")
    return {
        "kind": SPEED_KIND,
        "schema_version": SCHEMA_VERSION,
        "model": _text(report["model"], "model"),
        "model_commit": _optional(_text, report["model_commit"], "model_commit"),
        "hardware": validate_hardware(report["hardware"]),
        "runs": [validate_speed_run(run, f"runs[{k}]") for k, run in enumerate(runs)],
        "created_at": created,
    }
