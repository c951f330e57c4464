"""From an exam's records to scores: pure functions, shared by the engine and the site.

- **Likert**: an examinee's overall (1-5) and dimension (1-3) means over the counted
  grades of its main questions, as read (descriptive: a harsh examiner lowers them).
- **Interval**: 95% percentile bootstrap over questions (the questions are resampled, an
  examinee's mean recomputed on the draw).
- **Peer score and rank**: :mod:`evaluation.examiner.peer_scores`: grades standardised
  per examiner, the median over examiners (never one of the examinee's own family); the
  rank is its order, with a 95% simultaneous rank set and the ranks with each examiner
  left out.
- **Pairwise**: :mod:`evaluation.examiner.pairwise`: a Bradley–Terry fit of every
  comparison's two verdicts, with position and length covariates, rank sets and
  leave-one-examiner-out moves (the ``pairwise`` record).
- **Borda**: each (question, examiner) ranking is a voter; an examinee's points are the
  share of the others it beats (ties half), averaged over the rankings it is in.
- **Follow-ups**: per depth, how many were asked and how many graded correct; ``depth``
  is the mean number of consecutive correct answers from a main question down.
- **Agreement**: Kendall τ between two examiners' orders of the examinees both graded.
- **Self-preference**: the mean overall an examiner gave its own answers to its own
  questions minus the mean the other examiners gave the same answers.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from scipy import stats

from evaluation.examiner.merge_sort import borda_points
from evaluation.examiner.pairwise import pairwise_board
from evaluation.examiner.peer_scores import grade_table, peer_board
from evaluation.examiner.schemas import DIMENSIONS

CORRECT_ACCURACY = 3  # an answer is correct when its accuracy grade is the top of the scale


def _round(value: float | np.floating | None, digits: int = 4) -> float | None:
    return None if value is None or not np.isfinite(value) else round(float(value), digits)


def _ranks(means: np.ndarray) -> np.ndarray:
    """1 = best; equal means share the better rank; NaN (no grade) ranks last."""
    filled = np.where(np.isnan(means), -np.inf, means)
    return stats.rankdata(-filled, method="min")


def bootstrap_intervals(matrix: np.ndarray, replicates: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``matrix[question, examinee]`` = overall grade or NaN. Returns the 2.5 / 97.5
    percentiles of each examinee's mean and rank over ``replicates`` draws of questions."""
    n_questions, n_examinees = matrix.shape
    rng = np.random.default_rng(seed)
    means = np.full((replicates, n_examinees), np.nan)
    ranks = np.zeros((replicates, n_examinees))
    graded = ~np.isnan(matrix)
    values = np.where(graded, matrix, 0.0)
    for b in range(replicates):
        draw = rng.integers(0, n_questions, n_questions)
        counts = graded[draw].sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            means[b] = np.where(counts > 0, values[draw].sum(axis=0) / counts, np.nan)
        ranks[b] = _ranks(means[b])
    with warnings.catch_warnings():  # an examinee without any grade has an all-NaN column: NaN, said plainly
        warnings.simplefilter("ignore", RuntimeWarning)
        mean_ci = np.nanpercentile(means, [2.5, 97.5], axis=0) if replicates else np.full((2, n_examinees), np.nan)
    rank_ci = np.percentile(ranks, [2.5, 97.5], axis=0) if replicates else np.full((2, n_examinees), np.nan)
    return mean_ci, rank_ci


def kendall_tau(a: dict[str, float], b: dict[str, float]) -> tuple[float | None, int]:
    """Kendall's τ between two rankings' scores on the models both have, and how many they share (τ None below two)."""
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return None, len(common)
    tau = stats.kendalltau([a[m] for m in common], [b[m] for m in common]).statistic
    return (None if not np.isfinite(tau) else float(tau)), len(common)


def families(header: dict) -> dict[str, str]:
    """Each participant's family (the header's optional ``family`` of a model, else the
    model itself): an examiner's grades and verdicts of its own family never count."""
    out = {}
    for key in ("examiners", "examinees"):
        for entry in header.get(key) or []:
            out[entry["model"]] = entry.get("family") or entry["model"]
    return out


