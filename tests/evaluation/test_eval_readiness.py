"""An evaluation never dies late for something it could check early: prompts, label words
and encoder heads are checked for every dataset before any weights are loaded, and
encoders (which read the dataset's own text) need no prompts at all."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from evaluation import runner
from evaluation.prompts import TaskFormat, UnsupportedLanguage
from evaluation.runner import EvaluationSettings, evaluate_model

SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def _folder(root: Path, name: str, language: str, task: str, rows: list[dict], labels=None) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    meta = {"name": name, "language": language, "task": task}
    if labels:
        meta["labels"] = labels
    (folder / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    for split in ("train", "val", "test"):
        (folder / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _acceptability_rows(n: int = 8) -> list[dict]:
    return [{"text": f"Setning nummer {i} her.", "label": "correct" if i % 2 else "incorrect"} for i in range(n)]


@pytest.fixture
def no_weights(monkeypatch):
    """Fails the test if the engine reaches for model weights."""

    def refuse(*args, **kwargs):
        raise AssertionError("model weights were reached for before the datasets were checked")

    monkeypatch.setattr(runner, "local_weights", refuse)
    monkeypatch.setattr(runner, "load_backend", refuse)


def test_a_decoder_on_a_language_without_prompts_fails_before_any_weights(tmp_path, no_weights):
    _folder(tmp_path, "scala-xx", "xx", "linguistic-acceptability", _acceptability_rows())
    with pytest.raises(UnsupportedLanguage, match="no prompts for language 'xx'"):
        evaluate_model(SMOL, ["scala-xx"], EvaluationSettings(data_dir=tmp_path, iterations=1))


def test_a_label_without_a_word_fails_before_any_weights_and_alone(tmp_path, no_weights):
    rows = [{"text": f"Tekst {i}", "label": "mystery"} for i in range(4)]
    _folder(tmp_path, "odd-da", "da", "sentiment-classification", rows, labels=["positive", "mystery"])
    errors: dict[str, str] = {}
    settings = EvaluationSettings(data_dir=tmp_path, iterations=1)
    records = evaluate_model(SMOL, ["odd-da"], settings, on_dataset_error=lambda n, why: errors.__setitem__(n, why))
    assert records == [] and "no word for the sentiment-classification label(s) 'mystery'" in errors["odd-da"]
    with pytest.raises(UnsupportedLanguage, match="mystery"):
        evaluate_model(SMOL, ["odd-da"], settings)


def test_an_encoder_on_a_generation_task_fails_before_training(tmp_path, no_weights):
    _folder(tmp_path, "summ-xx", "xx", "summarization", [{"text": "a", "target_text": "b"}] * 4)
    _folder(tmp_path, "scala-xx", "xx", "linguistic-acceptability", _acceptability_rows())
    with pytest.raises(runner.EvaluationError, match="summarization needs a generative model"):
        evaluate_model(MINILM, ["scala-xx", "summ-xx"], EvaluationSettings(data_dir=tmp_path, iterations=1))


def test_the_dataset_text_format_needs_no_language():
    mc = TaskFormat.dataset_text("knowledge")
    row = {"question": "2+2?", "choices": ["3", "4"], "label": 1}
    assert mc.document(row) == "2+2?\nchoices:\na. 3\nb. 4"
    acceptability = TaskFormat.dataset_text("linguistic-acceptability", ("correct", "incorrect"))
    assert acceptability.label_words() == ["correct", "incorrect"]


@pytest.mark.slow
def test_an_encoder_evaluates_a_language_without_prompts_and_writes_its_examples(tmp_path):
    _folder(tmp_path, "scala-xx", "xx", "linguistic-acceptability", _acceptability_rows())
    settings = EvaluationSettings(
        data_dir=tmp_path, iterations=1, limit=4, max_train_steps=1, output_dir=tmp_path / "out"
    )
    [record] = evaluate_model(MINILM, ["scala-xx"], settings)
    with gzip.open(record["examples_file"], "rt", encoding="utf-8") as handle:
        examples = [json.loads(line) for line in handle]
    texts = {r["text"] for r in _acceptability_rows()[:4]}
    assert examples and all(e["input"] in texts and e["label"] in ("correct", "incorrect") for e in examples)
