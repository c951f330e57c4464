"""What a decoder's token log-probabilities say besides the task scores (docs/methodology.md §10).

**Bits per byte** (docs/methodology.md §10): how well the model predicts a held-out text, in bits per
UTF-8 byte, so that models with different tokenizers compare (perplexity per token does
not). Per evaluation, on the first evaluated test documents of the dataset, each cut to its
first characters, within the deployment's budget (:func:`budget`); the per-language column
of a board pools the nats and bytes of the board's datasets. It is shown, never ranked,
with its standard error over the documents.

**Membership probe** (Min-K% Prob, Shi et al. 2024): the mean log-probability of a text's
k% least likely tokens is higher for texts a model was trained on. Comparing the test
documents with the train documents of the same dataset, the share of (test, train) pairs
where the test text scores higher (the AUC, from the Mann-Whitney U statistic) is about 0.5
when the model treats both alike; well above 0.5 means it finds the test texts unusually
familiar. It cannot prove contamination (test texts can be easier, or shorter), nor rule it
out (paraphrased leaks do not show): a flag to look closer, never a change to the ranking.

**Cost, budget and reuse.** Both measures need each document token's probability over the
whole vocabulary: the output layer at every position, which on a small model with a large
vocabulary (Gemma-3-270M: 262k tokens) costs more than the rest of the model. So they
score a budget in proportion to the evaluation's own work (:func:`budget`): a document per
split for every 16 rows the evaluation scored, 2 to 32, each cut to 300 characters. It is
the same for every model evaluated under one protocol, whatever its tokenizer; the record
says it (``max_texts``, ``max_chars``), since numbers on other documents do not compare.
They depend only on the weights, the dtype and the documents (on the evaluation's settings
only through the budget), so the evidence is kept per (model, commit, backend, dtype,
budget, documents) in ``GLOSSA_INTRINSIC_CACHE`` (default ``~/.cache/glossa/intrinsic``) and
a later evaluation of the same weights on the same documents reads it instead of
recomputing it. A model without a commit is never reused (its weights are not pinned).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

SHARE = 1 / 16  # documents per split for each row the evaluation scores (its iterations' distinct rows)
MIN_TEXTS, TEXTS = 2, 32  # documents per split at least (the probe's minimum) and at most
MAX_CHARS = 300  # each document's first characters
SHARE_ENV, TEXTS_ENV, CHARS_ENV = "GLOSSA_INTRINSIC_SHARE", "GLOSSA_INTRINSIC_TEXTS", "GLOSSA_INTRINSIC_CHARS"
MIN_K = 0.2
FLAG_AUC = 0.6  # the probe's flag: test texts more familiar than train texts in 60% of pairs
CACHE_ENV = "GLOSSA_INTRINSIC_CACHE"
EVIDENCE_VERSION = 2  # part of the reuse key: raise it when what the evidence holds changes


def budget(scored_rows: int) -> tuple[int, int]:
    """Documents per split and characters per document the measures score after an
    evaluation that scored ``scored_rows`` rows (counted once per iteration): ``SHARE`` of
    them, at least ``MIN_TEXTS``, at most ``TEXTS``, each cut to ``MAX_CHARS`` characters;
    the deployment's ``GLOSSA_INTRINSIC_SHARE``, ``GLOSSA_INTRINSIC_TEXTS`` and
    ``GLOSSA_INTRINSIC_CHARS`` replace the three."""
    share = _setting(SHARE_ENV, SHARE, float, 0.0)
    most = int(_setting(TEXTS_ENV, TEXTS, int, MIN_TEXTS))
    chars = int(_setting(CHARS_ENV, MAX_CHARS, int, 1))
    return min(most, max(MIN_TEXTS, int(share * scored_rows))), chars


def _setting(env: str, default: float, kind: type, least: float) -> float:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value < least:
        what = "a whole number" if kind is int else "a number"
        raise ValueError(f"{env} must be {what} of at least {least}, not {raw!r}")
    return value


def min_k_prob(logprobs: Sequence[float], k: float = MIN_K) -> float:
    """Mean of the ``k`` share of lowest token log-probabilities (at least one token)."""
    if not logprobs:
        raise ValueError("no tokens")
    count = max(1, int(len(logprobs) * k))
    return sum(sorted(logprobs)[:count]) / count


def bits_per_byte(nats: float, num_bytes: int) -> float:
    """``nats``: the (negative) sum of natural-log token probabilities of texts of ``num_bytes`` bytes."""
    return -nats / math.log(2) / num_bytes


def bits_per_byte_se(nats: Sequence[float], num_bytes: Sequence[int]) -> float | None:
    """Standard error of the pooled bits per byte ``-Σ nats / Σ bytes / ln 2`` over documents
    (``nats[i]``, ``num_bytes[i]``: one document's), by the delta method for a ratio with the
    document as the unit; None under two documents."""
    n, total = len(nats), sum(num_bytes)
    if n < 2 or not total:
        return None
    ratio = sum(nats) / total
    spread = sum((x - ratio * b) ** 2 for x, b in zip(nats, num_bytes, strict=True))
    return math.sqrt(n / (n - 1) * spread) / total / math.log(2)


def intrinsic_scores(texts: Sequence[str], logprobs: Sequence[Sequence[float]]) -> dict:
    """Bits per byte (with its standard error) and per-token perplexity of ``texts`` from
    their token log-probabilities."""
    per_text = [float(sum(lp)) for lp in logprobs]
    sizes = [len(t.encode("utf-8")) for t in texts]
    nats, tokens, num_bytes = sum(per_text), sum(len(lp) for lp in logprobs), sum(sizes)
    return {
        "texts": len(texts),
        "bytes": num_bytes,
        "tokens": tokens,
        "nats": nats,
        "bits_per_byte": bits_per_byte(nats, num_bytes) if num_bytes else None,
        "bits_per_byte_se": bits_per_byte_se(per_text, sizes),
        "perplexity": math.exp(min(-nats / tokens, 700.0)) if tokens else None,  # finite: records are JSON
    }


def auc_se(a: Sequence[float], b: Sequence[float]) -> float:
    """DeLong's standard error of the AUC of ``a`` over ``b`` (ties count a half); needs two of each."""

    def wins(x: float, ys: Sequence[float]) -> float:
        return sum(1.0 if x > y else 0.5 if x == y else 0.0 for y in ys) / len(ys)

    def variance(values: list[float]) -> float:
        mean = sum(values) / len(values)
        return sum((v - mean) ** 2 for v in values) / (len(values) - 1)

    over = [wins(x, b) for x in a]
    under = [1.0 - wins(y, a) for y in b]  # the share of a each b loses to
    return math.sqrt(variance(over) / len(a) + variance(under) / len(b))


def membership_probe(test: Sequence[Sequence[float]], train: Sequence[Sequence[float]], k: float = MIN_K) -> dict:
    """Min-K% Prob of test against train documents: the AUC (with DeLong's standard error)
    and a one-sided Mann-Whitney p."""
    from scipy import stats

    a = [min_k_prob(lp, k) for lp in test if lp]
    b = [min_k_prob(lp, k) for lp in train if lp]
    if len(a) < 2 or len(b) < 2:
        raise ValueError("the probe needs at least two test and two train documents")
    result = stats.mannwhitneyu(a, b, alternative="greater")
    auc = float(result.statistic) / (len(a) * len(b))
    return {
        "statistic": f"Min-{round(k * 100)}% Prob",
        "k": k,
        "test_mean": sum(a) / len(a),
        "train_mean": sum(b) / len(b),
        "auc": auc,
        "auc_se": auc_se(a, b),
        "p_value": float(result.pvalue),
        "n_test": len(a),
        "n_train": len(b),
        "flag": bool(auc >= FLAG_AUC and result.pvalue < 0.05),  # a Python bool: records are JSON
    }


def intrinsic_evidence(
    token_logprobs,
    test_documents: Sequence[str],
    train_documents: Sequence[str],
    *,
    weights: Sequence[str | None] | None = None,
    texts: int = TEXTS,
    chars: int = MAX_CHARS,
) -> dict:
    """The record's ``intrinsic`` (bits per byte on the first ``texts`` test documents, each
    cut to ``chars`` characters, and that budget) and ``contamination`` (the probe, test
    against as many train documents) fields; ``token_logprobs`` is the backend's. Empty when
    there is nothing to score. ``weights`` (model id, commit, backend, dtype) lets a later
    evaluation of the same weights reuse the evidence."""
    test = [d[:chars] for d in test_documents[:texts] if d.strip()]
    train = [d[:chars] for d in train_documents[: len(test)] if d.strip()]
    if not test:
        return {}
    path = _stored(weights, test, train, (texts, chars))
    if path is not None:
        with contextlib.suppress(OSError, ValueError):
            stored = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(stored, dict) and isinstance(stored.get("intrinsic"), dict):
                return stored
    test_logprobs = token_logprobs(test)
    evidence = {"intrinsic": {**intrinsic_scores(test, test_logprobs), "max_texts": texts, "max_chars": chars}}
    if len(train) >= 2:
        with contextlib.suppress(ValueError):  # too few documents with scored tokens
            evidence["contamination"] = membership_probe(test_logprobs, token_logprobs(train))
    if path is not None:
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(evidence), encoding="utf-8")
            os.replace(tmp, path)  # whole or not at all, for a reader in another process
    return evidence


def _stored(
    weights: Sequence[str | None] | None, test: list[str], train: list[str], limits: tuple[int, int]
) -> Path | None:
    """Where the evidence of these weights on these documents, under this budget, is kept;
    None when the weights are not pinned to a commit."""
    if not weights or any(not part for part in weights):
        return None
    key = json.dumps([EVIDENCE_VERSION, list(weights), MIN_K, list(limits), test, train], ensure_ascii=False)
    root = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "glossa" / "intrinsic")
    return root / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()}.json"
