"""A small in-process cache of the values built most recently (pages read the same board
rows and the same examples again and again)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class RecentValues(Generic[V]):
    """The last ``size`` values built in this process, by key; the least recently used goes first."""

    def __init__(self, size: int):
        self.size = size
        self._values: OrderedDict[Hashable, V] = OrderedDict()

    def get_or_build(self, key: Hashable, build: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``build()``'s, kept (dropping the oldest beyond ``size``)."""
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        value = build()
        self._values[key] = value
        while len(self._values) > self.size:
            self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget every value."""
        self._values.clear()

    def __len__(self) -> int:
        return len(self._values)
