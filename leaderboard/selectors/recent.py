"""A small cache of the values read last in this process (pages re-read the same board or
examples many times in a row): bounded, the least recently used value dropped first."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class RecentValues(Generic[V]):
    """The last ``size`` values by key; :meth:`get` computes a missing one."""

    def __init__(self, size: int):
        self.size = size
        self._values: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``compute()``, kept (dropping the least recently
        used beyond ``size``)."""
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        value = compute()
        self._values[key] = value
        while len(self._values) > self.size:
            self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        self._values.clear()
