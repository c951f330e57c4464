"""Per-example evidence (evaluation/examples.py): built from the runner's per-iteration
answers, each kind's per-example scores and validity, and the compressed file format."""

from __future__ import annotations

import gzip

import pytest

from evaluation.examples import attempt_in, build_examples, decode_examples, encode_examples
from evaluation.prompts import TaskFormat

SENTIMENT_ROWS = [
    {"text": "Godt!", "label": "positive"},
    {"text": "Skidt.", "label": "negative"},
    {"text": "Tja", "label": "neutral"},
]


def test_generated_labels_two_iterations_and_an_unparseable_answer():
    fmt = TaskFormat("sentiment-classification", "da")
    answers = [  # iteration 0 drew rows 0, 0, 1; iteration 1 drew rows 1, 2, 2
        {"iteration": 0, "row": 0, "times": 2, "output": "positiv", "prediction": "positive", "prompt_hash": "a"},
        {"iteration": 0, "row": 1, "times": 1, "output": "hmm, svært", "prediction": "neutral", "prompt_hash": "b"},
        {"iteration": 1, "row": 1, "times": 1, "output": "negativ.", "prediction": "negative", "prompt_hash": "c"},
        {"iteration": 1, "row": 2, "times": 2, "output": "Neutral", "prediction": "neutral", "prompt_hash": "d"},
    ]
    examples = build_examples(fmt.kind, fmt, SENTIMENT_ROWS, answers)
    first, second, third = examples
    assert [e["example_id"] for e in examples] == ["test:0", "test:1", "test:2"]
    assert first["iterations"] == [0, 0] and second["iterations"] == [0, 1] and third["iterations"] == [1, 1]
    assert first == {
        "example_id": "test:0",
        "input": "Godt!",
        "gold": "positive",
        "label": "positive",
        "output": "positiv",
        "parsed": "positive",
        "valid": True,
        "scores": {"correct": 1.0},
        "iterations": [0, 0],
    }
    # row 1 answered twice with different shots: first answer shown, scores averaged, both kept
    assert second["output"] == "hmm, svært" and second["valid"] is False  # names no label
    assert second["scores"] == {"correct": 0.5}
    assert [a["iteration"] for a in second["attempts"]] == [0, 1]
    assert attempt_in(second, 1)["parsed"] == "negative" and attempt_in(second, 1)["valid"] is True
    assert attempt_in(first, 0) is first
    with pytest.raises(KeyError):
        attempt_in(first, 1)


def test_each_kind_scores_an_example():
    ner = TaskFormat("named-entity-recognition", "da").kind
    gold = ["B-PER", "I-PER", "O", "B-LOC"]
    assert ner.example_scores(gold, gold) == {"f1": 1.0}
    assert ner.example_scores(gold, ["B-PER", "I-PER", "O", "O"]) == {"f1": pytest.approx(2 / 3)}
    assert ner.example_scores(["O"], ["O"]) == {"f1": 1.0}
    assert ner.answer_valid(None, {}, {"valid_json": False}) is False

    qa = TaskFormat("reading-comprehension", "en").kind
    assert qa.example_scores(["the Eiffel Tower", "Eiffel Tower"], "Eiffel tower") == {"f1": 1.0, "em": 1.0}
    assert qa.example_scores(["Paris"], "in Paris, France")["em"] == 0.0
    assert qa.answer_valid(None, {}, {"output": "  "}) is False

    summary = TaskFormat("summarization", "en").kind
    assert summary.example_scores("a cat sat", "a cat sat") == {"chrf3pp": pytest.approx(1.0)}
    assert 0 < summary.example_scores("a cat sat", "a dog sat")["chrf3pp"] < 1

    mc = TaskFormat("knowledge", "en")
    row = {"question": "2+2?", "choices": ["3", "4"], "label": 1}
    assert mc.kind.example_scores(1, 1) == {"correct": 1.0}
    assert mc.kind.answer_valid(mc, row, {"output": "b. 4"}) and not mc.kind.answer_valid(mc, row, {"output": "x"})
    # the keys each kind declares are the keys it writes (stored examples are checked against them)
    assert list(ner.example_scores(gold, gold)) == list(ner.example_score_keys)
    assert list(qa.example_scores(["Paris"], "Paris")) == list(qa.example_score_keys)
    assert list(summary.example_scores("a", "a")) == list(summary.example_score_keys)
    assert list(mc.kind.example_scores(1, 0)) == list(mc.kind.example_score_keys)
    simplification = TaskFormat("simplification", "en").kind
    gold = {"source": "The feline sat.", "references": ["The cat sat."]}
    assert list(simplification.example_scores(gold, "The cat sat.")) == list(simplification.example_score_keys)


def test_the_file_format_round_trips_and_refuses_garbage():
    fmt = TaskFormat("sentiment-classification", "da")
    answers = [{"iteration": 0, "row": 0, "times": 1, "scores": [0.1, 0.2, 0.3], "prediction": "negative"}]
    examples = build_examples(fmt.kind, fmt, SENTIMENT_ROWS, answers)
    assert examples[0]["output"] is None and examples[0]["valid"]  # scored labels: always an answer
    data = encode_examples(examples)
    assert data == encode_examples(examples)  # deterministic bytes (no timestamp)
    assert decode_examples(data) == examples
    for garbage in (b"not gzip", gzip.compress(b"{not json\n"), gzip.compress(b'{"example_id": "x"}\n')):
        with pytest.raises(ValueError):
            decode_examples(garbage)
