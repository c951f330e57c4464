"""Efficiency objects as the engine writes them (the contract of issue #26, schema 1),
made by hand: one on this kind of CPU, one on a GPU."""

from __future__ import annotations

import copy

CPU = {
    "class": "cpu:AMD EPYC 7B13:2-threads",
    "device": "cpu",
    "device_name": "AMD EPYC 7B13",
    "device_count": 1,
    "driver": None,
    "cpu_model": "AMD EPYC 7B13",
    "cpu_threads": 2,
    "torch": "2.13.0",
    "vllm": None,
    "transformers": "4.57.1",
    "backend": "transformers",
    "dtype": "float32",
    "quantisation": None,
    "batch_size": 8,
}
GPU = CPU | {
    "class": "cuda:NVIDIA H100 80GB HBM3x1",
    "device": "cuda",
    "device_name": "NVIDIA H100 80GB HBM3",
    "driver": "550.54.15",
    "dtype": "bfloat16",
    "backend": "vllm",
    "vllm": "0.11.0",
}


def efficiency(hardware: dict = CPU, *, rate: float = 400.0, **overrides) -> dict:
    """An efficiency object whose prompt throughput is ``rate`` reference tokens/s."""
    gpu = hardware["device"] == "cuda"
    value = {
        "schema_version": 1,
        "hardware": copy.deepcopy(hardware),
        "wall_seconds": 12.5,
        "load_seconds": 3.25,
        "examples": 32,
        "prompt_tokens": 5000,
        "generated_tokens": 160,
        "reference_tokenizer": "gpt2",
        "reference_prompt_tokens": 4000,
        "prompt_tokens_per_second": rate * 1.25,
        "generated_tokens_per_second": 12.8,
        "latency_ms": {"median": 350.0, "p95": 610.0},
        "peak_memory_bytes": 2_000_000_000 if gpu else 1_500_000_000,
        "peak_memory_kind": "gpu" if gpu else "resident",
        "energy_joules": 950.0 if gpu else None,
        "energy_unavailable_reason": None if gpu else "no RAPL counters readable on this machine",
    }
    value.update(overrides)
    return value


REMOTE = CPU | {
    "class": "remote:openai",
    "device": "remote",
    "device_name": "an OpenAI-compatible server",
    "backend": "openai",
    "transformers": None,
    "batch_size": None,
}


def remote_efficiency(**overrides) -> dict:
    """A remote server's efficiency: its memory is not seen (null), everything else measured."""
    return efficiency(REMOTE, **({"peak_memory_bytes": None, "peak_memory_kind": None} | overrides))


def speed_report(model: str, commit: str | None, hardware: dict = CPU, rate: float = 250.0) -> dict:
    """A ``glossa-speed`` report (``python -m evaluation speed``): 100 and 1,000 reference
    tokens, batch 1 and 8."""
    runs = [
        {
            "prompt_reference_tokens": length,
            "batch_size": batch,
            "repetitions": 10,
            "median_seconds": length * batch / rate,
            "prompt_tokens_per_second": rate,
            "generated_tokens_per_second": rate / 20,
            "latency_ms": {"median": 1000.0 * length / rate, "p95": 1100.0 * length / rate},
            "peak_memory_bytes": 1_000_000_000 + length * batch * 1000,
        }
        for length in (100, 1000)
        for batch in (1, 8)
    ]
    return {
        "kind": "glossa-speed",
        "schema_version": 1,
        "model": model,
        "model_commit": commit,
        "hardware": copy.deepcopy(hardware),
        "runs": runs,
        "created_at": "2026-11-25T22:00:00+00:00",
    }
