"""Cache keys that a visitor cannot multiply or lengthen.

A key is a fixed prefix (``glossa:<namespace>:``) and the SHA-256 of its parts, each
normalised first: text is case-folded, stripped, its whitespace collapsed and truncated,
so ``q=a``, ``q=A`` and ``q= a `` are one entry, and no part can make a key longer than
``len(prefix) + 40`` characters. Better still, key a cached result by what it is computed
from (the board scatter: the rows it draws, not the query that selected them).
"""

from __future__ import annotations

import hashlib
import re

MAX_PART = 200  # characters of a text part that can matter (BoardFilters keeps 200 of q)
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACE.sub(" ", str(text).casefold()).strip()[:MAX_PART]


def cache_key(namespace: str, *parts: object) -> str:
    """``glossa:<namespace>:<40 hex digits>`` for the normalised parts (a part may be a list)."""
    flat = []
    for part in parts:
        items = part if isinstance(part, (list, tuple)) else [part]
        flat.append("\x1f".join(repr(normalise(item) if isinstance(item, str) else item) for item in items))
    digest = hashlib.sha256("\x1e".join(flat).encode("utf-8")).hexdigest()[:40]
    return f"glossa:{namespace[:40]}:{digest}"
