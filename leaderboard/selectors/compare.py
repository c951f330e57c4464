"""Reads for the comparison page (docs/methodology.md §7a): two to four models.

On a board (``?board=CODE``, how the board's "Compare" button sends them), every dataset of
the board the models share is compared from their per-iteration scores
(:mod:`leaderboard.selectors.compare_board`, which reads the board's ranking), and where both
also have stored examples, on the examples both answered (here). Without a board, the models
are compared on their stored examples alone, and the page names the boards they share.

Example level. For each model and dataset the evaluation read is, on a board, the one
whose scores are compared; without one, the first the prediction browser would show
(few-shot before zero-shot, the test split, the newest). Two models are compared on a
dataset only when both evaluations ran on the same dataset version (otherwise the example
ids do not name the same texts), on the task's first per-example score, with the paired
test of :mod:`evaluation.paired_tests`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from urllib.parse import urlencode

from django.db.models import Count

from evaluation.paired_tests import paired_test
from leaderboard.models import EvaluationExamples, LanguageModel, Leaderboard
from leaderboard.selectors.examples import display_text, examples_of, first_score_key, outcome_of, stored_examples
from leaderboard.selectors.formatting import dataset_url, examples_url, model_url

MIN_MODELS, MAX_MODELS = 2, 4
DISAGREEMENTS_SHOWN = 20


@dataclass(frozen=True)
class Chosen:
    models: list[LanguageModel]
    problem: str = ""  # why nothing can be compared


def choose_models(requested: list[str]) -> Chosen:
    wanted = list(dict.fromkeys(m for m in requested if m))[: MAX_MODELS + 1]
    if len(wanted) > MAX_MODELS:
        return Chosen([], f"Pick at most {MAX_MODELS} models.")
    found = {m.model_id: m for m in LanguageModel.objects.filter(model_id__in=wanted)}
    missing = [m for m in wanted if m not in found]
    if missing:
        return Chosen([], f"No model {missing[0]!r} on Glossa.")
    if len(wanted) < MIN_MODELS:
        return Chosen([found[m] for m in wanted], f"Pick {MIN_MODELS} to {MAX_MODELS} models to compare.")
    return Chosen([found[m] for m in wanted])


def _preferred(models: list[LanguageModel]) -> dict[str, dict[int, EvaluationExamples]]:
    """dataset → model pk → the examples read for it."""
    stored = stored_examples(evaluation__model__in=models)
    chosen: dict[str, dict[int, EvaluationExamples]] = {}
    for item in stored:
        chosen.setdefault(item.evaluation.dataset.name, {}).setdefault(item.evaluation.model_id, item)
    return chosen


def stored_for(datasets: list[dict]) -> dict[str, dict[int, EvaluationExamples]]:
    """dataset → model pk → the stored examples of the evaluations in ``datasets``
    (``[{"name", "evaluations": {model pk: Evaluation}}]``)."""
    wanted = {ev.pk: d["name"] for d in datasets for ev in d["evaluations"].values()}
    chosen: dict[str, dict[int, EvaluationExamples]] = {}
    for item in stored_examples(evaluation_id__in=list(wanted)):
        chosen.setdefault(wanted[item.evaluation_id], {})[item.evaluation.model_id] = item
    return chosen


class ReadOnce(dict):
    """Stored examples read once per page: evaluation pk → {example id: example}."""

    def of(self, stored: EvaluationExamples) -> dict[str, dict]:
        if stored.pk not in self:
            self[stored.pk] = {e["example_id"]: e for e in examples_of(stored)}
        return self[stored.pk]


def _pair(a_id: str, b_id: str, stored_a, stored_b, dataset: str, read: ReadOnce) -> dict:
    base = {"a": a_id, "b": b_id}
    if stored_a.evaluation.dataset_version_id != stored_b.evaluation.dataset_version_id:
        return {**base, "problem": "evaluated on different versions of the dataset: not the same examples"}
    key = first_score_key(stored_a)
    if key is None or key != first_score_key(stored_b):
        return {**base, "problem": "no shared per-example score"}
    a, b = read.of(stored_a), read.of(stored_b)
    shared = sorted(set(a) & set(b), key=lambda i: (len(i), i))
    if not shared:
        return {**base, "problem": "no example answered by both"}
    result = paired_test([a[i]["scores"][key] for i in shared], [b[i]["scores"][key] for i in shared])
    disagreements = [
        {
            "example_id": i,
            "input": a[i].get("input") or "",
            "gold": display_text(a[i].get("gold")),
            "a": display_text(a[i].get("parsed")),
            "b": display_text(b[i].get("parsed")),
            "a_outcome": outcome_of(a[i], key),
            "b_outcome": outcome_of(b[i], key),
            "winner": "A" if a[i]["scores"][key] > b[i]["scores"][key] else "B",
        }
        for i in shared
        if a[i]["scores"][key] != b[i]["scores"][key]
    ]
    significant = result.p_value < 0.05
    return {
        **base,
        "problem": "",
        "metric": key,
        "result": result,
        "p_text": f"{result.p_value:.3g}",
        "significant": significant,
        "verdict": (a_id if result.difference > 0 else b_id) if significant else "",
        "a_url": f"{examples_url(stored_a.evaluation.model.model_id, dataset)}?evaluation={stored_a.pk}",
        "b_url": f"{examples_url(stored_b.evaluation.model.model_id, dataset)}?evaluation={stored_b.pk}",
        "disagreements": disagreements[:DISAGREEMENTS_SHOWN],
        "num_disagreements": len(disagreements),
    }


def example_pairs(models: list[LanguageModel], stored: dict[int, EvaluationExamples], dataset: str, read, names):
    present = [m for m in models if m.pk in stored]
    return [
        _pair(names[x.pk], names[y.pk], stored[x.pk], stored[y.pk], dataset, read) for x, y in combinations(present, 2)
    ]


def shared_boards(models: list[LanguageModel]) -> list[dict]:
    """The boards every one of ``models`` has an entry on, the largest first."""
    boards = (
        Leaderboard.objects.filter(entries__model__in=models)
        .annotate(found=Count("entries__model", distinct=True))
        .filter(found=len(models))
        .order_by("-num_entries", "code")
    )
    return [{"code": b.code, "name": b.name} for b in boards]


def base_context(chosen: Chosen) -> dict:
    return {
        "models": [{"id": m.model_id, "url": model_url(m.model_id)} for m in chosen.models],
        "problem": chosen.problem,
        "datasets": [],
        "max_models": MAX_MODELS,
        "board": None,
        "shared_boards": [],
    }


def compare_page(requested: list[str]) -> dict:
    """The page without a board: ``requested`` model ids on their stored examples, and the
    boards they share (:mod:`leaderboard.selectors.compare_board` compares them on one)."""
    chosen = choose_models(requested)
    context = base_context(chosen)
    if chosen.problem:
        return context
    context["shared_boards"] = [
        {**b, "url": f"?{urlencode([('board', b['code'])] + [('models', m.model_id) for m in chosen.models])}"}
        for b in shared_boards(chosen.models)
    ]
    names = {m.pk: m.model_id for m in chosen.models}
    by_dataset = _preferred(chosen.models)
    read = ReadOnce()
    for dataset in sorted(by_dataset):
        stored = by_dataset[dataset]
        context["datasets"].append(
            {
                "name": dataset,
                "url": dataset_url(dataset),
                "missing": [m.model_id for m in chosen.models if m.pk not in stored],
                "example_pairs": example_pairs(chosen.models, stored, dataset, read, names),
            }
        )
    return context
