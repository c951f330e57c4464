"""Inference backends behind one :class:`~evaluation.backends.base.Backend` protocol.

``transformers`` (CPU or GPU, default), ``vllm`` (GPU; imported only when installed) and
``openai`` (any OpenAI-compatible HTTP server: ``--backend openai:http://host:port/v1``).
"""

from __future__ import annotations

from pathlib import Path

from evaluation.backends.base import Backend
from evaluation.errors import EvaluationError

BACKENDS = ("transformers", "vllm", "openai")


def load_backend(name: str, model_id: str, weights: Path | None, *, trust_remote_code: bool = False) -> Backend:
    kind, _, arg = name.partition(":")
    if kind == "transformers":
        from evaluation.backends.transformers import TransformersBackend

        return TransformersBackend(_local(weights, kind), trust_remote_code=trust_remote_code)
    if kind == "vllm":
        from evaluation.backends.vllm import VLLMBackend

        return VLLMBackend(_local(weights, kind), trust_remote_code=trust_remote_code)
    if kind == "openai":
        from evaluation.backends.openai import OpenAIBackend

        return OpenAIBackend(base_url=arg or None, model=model_id, tokenizer_dir=weights)
    raise EvaluationError(
        f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)} "
        "(openai takes the server URL: openai:http://127.0.0.1:8000/v1)"
    )


__all__ = ["Backend", "BACKENDS", "load_backend"]


def _local(weights: Path | None, kind: str) -> Path:
    """The model's downloaded weights, which a backend that runs the model here needs."""
    if weights is None:
        raise EvaluationError(f"the {kind} backend runs the model here and needs its weights")
    return weights