def summarise(records: Iterable[dict], *, bootstrap: int = 1000, seed: int = 0) -> list[dict]:
    """``summary`` records (one per examinee, best first), one ``pairwise`` record and one
    ``agreement`` record."""
    records = list(records)
    graded = _read_grades(records)
    examinees, examiners, family = _participants(records, graded)
    overall, mean_ci = _overall_means(graded, examinees, bootstrap, seed)
    peers = _peer_scores(graded, examinees, examiners, family, bootstrap, seed)
    borda = _borda(records)
    follow = _follow_ups(graded)
    chain = _chains(graded)
    summaries = []
    for j, model in enumerate(examinees):
        grades = [graded.main_grades[q][model] for q in graded.question_ids if model in graded.main_grades[q]]
        summaries.append(
            {
                "kind": "summary",
                "examinee": model,
                "questions": len(grades),
                "overall": _round(overall[j]),
                "overall_ci": None if mean_ci is None or not grades else [_round(mean_ci[0, j]), _round(mean_ci[1, j])],
                **peers[model],
                **{dim: _round(np.mean([g[dim] for g in grades])) if grades else None for dim in DIMENSIONS},
                "levels": _level_means(graded, model),
                "borda": _round(np.mean(borda[model])) if borda.get(model) else None,
                "rankings": len(borda.get(model, [])),
                "follow_ups": {
                    str(depth): {"asked": len(oks), "correct": sum(oks)}
                    for depth, oks in sorted(follow[model].items())
                    if depth > 0
                },
                "main_correct": sum(follow[model].get(0, [])),
                "depth": _round(np.mean(chain[model])) if chain.get(model) else None,
                "self_preference": _self_preference(graded.self_grades.get(model, {}), model),
            }
        )
    summaries.sort(key=lambda s: (s["rank"] is None, s["rank"] or 0, s["examinee"]))
    pairwise = pairwise_board(records, family, replicates=bootstrap, seed=seed)
    return summaries + [pairwise, _agreement(examiners, graded.by_examiner)]


def _nested_lists() -> defaultdict[str, defaultdict[str, list[int]]]:
    return defaultdict(lambda: defaultdict(list))


@dataclass
class _Graded:
    """An exam's questions and answers (by id) with the grades that count, as the summaries
    read them: ``main_grades`` question -> examinee -> grade; ``correct`` answer id ->
    graded correct by its question's examiner; ``by_examiner`` examiner -> examinee ->
    overall grades of main answers; ``self_grades`` examinee -> grader -> overall grades of
    its answers to its own questions."""

    questions: dict[str, dict]
    answers: dict[str, dict]
    main_grades: dict[str, dict[str, dict]] = field(default_factory=lambda: defaultdict(dict))
    correct: dict[str, bool] = field(default_factory=dict)
    by_examiner: defaultdict[str, defaultdict[str, list[int]]] = field(default_factory=_nested_lists)
    self_grades: defaultdict[str, defaultdict[str, list[int]]] = field(default_factory=_nested_lists)

    @property
    def question_ids(self) -> list[str]:
        """The main questions that have a counted grade, in id order."""
        return sorted(self.main_grades)


def _read_grades(records: list[dict]) -> _Graded:
    """The valid grades of answers the exam holds: a grade by the question's own examiner
    counts (main questions: for the means, any depth: for correctness); an uncounted grade
    of an examinee's answer to its own question is kept for its self-preference."""
    graded = _Graded(
        questions={r["id"]: r for r in records if r["kind"] == "question"},
        answers={r["id"]: r for r in records if r["kind"] == "answer"},
    )
    for g in records:
        if g["kind"] != "grade" or not g.get("valid", True):
            continue
        answer = graded.answers.get(g["answer"])
        if answer is None:
            continue
        question = graded.questions[answer["question"]]
        if not g.get("counted", True):
            if question["examiner"] == answer["examinee"]:
                graded.self_grades[answer["examinee"]][g["examiner"]].append(g["overall"])
            continue
        if g["examiner"] != question["examiner"]:
            continue
        graded.correct[answer["id"]] = g["accuracy"] == CORRECT_ACCURACY
        if question["depth"] == 0:
            graded.main_grades[question["id"]][answer["examinee"]] = g
            graded.by_examiner[g["examiner"]][answer["examinee"]].append(g["overall"])
    return graded


def _participants(records: list[dict], graded: _Graded) -> tuple[list[str], list[str], dict[str, str]]:
    """The examinees and the examiners (as the exam's header lists them, else as the answers
    and questions show them) and each participant's family."""
    examinees = [e["model"] for r in records if r["kind"] == "exam" for e in r["examinees"]]
    if not examinees:
        examinees = sorted({a["examinee"] for a in graded.answers.values()})
    examiners = [e["model"] for r in records if r["kind"] == "exam" for e in r["examiners"]]
    examiners = examiners or sorted({q["examiner"] for q in graded.questions.values()})
    family = families(next((r for r in records if r["kind"] == "exam"), {}))
    return examinees, examiners, family


