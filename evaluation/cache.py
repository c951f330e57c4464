"""Output cache keyed by prompt hash (docs/methodology.md §1, "Caching").

Bootstrapped resamples repeat rows and zero-shot prompts repeat across iterations; the
runner asks the cache first, so each distinct (prompt, request) is computed once.
"""

from __future__ import annotations

import hashlib
import json


def prompt_key(kind: str, prompt: str, params: dict | None = None) -> str:
    """A stable key for one model call: the hash of its kind, prompt and parameters."""
    payload = json.dumps([kind, prompt, params or {}], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class OutputCache:
    """Outputs already computed in this run, by :func:`prompt_key`, with hit and miss counts."""

    def __init__(self) -> None:
        self._store: dict[str, object] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: str):
        """The output kept under ``key``, or None."""
        return self._store.get(key)

    def record(self, requested: int, computed: int) -> None:
        """Book-keeping: ``requested`` lookups of which ``computed`` had to be computed."""
        self.hits += requested - computed
        self.misses += computed

    def __contains__(self, key: str) -> bool:
        return key in self._store

    def put(self, key: str, value) -> None:
        """Keep ``value`` under ``key``."""
        self._store[key] = value

    def __len__(self) -> int:
        return len(self._store)
