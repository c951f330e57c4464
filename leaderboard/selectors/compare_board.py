"""The comparison page on a board: two to four models, side by side on every
dataset of the board they share, from their per-iteration scores. It only reads: a
method's ranking that is not stored yet is named, never computed (``method_view``).

Each model is read as its best-placed entry on the board (a model can have a few-shot and
a zero-shot entry). Per dataset, a model's scores are those of the evaluation the board
counts for its entry (the board's dataset version and protocol, the entry's commit); where
the board counts none but the entry has another (another version or protocol, listed as
not counted), that one is shown and compared, and the page says so.

Two models' scores on a dataset are compared with :func:`evaluation.paired_tests.iteration_test`:
paired when iteration i of both is the same resample of the same test rows (the same
dataset version and protocol, real iterations), Welch's unpaired test otherwise, with the
reason shown. Iterations reconstructed from a published board's mean ± interval
(:func:`leaderboard.identity.is_reconstructed`) are never paired.

The board-level view comes from the ranking the board page shows (its own method, or
``?method=`` when that ranking is stored): each entry's rank and 95% rank set, and for
every pair the share of bootstrap replicates in which one ranks above the other.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from itertools import combinations
from urllib.parse import urlencode

import numpy as np

from evaluation.paired_tests import IterationResult, iteration_test
from evaluation.stats import mean_ci
from leaderboard.identity import InvalidProtocol, Protocol, is_reconstructed, short_fingerprint
from leaderboard.models import Evaluation, IterationScore, LanguageModel, Leaderboard, LeaderboardEntry
from leaderboard.ranking import entry_display_name, entry_token, win_probability
from leaderboard.selectors.boards import BoardFilters, sort_keys
from leaderboard.selectors.compare import ReadOnce, base_context, choose_models, example_pairs, stored_for
from leaderboard.selectors.formatting import board_url, dataset_url, format_number, metric_label, model_url
from leaderboard.selectors.method_view import apply_ranking, method_info, stored_ranking

ALPHA = 0.05


@dataclass
class Scores:
    """One model's iteration scores on one dataset, and where they come from."""

    evaluation: Evaluation
    values: list[float] = field(default_factory=list)  # primary metric, in iteration order
    counted: bool = True  # the evaluation the board counts
    note: str = ""  # why the board does not count it

    @property
    def protocol(self) -> Protocol:
        return self.evaluation.protocol

    @property
    def fingerprint(self) -> str:
        return self.evaluation.dataset_version.fingerprint


def why_unpaired(a: Scores, b: Scores) -> str:
    """Why iteration i of ``a`` and of ``b`` are not the same resample ("" when they are)."""
    if a.evaluation.dataset_version_id != b.evaluation.dataset_version_id:
        return "evaluated on different versions of the dataset"
    if a.protocol != b.protocol:
        return "evaluated under different protocols"
    if is_reconstructed(a.fingerprint):
        return "iterations reconstructed from the published mean ± interval, not the same resamples"
    if len(a.values) != len(b.values):
        return "different numbers of iterations"
    return ""


def _entries(lb: Leaderboard, models: list[LanguageModel], ranking) -> dict[int, LeaderboardEntry]:
    """Model pk → its best-placed entry on ``lb`` (under ``ranking`` when given)."""
    found = apply_ranking(
        list(LeaderboardEntry.objects.filter(leaderboard=lb, model__in=models).select_related("model")), ranking
    )
    first: dict[int, LeaderboardEntry] = {}
    for entry in sorted(found, key=lambda e: (e.position, not e.few_shot, e.validation_split)):
        first.setdefault(entry.model_id, entry)
    return first


def _counts(spec: dict, evaluation: Evaluation) -> bool:
    try:
        protocol = Protocol.parse(spec.get("protocol") or "")
    except InvalidProtocol:
        return False
    return evaluation.dataset_version.fingerprint == spec.get("version") and evaluation.protocol == protocol


def _exclusion(entry: LeaderboardEntry, dataset: str, evaluation: Evaluation) -> str:
    for item in entry.excluded or []:
        if item.get("dataset") == dataset and item.get("dataset_version") == evaluation.dataset_version.fingerprint:
            return str(item.get("reason") or "")
    version = short_fingerprint(evaluation.dataset_version.fingerprint)
    return f"version {version}, {evaluation.protocol.describe()}"


