"""Models loaded only while they are needed: at most ``limit`` resident at once.

An exam with eight examinees would otherwise hold eight models in memory for its whole
run. A :class:`LazyBackend` loads its model on first use and registers it with its
:class:`ModelPool`; when more than ``limit`` are loaded, the least recently used one is
closed (and loaded again if it is needed later). The exam orders its work by model (each
examiner's merge sorts run to the end before the next examiner's), so the reloads stay
few: about three per examiner plus one per examinee, and three per follow-up round.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Callable


class ModelPool:
    """At most ``limit`` models in memory at once: the least recently used one is unloaded first."""

    def __init__(self, limit: int):
        if limit < 1:
            raise ValueError("at least one model must fit")
        self.limit = limit
        self.resident: OrderedDict[int, LazyBackend] = OrderedDict()
        self.loads = 0

    def touch(self, lazy: LazyBackend) -> None:
        """Mark ``lazy`` as just used, unloading the least recently used models beyond the limit."""
        self.resident[id(lazy)] = lazy
        self.resident.move_to_end(id(lazy))
        while len(self.resident) > self.limit:
            _, oldest = self.resident.popitem(last=False)
            oldest.unload()


class LazyBackend:
    """A backend that is loaded by ``loader`` when first used, and may be unloaded."""

    def __init__(self, loader: Callable[[], object], pool: ModelPool):
        self._loader, self._pool, self._backend = loader, pool, None

    def _loaded(self):
        if self._backend is None:
            self._backend = self._loader()
            self._pool.loads += 1
        self._pool.touch(self)
        return self._backend

    def __getattr__(self, name):
        return getattr(self._loaded(), name)

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory now."""
        return self._backend is not None

    def unload(self) -> None:
        """Close the model and give its memory back; it loads again when next used."""
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()
            gc.collect()  # give the memory back now, not at the next collection
            try:
                import torch
            except ImportError:
                return
            if torch.cuda.is_available():
                torch.cuda.empty_cache()

    def close(self) -> None:
        """Unload the model and leave the pool."""
        self._pool.resident.pop(id(self), None)
        self.unload()
