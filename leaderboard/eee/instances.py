"""Glossa's per-example evidence (``evaluation/examples.py``) → EEE instance-level rows
(``instance_level_eval.schema.json`` 0.2.1), one per evaluated example.

Each row is a single-turn interaction: the document the prompt showed as ``input.raw``,
the gold answer as ``input.reference``, the model's raw output (or, when the labels were
scored rather than generated, the label it scored highest) as ``output.raw``, the answer
read from it in ``answer_attribution``, and the example's primary score. What EEE has no
field for (whether the answer could be read, the bootstrap draws, all scores, the
attempts) is kept as strings in ``metadata``.
"""

from __future__ import annotations

import json

from leaderboard.eee.writer import INSTANCE_SCHEMA_VERSION


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _references(gold: object) -> list[str]:
    if isinstance(gold, list) and all(isinstance(item, str) for item in gold):
        return list(gold)
    return [] if gold is None else [_text(gold)]


def _score(scores: dict) -> float:
    """The example's main score: ``correct`` when the task has it, else its first score."""
    if "correct" in scores:
        return float(scores["correct"])
    numbers = [float(v) for _, v in sorted(scores.items()) if isinstance(v, (int, float))]
    return numbers[0] if numbers else 0.0


def instance_row(example: dict, *, evaluation_id: str, model: str, dataset: str, result_id: str) -> dict:
    """One example as an EEE instance-level row linked to its log by ``evaluation_id``."""
    scores = example.get("scores") or {}
    score = _score(scores)
    parsed = example.get("parsed")
    output = example.get("output")
    metadata = {
        "valid": "true" if example.get("valid") else "false",
        "scores": json.dumps(scores, sort_keys=True),
        "iterations": json.dumps(example.get("iterations") or []),
    }
    if example.get("label") is not None:
        metadata["label"] = _text(example["label"])
    if example.get("attempts"):
        metadata["attempts"] = json.dumps(example["attempts"], ensure_ascii=False)
    return {
        "schema_version": INSTANCE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "evaluation_result_id": result_id,
        "model_id": model,
        "evaluation_name": dataset,
        "sample_id": str(example.get("example_id")),
        "interaction_type": "single_turn",
        "input": {"raw": _text(example.get("input")), "reference": _references(example.get("gold"))},
        "output": {"raw": [_text(output if output is not None else parsed)]},
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": _text(parsed),
                "extraction_method": "glossa task parser" if output is not None else "highest-scoring label",
                "is_terminal": True,
            }
        ],
        "evaluation": {"score": score, "is_correct": score >= 1.0},
        "metadata": metadata,
    }
