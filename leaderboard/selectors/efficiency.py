"""Reads for what running a model costs (issue #26): a board's efficiency view and the cost
section of a model page. Nothing here touches a rank score: the view reads the board's
cached entries for their rank score and place, and the costs beside them.

Numbers compare only within one hardware identity, (hardware class, backend): every table
is one identity, headed by its hardware line, and a page that holds CPU and GPU identities
says so. Per entry and identity, over the board's datasets the entry was measured on:
throughput is pooled (all tokens over all the time they took; reference tokens make models
with different tokenizers comparable), latency is the median of the datasets' per-example
medians and the largest p95, memory the largest peak, energy the sum when every dataset
has it. EuroEval's published speed records are their own kind (``published_speed.py``).
"""

from __future__ import annotations

import statistics
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
from leaderboard.selectors.formatting import DASH, format_number, model_url, variant_label
from leaderboard.services.published_speed import KINDS

COST_AXES = {
    "throughput": ("Throughput (reference prompt tokens/s, higher is better)", True),
    "memory": ("Peak memory (GB, lower is better)", False),
}
DEFAULT_AXIS = "throughput"


# --- display helpers (pure) ---------------------------------------------------------


def device_label(device: str) -> str:
    """CPU, GPU or a remote server (the openai backend, whose hardware is not seen)."""
    return {DeviceKind.CPU: "CPU", DeviceKind.REMOTE: "Remote server"}.get(device, "GPU")


def mixed(devices) -> bool:
    """Whether figures of more than one kind of device (CPU, GPU, remote) are on one page."""
    return len({device_label(device) for device in devices}) > 1


def hardware_line(hardware: dict) -> str:
    """``2 × NVIDIA H100 · vllm 0.11 · bfloat16 · batch 8 · driver 550 · torch 2.13`` from a
    stored hardware dict (checked on import; read defensively all the same)."""
    get = lambda key: hardware.get(key) if isinstance(hardware.get(key), str | int) else None  # noqa: E731
    device = f"{get('device_count') or 1} × {get('device_name') or '?'}"
    if hardware.get("device") == DeviceKind.CPU:
        device = f"{get('cpu_model') or get('device_name') or '?'}, {get('cpu_threads') or '?'} threads"
    backend = get("backend") or "?"
    engine = get("vllm") if backend == "vllm" else get("transformers") if backend == "transformers" else None
    parts = [
        f"{device_label(str(hardware.get('device')))}: {device}",
        f"{backend} {engine}" if engine else backend,
        str(get("dtype") or "?") + (f" ({get('quantisation')})" if get("quantisation") else ""),
        f"batch {get('batch_size')}" if get("batch_size") else "",
        f"driver {get('driver')}" if get("driver") else "",
        f"torch {get('torch')}" if get("torch") else "",
    ]
    return " · ".join(part for part in parts if part)


def format_rate(value: float | None) -> str:
    if value is None:
        return DASH
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def format_bytes(value: float | None) -> str:
    return DASH if value is None else f"{value / 1e9:.2f} GB"


def format_ms(value: float | None) -> str:
    if value is None:
        return DASH
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.3g} ms"


# --- per-entry pooling (pure) -------------------------------------------------------


@dataclass
class Pooled:
    """One entry's costs on one hardware identity, over its measured datasets."""

    datasets: int
    reference_rate: float | None  # reference prompt tokens per second
    prompt_rate: float | None  # the model's own prompt tokens per second
    generated_rate: float | None
    latency_median: float
    latency_p95: float
    peak_memory: int | None  # None: a remote server, whose memory is not seen
    memory_kind: str
    energy: float | None
    wall_seconds: float

    @classmethod
    def of(cls, costs: list[EvaluationCost]) -> Pooled:
        prompt_time = sum(c.prompt_seconds for c in costs)
        generation_time = sum(c.generation_seconds for c in costs)
        energies = [c.energy_joules for c in costs]
        return cls(
            datasets=len(costs),
            reference_rate=sum(c.reference_prompt_tokens for c in costs) / prompt_time if prompt_time else None,
            prompt_rate=sum(c.prompt_tokens for c in costs) / prompt_time if prompt_time else None,
            generated_rate=sum(c.generated_tokens for c in costs) / generation_time if generation_time else None,
            latency_median=statistics.median(c.latency_median_ms for c in costs),
            latency_p95=max(c.latency_p95_ms for c in costs),
            peak_memory=max((c.peak_memory_bytes for c in costs if c.peak_memory_bytes is not None), default=None),
            memory_kind=costs[0].peak_memory_kind,
            energy=sum(energies) if all(e is not None for e in energies) else None,
            wall_seconds=sum(c.wall_seconds for c in costs),
        )


