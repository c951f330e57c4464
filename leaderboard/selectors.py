"""Reads for the public pages: boards, model pages, dataset pages and the home page.

Every function here returns plain dicts and lists with the display strings already
formatted, so templates only print them and exports write exactly what a page shows.
Leaderboards come from the cached ``Leaderboard`` / ``LeaderboardEntry`` rows written by
aggregation; a board page costs a constant number of queries however many entries it has.
"""

from __future__ import annotations

import json
import math
import shlex
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from django.core.cache import cache
from django.db.models import Count, Max, Q
from django.urls import NoReverseMatch, reverse

from evaluation.datasets import SPLITS, DatasetInfo, InvalidDataset, find_local
from evaluation.stats import mean_ci
from evaluation.tasks import METRIC_LABELS, TASKS, UnknownTask, get_task
from leaderboard.identity import METHODOLOGY_PROTOCOL, PUBLISHED, InvalidProtocol, Protocol, short_fingerprint
from leaderboard.languages import GROUPS, language_name
from leaderboard.model_history import commit_history, short_commit
from leaderboard.models import (
    Dataset,
    Evaluation,
    IterationScore,
    LanguageModel,
    Leaderboard,
    LeaderboardEntry,
    ModelType,
    Submission,
)
from leaderboard.ranking import (
    entry_display_name,  # noqa: F401  (the contract's display name)
    method_names,
)
from leaderboard.services.method_view import apply_ranking, method_info, ranking_for
from leaderboard.services.record_fields import DATASET_NAME
from leaderboard.suite import suite_protocol

# --- display helpers (pure) ---------------------------------------------------------

TYPE_SHORT_LABELS = {
    "encoder": "Encoder",
    "base": "Base",
    "instruction-tuned": "Instruction-tuned",
    "reasoning": "Reasoning",
    "unknown": "Unknown",
}
MODEL_TYPES: dict[str, tuple[str, str]] = {
    # value → (badge letter, label)
    ModelType.ENCODER: ("E", "Encoder"),
    ModelType.BASE: ("B", "Base (pretrained) decoder"),
    ModelType.INSTRUCTION_TUNED: ("I", "Instruction-tuned decoder"),
    ModelType.REASONING: ("R", "Reasoning decoder"),
    ModelType.UNKNOWN: ("?", "Unknown type"),
}

# key → (label, lower bound inclusive, upper bound exclusive); None bounds = unknown size.
SIZE_BUCKETS: dict[str, tuple[str, float | None, float | None]] = {
    "lt2": ("< 2B", 0, 2e9),
    "2-10": ("2–10B", 2e9, 10e9),
    "10-40": ("10–40B", 10e9, 40e9),
    "40-80": ("40–80B", 40e9, 80e9),
    "ge80": ("≥ 80B", 80e9, math.inf),
    "unknown": ("Unknown", None, None),
}

SHOTS = {"few": "Few-shot", "zero": "Zero-shot"}
TASK_LABELS = {
    "sentiment-classification": "Sentiment",
    "linguistic-acceptability": "Acceptability",
    "named-entity-recognition": "NER",
    "reading-comprehension": "Reading comp.",
    "knowledge": "Knowledge",
    "common-sense-reasoning": "Common sense",
    "summarization": "Summarization",
    "simplification": "Simplification",
    "instruction-following": "Instruction following",
    "european-values": "European values",
}
DASH = "–"


def variant_label(few_shot: bool, validation_split: bool) -> str:
    return ("few-shot" if few_shot else "zero-shot") + (", validation split" if validation_split else "")


def format_count(value: int | None) -> str:
    """Parameters in short form: 124M, 7.2B, 1.1T; a dash when unknown."""
    if value is None or value <= 0:
        return DASH
    for threshold, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= threshold:
            scaled = value / threshold
            return f"{scaled:.0f}{suffix}" if scaled >= 100 else f"{scaled:.3g}{suffix}"
    return str(value)


