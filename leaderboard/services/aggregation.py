"""Aggregation: read iteration scores, rank with :mod:`leaderboard.ranking`, write the
cached ``Leaderboard`` / ``LeaderboardEntry`` rows and an ``AggregationRun`` audit row.

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

Boards. A dataset counts toward the board of each of its languages
(``Language.board``: most codes are their own board, ``nb`` and ``nn`` feed ``no``) when
``Dataset.counts_toward_leaderboard`` is set. A language board exists when at least one
such dataset has an evaluation. A group board (``leaderboard.languages.GROUPS``) exists
when all its language boards exist; its rank score is the mean of the language rank
scores. Asking for one language board also refreshes the groups that contain it, and
asking for a group refreshes its language boards (a group needs their bootstrap draws).

Idempotent: the numbers are deterministic (fixed bootstrap seed, inputs in a fixed
order), rows are only written when a value differs, and the run records how many
entries were created, changed or removed.
"""

from __future__ import annotations

import logging
import math
import time
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from evaluation.tasks import TaskSpec, UnknownTask, get_task
from leaderboard import ranking
from leaderboard.identity import (
    METHODOLOGY_PROTOCOL,
    InvalidProtocol,
    Protocol,
    short_fingerprint,
    suite_code,
    suite_language,
)
from leaderboard.languages import GROUPS, language_name
from leaderboard.models import (
    AggregationRun,
    Dataset,
    DatasetVersion,
    Evaluation,
    IterationScore,
    Language,
    Leaderboard,
    LeaderboardEntry,
)
from leaderboard.services import board_lock
from leaderboard.suite import suite_protocol

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
    languages = {ds.pk: {lang.board for lang in ds.languages.all()} for ds in qs}
    for info in infos:
        for board in languages[info.pk]:
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
    )
    return [
        EvaluationRow(pk, (m, fs, val), ds, vpk, vfp, commit, Protocol(iters, limit), created, pinned)
        for pk, m, fs, val, ds, vpk, vfp, commit, iters, limit, created, pinned in Evaluation.objects.filter(
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
        for board in {lang.board for lang in ds.languages.all()}:
            boards[suite_code(board)].append(info)
    return {code: sorted(infos, key=lambda i: i.name) for code, infos in boards.items()}


def load_board_data(code: str, datasets: list[DatasetInfo]) -> BoardData:
    """Iteration scores of every entry on the board's datasets (primary and secondary),
    counting only each dataset's board version and protocol, one commit per entry.

    A suite board lists only entries with something it counts (its entries all ran on the
    suite); a published board also lists, unranked, entries it counts nothing of, with why."""
    index = {info.pk: d for d, info in enumerate(datasets)}
    metrics = {m for info in datasets for m in (info.primary_metric, info.secondary_metric)}
    evals = _evaluation_rows(index)
    reasons = {
        ev.pk: datasets[index[ev.dataset_pk]].exclusion_reason(ev.version_pk, ev.version, ev.protocol) for ev in evals
    }
    if suite_language(code) is not None:
        counting = {ev.entry for ev in evals if reasons[ev.pk] is None}
        evals = [ev for ev in evals if ev.entry in counting]
    entries = sorted({ev.entry for ev in evals})
    data = BoardData(code=code, datasets=datasets, entries=entries)
    eval_slot = counted_evaluations(data, evals, reasons)
    rows = (
        IterationScore.objects.filter(evaluation_id__in=eval_slot, metric__in=metrics)
        .order_by("evaluation_id", "metric", "iteration")
        .values_list("evaluation_id", "metric", "value")
    )
    for eval_id, metric, value in rows.iterator(chunk_size=20000):
        e, d = eval_slot[eval_id]
        data.values.setdefault(e, {}).setdefault(d, {}).setdefault(metric, []).append(value)
    # An evaluation without primary scores does not count as a score on that dataset.
    for per_ds in data.values.values():
        for d in [d for d, m in per_ds.items() if not m.get(datasets[d].primary_metric)]:
            del per_ds[d]
    return data


# --- computing -----------------------------------------------------------------------


def _finite(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _metric_json(metric: str, values: list[float] | None) -> dict | None:
    if not values:
        return None
    score = ranking.dataset_score(values)
    return {"metric": metric, "mean": score.mean * 100, "ci": None if score.ci is None else score.ci * 100}


@dataclass
class ComputedBoard:
    code: str
    name: str
    kind: str
    boards: list[str]
    datasets: list[dict]
    entries: list[EntryKey]
    result: ranking.BoardRanking
    rows: list[dict]  # per entry (input order): the LeaderboardEntry field values


def board_seed(code: str) -> int:
    """The bootstrap seed of a board: fixed, and different per board so that a group's
    languages draw independently."""
    return ranking.DEFAULT_SEED + zlib.crc32(code.encode()) % 100_000


def board_name(code: str) -> str:
    language = suite_language(code)
    if language is not None:
        return f"{language_name(language)} (evaluated here)"
    return language_name(code)


def compute_language_board(data: BoardData, *, replicates: int) -> ComputedBoard:
    """Rank on the board's ranked datasets; orthogonal ones (``TaskSpec.ranked`` False) are
    shown with their scores but neither rank nor leave an entry unranked."""
    ranked = [d for d, info in enumerate(data.datasets) if info.ranked]
    column = {d: k for k, d in enumerate(ranked)}
    result = ranking.rank_language_board(
        data.primary_array()[ranked],
        [data.datasets[d].task for d in ranked],
        replicates=replicates,
        seed=board_seed(data.code),
    )
    rows = []
    for e in range(len(data.entries)):
        per_ds = data.values.get(e, {})
        scores, missing = {}, []
        for d, info in enumerate(data.datasets):
            metrics = per_ds.get(d)
            if not metrics:
                if info.ranked:
                    missing.append(info.name)
                continue
            scores[info.name] = {
                "primary": _metric_json(info.primary_metric, metrics.get(info.primary_metric)),
                "secondary": _metric_json(info.secondary_metric, metrics.get(info.secondary_metric)),
                "rank_score": _finite(result.dataset_rank_scores[e, column[d]]) if info.ranked else None,
                "dataset_version": info.version,
            }
        rows.append(
            {
                "task_rank_scores": {t: _finite(result.task_rank_scores[e, k]) for k, t in enumerate(result.tasks)},
                "scores": scores,
                "missing_datasets": missing,
                "excluded": data.excluded.get(e, []),
                "commit_sha": data.commits.get(e, ""),
                "extra": {},
            }
        )
    return ComputedBoard(
        code=data.code,
        name=board_name(data.code),
        kind="language",
        boards=[],
        datasets=[d.as_json() for d in data.datasets],
        entries=data.entries,
        result=result,
        rows=rows,
    )


def compute_group_board(code: str, name: str, languages: list[ComputedBoard]) -> ComputedBoard:
    entries = sorted({key for board in languages for key in board.entries})
    idx = {key: e for e, key in enumerate(entries)}
    n, reps = len(entries), []
    scores = np.full((n, len(languages)), np.inf)
    for k, board in enumerate(languages):
        cols = np.array([idx[key] for key in board.entries], dtype=int)
        scores[cols, k] = board.result.rank_scores
        r = np.full((board.result.replicates.shape[0], n), np.inf)
        r[:, cols] = board.result.replicates
        reps.append(r)
    result = ranking.rank_group_board(scores, reps)
    missing_by_entry: dict[int, list[str]] = defaultdict(list)
    excluded_by_entry: dict[int, list[dict]] = defaultdict(list)
    commits_by_entry: dict[int, str] = {}
    for board in languages:
        position = {key: e for e, key in enumerate(board.entries)}
        for key in entries:
            if key not in position:
                missing_by_entry[idx[key]].extend(d["name"] for d in board.datasets)
            else:
                row = board.rows[position[key]]
                missing_by_entry[idx[key]].extend(row["missing_datasets"])
                excluded_by_entry[idx[key]].extend(dict(item, board=board.code) for item in row["excluded"])
                commits_by_entry.setdefault(idx[key], row["commit_sha"])
    rows = [
        {
            "task_rank_scores": {},
            "scores": {},
            "missing_datasets": sorted(missing_by_entry[e]),
            "excluded": excluded_by_entry[e],
            "commit_sha": commits_by_entry.get(e, ""),
            "extra": {"language_rank_scores": {b.code: _finite(scores[e, k]) for k, b in enumerate(languages)}},
        }
        for e in range(n)
    ]
    datasets = [dict(d, board=b.code) for b in languages for d in b.datasets]
    return ComputedBoard(code, name, "group", [b.code for b in languages], datasets, entries, result, rows)


def plan_boards(
    requested: Iterable[str] | None, available: dict[str, list[DatasetInfo]]
) -> tuple[list[str], list[str]]:
    """(language boards, group boards) to compute for a request (None = everything).

    ``available`` holds published and suite boards; asking for a language (``da``, ``nb``)
    refreshes both of its boards, and either alone is enough for the request to be known."""
    groups_ok = {slug for slug, (_, members) in GROUPS.items() if all(m in available for m in members)}
    if requested is None:
        return sorted(available), sorted(groups_ok)
    languages: set[str] = set()
    groups: set[str] = set()
    for code in requested:
        if code in available and suite_language(code) is not None:
            languages.add(code)
            continue
        if code in GROUPS:
            if code not in groups_ok:
                missing = [m for m in GROUPS[code][1] if m not in available]
                raise UnknownBoard(f"group {code!r} needs boards without results: {', '.join(missing)}")
            groups.add(code)
            languages.update(GROUPS[code][1])
        else:
            board = Language.objects.filter(code=code).values_list("board", flat=True).first() or code
            found = [b for b in (board, suite_code(board)) if b in available]
            if not found:
                raise UnknownBoard(f"no leaderboard datasets with results for language {code!r}")
            languages.update(found)
            if board not in available:
                continue
            groups.update(slug for slug in groups_ok if board in GROUPS[slug][1])
    for slug in groups:
        languages.update(GROUPS[slug][1])
    return sorted(languages), sorted(groups)


def compute_boards(requested: Iterable[str] | None = None, *, replicates: int | None = None) -> list[ComputedBoard]:
    if replicates is None:
        replicates = settings.RANK_BOOTSTRAP_REPLICATES
        if 0 < replicates < 100:
            log.warning("RANK_BOOTSTRAP_REPLICATES=%s: intervals need at least 100 replicates", replicates)
    available = {**board_datasets(), **suite_datasets()}
    languages, groups = plan_boards(requested, available)
    computed = {
        code: compute_language_board(load_board_data(code, available[code]), replicates=replicates)
        for code in languages
    }
    out = list(computed.values())
    for slug in groups:
        name, members = GROUPS[slug]
        out.append(compute_group_board(slug, name, [computed[m] for m in members]))
    return out


# --- writing -------------------------------------------------------------------------


ENTRY_FIELDS = (
    "position",
    "rank",
    "rank_score",
    "rank_score_ci_low",
    "rank_score_ci_high",
    "task_rank_scores",
    "scores",
    "missing_datasets",
    "excluded",
    "commit_sha",
    "extra",
)


def _entry_values(board: ComputedBoard) -> dict[EntryKey, dict]:
    res = board.result
    values = {}
    for position, e in enumerate(res.positions(), start=1):
        ranked = bool(np.isfinite(res.rank_scores[e]))
        values[board.entries[e]] = {
            "position": position,
            "rank": int(res.ranks[e]) if ranked else None,
            "rank_score": _finite(res.rank_scores[e]),
            "rank_score_ci_low": _finite(res.ci_low[e]) if ranked else None,
            "rank_score_ci_high": _finite(res.ci_high[e]) if ranked else None,
            **board.rows[e],
        }
    return values


def write_board(board: ComputedBoard, now) -> tuple[int, int]:
    """Upsert one board's rows; returns (entries on the board, entries created/changed/removed)."""
    lb, created = Leaderboard.objects.get_or_create(code=board.code, defaults={"name": board.name, "kind": board.kind})
    wanted = _entry_values(board)
    existing = {(r.model_id, r.few_shot, r.validation_split): r for r in lb.entries.all()}
    changed = 0
    to_create, to_update = [], []
    for key, vals in wanted.items():
        row = existing.pop(key, None)
        if row is None:
            to_create.append(
                LeaderboardEntry(leaderboard=lb, model_id=key[0], few_shot=key[1], validation_split=key[2], **vals)
            )
        elif any(getattr(row, f) != v for f, v in vals.items()):
            for f, v in vals.items():
                setattr(row, f, v)
            to_update.append(row)
    if existing:
        LeaderboardEntry.objects.filter(pk__in=[r.pk for r in existing.values()]).delete()
    LeaderboardEntry.objects.bulk_create(to_create, batch_size=500)
    LeaderboardEntry.objects.bulk_update(to_update, ENTRY_FIELDS, batch_size=500)
    changed = len(to_create) + len(to_update) + len(existing)
    meta = {
        "name": board.name,
        "kind": board.kind,
        "boards": board.boards,
        "datasets": board.datasets,
        "num_entries": len(wanted),
    }
    if created or changed or any(getattr(lb, f) != v for f, v in meta.items()) or lb.generated_at is None:
        for f, v in meta.items():
            setattr(lb, f, v)
        lb.generated_at = now
        lb.save()
    return len(wanted), changed


def _touched_codes(requested: list[str] | None) -> set[str]:
    """The boards an aggregation of ``requested`` writes (None: all, and the stored ones it may remove)."""
    languages, groups = plan_boards(requested, {**board_datasets(), **suite_datasets()})
    stored = set(Leaderboard.objects.values_list("code", flat=True)) if requested is None else set()
    return set(languages) | set(groups) | stored


def aggregate(
    boards: Iterable[str] | None = None,
    *,
    user=None,
    trigger: str = "command",
    replicates: int | None = None,
) -> AggregationRun:
    """Recompute the requested boards (all by default) and record an AggregationRun.

    Raises :class:`UnknownBoard` for a board without results; other errors mark the run
    FAILED (with the message) and propagate. Rows of boards that no longer have any
    leaderboard dataset are removed when everything is recomputed.
    """
    requested = None if boards is None else list(boards)
    run = AggregationRun.objects.create(
        boards=requested or [], triggered_by=user if getattr(user, "pk", None) else None, trigger=trigger
    )
    started = time.perf_counter()
    try:
        codes = _touched_codes(requested)
        while True:  # read, compute and write under the boards' locks (board_lock.py)
            with board_lock.hold(codes):
                computed = compute_boards(requested, replicates=replicates)
                touched = {b.code for b in computed} | (_touched_codes(None) if requested is None else set())
                if not touched <= codes:  # the data changed since planning: lock those boards too
                    codes |= touched
                    continue
                total = changed = 0
                now = timezone.now()
                with transaction.atomic():
                    for board in computed:
                        n, c = write_board(board, now)
                        total += n
                        changed += c
                    if requested is None:
                        stale = Leaderboard.objects.exclude(code__in=[b.code for b in computed])
                        changed += LeaderboardEntry.objects.filter(leaderboard__in=stale).count()
                        stale.delete()
            break
        run.boards = [b.code for b in computed]
        run.entries_total = total
        run.entries_changed = changed
        run.status = "FINISHED"
    except Exception as exc:
        run.status = "FAILED"
        run.error = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        run.finished_at = timezone.now()
        run.duration_seconds = time.perf_counter() - started
        run.save()
    return run