def _overall_means(
    graded: _Graded, examinees: list[str], bootstrap: int, seed: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """Each examinee's mean overall grade over its main questions (NaN without one) and the
    bootstrap interval of that mean (None when no main question was graded)."""
    question_ids = graded.question_ids
    matrix = np.full((len(question_ids), len(examinees)), np.nan)
    for i, qid in enumerate(question_ids):
        for j, model in enumerate(examinees):
            if model in graded.main_grades[qid]:
                matrix[i, j] = graded.main_grades[qid][model]["overall"]
    with np.errstate(invalid="ignore"):
        overall = np.array(
            [np.nanmean(matrix[:, j]) if (~np.isnan(matrix[:, j])).any() else np.nan for j in range(len(examinees))]
        )
    mean_ci = bootstrap_intervals(matrix, bootstrap, seed)[0] if question_ids else None
    return overall, mean_ci


def _peer_scores(
    graded: _Graded, examinees: list[str], examiners: list[str], family: dict[str, str], bootstrap: int, seed: int
) -> dict[str, dict]:
    """Each examinee's peer score and rank fields (:mod:`evaluation.examiner.peer_scores`)."""
    question_ids = graded.question_ids
    asked_by = {qid: graded.questions[qid]["examiner"] for qid in question_ids}
    overall_grades = {qid: {m: g["overall"] for m, g in graded.main_grades[qid].items()} for qid in question_ids}
    table = grade_table(overall_grades, asked_by, examinees, examiners, family)
    return peer_board(table, bootstrap, seed)


def _borda(records: list[dict]) -> dict[str, list[float]]:
    """Each examinee's Borda points, one per ranking it is in."""
    borda: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r["kind"] == "ranking":
            for model, points in borda_points(r["tiers"]).items():
                borda[model].append(points)
    return borda


def _follow_ups(graded: _Graded) -> dict[str, dict[int, list[bool]]]:
    """examinee -> question depth -> whether each of its graded answers there was correct."""
    follow: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for aid, ok in graded.correct.items():
        answer = graded.answers[aid]
        follow[answer["examinee"]][graded.questions[answer["question"]]["depth"]].append(ok)
    return follow


def _chains(graded: _Graded) -> dict[str, list[int]]:
    """examinee -> for each of its graded main questions, how many consecutive answers from
    it down its follow-ups were correct."""
    questions = graded.questions
    chain: dict[str, list[int]] = defaultdict(list)
    children: dict[str, list[str]] = defaultdict(list)  # (question id) -> follow-up question ids
    for question in questions.values():
        if question.get("parent"):
            children[question["parent"]].append(question["id"])
    answer_of = {(a["question"], a["examinee"]): a["id"] for a in graded.answers.values()}
    for qid in graded.question_ids:
        for model in graded.main_grades[qid]:
            reached = 0
            current: str | None = qid
            while current is not None and graded.correct.get(answer_of.get((current, model), "")):
                reached += 1
                current = next((c for c in children[current] if questions[c].get("examinee") == model), None)
            chain[model].append(reached)
    return chain


def _level_means(graded: _Graded, model: str) -> dict[str, float | None]:
    """The examinee's mean overall grade per question level."""
    levels: dict[str, list[int]] = defaultdict(list)
    for q in graded.question_ids:
        if model in graded.main_grades[q]:
            levels[graded.questions[q]["level"]].append(graded.main_grades[q][model]["overall"])
    return {name: _round(np.mean(values)) for name, values in sorted(levels.items())}


def _self_preference(own: dict[str, list[int]], model: str) -> dict | None:
    """How much higher ``model`` graded its own answers to its own questions than the other
    examiners did (``own``: grader -> those grades); None without both."""
    by_self = own.get(model, [])
    by_peers = [v for grader, values in own.items() if grader != model for v in values]
    if not (by_self and by_peers):
        return None
    return {
        "self": _round(np.mean(by_self)),
        "peers": _round(np.mean(by_peers)),
        "difference": _round(np.mean(by_self) - np.mean(by_peers)),
        "answers": len(by_self),
    }


def _agreement(examiners: list[str], by_examiner: Mapping[str, Mapping[str, list[int]]]) -> dict:
    """The ``agreement`` record: Kendall τ between every two examiners' orders of the examinees."""
    orders = {
        examiner: {model: float(np.mean(values)) for model, values in by_examiner[examiner].items()}
        for examiner in examiners
    }
    pairs: list[dict] = []
    for a, b in combinations(examiners, 2):
        tau, common = kendall_tau(orders[a], orders[b])
        pairs.append({"examiners": [a, b], "tau": _round(tau), "examinees_in_common": common})
    taus = [p["tau"] for p in pairs if p["tau"] is not None]
    return {
        "kind": "agreement",
        "pairs": pairs,
        "mean_tau": _round(np.mean(taus)) if taus else None,
        "examiner_means": {e: {m: _round(v) for m, v in sorted(o.items())} for e, o in orders.items()},
    }
