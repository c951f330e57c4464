"""Inference backends behind one :class:`~evaluation.backends.base.Backend` protocol.

Each backend registers itself (:mod:`evaluation.backends.registry`): ``transformers``
(CPU or GPU, default), ``vllm`` (GPU; vLLM is imported only when it is chosen) and
``openai`` (any OpenAI-compatible HTTP server: ``--backend openai:http://host:port/v1``).
Importing this package registers them; their heavy packages load with the model.
"""

from __future__ import annotations

from evaluation.backends import openai, transformers, vllm  # noqa: F401  (each registers its backend)
from evaluation.backends.base import Backend
from evaluation.backends.registry import UnknownBackend, backend_class, backend_names, load_backend, needs_weights

__all__ = ["Backend", "UnknownBackend", "backend_class", "backend_names", "load_backend", "needs_weights"]