def _scores(lb: Leaderboard, entries: dict[int, LeaderboardEntry]) -> dict[tuple[int, str], Scores]:
    """(model pk, dataset) → the iteration scores the page compares."""
    specs = {spec["name"]: spec for spec in lb.datasets or [] if spec.get("name")}
    candidates = (
        Evaluation.objects.filter(
            model_id__in=list(entries), dataset__name__in=list(specs), invalidated_reason="", num_iterations__gt=0
        )
        .select_related("dataset", "dataset_version")
        .defer("record")
        .order_by("-created_at", "-pk")
    )
    chosen: dict[tuple[int, str], Scores] = {}
    for ev in candidates:
        entry = entries[ev.model_id]
        if (ev.few_shot, ev.validation_split) != (entry.few_shot, entry.validation_split):
            continue
        if entry.commit_sha and ev.commit_sha != entry.commit_sha:
            continue  # another commit of the model: not what the board shows
        name = ev.dataset.name
        counted = _counts(specs[name], ev)
        held = chosen.get((ev.model_id, name))
        if held is None or (counted and not held.counted):
            note = "" if counted else _exclusion(entry, name, ev)
            chosen[(ev.model_id, name)] = Scores(ev, counted=counted, note=note)
    metric = {name: spec.get("primary_metric") for name, spec in specs.items()}
    by_pk = {s.evaluation.pk: s for s in chosen.values()}
    rows = (
        IterationScore.objects.filter(evaluation_id__in=list(by_pk), metric__in={m for m in metric.values() if m})
        .order_by("evaluation_id", "iteration")
        .values_list("evaluation_id", "metric", "value")
    )
    for pk, name, value in rows:
        scores = by_pk[pk]
        if name == metric[scores.evaluation.dataset.name] and math.isfinite(value):
            scores.values.append(value)
    return {key: s for key, s in chosen.items() if s.values}


def _cell(scores: Scores | None) -> dict | None:
    if scores is None:
        return None
    mean, ci = mean_ci(scores.values)
    return {
        "mean": mean * 100,
        "ci": None if ci is None else ci * 100,
        "iterations": len(scores.values),
        "counted": scores.counted,
        "note": scores.note,
        "evaluation": scores.evaluation.pk,
    }


def _iteration_pair(a: Scores, b: Scores) -> dict:
    unpaired = why_unpaired(a, b)
    if len(a.values) < 2 or len(b.values) < 2:
        return {"problem": "too few iterations to test (fewer than 2)", "unpaired": unpaired}
    result: IterationResult = iteration_test(a.values, b.values, paired=not unpaired)
    return {
        "problem": "",
        "unpaired": unpaired,
        "result": result,
        "difference": result.difference * 100,
        "ci_low": result.ci_low * 100,
        "ci_high": result.ci_high * 100,
        "p_text": f"{result.p_value:.3g}",
        "winner": result.verdict(ALPHA),
    }


def _rank_side(entry: LeaderboardEntry) -> dict:
    extra = entry.extra or {}
    low, high = entry.rank_score_ci_low, entry.rank_score_ci_high
    return {
        "rank": entry.rank,
        "rank_interval": extra.get("rank_set_marginal") or extra.get("rank_interval"),
        "rank_set": extra.get("rank_set_simultaneous"),
        "rank_score": format_number(entry.rank_score),
        "rank_score_ci": f"{format_number(low)}–{format_number(high)}" if low is not None and high is not None else "",
    }


def _win_probabilities(lb: Leaderboard, ranking, entries: list[LeaderboardEntry]) -> tuple[dict, int]:
    """(pair of model pks → P(first ranks above second)), number of replicates."""
    try:
        stored = ranking if ranking is not None else stored_ranking(lb, lb.method)
    except LookupError:  # the board's method is no longer registered
        stored = None
    if stored is None or not stored.replicates:
        return {}, 0
    reps = np.load(io.BytesIO(bytes(stored.replicates)), allow_pickle=False)
    column = {}
    for e in entries:
        decided = (stored.entries or {}).get(entry_token((e.model_id, e.few_shot, e.validation_split)))
        if decided and decided.get("rank") is not None and decided.get("column") is not None:
            column[e.model_id] = int(decided["column"])
    out = {}
    for x, y in combinations(entries, 2):
        if x.model_id in column and y.model_id in column and reps.shape[0]:
            out[(x.model_id, y.model_id)] = win_probability(reps, column[x.model_id], column[y.model_id])
    return out, int(reps.shape[0])


