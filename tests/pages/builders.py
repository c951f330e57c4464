"""Build realistic boards with the ORM: models, datasets, evaluations with iteration scores,
and the cached Leaderboard / LeaderboardEntry rows that aggregation would write.

Used by the page tests and by benchmarks/pages_speed.py. Numbers are deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from django.utils import timezone

from evaluation.stats import mean_ci
from evaluation.tasks import get_task
from leaderboard.identity import PUBLISHED
from leaderboard.models import (
    Dataset,
    Evaluation,
    IterationScore,
    Language,
    LanguageModel,
    Leaderboard,
    LeaderboardEntry,
)


@dataclass
class EntrySpec:
    model_id: str
    model_type: str = "encoder"
    num_parameters: int | None = 125_000_000
    few_shot: bool = True
    validation_split: bool = False
    quality: float = 0.5  # 0..1, higher is better
    missing: tuple[str, ...] = ()
    vocabulary_size: int | None = 50_000
    max_sequence_length: int | None = 512


DA_DATASETS = [
    ("scala-da", "linguistic-acceptability"),
    ("angry-tweets", "sentiment-classification"),
    ("dane", "named-entity-recognition"),
    ("scandiqa-da", "reading-comprehension"),
]

DA_ENTRIES = [
    EntrySpec(
        "acme/big-chat-70b",
        "instruction-tuned",
        70_600_000_000,
        quality=0.9,
        vocabulary_size=128_256,
        max_sequence_length=131_072,
    ),
    EntrySpec(
        "acme/big-chat-70b",
        "instruction-tuned",
        70_600_000_000,
        few_shot=False,
        quality=0.8,
        vocabulary_size=128_256,
        max_sequence_length=131_072,
    ),
    EntrySpec("claude-sonnet-4-6", "reasoning", None, quality=0.95, vocabulary_size=None, max_sequence_length=200_000),
    EntrySpec("acme/base-7b", "base", 7_240_000_000, quality=0.6, vocabulary_size=32_000, max_sequence_length=4096),
    EntrySpec("danish/bert-base", "encoder", 110_000_000, quality=0.55),
    EntrySpec("tiny/encoder-s", "encoder", 22_000_000, quality=0.3),
    EntrySpec(
        "acme/mid-13b",
        "base",
        13_000_000_000,
        quality=0.5,
        missing=("dane",),
        vocabulary_size=32_000,
        max_sequence_length=4096,
    ),
]


@dataclass
class BuiltBoard:
    board: Leaderboard
    entries: list[LeaderboardEntry] = field(default_factory=list)


def ensure_dataset(name: str, task: str, language: str = "da") -> Dataset:
    dataset, created = Dataset.objects.get_or_create(name=name, defaults={"task": task, "origin": "results"})
    if created:
        dataset.languages.add(
            Language.objects.get_or_create(code=language, defaults={"name": language, "board": language})[0]
        )
    return dataset


def _iterations(rng: random.Random, quality: float, count: int = 10) -> list[float]:
    return [min(1.0, max(0.0, rng.gauss(quality, 0.02))) for _ in range(count)]


def _summary(values: list[float]) -> dict:
    mean, ci = mean_ci(values)
    return {"mean": mean * 100, "ci": (ci or 0.0) * 100}


def build_board(
    code: str = "da",
    name: str = "Danish",
    datasets: list[tuple[str, str]] | None = None,
    entries: list[EntrySpec] | None = None,
    *,
    kind: str = "language",
    boards: list[str] | None = None,
    with_scores: bool = True,
    seed: int = 7,
) -> BuiltBoard:
    """A board with one LeaderboardEntry per spec, ranked by quality (best first).

    With ``with_scores`` the models also get Evaluation and IterationScore rows, so model
    and dataset pages have data. Rank groups: entries whose quality differs by < 0.03 share a rank.
    """
    datasets = datasets if datasets is not None else DA_DATASETS
    entries = entries if entries is not None else DA_ENTRIES
    rng = random.Random(seed)
    board = Leaderboard.objects.create(
        code=code,
        name=name,
        kind=kind,
        boards=boards or [],
        datasets=[
            {
                "name": ds,
                "task": task,
                "primary_metric": get_task(task).primary_metric,
                "secondary_metric": get_task(task).secondary_metric,
            }
            for ds, task in datasets
        ],
        num_entries=len(entries),
        generated_at=timezone.now(),
    )
    dataset_rows = (
        {ds: ensure_dataset(ds, task, code if kind == "language" else "da") for ds, task in datasets}
        if with_scores
        else {}
    )
    ordered = sorted(entries, key=lambda e: (bool(e.missing), -e.quality))
    rank, previous_quality = 0, None
    built = BuiltBoard(board=board)
    evaluations, score_rows = [], []
    for position, spec in enumerate(ordered, start=1):
        model, _ = LanguageModel.objects.get_or_create(
            model_id=spec.model_id,
            defaults={
                "model_type": spec.model_type,
                "num_parameters": spec.num_parameters,
                "vocabulary_size": spec.vocabulary_size,
                "max_sequence_length": spec.max_sequence_length,
            },
        )
        scores, per_task = {}, {}
        for ds, task in datasets:
            if ds in spec.missing:
                continue
            primary = _iterations(rng, spec.quality)
            secondary = _iterations(rng, min(1.0, spec.quality + 0.1))
            rank_score = 1 + (1 - spec.quality) * 3
            scores[ds] = {
                "primary": {"metric": get_task(task).primary_metric, **_summary(primary)},
                "secondary": {"metric": get_task(task).secondary_metric, **_summary(secondary)},
                "rank_score": rank_score,
            }
            per_task.setdefault(task, []).append(rank_score)
            if with_scores:
                evaluation = Evaluation(
                    model=model,
                    dataset=dataset_rows[ds],
                    dataset_version=dataset_rows[ds].ensure_version(PUBLISHED),
                    few_shot=spec.few_shot,
                    validation_split=spec.validation_split,
                    revision="main",
                    source="tests",
                    num_iterations=10,
                    record={
                        "dataset_languages": [code],
                        "model_revision": "main",
                        "precision": "bf16",
                        "backend": "transformers",
                        "prompt_style": "chat" if spec.model_type == "instruction-tuned" else "base",
                        "seed": 4242,
                        "versions": {"torch": "2.13.0", "transformers": "5.23.0"},
                        "created_at": "2026-11-21T10:00:00+00:00",
                    },
                )
                evaluations.append((evaluation, primary, secondary, get_task(task)))
        ranked = not spec.missing
        if ranked:
            if previous_quality is None or previous_quality - spec.quality >= 0.03:
                rank += 1
            previous_quality = spec.quality
        score = 1 + (1 - spec.quality) * 3 if ranked else None
        built.entries.append(
            LeaderboardEntry(
                leaderboard=board,
                model=model,
                few_shot=spec.few_shot,
                validation_split=spec.validation_split,
                position=position,
                rank=rank if ranked else None,
                rank_score=score,
                rank_score_ci_low=score - 0.08 if ranked else None,
                rank_score_ci_high=score + 0.11 if ranked else None,
                task_rank_scores={} if kind == "group" else {t: sum(v) / len(v) for t, v in per_task.items()},
                scores={} if kind == "group" else scores,
                missing_datasets=list(spec.missing),
                extra={"language_rank_scores": dict.fromkeys(boards or [], score)} if kind == "group" else {},
            )
        )
    LeaderboardEntry.objects.bulk_create(built.entries)
    if with_scores:
        Evaluation.objects.bulk_create([e for e, *_ in evaluations], ignore_conflicts=False)
        for evaluation, primary, secondary, spec in evaluations:
            for metric, values in ((spec.primary_metric, primary), (spec.secondary_metric, secondary)):
                score_rows += [
                    IterationScore(evaluation=evaluation, iteration=i, metric=metric, value=v)
                    for i, v in enumerate(values)
                ]
        IterationScore.objects.bulk_create(score_rows)
    return built


def synthetic_entries(count: int, seed: int = 1) -> list[EntrySpec]:
    """``count`` entries of mixed types and sizes (about 1 in 10 misses a dataset)."""
    rng = random.Random(seed)
    types = ["encoder", "base", "instruction-tuned", "reasoning", "unknown"]
    out = []
    for i in range(count):
        model_type = types[i % len(types)]
        params = None if i % 17 == 0 else int(10 ** rng.uniform(7.5, 11.5))
        out.append(
            EntrySpec(
                f"org{i % 40}/model-{i:04d}",
                model_type,
                params,
                few_shot=i % 7 != 0,
                quality=rng.uniform(0.1, 0.95),
                missing=("ds-3",) if i % 10 == 9 else (),
            )
        )
    return out
