"""Board reads and their caching: filters, columns, rows (cached per board version), the
board a page shows and the home page's list of boards. A board page costs a constant
number of queries however many entries it has."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Count, Max

from evaluation.tasks import TASKS
from evaluation.tasks import short_label as task_short_label
from leaderboard import board_registry
from leaderboard.identity import METHODOLOGY_PROTOCOL, PUBLISHED, InvalidProtocol, Protocol, short_fingerprint
from leaderboard.languages import language_name
from leaderboard.models import (
    Leaderboard,
    LeaderboardEntry,
    ModelType,
)
from leaderboard.ranking import (
    entry_display_name,  # noqa: F401  (the contract's display name)
    method_names,
)
from leaderboard.selectors.cells import number_cell, pooled_bits_per_byte, score_cell
from leaderboard.selectors.formatting import (
    DASH,
    MODEL_TYPES,
    SHOTS,
    SIZE_BUCKETS,
    board_url,
    dataset_url,
    format_count,
    format_int,
    format_number,
    metric_label,
    model_url,
    size_bucket,
)
from leaderboard.selectors.recent import RecentValues
from leaderboard.services.method_view import RankingPending, apply_ranking, method_info, method_label, ranking_for

# --- board filters ------------------------------------------------------------------

MAX_Q = 200  # characters of a search that count


@dataclass(frozen=True)
class BoardFilters:
    """What a board page shows, read from GET parameters (unknown values are dropped)."""

    types: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    shots: str = ""
    q: str = ""
    sort: str = ""
    direction: str = "asc"
    method: str = ""  # a registered ranking method other than the board's own; "" = the board's

    @classmethod
    def from_query(cls, query, sort_keys: frozenset[str] | None = None) -> BoardFilters:
        """The filters of a query string, each value validated: types and sizes in their
        canonical order, ``q`` with its whitespace collapsed (at most ``MAX_Q`` characters),
        ``sort`` one of ``sort_keys`` (see :func:`sort_keys`; None: any of the fixed columns),
        ``method`` a registered method. An unknown value is the default, never a new filter."""
        types = set(query.getlist("type"))
        sizes = set(query.getlist("size"))
        shots = query.get("shots", "")
        sort = query.get("sort", "")
        direction = query.get("dir", "asc")
        method = query.get("method", "")
        return cls(
            types=tuple(t for t in MODEL_TYPES if t in types),
            sizes=tuple(s for s in SIZE_BUCKETS if s in sizes),
            shots=shots if shots in SHOTS else "",
            q=" ".join(query.get("q", "").split())[:MAX_Q],
            sort=sort if sort in (SIMPLE_SORT_KEYS.keys() if sort_keys is None else sort_keys) else "",
            direction=direction if direction in ("asc", "desc") else "asc",
            method=method if method in method_names() else "",
        )

    @property
    def active(self) -> bool:
        return bool(self.types or self.sizes or self.shots or self.q)

    def as_query(self) -> list[tuple[str, str]]:
        pairs = [("type", t) for t in self.types] + [("size", s) for s in self.sizes]
        for key, value in (("shots", self.shots), ("q", self.q), ("sort", self.sort)):
            if value:
                pairs.append((key, value))
        if self.sort and self.direction != "asc":
            pairs.append(("dir", self.direction))
        if self.method:
            pairs.append(("method", self.method))
        return pairs

    def as_dict(self) -> dict:
        return {
            "type": list(self.types),
            "size": list(self.sizes),
            "shots": self.shots or "all",
            "q": self.q,
            "sort": self.sort,
            "dir": self.direction,
            "method": self.method or None,
        }


# --- boards -------------------------------------------------------------------------


@dataclass
class Column:
    key: str  # sort key, also the CSV/JSON field stem
    label: str
    kind: str  # "task" | "dataset" | "language"
    title: str = ""
    url: str = ""


@dataclass
class Board:
    board: Leaderboard
    filters: BoardFilters
    language_columns: list[Column] = field(default_factory=list)
    task_columns: list[Column] = field(default_factory=list)
    dataset_columns: list[Column] = field(default_factory=list)
    ranked: list[dict] = field(default_factory=list)
    unranked: list[dict] = field(default_factory=list)
    total_entries: int = 0
    version: str = ""
    method: dict = field(default_factory=dict)  # {name, version, label} of the ranks shown
    pending_method: dict | None = None  # {name, label} of the method asked for, being computed
    absent_languages: list[str] = field(default_factory=list)  # a group's members without a board

    @property
    def shows_bits_per_byte(self) -> bool:
        """A language board with an entry measured (decoders evaluated by Glossa's engine)."""
        return any(row.get("bits_per_byte") is not None for row in self.rows)

    @property
    def rows(self) -> list[dict]:
        return self.ranked + self.unranked

    @property
    def columns(self) -> list[Column]:
        return self.language_columns + self.task_columns + self.dataset_columns


def board_columns(board: Leaderboard) -> tuple[list[Column], list[Column], list[Column]]:
    """Language columns for a group board (its scores live on the language boards);
    task and dataset columns for a language board."""
    if board.kind == "group":
        languages = [
            Column(
                f"lang:{code}",
                language_name(code),
                "language",
                title=f"{language_name(code)} rank score",
                url=board_url(code),
            )
            for code in board.boards
        ]
        return languages, [], []
    languages = []
    tasks, datasets = [], []
    seen_tasks: list[str] = []
    for spec in board.datasets:
        task = spec.get("task", "")
        if task and task not in seen_tasks and spec.get("ranked", True):
            seen_tasks.append(task)
        primary = metric_label(spec.get("primary_metric"))
        secondary = metric_label(spec.get("secondary_metric"))
        datasets.append(
            Column(
                f"ds:{spec['name']}",
                spec["name"],
                "dataset",
                title=f"{task}: {primary}{f' / {secondary}' if secondary else ''} (×100, mean ± 95% CI); counts "
                f"dataset version {short_fingerprint(spec.get('version') or PUBLISHED)}, {_protocol_text(spec)}",
                url=dataset_url(spec["name"]),
            )
        )
    order = list(TASKS)
    seen_tasks.sort(key=lambda t: order.index(t) if t in order else len(order))
    tasks = [Column(f"task:{t}", task_short_label(t), "task", title=f"{t} rank score") for t in seen_tasks]
    return languages, tasks, datasets


def sort_keys(board: Leaderboard) -> frozenset[str]:
    """Every column ``board``'s page can be sorted by (from the board's row: no query)."""
    columns = [c.key for group in board_columns(board) for c in group]
    return frozenset([*SIMPLE_SORT_KEYS, "bpb", *columns])


def _entry_row(entry: LeaderboardEntry, languages, tasks, datasets) -> dict:
    model = entry.model
    badge, type_label = MODEL_TYPES.get(model.model_type, MODEL_TYPES[ModelType.UNKNOWN])
    language_scores = (entry.extra or {}).get("language_rank_scores", {})
    task_scores = entry.task_rank_scores or {}
    scores = entry.scores or {}
    low, high = entry.rank_score_ci_low, entry.rank_score_ci_high
    language_cells = [number_cell(language_scores.get(c.key[5:])) for c in languages]
    task_cells = [number_cell(task_scores.get(c.key[5:])) for c in tasks]
    dataset_cells = [score_cell(scores.get(c.key[3:])) for c in datasets]
    sort_values = {
        c.key: cell["sort"]
        for c, cell in zip(languages + tasks + datasets, language_cells + task_cells + dataset_cells)
    }
    bits = pooled_bits_per_byte(scores) if datasets else None
    sort_values["bpb"] = bits
    return {
        "position": entry.position,
        "rank": entry.rank,
        "rank_display": str(entry.rank) if entry.rank is not None else DASH,
        "rank_interval": (entry.extra or {}).get("rank_interval"),
        "rank_set": (entry.extra or {}).get("rank_set_simultaneous"),  # shown: every entry at once
        "p_above_next": (entry.extra or {}).get("p_above_next"),
        "name": entry_display_name(model.model_id, entry.few_shot, entry.validation_split),
        "model_id": model.model_id,
        "url": model_url(model.model_id),
        "search": model.model_id.casefold(),
        "few_shot": entry.few_shot,
        "validation_split": entry.validation_split,
        "size": size_bucket(model.num_parameters),
        "group": "g-even" if (entry.rank or 0) % 2 == 0 else "g-odd",
        "type": model.model_type,
        "type_badge": badge,
        "type_label": type_label,
        "num_parameters": model.num_parameters,
        "parameters": format_count(model.num_parameters),
        "vocabulary_size": model.vocabulary_size,
        "vocabulary": format_count(model.vocabulary_size),
        "max_sequence_length": model.max_sequence_length,
        "context": format_int(model.max_sequence_length),
        "rank_score": entry.rank_score,
        "score": format_number(entry.rank_score),
        "ci_low": low,
        "ci_high": high,
        "score_ci": f"{format_number(low)}–{format_number(high)}" if low is not None and high is not None else "",
        "languages": language_cells,
        "tasks": task_cells,
        "datasets": dataset_cells,
        "sort_values": sort_values,
        "missing": list(entry.missing_datasets or []),
        "missing_display": ", ".join(entry.missing_datasets or []),
        "excluded": [f"{item.get('dataset')}: {item.get('reason')}" for item in entry.excluded or []],
        "bits_per_byte": bits,
        "bpb": {"sort": bits, "text": DASH if bits is None else f"{bits:.3f}"},
    }


SIMPLE_SORT_KEYS = {
    "rank": "position",
    "rankint": "position",
    "rankset": "position",
    "pnext": "p_above_next",
    "model": "name",
    "type": "type",
    "params": "num_parameters",
    "vocab": "vocabulary_size",
    "context": "max_sequence_length",
    "score": "rank_score",
}


def _sort_value(row: dict, key: str):
    if key in SIMPLE_SORT_KEYS:
        return row[SIMPLE_SORT_KEYS[key]]
    return row["sort_values"].get(key)


def sort_rows(rows: list[dict], key: str, direction: str) -> list[dict]:
    """Stable sort; entries without a value always go last."""
    present = [r for r in rows if _sort_value(r, key) is not None]
    absent = [r for r in rows if _sort_value(r, key) is None]
    present.sort(key=lambda r: _sort_value(r, key), reverse=direction == "desc")
    return present + absent


BOARD_CACHE_SECONDS = 24 * 3600


def board_version(board: Leaderboard) -> str:
    """The board's version: what its cached pages and documents are keyed by. Changes
    whenever the board, one of its entries or one of its models changes."""
    latest = LeaderboardEntry.objects.filter(leaderboard=board).aggregate(
        entries=Count("id"), computed=Max("computed_at"), models=Max("model__updated_at")
    )
    stamp = lambda value: value.isoformat() if value else "-"  # noqa: E731
    return f"{stamp(board.generated_at)}|{latest['entries']}|{stamp(latest['computed'])}|{stamp(latest['models'])}"


def _protocol_text(spec: dict) -> str:
    try:
        return Protocol.parse(spec.get("protocol") or METHODOLOGY_PROTOCOL.key).describe()
    except InvalidProtocol:
        return "an unknown protocol"


def _all_rows(board: Leaderboard, languages, tasks, datasets, ranking=None) -> list[dict]:
    entries = (
        LeaderboardEntry.objects.filter(leaderboard=board)
        .select_related("model")
        .only(
            "position",
            "rank",
            "rank_score",
            "rank_score_ci_low",
            "rank_score_ci_high",
            "few_shot",
            "validation_split",
            "task_rank_scores",
            "scores",
            "missing_datasets",
            "excluded",
            "extra",
            "leaderboard_id",
            "model__model_id",
            "model__model_type",
            "model__num_parameters",
            "model__vocabulary_size",
            "model__max_sequence_length",
        )
        .order_by("position")
    )
    return [_entry_row(entry, languages, tasks, datasets) for entry in apply_ranking(list(entries), ranking)]


_LOCAL_ROWS: RecentValues[list[dict]] = RecentValues(16)


def board_rows(board: Leaderboard, version: str, languages, tasks, datasets, ranking=None) -> list[dict]:
    """Every entry's display row, cached per board version (and ranking method): in this
    process, then in the shared cache (Redis, as JSON), else built from the entries. The key
    changes with the board."""
    key = f"glossa:board-rows:v3:{board.code}:{version}"
    if ranking is not None:
        key += f":{ranking.method}:{ranking.method_version}:{ranking.generated_at.isoformat()}"

    def shared_or_built() -> list[dict]:
        rows = cache.get(key)
        if not (isinstance(rows, list) and all(isinstance(row, dict) for row in rows)):  # a miss
            rows = _all_rows(board, languages, tasks, datasets, ranking)
            cache.set(key, rows, BOARD_CACHE_SECONDS)
        return rows

    return _LOCAL_ROWS.get(key, shared_or_built)


def filter_rows(rows: list[dict], filters: BoardFilters) -> list[dict]:
    needle = filters.q.casefold()
    return [
        row
        for row in rows
        if (not filters.types or row["type"] in filters.types)
        and (not filters.sizes or row["size"] in filters.sizes)
        and (not filters.shots or row["few_shot"] == (filters.shots == "few"))
        and (not needle or needle in row["search"])
    ]


def get_board(
    code: str, filters: BoardFilters | None = None, *, board: Leaderboard | None = None, version: str | None = None
) -> Board | None:
    """The cached board ``code`` with its entries, filtered and sorted; None when no such board.
    ``board`` and ``version``: the caller's already-read row and :func:`board_version`."""
    board = board if board is not None else Leaderboard.objects.filter(code=code).first()
    if board is None:
        return None
    filters = filters or BoardFilters()
    pending = None
    try:
        ranking = ranking_for(board, filters.method)
    except RankingPending:  # queued (once); shown under the board's own method meanwhile
        ranking, pending = None, {"name": filters.method, "label": method_label(filters.method)}
    languages, tasks, datasets = board_columns(board)
    version = version or board_version(board)
    result = Board(
        board=board,
        filters=filters,
        language_columns=languages,
        task_columns=tasks,
        dataset_columns=datasets,
        version=version,
        method=method_info(board, ranking),
        pending_method=pending,
    )
    if board.kind == "group":  # members left out for want of a board (board_compute.group_members)
        result.absent_languages = [
            language_name(c) for c in board_registry.members(board.code) if c not in board.boards
        ]
    for row in filter_rows(board_rows(board, version, languages, tasks, datasets, ranking), filters):
        (result.ranked if row["rank"] is not None else result.unranked).append(row)
    if filters.sort:
        result.ranked = sort_rows(result.ranked, filters.sort, filters.direction)
        result.unranked = sort_rows(result.unranked, filters.sort, filters.direction)
    result.total_entries = board.num_entries
    return result


# --- home ---------------------------------------------------------------------------
