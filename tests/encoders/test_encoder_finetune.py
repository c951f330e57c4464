"""evaluate_encoder_dataset: input checks (fast) and real fine-tuning of MiniLM (slow)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from evaluation.datasets import read_jsonl
from evaluation.errors import EvaluationError
from evaluation.finetune import UnsupportedEncoderTask, evaluate_encoder_dataset

# words of one side in poem-sentiment-en's verses (lower-case, as the source writes them)
POSITIVE_WORDS = {
    "love", "sweet", "joy", "happy", "bright", "fair", "glad", "delight", "beauty", "beautiful", "smile", "gentle",
    "peace", "bliss", "golden", "merry", "lovely", "blessed", "hope", "glory", "warm", "dear", "soft", "calm",
    "shining", "brave", "kind", "pleasant", "bless", "laugh", "joyous", "smiling", "tender",
}  # fmt: skip
NEGATIVE_WORDS = {
    "death", "dead", "sad", "grief", "sorrow", "dark", "tears", "pain", "woe", "fear", "lonely", "weep", "cruel",
    "despair", "mourn", "gloom", "grave", "cold", "bitter", "rude", "vain", "loss", "madness", "blind", "heavy",
    "cries", "die", "dying", "wrong", "hate", "alas", "fierce", "wounded", "darkness", "sorrowful", "weary", "lost",
}  # fmt: skip


def indices_for(splits: dict, iterations: int = 1) -> dict:
    rng = np.random.default_rng(4242)
    return {s: rng.integers(0, len(splits[s]), size=(iterations, len(splits[s]))) for s in ("train", "val", "test")}


def first_rows(datasets_dir: Path, name: str, counts: dict[str, int]) -> tuple[dict, dict]:
    folder = datasets_dir / name
    meta = json.loads((folder / "dataset.json").read_text())
    return meta, {s: read_jsonl(folder / f"{s}.jsonl")[:n] for s, n in counts.items()}


def test_summarization_is_refused_with_a_clear_error(minilm_dir):
    rows = [{"text": "a long article", "target_text": "short"}]
    splits = {"train": rows, "val": rows, "test": rows}
    with pytest.raises(UnsupportedEncoderTask, match="summarization needs a generative model") as err:
        evaluate_encoder_dataset(minilm_dir, {"task": "summarization"}, splits, indices_for(splits), iterations=1)
    assert isinstance(err.value, EvaluationError)


def test_indices_are_checked_before_any_training(minilm_dir):
    rows = [{"text": "x", "label": "positive"}, {"text": "y", "label": "negative"}]
    splits = {"train": rows, "val": rows, "test": rows}
    bad = indices_for(splits)
    bad["test"] = np.array([[0, 5]])
    with pytest.raises(ValueError, match="point outside the 2 rows of test"):
        evaluate_encoder_dataset(minilm_dir, {"task": "sentiment-classification"}, splits, bad, iterations=1)
    with pytest.raises(ValueError, match="shape"):
        evaluate_encoder_dataset(
            minilm_dir, {"task": "sentiment-classification"}, splits, indices_for(splits), iterations=2
        )


def easy_sentiment_rows(datasets_dir: Path) -> list[dict]:
    """Real verses that are clearly positive or negative (a sentiment word of one side only)."""
    folder = datasets_dir / "poem-sentiment-en"
    positive, negative = [], []
    for split in ("train", "val", "test"):
        for row in read_jsonl(folder / f"{split}.jsonl"):
            words = set(re.findall(r"[a-z']+", row["text"].lower()))
            if row["label"] == "positive" and words & POSITIVE_WORDS and not words & NEGATIVE_WORDS:
                positive.append(row)
            if row["label"] == "negative" and words & NEGATIVE_WORDS and not words & POSITIVE_WORDS:
                negative.append(row)
    return [row for pair in zip(positive, negative) for row in pair]  # balanced, alternating


@pytest.mark.slow
def test_fine_tuning_beats_chance_on_an_easy_slice(minilm_dir, shared_datasets_dir):
    rows = easy_sentiment_rows(shared_datasets_dir)
    assert len(rows) >= 96
    splits = {"test": rows[:40], "val": rows[40:56], "train": rows[56:100]}
    reports = []
    scores = evaluate_encoder_dataset(
        minilm_dir,
        {"task": "sentiment-classification", "labels": ["positive", "negative"]},
        splits,
        indices_for(splits),
        iterations=1,
        max_steps=30,
        eval_every=10,
        reports=reports,
    )
    assert set(scores[0]) == {"mcc", "macro_f1"}
    assert scores[0]["mcc"] > 0.2, scores  # chance is 0; 30 steps reach about 0.4
    assert [step for step, _ in reports[0].val_losses] == [10, 20, 30]
    assert reports[0].val_losses[-1][1] < reports[0].val_losses[0][1]  # it learnt something


@pytest.mark.slow
def test_every_encoder_head_runs_end_to_end(minilm_dir, shared_datasets_dir):
    """One optimizer step per task family on a few real rows: valid metric dicts in [0, 1]."""
    cases = {  # name: (the metrics, iterations)
        "uner-en": ({"micro_f1_no_misc", "micro_f1"}, 2),
        "xquad-en": ({"f1", "em"}, 1),
        "mmlu-en": ({"mcc", "accuracy"}, 1),
    }
    for name, (metrics, iterations) in cases.items():
        meta, splits = first_rows(shared_datasets_dir, name, {"train": 4, "val": 2, "test": 4})
        progress = []
        scores = evaluate_encoder_dataset(
            minilm_dir,
            meta,
            splits,
            indices_for(splits, iterations),
            iterations=iterations,
            max_steps=1,
            progress=lambda done, total, seen=progress: seen.append((done, total)),
        )
        assert len(scores) == iterations and progress == [(i + 1, iterations) for i in range(iterations)], name
        for score in scores:
            assert set(score) == metrics, name
            assert all(-1.0 <= v <= 1.0 for v in score.values()), (name, score)
