"""What a task kind may ask of a backend (``evaluation/task_kinds.py``): label scores and
generations, each distinct prompt computed once through the output cache, with a prompt
prefix shared by a whole batch passed on so the backend can reuse it."""

from __future__ import annotations

import os
from dataclasses import dataclass

from evaluation.backends.base import Backend
from evaluation.cache import OutputCache, prompt_key


@dataclass
class Predictor:
    """What a task kind may ask of the backend (``evaluation/task_kinds.py``): label scores
    and generations, both through the output cache, with a shared prompt prefix reused."""

    backend: Backend
    style: str  # "base" or "chat"
    max_new_tokens: int
    cache: OutputCache

    def label_scores(self, prompts: list[str], continuations: list[str]):
        """Log-probabilities of each continuation after each prompt; None if the backend cannot score."""
        return _cached(
            self.cache,
            "labels",
            prompts,
            {"c": continuations},
            lambda ps: self.backend.label_logprobs(ps, continuations, shared_prefix=_common_prefix(ps)),
        )

    def generate(self, prompts: list[str], schema: dict | None = None) -> list[str]:
        """Generations for ``prompts`` through the output cache (constrained to ``schema`` when given)."""
        return _generate(self.backend, prompts, self.max_new_tokens, self.cache, schema=schema)


def _common_prefix(prompts: list[str]) -> str | None:
    prefix = os.path.commonprefix(prompts)
    return prefix if len(prompts) > 1 and len(prefix) > 64 else None


def _generate(backend, prompts, max_new_tokens, cache, schema=None) -> list[str]:
    params = {"max_new_tokens": max_new_tokens, "schema": schema}
    return _cached(
        cache,
        "generate",
        prompts,
        params,
        lambda ps: backend.generate(ps, max_new_tokens, json_schema=schema, shared_prefix=_common_prefix(ps)),
    )


def _cached(cache: OutputCache, kind: str, prompts: list[str], params: dict, compute):
    """``compute`` only the prompts not yet in the cache (each distinct prompt once)."""
    keys = [prompt_key(kind, p, params) for p in prompts]
    todo: dict[str, str] = {}
    for key, prompt in zip(keys, prompts, strict=True):
        if key not in cache and key not in todo:
            todo[key] = prompt
    if todo:
        results = compute(list(todo.values()))
        if results is None:
            return None
        for key, value in zip(todo, results, strict=True):
            cache.put(key, value)
    cache.record(len(keys), len(todo))
    return [cache.get(key) for key in keys]
