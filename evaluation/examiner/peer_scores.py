"""Peer grades combined so that no examiner can sink (or lift) anyone on its own.

1. **Standardised per examiner.** Each examiner's counted overall grades of main answers
   become z-scores over all the answers it graded (its mean and spread), so a harsh, a
   lenient or a narrow grader speaks in the same units as the others. An examiner whose
   grades do not vary (every answer 1, or every answer 5) tells nobody apart: it carries
   no information and is left out.
2. **Per examiner, per examinee.** m[e, j] is the mean z-score examiner e gave examinee
   j's answers (to e's questions).
3. **Median over examiners.** An examinee's peer score is the median of m[e, j] over the
   examiners that graded it, never counting an examiner of its own family (its own
   answers are never counted anyway). A median moves at most to the next examiner's
   value when one examiner goes to an extreme: one examiner among three or more cannot
   decide anyone's place, and with two the harm is halved.

The rank is the order of the peer score (1 + the number of examinees with a higher
score); its 95% rank set comes from resampling whole questions
(:func:`evaluation.rank_sets.rank_confidence_sets`). The board also recomputes the ranks
with each examiner left out and flags a move outside an examinee's set.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from evaluation.rank_sets import rank_confidence_sets


@dataclass(frozen=True)
class GradeTable:
    """Every counted grade of an exam, standardised, with who asked and who graded whom."""

    examinees: tuple[str, ...]
    examiners: tuple[str, ...]
    z: np.ndarray  # (questions, examinees): the standardised grade, NaN where none
    asked_by: np.ndarray  # (questions,): the examiner index of each question
    informative: np.ndarray  # (examiners,): its grades vary
    excluded: np.ndarray  # (examiners, examinees): same family, never counted
    graded_by: np.ndarray  # (examiners, examinees): e gave j a counted grade


def grade_table(
    main_grades: dict[str, dict[str, int]],
    asked_by: dict[str, str],
    examinees: list[str],
    examiners: list[str],
    families: dict[str, str],
) -> GradeTable:
    """``main_grades[question][examinee]`` = counted overall grade; ``asked_by[question]``
    = its examiner."""
    question_ids = sorted(main_grades)
    family = [families.get(m, m) for m in examinees]
    excluded = np.array([[families.get(e, e) == f for f in family] for e in examiners], dtype=bool).reshape(
        len(examiners), len(examinees)
    )
    raw = np.full((len(question_ids), len(examinees)), np.nan)
    who = np.array([examiners.index(asked_by[q]) for q in question_ids], dtype=int)
    for i, qid in enumerate(question_ids):
        for j, model in enumerate(examinees):
            if model in main_grades[qid] and not excluded[who[i], j]:
                raw[i, j] = main_grades[qid][model]
    graded_by = np.zeros((len(examiners), len(examinees)), dtype=bool)
    for e in range(len(examiners)):
        graded_by[e] = (~np.isnan(raw[who == e])).any(axis=0)
    z = np.full_like(raw, np.nan)
    informative = np.zeros(len(examiners), dtype=bool)
    for e in range(len(examiners)):
        rows = who == e
        values = raw[rows][~np.isnan(raw[rows])]
        if values.size > 1 and values.std() > 0:
            informative[e] = True
            z[rows] = (raw[rows] - values.mean()) / values.std()
    return GradeTable(tuple(examinees), tuple(examiners), z, who, informative, excluded, graded_by)


def _medians(table: GradeTable, counts: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """(replicates, examinees) peer scores for question counts ``counts`` (replicates,
    questions), over the examiners in ``keep``."""
    graded = ~np.isnan(table.z)
    values = np.where(graded, table.z, 0.0)
    per_examiner = np.full((len(table.examiners), counts.shape[0], len(table.examinees)), np.nan)
    for e in np.flatnonzero(keep & table.informative):
        rows = table.asked_by == e
        total = counts[:, rows] @ values[rows]
        n = counts[:, rows] @ graded[rows]
        with np.errstate(invalid="ignore", divide="ignore"):
            per_examiner[e] = np.where(n > 0, total / np.where(n > 0, n, 1), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an examinee no informative examiner graded
        return np.nanmedian(per_examiner, axis=0)


def scores(table: GradeTable, keep: np.ndarray | None = None) -> np.ndarray:
    """Point peer scores: NaN for an examinee nobody graded, 0 for one graded only by
    examiners that told nobody apart."""
    keep = np.ones(len(table.examiners), dtype=bool) if keep is None else keep
    point = _medians(table, np.ones((1, table.z.shape[0])), keep)[0]
    graded = table.graded_by[keep].any(axis=0)
    return np.where(np.isnan(point) & graded, 0.0, point)


def point_ranks(values: np.ndarray) -> np.ndarray:
    """1 + the number of strictly higher values (ties share the better rank); 0 for NaN."""
    rounded = np.round(values, 9)
    out = np.zeros(len(values), dtype=int)
    for j, v in enumerate(rounded):
        if not np.isnan(v):
            out[j] = 1 + int(np.sum(rounded[~np.isnan(rounded)] > v))
    return out


def question_counts(n_questions: int, replicates: int, seed: int) -> np.ndarray:
    """(replicates, questions): how often each question is drawn, whole questions with replacement."""
    rng = np.random.default_rng(seed)
    return np.array(
        [np.bincount(rng.integers(0, n_questions, n_questions), minlength=n_questions) for _ in range(replicates)]
    ).reshape(replicates, n_questions)


def peer_board(table: GradeTable, replicates: int, seed: int, level: float = 0.95) -> dict[str, dict]:
    """Per examinee: peer score, its interval, rank, rank set (simultaneous) and the ranks
    with each examiner left out (a move outside the set is flagged)."""
    point = scores(table)
    shown = np.flatnonzero(~np.isnan(point))
    out: dict[str, dict] = {m: {"peer_score": None, "rank": None} for m in table.examinees}
    if not shown.size:
        return out
    ranks = point_ranks(point)
    boot = _medians(table, question_counts(table.z.shape[0], replicates, seed), np.ones(len(table.examiners), bool))
    boot = np.where(np.isnan(boot), point[None, :], boot)[:, shown]
    low, high = (np.full(shown.size, 1), np.full(shown.size, shown.size))
    interval = np.full((2, shown.size), np.nan)
    if replicates > 1:
        low, high = rank_confidence_sets(point[shown], boot, level=level, simultaneous=True)
        interval = np.percentile(boot, [100 * (1 - level) / 2, 100 * (1 + level) / 2], axis=0)
    left_out = leave_one_out(table, shown)
    for k, j in enumerate(shown):
        moves = [
            {"examiner": e, "rank": r, "move": r - int(ranks[j]), "outside": not low[k] <= r <= high[k]}
            for e, r in left_out[k]
        ]
        out[table.examinees[j]] = {
            "peer_score": _round(point[j]),
            "peer_score_ci": None if np.isnan(interval[0, k]) else [_round(interval[0, k]), _round(interval[1, k])],
            "rank": int(ranks[j]),
            "rank_set": [int(low[k]), int(high[k])],
            "left_out": moves,
        }
    return out


def leave_one_out(table: GradeTable, shown: np.ndarray) -> list[list[tuple[str, int]]]:
    """For each shown examinee, (examiner, its rank among the shown without that examiner's
    grades) for every examiner that graded someone; an examinee left ungraded is skipped."""
    out: list[list[tuple[str, int]]] = [[] for _ in shown]
    for e, name in enumerate(table.examiners):
        if not table.graded_by[e].any():
            continue
        keep = np.ones(len(table.examiners), dtype=bool)
        keep[e] = False
        without = scores(table, keep)[shown]
        ranks = point_ranks(without)
        for k in range(shown.size):
            if not np.isnan(without[k]):
                out[k].append((name, int(ranks[k])))
    return out


def _round(value: float, digits: int = 4) -> float:
    return round(float(value), digits)
