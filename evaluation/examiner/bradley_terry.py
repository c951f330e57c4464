"""A Bradley–Terry model of the examiners' pairwise verdicts, with covariates.

Every comparison of the merge sort is judged in both orders, and each order is one
verdict: the answer shown first won or lost. The model for one verdict is

    P(first wins) = σ(θ_first − θ_second + γ + β·ℓ),   ℓ = (len_first − len_second) / (len_first + len_second)

with θ the examinees' strengths, γ the examiners' preference for the answer shown first
(position bias) and β the preference for the longer answer (length, as LMArena's style
control does: strengths are then compared at equal length). It is fitted by Newton's
method (logistic regression) with a weak ridge penalty (``RIDGE``, a N(0, 1/RIDGE) prior)
that keeps strengths finite when an examinee wins every comparison; the penalty also
centres the strengths (they sum to 0: a sum cannot move the likelihood, so only the
penalty decides it). Unreadable verdicts (``"?"``) are left out, and so are the verdicts
of an examiner on answers of its own family.

Uncertainty comes from resampling whole questions (the verdicts on one question are not
independent): a bootstrap replicate is the same fit with each verdict weighted by the
number of times its question was drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

RIDGE = 0.01
MAX_ITERATIONS = 100
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Verdicts:
    """One row per verdict; indices into ``entries``, ``examiners`` and ``questions``."""

    entries: tuple[str, ...]
    examiners: tuple[str, ...]
    questions: tuple[str, ...]
    question: np.ndarray
    examiner: np.ndarray
    first: np.ndarray
    second: np.ndarray
    first_won: np.ndarray
    length: np.ndarray

    def __len__(self) -> int:
        return int(self.first.shape[0])

    def design(self) -> np.ndarray:
        """Columns: one per entry (+1 shown first, −1 second), position, length."""
        n, p = len(self), len(self.entries)
        x = np.zeros((n, p + 2))
        rows = np.arange(n)
        x[rows, self.first] = 1.0
        x[rows, self.second] = -1.0
        x[:, p] = 1.0
        x[:, p + 1] = self.length
        return x

    def seen(self, weights: np.ndarray) -> np.ndarray:
        """Entries that take part in a verdict of positive weight."""
        seen = np.zeros(len(self.entries), dtype=bool)
        used = weights > 0
        seen[self.first[used]] = True
        seen[self.second[used]] = True
        return seen


@dataclass(frozen=True)
class Fit:
    """A fitted Bradley-Terry model: entry strengths, the position bias and the length effect."""

    strengths: np.ndarray  # centred θ, one per entry
    position: float  # γ
    length: float  # β
    iterations: int

    @property
    def parameters(self) -> np.ndarray:
        """The strengths, then the position and length parameters, as one vector."""
        return np.concatenate([self.strengths, [self.position, self.length]])


def length_feature(first: int, second: int) -> float:
    """The normalised length difference of two answers, in [−1, 1] (0 when both are empty)."""
    total = first + second
    return (first - second) / total if total else 0.0


def _collect(records: list[dict], families: dict[str, str]) -> list[tuple]:
    """(question, examiner, first, second, first_won, ℓ) for every readable verdict."""
    lengths = {(a["question"], a["examinee"]): len(a.get("text") or "") for a in records if a["kind"] == "answer"}
    rows = []
    for r in records:
        if r["kind"] != "ranking":
            continue
        examiner, qid = r["examiner"], r["question"]
        family = families.get(examiner, examiner)
        for j in r.get("judgments") or []:
            a, b = j["pair"]
            if family in (families.get(a, a), families.get(b, b)):
                continue
            for first, second, winner in ((a, b, j.get("ab")), (b, a, j.get("ba"))):
                if winner not in (first, second):
                    continue
                ell = length_feature(lengths.get((qid, first), 0), lengths.get((qid, second), 0))
                rows.append((qid, examiner, first, second, winner == first, ell))
    return rows


def verdicts_from_records(records: list[dict], families: dict[str, str] | None = None) -> Verdicts:
    """The verdicts of an exam's ``ranking`` lines (answers' lengths from its ``answer`` lines)."""
    rows = _collect(records, families or {})
    entries = tuple(sorted({m for row in rows for m in row[2:4]}))
    examiners = tuple(sorted({row[1] for row in rows}))
    questions = tuple(sorted({row[0] for row in rows}))
    index = {name: k for k, name in enumerate(entries)}
    by_examiner = {name: k for k, name in enumerate(examiners)}
    by_question = {name: k for k, name in enumerate(questions)}

    def column(key, dtype):
        return np.array([key(row) for row in rows], dtype=dtype)

    return Verdicts(
        entries,
        examiners,
        questions,
        question=column(lambda r: by_question[r[0]], int),
        examiner=column(lambda r: by_examiner[r[1]], int),
        first=column(lambda r: index[r[2]], int),
        second=column(lambda r: index[r[3]], int),
        first_won=column(lambda r: r[4], float),
        length=column(lambda r: r[5], float),
    )


def _objective(x: np.ndarray, y: np.ndarray, w: np.ndarray, beta: np.ndarray) -> float:
    eta = x @ beta
    return float(w @ (y * eta - np.logaddexp(0.0, eta)) - 0.5 * RIDGE * beta @ beta)


def fit(verdicts: Verdicts, weights: np.ndarray | None = None, start: np.ndarray | None = None) -> Fit:
    """The penalised maximum-likelihood fit (Newton with step halving), verdicts weighted by
    ``weights`` (a bootstrap's question counts, or 0 to leave some out)."""
    x = verdicts.design()
    y = verdicts.first_won
    w = np.ones(len(verdicts)) if weights is None else np.asarray(weights, dtype=float)
    beta = np.zeros(x.shape[1]) if start is None else start.copy()
    current = _objective(x, y, w, beta)
    iterations = 0
    while iterations < MAX_ITERATIONS:
        iterations += 1
        prob = expit(x @ beta)
        gradient = x.T @ (w * (y - prob)) - RIDGE * beta
        hessian = (x * (w * prob * (1 - prob))[:, None]).T @ x + RIDGE * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        scale = 1.0
        while scale > 1e-6:
            candidate = beta + scale * step
            value = _objective(x, y, w, candidate)
            if value >= current - 1e-12:
                break
            scale /= 2
        beta, current = candidate, value
        if np.max(np.abs(scale * step)) < TOLERANCE:
            break
    p = len(verdicts.entries)
    strengths = beta[:p] - beta[:p].mean()
    return Fit(strengths, float(beta[p]), float(beta[p + 1]), iterations)


def question_weights(verdicts: Verdicts, replicates: int, seed: int) -> np.ndarray:
    """(replicates, verdicts): each verdict's weight is how often its question was drawn,
    whole questions drawn with replacement."""
    rng = np.random.default_rng(seed)
    n_questions = len(verdicts.questions)
    out = np.empty((replicates, len(verdicts)))
    for b in range(replicates):
        counts = np.bincount(rng.integers(0, n_questions, n_questions), minlength=n_questions)
        out[b] = counts[verdicts.question]
    return out


def bootstrap(verdicts: Verdicts, point: Fit, replicates: int, seed: int) -> np.ndarray:
    """(replicates, entries + 2) parameters refitted on question resamples (warm-started
    from the point fit). An entry absent from a replicate keeps its point strength there,
    so the replicate says nothing about it rather than something false."""
    out = np.empty((replicates, len(verdicts.entries) + 2))
    for b, weights in enumerate(question_weights(verdicts, replicates, seed)):
        refit = fit(verdicts, weights, start=point.parameters).parameters
        absent = ~verdicts.seen(weights)
        refit[: len(verdicts.entries)][absent] = point.strengths[absent]
        out[b] = refit
    return out
