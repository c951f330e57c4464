"""A submission's progress, typed: per dataset its state (pending, running,
done, failed, unavailable), the units done of the total while running, and why it failed
or cannot run; and which worker process holds the submission.

Stored in ``Submission.progress`` as JSON in the shape it always had (``{dataset: {"state":
..., "done": ..., "total": ..., "note": ...}, "_worker": "host:pid"}``); read it with
:meth:`Progress.of` and write it with :meth:`Progress.as_json`, never by hand. Anything
else in the stored JSON (a hand edit, an older shape) is skipped, not trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

WORKER_KEY = "_worker"
NOTE_CHARS = 4_000


class DatasetState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    UNAVAILABLE = "unavailable"


FINAL = frozenset({DatasetState.DONE, DatasetState.FAILED})


@dataclass(frozen=True)
class DatasetProgress:
    state: DatasetState
    done: int | None = None  # units evaluated so far (while running)
    total: int | None = None
    note: str = ""  # why it failed or cannot be evaluated

    @classmethod
    def of(cls, value) -> DatasetProgress | None:
        if not isinstance(value, dict):
            return None
        try:
            state = DatasetState(value.get("state"))
        except ValueError:
            return None
        done, total = value.get("done"), value.get("total")
        return cls(
            state,
            done if isinstance(done, int) and not isinstance(done, bool) else None,
            total if isinstance(total, int) and not isinstance(total, bool) else None,
            str(value.get("note") or "")[:NOTE_CHARS],
        )

    def as_json(self) -> dict:
        out: dict = {"state": self.state.value}
        if self.state == DatasetState.RUNNING:
            out.update(done=self.done or 0, total=self.total or 0)
        if self.note:
            out["note"] = self.note
        return out

    @property
    def percent(self) -> int | None:
        if self.state == DatasetState.DONE:
            return 100
        if self.done is not None and self.total:
            return round(100 * self.done / self.total)
        return None


@dataclass(frozen=True)
class Progress:
    datasets: dict[str, DatasetProgress] = field(default_factory=dict)
    worker: str = ""  # "host:pid" of the pool process that evaluates it

    @classmethod
    def of(cls, stored) -> Progress:
        stored = stored if isinstance(stored, dict) else {}
        datasets = {}
        for name, value in stored.items():
            parsed = DatasetProgress.of(value) if not str(name).startswith("_") else None
            if parsed is not None:
                datasets[str(name)] = parsed
        return cls(datasets, str(stored.get(WORKER_KEY) or ""))

    @classmethod
    def planned(cls, stored: set[str], planned: list[str], unavailable: dict[str, str]) -> Progress:
        """Where a (re)queued evaluation starts: stored datasets done, the others pending."""
        datasets = {
            name: DatasetProgress(DatasetState.DONE if name in stored else DatasetState.PENDING) for name in planned
        }
        datasets.update(
            {
                name: DatasetProgress(DatasetState.UNAVAILABLE, note=note[:NOTE_CHARS])
                for name, note in unavailable.items()
            }
        )
        return cls(datasets)

    def as_json(self) -> dict:
        out: dict = {name: progress.as_json() for name, progress in self.datasets.items()}
        if self.worker:
            out[WORKER_KEY] = self.worker
        return out

    def get(self, name: str) -> DatasetProgress | None:
        return self.datasets.get(name)

    def with_dataset(self, name: str, progress: DatasetProgress) -> Progress:
        return replace(self, datasets={**self.datasets, name: progress})

    def with_worker(self, worker: str) -> Progress:
        return replace(self, worker=worker[:200])

    def is_final(self, name: str) -> bool:
        current = self.datasets.get(name)
        return current is not None and current.state in FINAL

    def names(self, *states: DatasetState) -> list[str]:
        return [name for name, progress in self.datasets.items() if progress.state in states]

    @property
    def done(self) -> int:
        return len(self.names(DatasetState.DONE))

    @property
    def total(self) -> int:
        """Datasets this deployment can evaluate (unavailable ones do not count)."""
        return len(self.datasets) - len(self.names(DatasetState.UNAVAILABLE))