# --- a board's efficiency view ------------------------------------------------------


def _board_datasets(board: Leaderboard) -> dict[str, dict]:
    """The datasets a board counts, by name, with their version and protocol (a group
    board counts its language boards' datasets)."""
    specs = list(board.datasets or [])
    if board.kind == "group":
        for row in Leaderboard.objects.filter(code__in=board.boards or []).only("datasets"):
            specs.extend(row.datasets or [])
    return {spec["name"]: spec for spec in specs if isinstance(spec, dict) and isinstance(spec.get("name"), str)}


def _counted(cost: EvaluationCost, entry: LeaderboardEntry, datasets: dict[str, dict]) -> bool:
    """Whether the cost is of an evaluation the entry's board counts: its dataset version
    and protocol, the entry's variant and shown commit."""
    ev = cost.evaluation
    spec = datasets.get(ev.dataset.name)
    if spec is None or (ev.few_shot, ev.validation_split) != (entry.few_shot, entry.validation_split):
        return False
    if entry.commit_sha and ev.commit_sha != entry.commit_sha:
        return False
    version = spec.get("version")
    if version and ev.dataset_version.fingerprint != version:
        return False
    return not spec.get("protocol") or Protocol(ev.num_iterations, ev.test_limit).key == spec["protocol"]


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


def _cost_groups(entries: list[LeaderboardEntry], datasets: dict[str, dict]) -> list[dict]:
    by_model: dict[int, list[LeaderboardEntry]] = defaultdict(list)
    for entry in entries:
        by_model[entry.model_id].append(entry)
    costs = EvaluationCost.objects.filter(
        evaluation__model_id__in=list(by_model), evaluation__dataset__name__in=list(datasets)
    ).select_related("evaluation__dataset", "evaluation__dataset_version")
    grouped: dict[tuple[str, str], dict] = {}
    for cost in costs:
        for entry in by_model[cost.evaluation.model_id]:
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
            rows.append({**_entry_head(entry_of[pk]), "pooled": pooled, **_pooled_text(pooled, len(datasets))})
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


def _pooled_text(pooled: Pooled, of: int) -> dict:
    return {
        "measured": f"{pooled.datasets} of {of}",
        "reference_rate": format_rate(pooled.reference_rate),
        "prompt_rate": format_rate(pooled.prompt_rate),
        "generated_rate": format_rate(pooled.generated_rate),
        "latency_median": format_ms(pooled.latency_median),
        "latency_p95": format_ms(pooled.latency_p95),
        "memory": format_bytes(pooled.peak_memory),
        "memory_kind": {"gpu": "GPU", "resident": "resident"}.get(pooled.memory_kind, ""),
        "energy": f"{pooled.energy / 1000:,.2f} kJ" if pooled.energy is not None else DASH,
    }


def benchmark_rows(benchmark: SpeedBenchmark) -> list[dict]:
    """A speed benchmark's runs for display, shortest prompt and smallest batch first."""
    runs = [run for run in benchmark.runs if isinstance(run, dict)]
    runs.sort(key=lambda run: (run.get("prompt_reference_tokens") or 0, run.get("batch_size") or 0))
    return [
        {
            "prompt": run.get("prompt_reference_tokens"),
            "batch": run.get("batch_size"),
            "repetitions": run.get("repetitions"),
            "prompt_rate": format_rate(run.get("prompt_tokens_per_second")),
            "generated_rate": format_rate(run.get("generated_tokens_per_second")),
            "latency_median": format_ms((run.get("latency_ms") or {}).get("median")),
            "latency_p95": format_ms((run.get("latency_ms") or {}).get("p95")),
            "memory": format_bytes(run.get("peak_memory_bytes")),
        }
        for run in runs
    ]


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
    costs = (
        EvaluationCost.objects.filter(evaluation__model=model)
        .select_related("evaluation__dataset")
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
                **_pooled_text(Pooled.of([cost]), 1),
                "energy_reason": cost.energy_unavailable_reason,
            }
        )
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
    cost_groups = list(groups.values())
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
        "published_speeds": published,
    }
