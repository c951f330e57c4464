"""What evaluating one dataset cost: the ``efficiency`` object of its record.

:class:`DatasetMeter` watches one dataset from start to finish: the wall time, peak memory
and energy (:mod:`evaluation.resources`, through the backend's device profile), every call to
the model (through :class:`MeteredBackend`, which the runner hands to the task code instead
of the backend), and the batches the backend reports in its ``usage``
(:class:`evaluation.backends.base.Usage`).

Definitions (what the site's methodology page explains):

- ``wall_seconds``: the dataset from its first prompt to its record, everything included;
  ``load_seconds``: the backend loading the model (``backend.load_seconds``), once per run and
  shared by the run's datasets; fetching or converting the files into the model cache is not
  included.
- ``examples``: inputs the model computed (each distinct prompt once, the output cache's hits
  not counted; the intrinsic measures' texts included).
- ``prompt_tokens`` / ``generated_tokens``: the model's own tokenizer, as the backend encoded
  them; ``reference_prompt_tokens``: the same prompts counted with GPT-2's tokenizer
  (:mod:`evaluation.reference_tokens`), comparable across models.
- tokens per second: tokens over the seconds spent inside the model calls.
- ``latency_ms``: each input's latency is the time of the batch that computed it; median and
  95th percentile (linear interpolation between the closest ranks) over the inputs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from evaluation import reference_tokens
from evaluation.efficiency import SCHEMA_VERSION, validate_efficiency
from evaluation.hardware import hardware

log = logging.getLogger(__name__)


def latency_ms(seconds: Sequence[float]) -> dict:
    """Median and 95th percentile, in milliseconds (0 for no inputs)."""
    if not seconds:
        return {"median": 0.0, "p95": 0.0}
    median, p95 = np.percentile(np.asarray(seconds, dtype=float) * 1000.0, [50, 95])
    return {"median": round(float(median), 3), "p95": round(float(p95), 3)}


def per_second(tokens: float, seconds: float) -> float:
    """Tokens per second, rounded to 3 decimals; 0 when no time passed."""
    return round(tokens / seconds, 3) if seconds > 0 else 0.0


def can_measure(backend) -> bool:
    """Whether the backend reports what it computes (``usage``, ``device_profile``, ``run_settings``)."""
    return all(hasattr(backend, name) for name in ("usage", "device_profile", "run_settings"))


class DatasetMeter:
    """Measures one dataset's evaluation: the backend's batches, time busy, reference tokens and peak memory."""

    def __init__(self, backend):
        self.backend = backend
        self.busy_seconds = 0.0
        # counted beside the model (the tokenizer leaves the GIL), not in its way
        self._counter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reference-tokens")
        self._counts: list[Future] = []
        self.profile = backend.device_profile()
        self.memory = self.profile.memory_probe()
        self.energy = self.profile.energy_probe()
        self.started = 0.0
        reference_tokens.tokenizer()  # loaded once per process, before any dataset's clock starts

    def start(self) -> DatasetMeter:
        """Start measuring: forget earlier batches, start the memory and energy probes and the clock."""
        self.backend.usage.drain()  # whatever came before this dataset is not its cost
        self.memory.start()
        self.energy.start()
        self.started = time.perf_counter()
        return self

    def called(self, texts: Sequence[str], seconds: float) -> None:
        """Count a model call: its time, and (beside the model) the reference tokens of its texts."""
        self.busy_seconds += seconds
        if texts:
            self._counts.append(self._counter.submit(reference_tokens.count_all, list(texts)))

    def _reference_tokens(self) -> int:
        try:
            return sum(count.result() for count in self._counts)
        finally:
            self._counter.shutdown()

    def finish(self) -> dict | None:
        """The dataset's efficiency object; ``None`` (and a warning) if measuring it failed:
        what an evaluation cost never costs the evaluation itself."""
        try:
            return self._finish()
        except Exception as exc:
            log.warning("the efficiency of this dataset could not be measured: %s", exc)
            return None

    def _finish(self) -> dict:
        wall = time.perf_counter() - self.started
        peak = self.memory.stop()
        joules, reason = self.energy.stop()
        batches = self.backend.usage.drain()
        prompt = sum(b.prompt_tokens for b in batches)
        generated = sum(b.generated_tokens for b in batches)
        latencies = [b.seconds for b in batches for _ in range(b.inputs)]
        largest = max((b.inputs for b in batches), default=None)
        settings = self.backend.run_settings()
        reference = self._reference_tokens()
        efficiency = {
            "schema_version": SCHEMA_VERSION,
            "hardware": hardware(self.profile, settings, largest),
            "wall_seconds": round(wall, 4),
            "load_seconds": round(float(getattr(self.backend, "load_seconds", 0.0)), 4),
            "examples": len(latencies),
            "prompt_tokens": prompt,
            "generated_tokens": generated,
            "reference_tokenizer": reference_tokens.NAME,
            "reference_prompt_tokens": reference,
            "prompt_tokens_per_second": per_second(prompt, self.busy_seconds),
            "generated_tokens_per_second": per_second(generated, self.busy_seconds),
            "latency_ms": latency_ms(latencies),
            "peak_memory_bytes": peak,
            "peak_memory_kind": self.memory.kind,
            "energy_joules": None if joules is None else round(joules, 3),
            "energy_unavailable_reason": reason,
        }
        return validate_efficiency(efficiency)


class MeteredBackend:
    """The backend, with every model call timed and its prompts counted for the meter."""

    def __init__(self, backend, meter: DatasetMeter):
        self.backend = backend
        self.meter = meter

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def _timed(self, texts: Sequence[str], call, *args, **kwargs):
        started = time.perf_counter()
        result = call(*args, **kwargs)
        # None: the backend could not answer this way (label scoring): nothing was computed
        self.meter.called(texts if result is not None else (), time.perf_counter() - started)
        return result

    def label_logprobs(self, prompts, continuations, shared_prefix=None):
        """The backend's label scores, timed and their prompts counted."""
        return self._timed(prompts, self.backend.label_logprobs, prompts, continuations, shared_prefix=shared_prefix)

    def generate(self, prompts, max_new_tokens, **kwargs):
        """The backend's generations, timed and their prompts counted."""
        return self._timed(prompts, self.backend.generate, prompts, max_new_tokens, **kwargs)

    @property
    def token_logprobs(self):
        """The backend's ``token_logprobs``, timed and its texts counted (absent when the backend has none)."""
        score = self.backend.token_logprobs  # AttributeError (so: absent) when the backend has none

        def metered(texts):
            return self._timed(texts, score, texts)

        return metered
