"""Reads for the comparison page (issue #16.3): two to four models, per dataset, on the
examples they both answered.

For each model and dataset the evaluation read is the first the prediction browser would
show (few-shot before zero-shot, the test split, the newest). Two models are compared on a
dataset only when both evaluations ran on the same dataset version (otherwise the example
ids do not name the same texts), on the task's first per-example score, with the paired
test of :mod:`evaluation.paired_tests`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from evaluation.paired_tests import paired_test
from leaderboard.models import EvaluationExamples, LanguageModel
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


def _pair(model_a, model_b, stored_a: EvaluationExamples, stored_b: EvaluationExamples, dataset: str) -> dict:
    base = {"a": model_a.model_id, "b": model_b.model_id}
    if stored_a.evaluation.dataset_version_id != stored_b.evaluation.dataset_version_id:
        return {**base, "problem": "evaluated on different versions of the dataset: not the same examples"}
    key = first_score_key(stored_a)
    if key is None or key != first_score_key(stored_b):
        return {**base, "problem": "no shared per-example score"}
    a = {e["example_id"]: e for e in examples_of(stored_a)}
    b = {e["example_id"]: e for e in examples_of(stored_b)}
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
    return {
        **base,
        "problem": "",
        "metric": key,
        "result": result,
        "p_text": f"{result.p_value:.3g}",
        "significant": result.p_value < 0.05,
        "a_url": f"{examples_url(model_a.model_id, dataset)}?evaluation={stored_a.pk}",
        "b_url": f"{examples_url(model_b.model_id, dataset)}?evaluation={stored_b.pk}",
        "disagreements": disagreements[:DISAGREEMENTS_SHOWN],
        "num_disagreements": len(disagreements),
    }


def compare_page(requested: list[str]) -> dict:
    chosen = choose_models(requested)
    context = {
        "models": [{"id": m.model_id, "url": model_url(m.model_id)} for m in chosen.models],
        "problem": chosen.problem,
        "datasets": [],
        "max_models": MAX_MODELS,
    }
    if chosen.problem:
        return context
    by_dataset = _preferred(chosen.models)
    for dataset in sorted(by_dataset):
        stored = by_dataset[dataset]
        present = [m for m in chosen.models if m.pk in stored]
        pairs = [_pair(x, y, stored[x.pk], stored[y.pk], dataset) for x, y in combinations(present, 2)]
        context["datasets"].append(
            {
                "name": dataset,
                "url": dataset_url(dataset),
                "missing": [m.model_id for m in chosen.models if m.pk not in stored],
                "pairs": pairs,
            }
        )
    return context
