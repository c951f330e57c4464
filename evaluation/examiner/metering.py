"""Calls, tokens and seconds per model: the cost of an exam."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class Usage:
    """What a participant's backend computed: prompts sent, tokens in and out, and seconds."""

    calls: int = 0  # prompts sent
    prompt_tokens: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """The usage as JSON (seconds rounded to milliseconds)."""
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "generated_tokens": self.generated_tokens,
            "seconds": round(self.seconds, 3),
        }


class MeteredBackend:
    """A backend whose ``generate`` calls are counted (prompts, tokens in and out, time)."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.usage = Usage()

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def generate(self, prompts: Sequence[str], max_new_tokens: int, **kwargs) -> list[str]:
        """The backend's generations, counting the prompts, their tokens, the generated tokens and the time."""
        started = time.perf_counter()
        out = self.backend.generate(prompts, max_new_tokens, **kwargs)
        self.usage.seconds += time.perf_counter() - started
        self.usage.calls += len(prompts)
        self.usage.prompt_tokens += sum(self.backend.count_tokens(p) for p in prompts)
        self.usage.generated_tokens += sum(self.backend.count_tokens(text) for text in out if text)
        return out
