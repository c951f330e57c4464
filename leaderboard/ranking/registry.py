"""Ranking methods are named, versioned strategies; this is their registry.

A method is one module in :mod:`leaderboard.ranking.methods` that subclasses
:class:`RankingMethod` and calls :func:`register` on an instance: nothing else changes
to add one. ``name`` is what ``--method``, ``?method=`` and the setting
``GLOSSA_RANKING_METHOD`` use; ``version`` changes whenever the numbers a method gives
for the same inputs change, and is stored with every aggregate it produced.

Pure Python: no Django.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from leaderboard.ranking.core import BoardRanking

EntryKey = tuple  # (model pk, few_shot, validation_split)
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


class UnknownMethod(LookupError):
    pass


class RankingMethod:
    """One way to turn a board's iteration scores into rank scores and ranks.

    ``rank_language_board`` gets ``(D, N, I)`` primary iteration scores (NaN = missing)
    of the board's ranked datasets, one task per dataset and the N entry keys, and returns
    a :class:`BoardRanking` with ``replicates`` ``(B, N)`` that ``rank_group_board``
    combines across languages. ``default_replicates`` None means the deployment's
    ``RANK_BOOTSTRAP_REPLICATES``; ``fixed_seed`` None means a seed per board.
    """

    name: str = ""
    version: str = ""
    label: str = ""
    description: str = ""
    rank_text: str = ""  # what the printed rank is, in a sentence a board page shows
    default_replicates: int | None = None
    fixed_seed: int | None = None

    def rank_language_board(
        self,
        scores: np.ndarray,
        dataset_tasks: Sequence[str],
        entries: Sequence[EntryKey],
        *,
        replicates: int,
        seed: int,
    ) -> BoardRanking:
        raise NotImplementedError

    def rank_group_board(
        self,
        language_scores: np.ndarray,
        language_replicates: list[np.ndarray],
        language_contrasts: list | None = None,
    ) -> BoardRanking:
        """``language_contrasts``: each language board's ``BoardRanking.contrast`` laid out on
        the group's entries, where every language board has one (else None)."""
        raise NotImplementedError

    def as_json(self) -> dict:
        return {"name": self.name, "version": self.version}

    def __repr__(self) -> str:
        return f"<RankingMethod {self.name} v{self.version}>"


_METHODS: dict[str, RankingMethod] = {}


def register(method: RankingMethod) -> RankingMethod:
    """Add ``method`` to the registry (replacing one of the same name) and return it."""
    if not NAME_RE.match(method.name or ""):
        raise ValueError(f"a ranking method needs a lower-case name of letters, digits and '-': {method.name!r}")
    if not method.version:
        raise ValueError(f"ranking method {method.name!r} has no version")
    _METHODS[method.name] = method
    return method


def unregister(name: str) -> None:
    _METHODS.pop(name, None)


def get_method(name: str) -> RankingMethod:
    try:
        return _METHODS[name]
    except KeyError:
        raise UnknownMethod(f"no ranking method {name!r} (known: {', '.join(method_names())})") from None


def method_names() -> list[str]:
    return sorted(_METHODS)


def all_methods() -> list[RankingMethod]:
    return [_METHODS[n] for n in method_names()]
