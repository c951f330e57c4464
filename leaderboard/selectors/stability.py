"""The stability table of a dataset (docs/methodology.md §9, ``evaluation/stability.py``) from the
stored examples of the models evaluated on it.

Each model counts once, with the evaluation the prediction browser shows first (few-shot,
the test split, the newest), on the dataset version most models were evaluated on (example
ids name the same texts only within one version), scored by the task's first per-example
score. Tables are cached per dataset until its examples change (as plain dicts: the cache
stores JSON).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass

from django.core.cache import cache
from django.db.models import Count, Max

from evaluation.stability import DEFAULT_REPEATS, Stability, StabilityRow, stability
from leaderboard.models import Dataset, EvaluationExamples
from leaderboard.selectors.examples import examples_of, first_score_key, stored_examples

CACHE_SECONDS = 24 * 3600


@dataclass(frozen=True)
class DatasetStability:
    dataset: str
    version: str
    table: Stability | None  # None: fewer than two models share examples
    num_models: int  # models with examples on the version (the table may use a spread of them)


def _per_model(dataset: Dataset) -> tuple[str, list[EvaluationExamples]]:
    stored = stored_examples(evaluation__dataset=dataset)
    by_version: dict[str, dict[int, EvaluationExamples]] = defaultdict(dict)
    for item in stored:
        by_version[item.evaluation.dataset_version.fingerprint].setdefault(item.evaluation.model_id, item)
    if not by_version:
        return "", []
    version = max(by_version, key=lambda v: (len(by_version[v]), v))
    return version, list(by_version[version].values())


PAGE_REPEATS = 10
PAGE_MODELS = 8  # the page's cost is bounded: pairs grow with the square of the models


def spread(models: list[str], means: dict[str, float], limit: int | None) -> list[str]:
    """At most ``limit`` of ``models``, evenly spaced along their ranking by mean score
    (all of them without a limit): a page's table stays cheap on a crowded dataset."""
    if limit is None or len(models) <= limit:
        return models
    ranked = sorted(models, key=lambda m: (-means[m], m))
    step = (len(ranked) - 1) / (limit - 1)
    return [ranked[round(k * step)] for k in range(limit)]


def dataset_stability(
    dataset: Dataset, repeats: int = DEFAULT_REPEATS, max_models: int | None = None
) -> DatasetStability:
    """The table over the dataset's models (``max_models``: a spread of that many)."""
    state = EvaluationExamples.objects.filter(evaluation__dataset=dataset).aggregate(n=Count("pk"), t=Max("updated_at"))
    stamp = state["t"].isoformat() if state["t"] else ""
    key = f"glossa:stability:v2:{dataset.pk}:{repeats}:{max_models}:{state['n']}:{stamp}"
    found = _from_cache(cache.get(key))
    if found is not None:
        return found
    version, chosen = _per_model(dataset)
    scores = {}
    for item in chosen:
        score_key = first_score_key(item)
        if score_key is None:
            continue
        scores[item.evaluation.model.model_id] = {
            e["example_id"]: e["scores"][score_key] for e in examples_of(item) if score_key in (e.get("scores") or {})
        }
    means = {m: sum(v.values()) / len(v) for m, v in scores.items() if v}
    available = len(means)
    scores = {m: scores[m] for m in spread(sorted(means), means, max_models)}
    table = None
    if len(scores) >= 2:
        try:
            table = stability(scores, repeats=repeats)
        except ValueError:  # the models share fewer than two examples
            table = None
    result = DatasetStability(dataset.name, version, table, available)
    cache.set(key, asdict(result), CACHE_SECONDS)
    return result


def _from_cache(value) -> DatasetStability | None:
    """The table the cache holds as a plain dict (``dataclasses.asdict``); None for a miss
    or for anything of another shape."""
    if not isinstance(value, dict):
        return None
    try:
        table = value["table"]
        if table is not None:
            table = Stability(
                models=tuple(str(m) for m in table["models"]),
                num_examples=int(table["num_examples"]),
                rows=tuple(StabilityRow(**row) for row in table["rows"]),
            )
        return DatasetStability(str(value["dataset"]), str(value["version"]), table, int(value["num_models"]))
    except (KeyError, TypeError, ValueError):
        return None
