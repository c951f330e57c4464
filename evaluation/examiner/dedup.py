"""Near-duplicate questions: the overlap of their word trigrams on normalised text.

The overlap coefficient |A ∩ B| / min(|A|, |B|) (not Jaccard's |A ∩ B| / |A ∪ B|): a
question that repeats another inside a longer sentence ("Is there any evidence that ...")
is a near-duplicate too."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

THRESHOLD = 0.6


def _shingles(text: str) -> frozenset[tuple[str, ...]]:
    words = re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())
    if len(words) < 3:
        return frozenset({tuple(words)})
    return frozenset(tuple(words[k : k + 3]) for k in range(len(words) - 2))


def similarity(a: str, b: str) -> float:
    """The share of the shorter text's word shingles found in the other (1.0 for two empty texts)."""
    sa, sb = _shingles(a), _shingles(b)
    if not sa or not sb:
        return 1.0 if sa == sb else 0.0
    return len(sa & sb) / min(len(sa), len(sb))


def is_near_duplicate(text: str, kept: Iterable[str], threshold: float = THRESHOLD) -> bool:
    """Whether ``text`` is at least ``threshold`` similar to any text already kept."""
    return any(similarity(text, other) >= threshold for other in kept)
