"""A controlled speed benchmark: ``python -m evaluation speed --model M [--output FILE]``.

The same workload for every model: prompts of about 100 and 1,000 reference (GPT-2) tokens,
cut from one fixed passage, each answered with up to ``new_tokens`` greedy tokens, at batch 1
and at the largest batch up to ``batch`` that fits (halved on running out of memory). Each
configuration is warmed up once, then repeated until ``repetitions`` runs are done or
``min_seconds`` have passed (at least ``MIN_RUNS`` runs); the report gives medians.
The report's shape is :func:`evaluation.efficiency.validate_speed_report`'s.
"""

from __future__ import annotations

import datetime as dt
import statistics
import time
from dataclasses import dataclass

from evaluation import reference_tokens
from evaluation.backends import load_backend, needs_weights
from evaluation.efficiency import PROMPT_LENGTHS, SCHEMA_VERSION, SPEED_KIND, validate_speed_report
from evaluation.errors import EvaluationError
from evaluation.hardware import hardware
from evaluation.measurement import can_measure, latency_ms, per_second
from evaluation.models import local_weights, resolve_model

MIN_RUNS = 3
PASSAGE = (
    "The river that runs through the old town was once the only road between the harbour and the "
    "farms inland. Boats carried grain, timber and salt, and the bridges were built low, so that "
    "every spring the water rose over them and the town waited for it to fall again. Today the "
    "boats carry visitors, the bridges are higher, and the market by the water sells bread, fish, "
    "cheese and flowers from early morning until noon. In the library on the square, children read "
    "about the floods of the past, count the years between them and ask why nobody moved away. "
)


@dataclass(frozen=True)
class SpeedSettings:
    """What the speed benchmark runs: prompt lengths, the largest batch, repetitions, minimum time and new tokens."""

    lengths: tuple[int, ...] = PROMPT_LENGTHS
    batch: int = 8  # the larger batch tried first
    repetitions: int = 10
    min_seconds: float = 10.0
    new_tokens: int = 32


def prompt_of(length: int) -> str:
    """The first ``length`` reference tokens of the fixed passage (repeated as needed)."""
    text = PASSAGE * (length // 80 + 2)
    return reference_tokens.tokenizer().decode(reference_tokens.encode(text)[:length])


def _is_out_of_memory(exc: BaseException) -> bool:
    return isinstance(exc, MemoryError) or "out of memory" in str(exc).lower()


def _timed_runs(backend, prompts: list[str], settings: SpeedSettings) -> list[tuple[float, int, int]]:
    """(seconds, prompt tokens, generated tokens) of each timed run, after one warm-up run."""
    backend.generate(prompts, settings.new_tokens)
    backend.usage.drain()
    runs: list[tuple[float, int, int]] = []
    began = time.perf_counter()
    while len(runs) < settings.repetitions and not (
        len(runs) >= min(MIN_RUNS, settings.repetitions) and time.perf_counter() - began >= settings.min_seconds
    ):
        started = time.perf_counter()
        backend.generate(prompts, settings.new_tokens)
        seconds = time.perf_counter() - started
        batches = backend.usage.drain()
        runs.append((seconds, sum(b.prompt_tokens for b in batches), sum(b.generated_tokens for b in batches)))
    return runs


def measure(backend, length: int, batch: int, settings: SpeedSettings) -> dict:
    """Time generation at one prompt length and batch size: median and spread of the runs, tokens per second and
    peak memory."""
    memory = backend.device_profile().memory_probe()
    memory.start()
    runs = _timed_runs(backend, [prompt_of(length)] * batch, settings)
    peak = memory.stop()
    seconds = statistics.median(r[0] for r in runs)
    return {
        "prompt_reference_tokens": length,
        "batch_size": batch,
        "repetitions": len(runs),
        "median_seconds": round(seconds, 4),
        "prompt_tokens_per_second": per_second(statistics.median(r[1] for r in runs), seconds),
        "generated_tokens_per_second": per_second(statistics.median(r[2] for r in runs), seconds),
        "latency_ms": latency_ms([r[0] for r in runs]),
        "peak_memory_bytes": peak or 0,
    }


def measure_fitting(backend, length: int, settings: SpeedSettings) -> dict:
    """The largest batch up to ``settings.batch`` that runs without running out of memory."""
    batch = settings.batch
    while True:
        try:
            return measure(backend, length, batch, settings)
        except (RuntimeError, MemoryError) as exc:
            if batch == 1 or not _is_out_of_memory(exc):
                raise
            batch //= 2
            backend.usage.drain()


def benchmark(backend, model: str, commit: str | None, settings: SpeedSettings) -> dict:
    """The report for a loaded ``backend``: every length at batch 1 and at the fitting batch."""
    if not can_measure(backend):
        raise EvaluationError(f"the {backend.name} backend does not report what it computes")
    runs = []
    for length in settings.lengths:
        runs.append(measure(backend, length, 1, settings))
        if settings.batch > 1:
            runs.append(measure_fitting(backend, length, settings))
    report = {
        "kind": SPEED_KIND,
        "schema_version": SCHEMA_VERSION,
        "model": model,
        "model_commit": commit,
        "hardware": hardware(backend.device_profile(), backend.run_settings(), max(r["batch_size"] for r in runs)),
        "runs": runs,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    return validate_speed_report(report)


def run_speed(
    model_id: str,
    settings: SpeedSettings | None = None,
    *,
    backend_name: str = "transformers",
    revision: str = "main",
    trust_remote_code: bool = False,
) -> dict:
    """Resolve and load ``model_id`` (the errors of :func:`evaluation.models.resolve_model`
    when it cannot be had), run the benchmark, close the model."""
    info = resolve_model(model_id, revision, allow_remote_code=trust_remote_code)
    if not info.generative:
        raise EvaluationError(f"{model_id} is an encoder: the speed benchmark times text generation")
    weights = local_weights(info) if needs_weights(backend_name) or info.source == "bundled" else None
    backend = load_backend(backend_name, info.model_id, weights, trust_remote_code=trust_remote_code)
    try:
        return benchmark(backend, info.model_id, info.commit_sha, settings or SpeedSettings())
    finally:
        backend.close()
