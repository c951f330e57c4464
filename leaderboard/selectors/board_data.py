"""Loading a board's data for aggregation: which datasets a board counts and every entry's
iteration scores on them (read-only, so a selector; :mod:`leaderboard.services.aggregation` computes and writes).

What counts. A board counts, for each of its datasets, only evaluations on that
dataset's board version (``Dataset.board_version``) under its board protocol
(``Dataset.board_protocol``: iterations and test-row limit). An entry shows one model
commit: the admin's pin (``LanguageModel.pinned_commit``) or else the commit of the
entry's newest counted evaluation. What an entry has but the board does not count (another
dataset version, another protocol) is kept and listed in ``LeaderboardEntry.excluded``
with its reason; an entry with nothing counted is listed unranked.

Two kinds of language board. A *published* board (code ``da``) counts each dataset's
board version and protocol, as imported results define them. A *suite* board (code
``da-suite``) counts what this deployment evaluates itself: every dataset of the data
directory at its current folder version, under the deployment's protocol
(``GLOSSA_ITERATIONS``, ``GLOSSA_TEST_LIMIT``); every entry on it ran on the same dataset
versions under the same protocol, so a submission is ranked there among its peers.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from evaluation.tasks import TaskSpec, UnknownTask, get_task
from leaderboard.identity import (
    METHODOLOGY_PROTOCOL,
    InvalidProtocol,
    Protocol,
    short_fingerprint,
    suite_code,
    suite_language,
)
from leaderboard.models import Dataset, DatasetVersion, Evaluation, EvaluationExamples, IterationScore
from leaderboard.registry.suite import suite_protocol
from leaderboard.selectors.cells import one_budget_per_dataset

log = logging.getLogger(__name__)

EntryKey = tuple[int, bool, bool]  # (LanguageModel pk, few_shot, validation_split)


class UnknownBoard(LookupError):
    pass


@dataclass
class DatasetInfo:
    pk: int
    name: str
    task: str
    primary_metric: str
    secondary_metric: str
    version_pk: int | None = None
    version: str = ""
    protocol: Protocol = METHODOLOGY_PROTOCOL
    ranked: bool = True  # False for an orthogonal task: shown, never in the rank score

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "task": self.task,
            "primary_metric": self.primary_metric,
            "secondary_metric": self.secondary_metric,
            "version": self.version,
            "protocol": self.protocol.key,
            "ranked": self.ranked,
        }

    @classmethod
    def counting(
        cls, ds: Dataset, spec: TaskSpec, version_pk: int | None, version: str, protocol: Protocol
    ) -> DatasetInfo:
        """``ds`` as a board column that counts ``version`` under ``protocol``."""
        return cls(
            ds.pk,
            ds.name,
            spec.name,
            spec.primary_metric,
            spec.secondary_metric,
            version_pk,
            version,
            protocol,
            spec.ranked,
        )

    def exclusion_reason(self, version_pk: int, version: str, protocol: Protocol) -> str | None:
        """Why an evaluation on (version, protocol) does not count here; None if it does."""
        if version_pk != self.version_pk:
            return (
                f"evaluated on dataset version {short_fingerprint(version)}; "
                f"the board counts version {short_fingerprint(self.version)}"
            )
        if protocol != self.protocol:
            return f"evaluated with {protocol.describe()}; the board counts {self.protocol.describe()}"
        return None


@dataclass(frozen=True)
class EvaluationRow:
    """What aggregation needs of one stored evaluation."""

    pk: int
    entry: EntryKey
    dataset_pk: int
    version_pk: int
    version: str
    commit: str
    protocol: Protocol
    created_at: object
    pinned_commit: str
    invalidated: str = ""  # an administrator's reason: the board does not count it


def shown_commit(evaluations: list[EvaluationRow], counted: set[int]) -> str:
    """The one model commit an entry shows: the admin's pin, else the commit of the newest
    counted evaluation (else of the newest evaluation at all)."""
    pinned = evaluations[0].pinned_commit
    if pinned:
        return pinned
    pool = [ev for ev in evaluations if ev.pk in counted] or evaluations
    return max(pool, key=lambda ev: (ev.created_at, ev.pk)).commit


@dataclass
class BoardData:
    """Everything one language board needs, in a fixed order."""

    code: str
    datasets: list[DatasetInfo]
    entries: list[EntryKey]
    # entry index → dataset index → metric → iteration scores (in iteration order)
    values: dict[int, dict[int, dict[str, list[float]]]] = field(default_factory=dict)
    commits: dict[int, str] = field(default_factory=dict)  # entry index → the commit shown
    excluded: dict[int, list[dict]] = field(default_factory=dict)  # entry index → [{dataset, reason}]
    # (entry index, dataset index) → {"unparseable": k, "examples": n} when k / n ≥ UNREADABLE_SHARE
    flags: dict[tuple[int, int], dict] = field(default_factory=dict)
    # (entry index, dataset index) → {"nats", "bytes", "probe_auc", "probe_flag"} (evaluation/intrinsic.py)
    measures: dict[tuple[int, int], dict] = field(default_factory=dict)
    # (entry index, dataset index) → the counted evaluation's pk (its EEE download on the API)
    evaluations: dict[tuple[int, int], int] = field(default_factory=dict)

    def primary_array(self) -> np.ndarray:
        """``(D, N, I)`` primary-metric iteration scores, NaN-padded."""
        width = 1
        for per_ds in self.values.values():
            for d, metrics in per_ds.items():
                width = max(width, len(metrics.get(self.datasets[d].primary_metric, ())))
        arr = np.full((len(self.datasets), len(self.entries), width), np.nan)
        for e, per_ds in self.values.items():
            for d, metrics in per_ds.items():
                vals = metrics.get(self.datasets[d].primary_metric)
                if vals:
                    arr[d, e, : len(vals)] = vals
        return arr

    def digest(self) -> str:
        """Identity of the inputs: datasets, entries, commits and every counted score."""
        h = hashlib.sha256()
        h.update(repr([d.as_json() for d in self.datasets]).encode())
        h.update(repr(self.entries).encode())
        h.update(repr(sorted(self.commits.items())).encode())
        h.update(repr(sorted(self.flags.items())).encode())
        h.update(repr(sorted(self.measures.items())).encode())
        for e in sorted(self.values):
            for d in sorted(self.values[e]):
                h.update(repr((e, d, sorted(self.values[e][d].items()))).encode())
        return h.hexdigest()[:16]


# --- reading -------------------------------------------------------------------------


def _dataset_info(ds: Dataset) -> DatasetInfo | None:
    try:
        spec = get_task(ds.task)
        protocol = ds.counted_protocol
    except (UnknownTask, InvalidProtocol) as exc:
        log.warning("dataset %s left out of the boards: %s", ds.name, exc)
        return None
    version = ds.board_version.fingerprint if ds.board_version else ""
    return DatasetInfo.counting(ds, spec, ds.board_version_id, version, protocol)


def board_datasets() -> dict[str, list[DatasetInfo]]:
    """Board code → its leaderboard datasets (by name) that have at least one evaluation, for
    the boards where some dataset has an evaluation the board counts (its board version under
    its board protocol): a board of nothing but excluded scores is not a board."""
    boards: dict[str, dict[int, DatasetInfo]] = defaultdict(dict)
    evaluated = set(Evaluation.objects.values_list("dataset_id", flat=True).distinct())
    qs = (
        Dataset.objects.filter(counts_toward_leaderboard=True, pk__in=evaluated)
        .select_related("board_version")
        .prefetch_related("languages")
    )
    infos = [info for info in map(_dataset_info, qs) if info is not None]
    counted = _datasets_with_counted_scores(infos)
    feeds = {ds.pk: ds.boards() for ds in qs}
    for info in infos:
        for board in feeds[info.pk]:
            boards[board][info.pk] = info
    return {
        code: sorted(by_pk.values(), key=lambda i: i.name) for code, by_pk in boards.items() if by_pk.keys() & counted
    }


def _datasets_with_counted_scores(infos: list[DatasetInfo]) -> set[int]:
    by_version = {info.version_pk: info for info in infos if info.version_pk is not None}
    identities = (
        Evaluation.objects.filter(dataset_version_id__in=by_version)
        .values_list("dataset_version_id", "num_iterations", "test_limit")
        .distinct()
    )
    return {
        by_version[version].pk
        for version, iterations, limit in identities
        if by_version[version].protocol == Protocol(iterations, limit)
    }


def _evaluation_rows(dataset_pks) -> list[EvaluationRow]:
    fields = (
        "pk",
        "model_id",
        "few_shot",
        "validation_split",
        "dataset_id",
        "dataset_version_id",
        "dataset_version__fingerprint",
        "commit_sha",
        "num_iterations",
        "test_limit",
        "created_at",
        "model__pinned_commit",
        "invalidated_reason",
    )
    return [
        EvaluationRow(pk, (m, fs, val), ds, vpk, vfp, commit, Protocol(iters, limit), created, pinned, invalid)
        for pk, m, fs, val, ds, vpk, vfp, commit, iters, limit, created, pinned, invalid in Evaluation.objects.filter(
            dataset_id__in=dataset_pks
        )
        .order_by("pk")
        .values_list(*fields)
    ]


def counted_evaluations(
    data: BoardData, evals: list[EvaluationRow], reasons: dict[int, str | None]
) -> dict[int, tuple[int, int]]:
    """Evaluation pk → (entry index, dataset index) for what the board counts (``reasons``:
    evaluation pk → why the board does not count it, None when it does); records the commit
    each entry shows and, with reasons, what it has on the shown commit but does not count."""
    index = {info.pk: d for d, info in enumerate(data.datasets)}
    entry_index = {key: e for e, key in enumerate(data.entries)}
    by_entry: dict[int, list[EvaluationRow]] = defaultdict(list)
    for ev in evals:
        by_entry[entry_index[ev.entry]].append(ev)
    slots = {}
    for e, rows in by_entry.items():
        commit = shown_commit(rows, {ev.pk for ev in rows if reasons[ev.pk] is None})
        data.commits[e] = commit
        for ev in rows:
            if ev.commit != commit:
                continue  # another commit's scores: kept in the model's history, not on the board
            name = data.datasets[index[ev.dataset_pk]].name
            if reasons[ev.pk] is None:
                slots[ev.pk] = (e, index[ev.dataset_pk])
            else:
                data.excluded.setdefault(e, []).append(
                    {
                        "dataset": name,
                        "dataset_version": ev.version,
                        "protocol": ev.protocol.key,
                        "reason": reasons[ev.pk],
                    }
                )
    for items in data.excluded.values():
        items.sort(key=lambda item: (item["dataset"], item["dataset_version"], item["protocol"]))
    return slots


def suite_datasets() -> dict[str, list[DatasetInfo]]:
    """Suite board code → its datasets: each data-directory dataset in the suite
    (``Dataset.in_suite``) at its current (newest) folder version, under
    :func:`suite_protocol`, when that version has an evaluation."""
    protocol = suite_protocol()
    current: dict[int, DatasetVersion] = {}
    for version in DatasetVersion.objects.filter(origin="data-dir").order_by("created_at", "pk"):
        current[version.dataset_id] = version
    evaluated = set(
        Evaluation.objects.filter(dataset_version__in=current.values()).values_list("dataset_version_id", flat=True)
    )
    boards: dict[str, list[DatasetInfo]] = defaultdict(list)
    with_scores = [v.dataset_id for v in current.values() if v.pk in evaluated]
    for ds in Dataset.objects.filter(pk__in=with_scores, in_suite=True).prefetch_related("languages"):
        version = current[ds.pk]
        try:
            spec = get_task(ds.task)
        except UnknownTask:
            continue
        info = DatasetInfo.counting(ds, spec, version.pk, version.fingerprint, protocol)
        for board in ds.boards():
            boards[suite_code(board)].append(info)
    return {code: sorted(infos, key=lambda i: i.name) for code, infos in boards.items()}


UNRECORDED_BUDGET = (32, 600)  # what the engine scored before a record said its budget
UNREADABLE_SHARE = 0.10  # EuroEval's rule: a cell with ≥ 10% unparseable or empty answers is flagged


def unreadable_answers(eval_slot: dict[int, tuple[int, int]]) -> dict[tuple[int, int], dict]:
    """The counted cells whose stored examples hold too many unreadable answers."""
    counts = EvaluationExamples.objects.filter(evaluation_id__in=eval_slot, num_examples__gt=0).values_list(
        "evaluation_id", "num_invalid", "num_examples"
    )
    return {
        eval_slot[pk]: {"unparseable": invalid, "examples": total}
        for pk, invalid, total in counts
        if invalid >= UNREADABLE_SHARE * total
    }


def engine_measures(eval_slot: dict[int, tuple[int, int]]) -> dict[tuple[int, int], dict]:
    """Bits per byte (its nats and bytes, to pool over a board) and the membership probe of
    the counted cells whose records carry them; read from the record without loading it.
    Bits per byte is kept only where the cell's budget is its dataset's usual one
    (:func:`one_budget_per_dataset`)."""
    rows = Evaluation.objects.filter(pk__in=eval_slot).values_list(
        "pk", "record__intrinsic__nats", "record__intrinsic__bytes", "record__intrinsic__max_texts",
        "record__intrinsic__max_chars", "record__contamination__auc", "record__contamination__flag",
    )  # fmt: skip
    measures = {}
    for pk, nats, num_bytes, texts, chars, auc, flag in rows:
        found = {}
        if isinstance(nats, int | float) and isinstance(num_bytes, int) and num_bytes > 0:
            budget = (texts, chars) if isinstance(texts, int) and isinstance(chars, int) else UNRECORDED_BUDGET
            found.update(nats=float(nats), bytes=num_bytes, budget=budget)
        if isinstance(auc, int | float):
            found.update(probe_auc=float(auc), probe_flag=flag is True)
        if found:
            measures[eval_slot[pk]] = found
    return one_budget_per_dataset(measures)


def counted_board_evaluations(code: str, datasets: list[DatasetInfo]) -> tuple[BoardData, dict]:
    """The board's entries (an empty :class:`BoardData`) and the evaluations it counts, as
    ``{evaluation pk: (entry index, dataset index)}``: each dataset's board version and
    protocol, one commit per entry, nothing an administrator invalidated.

    A suite board lists only entries with something it counts (its entries all ran on the
    suite); a published board also lists, unranked, entries it counts nothing of, with why."""
    index = {info.pk: d for d, info in enumerate(datasets)}
    evals = _evaluation_rows(index)
    reasons = {
        ev.pk: (
            f"invalidated by an administrator: {ev.invalidated}"
            if ev.invalidated
            else datasets[index[ev.dataset_pk]].exclusion_reason(ev.version_pk, ev.version, ev.protocol)
        )
        for ev in evals
    }
    if suite_language(code) is not None:
        counting = {ev.entry for ev in evals if reasons[ev.pk] is None}
        evals = [ev for ev in evals if ev.entry in counting]
    data = BoardData(code=code, datasets=datasets, entries=sorted({ev.entry for ev in evals}))
    return data, counted_evaluations(data, evals, reasons)


def load_board_data(code: str, datasets: list[DatasetInfo]) -> BoardData:
    """Iteration scores of every entry on the board's datasets (primary and secondary), of
    the evaluations :func:`counted_board_evaluations` picks."""
    metrics = {m for info in datasets for m in (info.primary_metric, info.secondary_metric)}
    data, eval_slot = counted_board_evaluations(code, datasets)
    rows = (
        IterationScore.objects.filter(evaluation_id__in=eval_slot, metric__in=metrics)
        .order_by("evaluation_id", "metric", "iteration")
        .values_list("evaluation_id", "metric", "value")
    )
    for eval_id, metric, value in rows.iterator(chunk_size=20000):
        e, d = eval_slot[eval_id]
        data.values.setdefault(e, {}).setdefault(d, {}).setdefault(metric, []).append(value)
    data.flags.update(unreadable_answers(eval_slot))
    data.measures.update(engine_measures(eval_slot))
    data.evaluations.update((slot, pk) for pk, slot in eval_slot.items())
    # An evaluation without primary scores does not count as a score on that dataset.
    for per_ds in data.values.values():
        for d in [d for d, m in per_ds.items() if not m.get(datasets[d].primary_metric)]:
            del per_ds[d]
    return data
