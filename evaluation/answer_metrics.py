"""Metrics of one answer against its gold (docs/methodology.md §2) that a task kind also
scores per example (``evaluation/task_kinds.py``): SQuAD's F1 and exact match, and chrF++.
Pure functions, values in [0, 1]; :mod:`evaluation.metrics` holds them with the others."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

import numpy as np

# --- reading comprehension (SQuAD) ------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation and English articles, squeeze spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def squad_f1_single(prediction: str, truth: str) -> float:
    """SQuAD's token F1 of one prediction against one gold answer (both normalised)."""
    pred_tokens = normalize_answer(prediction).split()
    true_tokens = normalize_answer(truth).split()
    if not pred_tokens or not true_tokens:
        return float(pred_tokens == true_tokens)
    common = Counter(pred_tokens) & Counter(true_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(true_tokens)
    return 2 * precision * recall / (precision + recall)


def squad_em_single(prediction: str, truth: str) -> float:
    """1.0 when the normalised prediction equals the normalised gold answer, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(truth))


def _best_over_answers(single, predictions: Sequence[str], answers: Sequence[Sequence[str]]) -> float:
    """Mean over questions of ``single``'s best value against any gold answer."""
    if not predictions:
        return 0.0
    pairs = zip(predictions, answers, strict=True)
    return float(np.mean([max(single(p, t) for t in (golds or [""])) for p, golds in pairs]))


def squad_f1(predictions: Sequence[str], answers: Sequence[Sequence[str]]) -> float:
    """Mean over questions of the best token F1 against any gold answer."""
    return _best_over_answers(squad_f1_single, predictions, answers)


def squad_em(predictions: Sequence[str], answers: Sequence[Sequence[str]]) -> float:
    """SQuAD exact match: the mean over questions of the best match against any gold answer."""
    return _best_over_answers(squad_em_single, predictions, answers)


# --- summarization -----------------------------------------------------------------------


def chrf3pp(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Corpus chrF++ with β = 3 (character 6-grams + word bigrams), sacrebleu, scaled to [0, 1]."""
    from sacrebleu.metrics import CHRF

    if not predictions:
        return 0.0
    metric = CHRF(char_order=6, word_order=2, beta=3)
    return float(metric.corpus_score(list(predictions), [list(references)]).score) / 100.0
