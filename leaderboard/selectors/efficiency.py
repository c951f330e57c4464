"""Reads for what running a model costs (docs/methodology.md §11): a board's efficiency view and the cost
section of a model page. Nothing here touches a rank score: the view reads the board's
cached entries for their rank score and place, and the costs beside them.

Numbers compare only within one hardware identity, (hardware class, backend): every table
is one identity, headed by its hardware line, and a page that holds CPU and GPU identities
says so. Per entry and identity, over the board's datasets the entry was measured on:
throughput is pooled (all tokens over all the time they took; reference tokens make models
with different tokenizers comparable), latency is the median of the datasets' per-example
medians and the largest p95, memory the largest peak, energy the sum when every dataset
has it. EuroEval's published speed records are their own kind (``speed_kinds.py``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Max

from leaderboard.identity import Protocol
from leaderboard.models import (
    DeviceKind,
    EvaluationCost,
    LanguageModel,
    Leaderboard,
    LeaderboardEntry,
    PublishedSpeed,
    SpeedBenchmark,
)
from leaderboard.pareto import pareto_front
from leaderboard.ranking import entry_display_name
from leaderboard.selectors.cost_display import (
    Pooled,
    benchmark_rows,
    device_label,
    format_rate,
    hardware_line,
    mixed,
    pooled_text,
)
from leaderboard.selectors.formatting import DASH, format_number, model_url, variant_label
from leaderboard.selectors.speed_kinds import KINDS

COST_AXES = {
    "throughput": ("Throughput (reference prompt tokens/s, higher is better)", True),
    "memory": ("Peak memory (GB, lower is better)", False),
}
DEFAULT_AXIS = "throughput"


# --- a board's efficiency view ------------------------------------------------------


def _board_datasets(board: Leaderboard) -> dict[str, dict]:
    """The datasets a board counts, by name, with their version and protocol (a group
    board counts its language boards' datasets)."""
    specs = list(board.datasets or [])
    if board.kind == "group":
        for row in Leaderboard.objects.filter(code__in=board.boards or []).only("datasets"):
            specs.extend(row.datasets or [])
    return {spec["name"]: spec for spec in specs if isinstance(spec, dict) and isinstance(spec.get("name"), str)}


def _counted(cost: CostRow, entry: LeaderboardEntry, datasets: dict[str, dict]) -> bool:
    """Whether the cost is of an evaluation the entry's board counts: its dataset version
    and protocol, the entry's variant and shown commit."""
    spec = datasets.get(cost.dataset)
    if spec is None or (cost.few_shot, cost.validation_split) != (entry.few_shot, entry.validation_split):
        return False
    if entry.commit_sha and cost.commit_sha != entry.commit_sha:
        return False
    version = spec.get("version")
    if version and cost.fingerprint != version:
        return False
    return not spec.get("protocol") or Protocol(cost.num_iterations, cost.test_limit).key == spec["protocol"]


def efficiency_stamp() -> str:
    """Changes whenever a cost, a speed benchmark or a published speed record is stored:
    with the board's version, it keys the cached efficiency view."""
    costs = EvaluationCost.objects.aggregate(n=Count("evaluation"), at=Max("evaluation__updated_at"))
    speeds = SpeedBenchmark.objects.aggregate(n=Count("id"), at=Max("updated_at"))
    published = PublishedSpeed.objects.aggregate(n=Count("id"), at=Max("updated_at"))
    return "|".join(
        f"{part['n']}:{part['at'].isoformat() if part['at'] else '-'}" for part in (costs, speeds, published)
    )


def _group_title(hardware_class: str, backend: str, device: str) -> str:
    return f"{device_label(device)} · {hardware_class} · {backend}"


def _entry_head(entry: LeaderboardEntry) -> dict:
    return {
        "name": entry_display_name(entry.model.model_id, entry.few_shot, entry.validation_split),
        "url": model_url(entry.model.model_id),
        "rank": entry.rank,
        "rank_score": entry.rank_score,
        "score": format_number(entry.rank_score),
        "position": entry.position,
    }


@dataclass(frozen=True, slots=True)
class CostRow:
    """What the view reads of a cost and its evaluation: plain values (a board's thousands of
    costs are not built as model instances)."""

    hardware_class: str
    backend: str
    device: str
    hardware: dict
    wall_seconds: float
    prompt_tokens: int
    generated_tokens: int
    reference_prompt_tokens: int
    prompt_tokens_per_second: float
    generated_tokens_per_second: float
    latency_median_ms: float
    latency_p95_ms: float
    peak_memory_bytes: int | None
    peak_memory_kind: str
    energy_joules: float | None
    model_id: int
    few_shot: bool
    validation_split: bool
    commit_sha: str
    num_iterations: int
    test_limit: int
    dataset: str
    fingerprint: str


# CostRow's fields, in its order, as the query names them.
COST_COLUMNS = (
    "hardware_class",
    "backend",
    "device",
    "hardware",
    "wall_seconds",
    "prompt_tokens",
    "generated_tokens",
    "reference_prompt_tokens",
    "prompt_tokens_per_second",
    "generated_tokens_per_second",
    "latency_median_ms",
    "latency_p95_ms",
    "peak_memory_bytes",
    "peak_memory_kind",
    "energy_joules",
    "evaluation__model_id",
    "evaluation__few_shot",
    "evaluation__validation_split",
    "evaluation__commit_sha",
    "evaluation__num_iterations",
    "evaluation__test_limit",
    "evaluation__dataset__name",
    "evaluation__dataset_version__fingerprint",
)


def _cost_groups(entries: list[LeaderboardEntry], datasets: dict[str, dict]) -> list[dict]:
    by_model: dict[int, list[LeaderboardEntry]] = defaultdict(list)
    for entry in entries:
        by_model[entry.model_id].append(entry)
    values = EvaluationCost.objects.filter(
        evaluation__model_id__in=list(by_model), evaluation__dataset__name__in=list(datasets)
    ).values_list(*COST_COLUMNS)
    grouped: dict[tuple[str, str], dict] = {}
    for cost in (CostRow(*row) for row in values):
        for entry in by_model[cost.model_id]:
            if not _counted(cost, entry, datasets):
                continue
            group = grouped.setdefault(
                (cost.hardware_class, cost.backend),
                {"device": cost.device, "hardware": cost.hardware, "entries": defaultdict(list)},
            )
            group["entries"][entry.pk].append(cost)
    entry_of = {entry.pk: entry for entry in entries}
    groups = []
    for (hardware_class, backend), group in grouped.items():
        rows = []
        for pk, entry_costs in group["entries"].items():
            pooled = Pooled.of(entry_costs)
            rows.append({**_entry_head(entry_of[pk]), "pooled": pooled, **pooled_text(pooled, len(datasets))})
        rows.sort(key=lambda row: row["position"])
        groups.append(
            {
                "title": _group_title(hardware_class, backend, group["device"]),
                "hardware_class": hardware_class,
                "backend": backend,
                "device": group["device"],
                "device_label": device_label(group["device"]),
                "hardware_line": hardware_line(group["hardware"]),
                "rows": rows,
            }
        )
    groups.sort(key=lambda g: (g["device"] == DeviceKind.CPU, g["title"]))
    return groups


def _benchmark_groups(entries: list[LeaderboardEntry]) -> list[dict]:
    """The controlled speed benchmarks of the board's models (the view's primary numbers),
    the newest per model and hardware identity, the entry's shown commit where it has one."""
    heads = {}
    for entry in entries:
        heads.setdefault(entry.model_id, entry)
    benchmarks = SpeedBenchmark.objects.filter(model_id__in=list(heads)).order_by("-updated_at")
    grouped: dict[tuple[str, str], dict] = {}
    for bench in benchmarks:
        entry = heads[bench.model_id]
        if entry.commit_sha and bench.commit_sha and bench.commit_sha != entry.commit_sha:
            continue
        group = grouped.setdefault((bench.hardware_class, bench.backend), {"bench": bench, "models": {}, "rows": []})
        if bench.model_id in group["models"]:
            continue
        group["models"][bench.model_id] = True
        group["rows"].append({**_entry_head(entry), "name": entry.model.model_id, "runs": benchmark_rows(bench)})
    return [
        {
            "title": _group_title(key[0], key[1], group["bench"].device),
            "device": group["bench"].device,
            "hardware_line": hardware_line(group["bench"].hardware),
            "rows": sorted(group["rows"], key=lambda row: row["position"]),
        }
        for key, group in sorted(grouped.items(), key=lambda item: (item[1]["bench"].device == "cpu", item[0]))
    ]


def _published_groups(models: list[LanguageModel]) -> list[dict]:
    """EuroEval's published speed records of these models, one table per kind."""
    rows = PublishedSpeed.objects.filter(model__in=models).select_related("model").order_by("model__model_id")
    grouped: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        kind = KINDS.get(row.protocol)
        if kind is None:
            continue
        means = row.means if isinstance(row.means, dict) else {}
        grouped[kind.key].append(
            {
                "name": row.model.model_id,
                "url": model_url(row.model.model_id),
                "values": [_mean_text(means.get(bucket)) for bucket in kind.buckets],
                "source": row.source,
            }
        )
    return [
        {"kind": KINDS[key], "bucket_names": [_bucket_name(b, KINDS[key]) for b in KINDS[key].buckets], "rows": rows}
        for key, rows in grouped.items()
    ]


def _bucket_name(bucket: str, kind) -> str:
    if len(kind.buckets) == 1:
        return "~600-token document"
    return "long documents (~100-1,000 tokens)" if bucket == "speed" else "short documents"


def _mean_text(mean: object) -> str:
    if not isinstance(mean, dict) or not isinstance(mean.get("mean"), int | float):
        return DASH
    se = mean.get("se")
    return format_rate(mean["mean"]) + (f" ± {format_rate(1.96 * se)}" if isinstance(se, int | float) else "")


def chart_points(groups: list[dict], axis: str) -> list[dict]:
    """Points of the quality-vs-cost chart: per hardware identity, each entry with a rank
    score and the cost on ``axis``; ``front`` marks the identity's Pareto front."""
    maximise = COST_AXES[axis][1]
    points = []
    for group in groups:
        placed = [
            row
            for row in group["rows"]
            if row["rank_score"] is not None
            and (row["pooled"].reference_rate if axis == "throughput" else row["pooled"].peak_memory) is not None
        ]
        xy = [
            (
                row["pooled"].reference_rate if axis == "throughput" else row["pooled"].peak_memory / 1e9,
                row["rank_score"],
            )
            for row in placed
        ]
        front = set(pareto_front(xy, maximise_x=maximise))
        for index, (row, (x, y)) in enumerate(zip(placed, xy, strict=True)):
            points.append(
                {
                    "group": group["title"],
                    "device": group["device"],
                    "name": row["name"],
                    "x": x,
                    "y": y,
                    "front": index in front,
                }
            )
    return points


def board_efficiency(board: Leaderboard, axis: str = DEFAULT_AXIS) -> dict:
    """The board's efficiency view: speed benchmarks (primary), the costs of the counted
    evaluations per hardware identity (secondary), EuroEval's published speed (its own kind)."""
    axis = axis if axis in COST_AXES else DEFAULT_AXIS
    entries = list(LeaderboardEntry.objects.filter(leaderboard=board).select_related("model").order_by("position"))
    groups = _cost_groups(entries, _board_datasets(board))
    benchmarks = _benchmark_groups(entries)
    return {
        "board": board,
        "axis": axis,
        "axes": [(key, label) for key, (label, _) in COST_AXES.items()],
        "axis_label": COST_AXES[axis][0],
        "groups": groups,
        "mixed_devices": mixed(g["device"] for g in groups) or mixed(g["device"] for g in benchmarks),
        "benchmarks": benchmarks,
        "published": _published_groups(list({e.model_id: e.model for e in entries}.values())),
        "points": chart_points(groups, axis),
        "entries": len(entries),
    }


# --- a model page's costs ---------------------------------------------------------


def model_efficiency(model: LanguageModel) -> dict:
    """The cost of each of the model's evaluations with its hardware line, its speed
    benchmarks, and EuroEval's published speed records of it (their own kind)."""
    cost_groups = _model_cost_groups(model)
    return {
        "cost_groups": cost_groups,
        "mixed_devices": mixed(g["device"] for g in cost_groups),
        "benchmarks": [
            {
                "title": _group_title(b.hardware_class, b.backend, b.device),
                "hardware_line": hardware_line(b.hardware),
                "commit": b.commit_sha[:12],
                "measured_at": b.measured_at,
                "runs": benchmark_rows(b),
            }
            for b in SpeedBenchmark.objects.filter(model=model).order_by("-updated_at")
        ],
        "published_speeds": _model_published_speeds(model),
    }


def _model_cost_groups(model: LanguageModel) -> list[dict]:
    """The costs of the model's evaluations, one group per (hardware class, backend)."""
    costs = (
        EvaluationCost.objects.filter(evaluation__model=model)
        .select_related("evaluation__dataset")
        .defer("evaluation__record")
        .order_by("device", "hardware_class", "backend", "evaluation__dataset__name")
    )
    groups: dict[tuple[str, str], dict] = {}
    for cost in costs:
        ev = cost.evaluation
        group = groups.setdefault(
            (cost.hardware_class, cost.backend),
            {
                "title": _group_title(cost.hardware_class, cost.backend, cost.device),
                "hardware_line": hardware_line(cost.hardware),
                "device": cost.device,
                "rows": [],
            },
        )
        group["rows"].append(
            {
                "dataset": ev.dataset.name,
                "variant": variant_label(ev.few_shot, ev.validation_split),
                "commit": ev.commit_sha[:12],
                "examples": cost.examples,
                "wall": f"{cost.wall_seconds:,.1f} s",
                "load": f"{cost.load_seconds:,.1f} s",
                **pooled_text(Pooled.of([cost]), 1),
                "energy_reason": cost.energy_unavailable_reason,
            }
        )
    return list(groups.values())


def _model_published_speeds(model: LanguageModel) -> list[dict]:
    """EuroEval's published speed records of the model, one per protocol the site knows."""
    published = []
    for row in PublishedSpeed.objects.filter(model=model).order_by("protocol"):
        kind = KINDS.get(row.protocol)
        if kind is None:
            continue
        iterations = [it for it in row.iterations if isinstance(it, dict)]
        buckets = [
            {"label": kind.bucket_label(bucket, i), "value": format_rate(it.get(bucket))}
            for i, it in enumerate(iterations)
            for bucket in kind.buckets
        ]
        published.append({"kind": kind, "buckets": buckets, "source": row.source})
    return published
