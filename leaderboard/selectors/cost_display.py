"""Display helpers for what running a model costs (docs/methodology.md §11), pure: the hardware line,
rates, memory and latency as text, and an entry's costs pooled over its datasets."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from leaderboard.models import DeviceKind, SpeedBenchmark
from leaderboard.selectors.formatting import DASH

# --- display helpers (pure) ---------------------------------------------------------


def device_label(device: str) -> str:
    """CPU, GPU or a remote server (the openai backend, whose hardware is not seen)."""
    return {DeviceKind.CPU: "CPU", DeviceKind.REMOTE: "Remote server"}.get(device, "GPU")


def mixed(devices) -> bool:
    """Whether figures of more than one kind of device (CPU, GPU, remote) are on one page."""
    return len({device_label(device) for device in devices}) > 1


def hardware_line(hardware: dict) -> str:
    """``2 × NVIDIA H100 · vllm 0.11 · bfloat16 · batch 8 · driver 550 · torch 2.13`` from a
    stored hardware dict (checked on import; read defensively all the same)."""
    if not isinstance(hardware, dict):
        return "hardware not recorded"
    get = lambda key: hardware.get(key) if isinstance(hardware.get(key), str | int) else None  # noqa: E731
    device = f"{get('device_count') or 1} × {get('device_name') or '?'}"
    if hardware.get("device") == DeviceKind.CPU:
        device = f"{get('cpu_model') or get('device_name') or '?'}, {get('cpu_threads') or '?'} threads"
    backend = get("backend") or "?"
    engine = get("vllm") if backend == "vllm" else get("transformers") if backend == "transformers" else None
    parts = [
        f"{device_label(str(hardware.get('device')))}: {device}",
        f"{backend} {engine}" if engine else backend,
        str(get("dtype") or "?") + (f" ({get('quantisation')})" if get("quantisation") else ""),
        f"batch {get('batch_size')}" if get("batch_size") else "",
        f"driver {get('driver')}" if get("driver") else "",
        f"torch {get('torch')}" if get("torch") else "",
    ]
    return " · ".join(part for part in parts if part)


def format_rate(value: float | None) -> str:
    if value is None:
        return DASH
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def format_bytes(value: float | None) -> str:
    return DASH if value is None else f"{value / 1e9:.2f} GB"


def format_ms(value: float | None) -> str:
    if value is None:
        return DASH
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.3g} ms"


# --- per-entry pooling (pure) -------------------------------------------------------


def _seconds(tokens: int, rate: float) -> float:
    """The time ``tokens`` took at the measured ``rate`` (0 when none were read)."""
    return tokens / rate if rate > 0 else 0.0


@dataclass
class Pooled:
    """One entry's costs on one hardware identity, over its measured datasets."""

    datasets: int
    reference_rate: float | None  # reference prompt tokens per second
    prompt_rate: float | None  # the model's own prompt tokens per second
    generated_rate: float | None
    latency_median: float
    latency_p95: float
    peak_memory: int | None  # None: a remote server, whose memory is not seen
    memory_kind: str
    energy: float | None
    wall_seconds: float

    @classmethod
    def of(cls, costs: list) -> Pooled:
        """From ``EvaluationCost`` rows or ``CostRow``s (the same attributes)."""
        prompt_time = sum(_seconds(c.prompt_tokens, c.prompt_tokens_per_second) for c in costs)
        generation_time = sum(_seconds(c.generated_tokens, c.generated_tokens_per_second) for c in costs)
        energies = [c.energy_joules for c in costs]
        return cls(
            datasets=len(costs),
            reference_rate=sum(c.reference_prompt_tokens for c in costs) / prompt_time if prompt_time else None,
            prompt_rate=sum(c.prompt_tokens for c in costs) / prompt_time if prompt_time else None,
            generated_rate=sum(c.generated_tokens for c in costs) / generation_time if generation_time else None,
            latency_median=statistics.median(c.latency_median_ms for c in costs),
            latency_p95=max(c.latency_p95_ms for c in costs),
            peak_memory=max((c.peak_memory_bytes for c in costs if c.peak_memory_bytes is not None), default=None),
            memory_kind=costs[0].peak_memory_kind,
            energy=sum(energies) if all(e is not None for e in energies) else None,
            wall_seconds=sum(c.wall_seconds for c in costs),
        )


def pooled_text(pooled: Pooled, of: int) -> dict:
    return {
        "measured": f"{pooled.datasets} of {of}",
        "reference_rate": format_rate(pooled.reference_rate),
        "prompt_rate": format_rate(pooled.prompt_rate),
        "generated_rate": format_rate(pooled.generated_rate),
        "latency_median": format_ms(pooled.latency_median),
        "latency_p95": format_ms(pooled.latency_p95),
        "memory": format_bytes(pooled.peak_memory),
        "memory_kind": {"gpu": "GPU", "resident": "resident"}.get(pooled.memory_kind, ""),
        "energy": f"{pooled.energy / 1000:,.2f} kJ" if pooled.energy is not None else DASH,
    }


def benchmark_rows(benchmark: SpeedBenchmark) -> list[dict]:
    """A speed benchmark's runs for display, shortest prompt and smallest batch first."""
    runs = [run for run in benchmark.runs if isinstance(run, dict)]
    runs.sort(key=lambda run: (run.get("prompt_reference_tokens") or 0, run.get("batch_size") or 0))
    return [
        {
            "prompt": run.get("prompt_reference_tokens"),
            "batch": run.get("batch_size"),
            "repetitions": run.get("repetitions"),
            "prompt_rate": format_rate(run.get("prompt_tokens_per_second")),
            "generated_rate": format_rate(run.get("generated_tokens_per_second")),
            "latency_median": format_ms((run.get("latency_ms") or {}).get("median")),
            "latency_p95": format_ms((run.get("latency_ms") or {}).get("p95")),
            "memory": format_bytes(run.get("peak_memory_bytes")),
        }
        for run in runs
    ]
