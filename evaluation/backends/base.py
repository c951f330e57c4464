"""The protocol every backend implements, and helpers they share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Sampling:
    """Seeded sampling instead of greedy decoding (an examiner writing a fresh exam round)."""

    seed: int
    temperature: float = 0.8
    top_p: float = 0.95


@runtime_checkable
class Backend(Protocol):
    name: str
    max_context: int  # tokens the model can attend to
    has_chat_template: bool

    def render_chat(self, messages: list[dict]) -> str:
        """The model's own chat template applied to ``messages``, with the generation prompt."""

    def count_tokens(self, text: str) -> int: ...

    def label_logprobs(
        self, prompts: Sequence[str], continuations: Sequence[str], shared_prefix: str | None = None
    ) -> list[list[float]] | None:
        """Log-probability of the first token of each continuation after each prompt (one
        forward step), or ``None`` when this backend cannot tell (then the runner generates).
        ``shared_prefix``: a prefix all prompts start with (may be reused between prompts)."""

    def generate(
        self,
        prompts: Sequence[str],
        max_new_tokens: int,
        *,
        json_schema: dict | None = None,
        shared_prefix: str | None = None,
        sampling: Sampling | None = None,
    ) -> list[str]:
        """Greedy continuations (seeded samples with ``sampling``); with ``json_schema``
        constrained to that schema."""

    def close(self) -> None: ...

    # Optional: ``token_logprobs(texts) -> list[list[float]]``, each token's log-probability
    # given the tokens before it (evaluation/intrinsic.py: bits per byte, the membership
    # probe). A backend without it skips those measures.


def cut_at_stop(text: str, stops: Sequence[str] = ("\n\n",)) -> str:
    for stop in stops:
        pos = text.find(stop)
        if pos >= 0:
            text = text[:pos]
    return text.strip()
