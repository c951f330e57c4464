"""Boards built from the shared published results, for the browser tests.

The results are imported with the lead's importer. The cached board rows are then
written by the ranking helper's aggregation service when it is available; until then
:func:`approximate_boards` writes them with a simplified ranking (rank score = 1 + gap to
the best mean in population standard deviations, no significance tests, CI = ± the
spread of the dataset rank scores). That is a page fixture, not the methodology.
"""

from __future__ import annotations

import math
from collections import defaultdict
from statistics import mean, pstdev

from django.utils import timezone

from evaluation.tasks import get_task
from leaderboard.languages import board_of, language_name
from leaderboard.models import Evaluation, IterationScore, Leaderboard, LeaderboardEntry
from leaderboard.selectors import mean_ci


def approximate_boards(codes=("da", "sv", "no")) -> list[Leaderboard]:
    evaluations = list(Evaluation.objects.select_related("dataset", "model").prefetch_related("dataset__languages"))
    values: dict[tuple[int, str], list[float]] = defaultdict(list)
    for ev_id, metric, value in IterationScore.objects.order_by("iteration").values_list("evaluation_id", "metric", "value"):
        values[(ev_id, metric)].append(value)
    boards = []
    for code in codes:
        board_evals = [
            ev for ev in evaluations
            if ev.dataset.counts_toward_leaderboard and code in {board_of(lang.code) for lang in ev.dataset.languages.all()}
        ]
        datasets = sorted({(ev.dataset.name, ev.dataset.task) for ev in board_evals})
        by_entry: dict[tuple, dict[str, Evaluation]] = defaultdict(dict)
        for ev in board_evals:
            by_entry[(ev.model_id, ev.few_shot, ev.validation_split)][ev.dataset.name] = ev
        # Per dataset: every entry's primary mean, σ of the means, rank score from the best.
        summaries: dict[tuple, dict[str, dict]] = defaultdict(dict)
        for name, task in datasets:
            spec = get_task(task)
            means = {}
            for key, evs in by_entry.items():
                ev = evs.get(name)
                if ev and values.get((ev.id, spec.primary_metric)):
                    p_mean, p_ci = mean_ci(values[(ev.id, spec.primary_metric)])
                    s_mean, s_ci = mean_ci(values.get((ev.id, spec.secondary_metric)) or [p_mean])
                    means[key] = p_mean
                    summaries[key][name] = {"primary": {"metric": spec.primary_metric, "mean": p_mean * 100, "ci": p_ci * 100},
                                            "secondary": {"metric": spec.secondary_metric, "mean": s_mean * 100, "ci": s_ci * 100}}
            sigma = pstdev(means.values()) if len(means) > 1 else 1.0
            best = max(means.values()) if means else 0
            for key, m in means.items():
                summaries[key][name]["rank_score"] = 1 + (best - m) / (sigma or 1.0)
        board, _ = Leaderboard.objects.update_or_create(code=code, defaults={
            "name": language_name(code), "kind": "language", "boards": [],
            "datasets": [{"name": n, "task": t, "primary_metric": get_task(t).primary_metric,
                          "secondary_metric": get_task(t).secondary_metric} for n, t in datasets],
            "num_entries": len(by_entry), "generated_at": timezone.now()})
        rows = []
        for key in by_entry:
            scores = summaries.get(key, {})
            missing = [n for n, _ in datasets if n not in scores]
            per_task = defaultdict(list)
            for n, t in datasets:
                if n in scores:
                    per_task[t].append(scores[n]["rank_score"])
            task_scores = {t: mean(v) for t, v in per_task.items()}
            score = mean(task_scores.values()) if not missing and task_scores else None
            spread = pstdev([s["rank_score"] for s in scores.values()]) / math.sqrt(max(1, len(scores))) if scores else 0
            rows.append((key, score, spread, task_scores, scores, missing))
        rows.sort(key=lambda r: (r[1] is None, r[1] if r[1] is not None else 0, r[0][0]))
        LeaderboardEntry.objects.filter(leaderboard=board).delete()
        entries, rank, last = [], 0, None
        for position, (key, score, spread, task_scores, scores, missing) in enumerate(rows, start=1):
            if score is not None and (last is None or score - last > 0.05):
                rank, last = rank + 1, score
            entries.append(LeaderboardEntry(
                leaderboard=board, model_id=key[0], few_shot=key[1], validation_split=key[2], position=position,
                rank=rank if score is not None else None, rank_score=score,
                rank_score_ci_low=score - 1.96 * spread if score is not None else None,
                rank_score_ci_high=score + 1.96 * spread if score is not None else None,
                task_rank_scores=task_scores, scores=scores, missing_datasets=missing))
        LeaderboardEntry.objects.bulk_create(entries)
        boards.append(board)
    return boards