def format_int(value: int | None) -> str:
    return f"{value:,}" if value else DASH


def format_number(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    return f"{value:.{digits}f}"


def size_bucket(num_parameters: int | None) -> str:
    if not num_parameters or num_parameters <= 0:
        return "unknown"
    for key, (_, low, high) in SIZE_BUCKETS.items():
        if low is not None and low <= num_parameters < high:
            return key
    return "unknown"


def reproduce_command(
    model_id: str, dataset: str, *, few_shot: bool, validation_split: bool, iterations: int = 10
) -> str:
    parts = [
        "python",
        "-m",
        "evaluation",
        "run",
        "--model",
        model_id,
        "--dataset",
        dataset,
        "--iterations",
        str(iterations),
    ]
    if not few_shot:
        parts.append("--zero-shot")
    if validation_split:
        parts.append("--validation-split")
    return shlex.join(parts)


@lru_cache(maxsize=8192)
def model_url(model_id: str) -> str:
    return _url_or_empty("model", model_id=model_id)


def _url_or_empty(view: str, **kwargs) -> str:
    """The page's address, or "" for a stored name no address can carry (e.g. a board
    code ``x/y`` written before names were validated): a page never fails over a link."""
    try:
        return reverse(view, kwargs=kwargs)
    except NoReverseMatch:
        return ""


def board_url(code: str) -> str:
    return _url_or_empty("board", code=code)


def dataset_url(name: str) -> str:
    return _url_or_empty("dataset", name=name)


def metric_label(metric: str | None) -> str:
    """Display name of a metric; "" for a task without that metric (no secondary)."""
    return METRIC_LABELS.get(metric, metric) if metric else ""


# --- board filters ------------------------------------------------------------------


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
    def from_query(cls, query) -> BoardFilters:
        types = tuple(t for t in query.getlist("type") if t in MODEL_TYPES)
        sizes = tuple(s for s in query.getlist("size") if s in SIZE_BUCKETS)
        shots = query.get("shots", "")
        direction = query.get("dir", "asc")
        return cls(
            types=tuple(dict.fromkeys(types)),
            sizes=tuple(dict.fromkeys(sizes)),
            shots=shots if shots in SHOTS else "",
            q=query.get("q", "").strip()[:200],
            sort=query.get("sort", "")[:120],
            direction=direction if direction in ("asc", "desc") else "asc",
            method=query.get("method", "") if query.get("method", "") in method_names() else "",
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
    tasks = [Column(f"task:{t}", TASK_LABELS.get(t, t), "task", title=f"{t} rank score") for t in seen_tasks]
    return languages, tasks, datasets


def _score_cell(score: dict | None) -> dict:
    if not score or not score.get("primary") or score["primary"].get("mean") is None:
        return {"sort": None, "primary": DASH, "primary_ci": "", "secondary": "", "secondary_ci": "", "missing": True}
    primary, secondary = score["primary"], score.get("secondary") or {}
    return {
        "sort": primary["mean"],
        "primary": format_number(primary["mean"]),
        "primary_ci": format_number(primary.get("ci")),
        "secondary": format_number(secondary.get("mean")) if secondary.get("mean") is not None else "",
        "secondary_ci": format_number(secondary.get("ci")) if secondary.get("mean") is not None else "",
        "missing": False,
    }


def _number_cell(value) -> dict:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return {"sort": None, "text": DASH}
    return {"sort": value, "text": format_number(value)}


def _entry_row(entry: LeaderboardEntry, languages, tasks, datasets) -> dict:
    model = entry.model
    badge, type_label = MODEL_TYPES.get(model.model_type, MODEL_TYPES[ModelType.UNKNOWN])
    language_scores = (entry.extra or {}).get("language_rank_scores", {})
    task_scores = entry.task_rank_scores or {}
    scores = entry.scores or {}
    low, high = entry.rank_score_ci_low, entry.rank_score_ci_high
    language_cells = [_number_cell(language_scores.get(c.key[5:])) for c in languages]
    task_cells = [_number_cell(task_scores.get(c.key[5:])) for c in tasks]
    dataset_cells = [_score_cell(scores.get(c.key[3:])) for c in datasets]
    sort_values = {
        c.key: cell["sort"]
        for c, cell in zip(languages + tasks + datasets, language_cells + task_cells + dataset_cells)
    }
    return {
        "position": entry.position,
        "rank": entry.rank,
        "rank_display": str(entry.rank) if entry.rank is not None else DASH,
        "rank_interval": (entry.extra or {}).get("rank_interval"),
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
    }


SIMPLE_SORT_KEYS = {
    "rank": "position",
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
    """The board's version (public): what its cached pages and documents are keyed by."""
    return _board_version(board)


def _board_version(board: Leaderboard) -> str:
    """Changes whenever the board, one of its entries or one of its models changes."""
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


_LOCAL_ROWS: OrderedDict[str, list[dict]] = OrderedDict()
_LOCAL_ROWS_MAX = 16


def board_rows(board: Leaderboard, version: str, languages, tasks, datasets, ranking=None) -> list[dict]:
    """Every entry's display row, cached per board version (and ranking method): in this
    process, then in the shared cache (Redis), else built from the entries. The key changes
    with the board."""
    key = f"glossa:board-rows:v1:{board.code}:{version}"
    if ranking is not None:
        key += f":{ranking.method}:{ranking.method_version}:{ranking.generated_at.isoformat()}"
    rows = _LOCAL_ROWS.get(key)
    if rows is None:
        rows = cache.get(key)
        if rows is None:
            rows = _all_rows(board, languages, tasks, datasets, ranking)
            cache.set(key, rows, BOARD_CACHE_SECONDS)
        _LOCAL_ROWS[key] = rows
        while len(_LOCAL_ROWS) > _LOCAL_ROWS_MAX:
            _LOCAL_ROWS.popitem(last=False)
    else:
        _LOCAL_ROWS.move_to_end(key)
    return rows


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
    ranking = ranking_for(board, filters.method)
    languages, tasks, datasets = board_columns(board)
    version = version or _board_version(board)
    result = Board(
        board=board,
        filters=filters,
        language_columns=languages,
        task_columns=tasks,
        dataset_columns=datasets,
        version=version,
        method=method_info(board, ranking),
    )
    for row in filter_rows(board_rows(board, version, languages, tasks, datasets, ranking), filters):
        (result.ranked if row["rank"] is not None else result.unranked).append(row)
    if filters.sort:
        result.ranked = sort_rows(result.ranked, filters.sort, filters.direction)
        result.unranked = sort_rows(result.unranked, filters.sort, filters.direction)
    result.total_entries = board.num_entries
    return result


def board_export_rows(board: Board) -> tuple[list[str], list[list]]:
    """Header and rows for CSV: exactly the rows and columns the page shows, in its order."""
    header = [
        "position",
        "rank",
        "model",
        "model_id",
        "few_shot",
        "validation_split",
        "model_type",
        "num_parameters",
        "vocabulary_size",
        "max_sequence_length",
        "rank_score",
        "rank_score_ci_low",
        "rank_score_ci_high",
    ]
    header += [f"{c.key.split(':', 1)[1]}_rank_score" for c in board.language_columns]
    header += [f"{c.key.split(':', 1)[1]}_rank_score" for c in board.task_columns]
    for column in board.dataset_columns:
        name = column.key.split(":", 1)[1]
        header += [f"{name}_primary", f"{name}_primary_ci", f"{name}_secondary", f"{name}_secondary_ci"]
    header += ["missing_datasets", "method", "method_version"]
    rows = []
    for row in board.rows:
        line = [
            row["position"],
            row["rank"] if row["rank"] is not None else "",
            row["name"],
            row["model_id"],
            row["few_shot"],
            row["validation_split"],
            row["type"],
            row["num_parameters"] or "",
            row["vocabulary_size"] or "",
            row["max_sequence_length"] or "",
            _csv_number(row["rank_score"]),
            _csv_number(row["ci_low"]),
            _csv_number(row["ci_high"]),
        ]
        line += [_csv_number(cell["sort"]) for cell in row["languages"]]
        line += [_csv_number(cell["sort"]) for cell in row["tasks"]]
        for cell in row["datasets"]:
            line += ["" if cell["missing"] else cell[k] for k in ("primary", "primary_ci", "secondary", "secondary_ci")]
        line += [";".join(row["missing"]), board.method.get("name", ""), board.method.get("version", "")]
        rows.append(line)
    return header, rows


def board_export_document(board: Board) -> dict:
    """The JSON export: the board, the filters and the shown entries."""
    lb = board.board
    entries = []
    for row in board.rows:
        entries.append(
            {
                "position": row["position"],
                "rank": row["rank"],
                "model": row["name"],
                "model_id": row["model_id"],
                "few_shot": row["few_shot"],
                "validation_split": row["validation_split"],
                "model_type": row["type"],
                "num_parameters": row["num_parameters"],
                "vocabulary_size": row["vocabulary_size"],
                "max_sequence_length": row["max_sequence_length"],
                "rank_score": _json_number(row["rank_score"]),
                "rank_score_ci": [_json_number(row["ci_low"]), _json_number(row["ci_high"])],
                "rank_interval": row["rank_interval"],
                "p_above_next": row["p_above_next"],
                "language_rank_scores": {
                    c.key.split(":", 1)[1]: _json_number(cell["sort"])
                    for c, cell in zip(board.language_columns, row["languages"])
                },
                "task_rank_scores": {
                    c.key.split(":", 1)[1]: _json_number(cell["sort"])
                    for c, cell in zip(board.task_columns, row["tasks"])
                },
                "scores": {
                    c.key.split(":", 1)[1]: None
                    if cell["missing"]
                    else {
                        k: float(cell[k]) if cell[k] not in ("", DASH) else None
                        for k in ("primary", "primary_ci", "secondary", "secondary_ci")
                    }
                    for c, cell in zip(board.dataset_columns, row["datasets"])
                },
                "missing_datasets": row["missing"],
                "excluded": row["excluded"],
            }
        )
    return {
        "leaderboard": {
            "code": lb.code,
            "name": lb.name,
            "kind": lb.kind,
            "boards": lb.boards,
            "generated_at": lb.generated_at.isoformat() if lb.generated_at else None,
            "datasets": lb.datasets,
            "method": {"name": board.method.get("name"), "version": board.method.get("version")},
        },
        "filters": board.filters.as_dict(),
        "num_entries_total": board.total_entries,
        "num_entries_shown": len(entries),
        "entries": entries,
    }


def _csv_number(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return ""
    return f"{value:.4f}"


def _json_number(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(value, 4)


# --- home ---------------------------------------------------------------------------


def home_boards() -> dict:
    """Suite, published language and group boards with their number of models and last update."""
    counts = {
        row["leaderboard"]: row
        for row in LeaderboardEntry.objects.values("leaderboard").annotate(
            models=Count("model", distinct=True), entries=Count("id"), ranked=Count("id", filter=Q(rank__isnull=False))
        )
    }
    leaders: dict[str, list[dict]] = defaultdict(list)
    top = (
        LeaderboardEntry.objects.filter(position__lte=3, rank__isnull=False)
        .select_related("model")
        .only("leaderboard_id", "position", "few_shot", "validation_split", "model__model_id")
        .order_by("leaderboard_id", "position")
    )
    for entry in top:
        name = entry_display_name(entry.model.model_id, entry.few_shot, entry.validation_split)
        leaders[entry.leaderboard_id].append({"name": name, "url": model_url(entry.model.model_id)})
    languages, groups, suites = [], [], []
    for board in Leaderboard.objects.all().order_by("name"):
        row = counts.get(board.code, {})
        item = {
            "code": board.code,
            "name": board.name,
            "kind": board.kind,
            "boards": [language_name(b) for b in board.boards],
            "models": row.get("models", 0),
            "entries": row.get("entries", 0),
            "ranked": row.get("ranked", 0),
            "datasets": len(board.datasets),
            "updated": board.generated_at,
            "url": board_url(board.code),
            "leaders": leaders.get(board.code, []),
        }
        if not item["url"]:
            continue  # a board code no address can carry (stored before codes were validated)
        (groups if board.kind == "group" else suites if board.is_suite else languages).append(item)
    return {
        "suites": suites,
        "languages": languages,
        "groups": groups,
        "known_groups": GROUPS,
        "suite_protocol": suite_protocol().describe(),
    }


# --- model page ---------------------------------------------------------------------


def _load_scores(evaluation_ids: list[int]) -> dict[int, dict[str, list[float]]]:
    """evaluation id → metric → iteration values (in iteration order), one query."""
    out: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rows = (
        IterationScore.objects.filter(evaluation_id__in=evaluation_ids)
        .order_by("evaluation_id", "metric", "iteration")
        .values_list("evaluation_id", "metric", "value")
    )
    for evaluation_id, metric, value in rows:
        out[evaluation_id][metric].append(value)
    return out


def _metric_summary(values: list[float] | None) -> dict | None:
    if not values:
        return None
    m, ci = mean_ci(values)
    ci = ci or 0.0
    return {"mean": m * 100, "ci": ci * 100, "text": format_number(m * 100), "ci_text": format_number(ci * 100)}


def find_model(model_id: str) -> LanguageModel | None:
    """The model named ``model_id``; tolerates a missing or extra trailing slash (path ids)."""
    candidates = [model_id, model_id.rstrip("/"), model_id + "/"]
    models = {m.model_id: m for m in LanguageModel.objects.filter(model_id__in=candidates)}
    return next((models[c] for c in candidates if c in models), None)


def model_page(model: LanguageModel) -> dict:
    evaluations = list(
        Evaluation.objects.filter(model=model)
        .select_related("dataset", "dataset_version")
        .order_by("dataset__task", "dataset__name", "-few_shot", "validation_split")
    )
    scores = _load_scores([e.id for e in evaluations])
    rows = []
    for ev in evaluations:
        task = ev.dataset.task
        try:
            spec = get_task(task)
            primary_metric, secondary_metric = spec.primary_metric, spec.secondary_metric
        except ValueError:
            primary_metric, secondary_metric = "", ""
        metric_values = scores.get(ev.id, {})
        record = ev.record or {}
        listed = record.get("dataset_languages")
        languages = [code for code in listed if isinstance(code, str)] if isinstance(listed, list) else []
        rows.append(
            {
                "dataset": ev.dataset.name,
                "dataset_url": dataset_url(ev.dataset.name),
                "task": task,
                "task_label": TASK_LABELS.get(task, task),
                "languages": ", ".join(languages),
                "variant": variant_label(ev.few_shot, ev.validation_split),
                "few_shot": ev.few_shot,
                "validation_split": ev.validation_split,
                "primary_metric": metric_label(primary_metric),
                "secondary_metric": metric_label(secondary_metric),
                "primary": _metric_summary(metric_values.get(primary_metric)),
                "secondary": _metric_summary(metric_values.get(secondary_metric)),
                "primary_values": [v * 100 for v in metric_values.get(primary_metric, [])],
                "iterations": len(metric_values.get(primary_metric, [])) or ev.num_iterations,
                "revision": record.get("model_revision") or ev.revision or "",
                "commit": record.get("model_commit") or "",
                "precision": record.get("precision") or model.precision or "",
                "backend": record.get("backend") or "",
                "prompt_style": record.get("prompt_style") or "",
                "seed": record.get("seed"),
                "limit": record.get("limit"),
                "versions": _versions_text(record.get("versions")),
                "created_at": record.get("created_at") or "",
                "source": ev.source,
                "command": reproduce_command(
                    model.model_id,
                    ev.dataset.name,
                    few_shot=ev.few_shot,
                    validation_split=ev.validation_split,
                    iterations=10,
                ),
            }
        )
    entries = list(
        LeaderboardEntry.objects.filter(model=model)
        .select_related("leaderboard")
        .order_by("leaderboard__name", "position")
    )
    boards = [
        {
            "code": e.leaderboard.code,
            "name": e.leaderboard.name,
            "url": board_url(e.leaderboard.code),
            "variant": entry_display_name(model.model_id, e.few_shot, e.validation_split),
            "rank": e.rank,
            "position": e.position,
            "of": e.leaderboard.num_entries,
            "score": format_number(e.rank_score),
            "score_ci": (
                f"{format_number(e.rank_score_ci_low)}–{format_number(e.rank_score_ci_high)}"
                if e.rank_score_ci_low is not None and e.rank_score_ci_high is not None
                else ""
            ),
            "task_rank_scores": e.task_rank_scores,
            "missing": ", ".join(e.missing_datasets or []),
            "commit": e.commit_sha,
            "commit_short": short_commit(e.commit_sha) if e.commit_sha else "",
        }
        for e in entries
    ]
    history = commit_history(
        model, evaluations, scores, {e.commit_sha for e in entries if e.commit_sha}, _metric_summary
    )
    submissions = list(Submission.objects.filter(model=model).order_by("-created_at")[:50])
    badge, type_label = MODEL_TYPES.get(model.model_type, MODEL_TYPES[ModelType.UNKNOWN])
    return {
        "model": model,
        "type_badge": badge,
        "type_label": type_label,
        "parameters": format_count(model.num_parameters),
        "vocabulary": format_count(model.vocabulary_size),
        "context": format_int(model.max_sequence_length),
        "evaluations": rows,
        "boards": boards,
        "submissions": submissions,
        "history": history,
        "pinned_commit_short": short_commit(model.pinned_commit) if model.pinned_commit else "",
    }


def _versions_text(versions: object) -> str:
    """``{"transformers": "4.46"}`` as "transformers 4.46"; anything else stored is not shown."""
    if not isinstance(versions, dict):
        return ""
    return ", ".join(f"{k} {v}" for k, v in sorted(versions.items(), key=lambda kv: str(kv[0])))


# --- dataset page -------------------------------------------------------------------


def dataset_leaderboard(dataset: Dataset) -> list[dict]:
    """Every (model, variant) evaluated on ``dataset``, best primary mean first."""
    try:
        spec = get_task(dataset.task)
    except UnknownTask:
        return []  # a task the site does not know has no metrics to rank by
    evaluations = list(
        Evaluation.objects.filter(dataset=dataset)
        .select_related("model")
        .only("id", "few_shot", "validation_split", "model__model_id", "model__model_type", "model__num_parameters")
    )
    scores = _load_scores([e.id for e in evaluations])
    rows = []
    for ev in evaluations:
        primary = _metric_summary(scores.get(ev.id, {}).get(spec.primary_metric))
        if primary is None:
            continue
        badge, type_label = MODEL_TYPES.get(ev.model.model_type, MODEL_TYPES[ModelType.UNKNOWN])
        rows.append(
            {
                "name": entry_display_name(ev.model.model_id, ev.few_shot, ev.validation_split),
                "url": model_url(ev.model.model_id),
                "type": ev.model.model_type,
                "type_badge": badge,
                "type_label": type_label,
                "parameters": format_count(ev.model.num_parameters),
                "primary": primary,
                "secondary": _metric_summary(scores.get(ev.id, {}).get(spec.secondary_metric)),
            }
        )
    rows.sort(key=lambda r: -r["primary"]["mean"])
    for position, row in enumerate(rows, start=1):
        row["position"] = position
    return rows


EXAMPLES_PER_SPLIT = 3
EXAMPLE_TEXT_LIMIT = 600


def _head_jsonl(path: Path, count: int) -> list[dict]:
    """The first ``count`` rows of a JSONL file, without reading the rest of it."""
    rows: list[dict] = []
    if not path.is_file():
        return rows
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    break
            if len(rows) >= count:
                break
    return rows


def _shorten(text: str, limit: int = EXAMPLE_TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def format_example(row: dict) -> list[tuple[str, str]]:
    """A data row as (field, text) pairs for display; NER tokens are shown with their tags."""
    if "tokens" in row and "labels" in row:
        tagged = " ".join(t if tag == "O" else f"[{t}|{tag}]" for t, tag in zip(row["tokens"], row["labels"]))
        return [("tokens", _shorten(tagged))]
    pairs = []
    for key, value in row.items():
        if key == "answers" and isinstance(value, dict):
            value = " | ".join(value.get("text", []))
        elif key == "choices" and isinstance(value, list):
            value = "  ".join(f"{'abcdefgh'[i]}. {choice}" for i, choice in enumerate(value))
        elif not isinstance(value, str):
            value = json.dumps(value, ensure_ascii=False)
        pairs.append((key, _shorten(value)))
    return pairs


def dataset_files(
    dataset: Dataset, data_dir: Path
) -> tuple[DatasetInfo | None, dict[str, list[list[tuple[str, str]]]]]:
    """The dataset's ``dataset.json`` (found and parsed with evaluation.datasets) and the first
    few rows of each split; never the whole files, never the Hub (this runs in a page view)."""
    if dataset.path:
        folder = Path(dataset.path)
    elif DATASET_NAME.match(dataset.name):
        folder = find_local(dataset.name, data_dir) or Path(data_dir) / dataset.name
    else:
        return None, {}  # a stored name that is no folder name (``x/ds``): never a path outside the data dir
    meta_file = folder / "dataset.json"
    info = None
    if meta_file.is_file():
        try:
            info = DatasetInfo.from_json(json.loads(meta_file.read_text(encoding="utf-8")), folder)
        except (ValueError, InvalidDataset):
            info = None
    examples = {}
    for split in SPLITS:
        rows = _head_jsonl(folder / f"{split}.jsonl", EXAMPLES_PER_SPLIT)
        if rows:
            examples[split] = [format_example(row) for row in rows]
    return info, examples


def dataset_page(dataset: Dataset, data_dir: Path) -> dict:
    info, examples = dataset_files(dataset, data_dir)
    try:
        spec = get_task(dataset.task)
        primary, secondary = metric_label(spec.primary_metric), metric_label(spec.secondary_metric)
    except UnknownTask:
        primary, secondary = "primary", "secondary"
    sizes = {
        "train": dataset.train_size if dataset.train_size is not None else (info.splits.get("train") if info else None),
        "val": dataset.val_size if dataset.val_size is not None else (info.splits.get("val") if info else None),
        "test": dataset.test_size if dataset.test_size is not None else (info.splits.get("test") if info else None),
    }
    languages = [language.name for language in dataset.languages.all()]
    if not languages and info:
        languages = [language_name(code) for code in info.languages]
    return {
        "dataset": dataset,
        "task_label": TASK_LABELS.get(dataset.task, dataset.task),
        "languages": ", ".join(languages),
        "description": dataset.description or (info.description if info else ""),
        "source": dataset.source or (info.source if info else ""),
        "license": dataset.license or (info.license if info else ""),
        "citation": dataset.citation or (info.citation if info else ""),
        "sizes": {split: format_int(size) for split, size in sizes.items()},
        "examples": examples,
        "primary_metric": primary,
        "secondary_metric": secondary,
        "leaderboard": dataset_leaderboard(dataset),
    }