def board_comparison(lb: Leaderboard, models: list[LanguageModel], method: str = "") -> dict:
    """The comparison of ``models`` (2 to 4) on ``lb``: their entries, the pairwise odds of
    ranking above each other, and per dataset their scores and paired differences. Models
    without an entry on the board are named in ``absent``."""
    ranking, method_note = None, ""
    if method and method != lb.method:
        ranking = stored_ranking(lb, method)
        if ranking is None:
            method_note = f"The ranking with {method} is not computed yet; the board's own ranking is shown."
    entries = _entries(lb, models, ranking)
    # in the board's order: A is the better placed of a pair
    present = sorted((m for m in models if m.pk in entries), key=lambda m: entries[m.pk].position)
    sides = [
        {
            "pk": m.pk,
            "id": m.model_id,
            "name": entry_display_name(m.model_id, entries[m.pk].few_shot, entries[m.pk].validation_split),
            "url": model_url(m.model_id),
            **_rank_side(entries[m.pk]),
        }
        for m in present
    ]
    names = {s["pk"]: s["name"] for s in sides}
    odds, replicates = _win_probabilities(lb, ranking, [entries[m.pk] for m in present])
    datasets, not_shared = _dataset_comparisons(lb, present, names, _scores(lb, entries))
    return {
        "method": method_info(lb, ranking),
        "method_note": method_note,
        "sides": sides,
        "absent": [m.model_id for m in models if m.pk not in entries],
        "odds": [
            {"a": names[a], "b": names[b], "p": p, "p_text": f"{p:.2f}"} for (a, b), p in odds.items() if np.isfinite(p)
        ],
        "replicates": replicates,
        "tally": _tally(datasets),
        "datasets": datasets,
        "not_shared": not_shared,
        "present": present,
    }


def _dataset_comparisons(
    lb: Leaderboard, present: list[LanguageModel], names: dict[int, str], scores: dict
) -> tuple[list[dict], list[dict]]:
    """(per dataset of ``lb`` that at least two of ``present`` have: their cells and every
    pair's test over iterations; the datasets fewer than two have, with who has them)."""
    datasets, not_shared = [], []
    for spec in lb.datasets or []:
        name = spec.get("name")
        have = [m for m in present if (m.pk, name) in scores]
        if len(have) < 2:
            not_shared.append({"name": name, "with": [names[m.pk] for m in have]})
            continue
        datasets.append(
            {
                "name": name,
                "url": dataset_url(name),
                "task": spec.get("task", ""),
                "metric": metric_label(spec.get("primary_metric")),
                "ranked": spec.get("ranked", True),
                "cells": [{"name": names[m.pk], "cell": _cell(scores.get((m.pk, name)))} for m in present],
                "pairs": [_pair(scores, name, x, y, names) for x, y in combinations(have, 2)],
                "evaluations": {m.pk: scores[(m.pk, name)].evaluation for m in have},
            }
        )
    return datasets, not_shared


def _pair(scores: dict, name: str, x: LanguageModel, y: LanguageModel, names: dict[int, str]) -> dict:
    """``x`` against ``y`` on dataset ``name``: the test over their iterations and its verdict."""
    pair = _iteration_pair(scores[(x.pk, name)], scores[(y.pk, name)])
    pair.update(a=names[x.pk], b=names[y.pk], a_pk=x.pk, b_pk=y.pk)
    pair["verdict"] = {"a": names[x.pk], "b": names[y.pk]}.get(pair.get("winner", ""), "")
    return pair


def _tally(datasets: list[dict]) -> list[dict]:
    """Per pair of models, over the datasets both have: on how many each is significantly
    better (tests over iterations) and on how many neither is."""
    tally: dict[tuple[str, str], dict] = {}
    for d in datasets:
        for pair in d["pairs"]:
            if pair.get("problem"):
                continue
            row = tally.setdefault(
                (pair["a"], pair["b"]), {"a": pair["a"], "b": pair["b"], "a_better": 0, "b_better": 0, "neither": 0}
            )
            row[{"a": "a_better", "b": "b_better"}.get(pair["winner"], "neither")] += 1
    return list(tally.values())


def board_page(requested: list[str], code: str, query) -> dict:
    """The page's context: ``requested`` model ids on board ``code``, and the board's view
    read from ``query`` (the request's GET: its filters, validated as the board validates
    them) to link back to."""
    chosen = choose_models(requested)
    context = base_context(chosen)
    lb = Leaderboard.objects.filter(code=code).first()
    if lb is None:
        context["problem"] = context["problem"] or f"No board {code[:60]!r}."
    if context["problem"]:
        return context
    view = BoardFilters.from_query(query, sort_keys(lb)).as_query()
    comparison = board_comparison(lb, chosen.models, dict(view).get("method", ""))
    back = board_url(lb.code)
    context["board"] = {"code": lb.code, "name": lb.name, "url": f"{back}?{urlencode(view)}" if view else back}
    context["board"].update(comparison)
    names = {s["pk"]: s["name"] for s in comparison["sides"]}
    present = comparison["present"]
    stored_examples = stored_for(comparison["datasets"])
    read = ReadOnce()
    for d in comparison["datasets"]:
        stored = stored_examples.get(d["name"], {})
        d["example_pairs"] = example_pairs(present, stored, d["name"], read, names) if len(stored) > 1 else []
        d["examples_missing"] = [names[m.pk] for m in present if m.pk in d["evaluations"] and m.pk not in stored]
    context["datasets"] = comparison["datasets"]
    return context
