"""The protocol every backend implements, and helpers they share."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypedDict, Unpack, runtime_checkable


@dataclass(frozen=True)
class Sampling:
    """Seeded sampling instead of greedy decoding (an examiner writing a fresh exam round)."""

    seed: int
    temperature: float = 0.8
    top_p: float = 0.95


class GenerateOptions(TypedDict, total=False):
    """What a ``generate`` call may ask beyond greedy text, declared once for every backend:
    ``json_schema`` constrains the output to that schema, ``shared_prefix`` is a prefix all
    prompts start with (a backend may compute it once), ``sampling`` asks for seeded samples."""

    json_schema: dict | None
    shared_prefix: str | None
    sampling: Sampling | None


@dataclass(frozen=True)
class Batch:
    """Inputs a backend computed together, and what that took."""

    inputs: int
    seconds: float
    prompt_tokens: int  # the model's own tokenizer
    generated_tokens: int = 0  # the answers' tokens (a stop token not counted)


class Usage:
    """What a backend computed, batch by batch: the backend adds, a meter drains
    (:mod:`evaluation.measurement`). Thread-safe: the openai backend adds from its workers."""

    def __init__(self) -> None:
        self._batches: list[Batch] = []
        self._lock = threading.Lock()

    def add(self, inputs: int, seconds: float, prompt_tokens: int, generated_tokens: int = 0) -> None:
        """Add one batch: how many inputs, how long it took, its prompt and generated tokens."""
        with self._lock:
            self._batches.append(Batch(inputs, seconds, prompt_tokens, generated_tokens))

    def drain(self) -> list[Batch]:
        """The batches added since the last drain, and forget them."""
        with self._lock:
            batches, self._batches = self._batches, []
        return batches


@runtime_checkable
class Backend(Protocol):
    """What the engine asks of an inference backend: chat rendering, token counts, label scoring and generation."""

    name: str
    max_context: int  # tokens the model can attend to
    has_chat_template: bool

    def render_chat(self, messages: list[dict]) -> str:
        """The model's own chat template applied to ``messages``, with the generation prompt."""

    def count_tokens(self, text: str) -> int:
        """How many of the model's tokens ``text`` is."""

    def label_logprobs(
        self, prompts: Sequence[str], continuations: Sequence[str], shared_prefix: str | None = None
    ) -> list[list[float]] | None:
        """Log-probability of the first token of each continuation after each prompt (one
        forward step), or ``None`` when this backend cannot tell (then the runner generates).
        ``shared_prefix``: a prefix all prompts start with (may be reused between prompts)."""

    def generate(self, prompts: Sequence[str], max_new_tokens: int, **options: Unpack[GenerateOptions]) -> list[str]:
        """Greedy continuations (seeded samples with ``sampling``); with ``json_schema``
        constrained to that schema."""

    def close(self) -> None:
        """Give back what the model holds (memory, connections)."""

    # Optional: ``token_logprobs(texts) -> list[list[float]]``, each token's log-probability
    # given the tokens before it (evaluation/intrinsic.py: bits per byte, the membership
    # probe). A backend without it skips those measures.
    #
    # Optional, for the efficiency record (evaluation/measurement.py): ``usage`` (a Usage the
    # backend adds every batch to), ``device_profile()`` (evaluation.hardware: where the model
    # runs, and how to measure it) and ``run_settings()`` (a hardware.RunSettings). A backend
    # without them gets no efficiency object.


def cut_at_stop(text: str, stops: Sequence[str] = ("\n\n",)) -> str:
    """``text`` cut at the first of ``stops`` found (each in turn), stripped."""
    for stop in stops:
        pos = text.find(stop)
        if pos >= 0:
            text = text[:pos]
    return text.strip()
