"""The real SmolLM2-135M-Instruct and Gemma-3-270m on small slices of several tasks."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from evaluation.answer_formats import ner_json_schema
from evaluation.cache import OutputCache
from evaluation.datasets import load_dataset
from evaluation.errors import DatasetNotFound
from evaluation.examples import attempt_in
from evaluation.prompts import TaskFormat
from evaluation.runner import EvaluationSettings, evaluate_dataset, evaluate_model
from evaluation.structured import close_truncated_json

pytestmark = pytest.mark.slow


def _check_record(record, dataset, iterations, primary, secondary):
    assert record["dataset"] == dataset and record["iterations"] == iterations
    assert len(record["results"]["raw"]) == iterations
    for it in record["results"]["raw"]:
        assert set(it) == {primary, secondary}
        assert all(-1 <= v <= 1 for v in it.values())
    total = record["results"]["total"]
    assert {f"test_{primary}", f"test_{primary}_se", f"test_{secondary}", f"test_{secondary}_se"} <= set(total)
    assert len(record["shot_ids"]) == iterations


def test_gemma_acceptability_few_shot_is_reproducible(gemma):
    info, backend = gemma
    ds = load_dataset("scala-da")
    settings = EvaluationSettings(iterations=1, limit=4)
    record, preds, _ = evaluate_dataset(backend, info, ds, settings)
    _check_record(record, "scala-da", 1, "mcc", "macro_f1")
    assert record["prompt_style"] == "base" and record["generative_type"] == "base"
    assert all(len(ids) == 12 for ids in record["shot_ids"])
    labels = [ds.splits["train"][i]["label"] for i in record["shot_ids"][0]]
    assert labels[:4] == ["correct", "incorrect", "correct", "incorrect"]  # stratified: labels cycle
    assert all(p["prediction"] in ("correct", "incorrect") and len(p["scores"]) == 2 for p in preds)
    again, again_preds, _ = evaluate_dataset(backend, info, ds, settings, cache=OutputCache())
    assert again["results"]["raw"] == record["results"]["raw"]
    assert [p["scores"] for p in again_preds] == [p["scores"] for p in preds]


def test_gemma_multiple_choice_zero_shot_uses_the_cache(gemma):
    info, backend = gemma
    cache = OutputCache()
    record, preds, examples = evaluate_dataset(
        backend, info, load_dataset("mmlu-en"), EvaluationSettings(iterations=2, limit=4, few_shot=False), cache=cache
    )
    _check_record(record, "mmlu-en", 2, "mcc", "accuracy")
    assert record["few_shot"] is False and record["shot_ids"] == [[], []]
    # zero-shot prompts repeat across iterations: each distinct row is computed once
    distinct_rows = len({p["row"] for p in preds})
    assert cache.misses == distinct_rows and cache.hits == len(preds) - distinct_rows
    assert {p["prediction"] for p in preds} <= {0, 1, 2, 3}
    # per-example evidence: each drawn row once, with its draws; accuracy per iteration recomputed from it
    assert [e["example_id"] for e in examples] == [f"test:{r}" for r in sorted({p["row"] for p in preds})]
    assert sum(len(e["iterations"]) for e in examples) == 2 * 4
    for iteration, scores in enumerate(record["results"]["raw"]):
        drawn = [e for e in examples for i in e["iterations"] if i == iteration]
        assert len(drawn) == 4
        answers = [attempt_in(e, iteration) for e in drawn]
        assert scores["accuracy"] == pytest.approx(sum(a["parsed"] == e["gold"] for a, e in zip(answers, drawn)) / 4)
    assert all(e["valid"] and e["output"] is None and e["scores"]["correct"] in (0.0, 1.0) for e in examples)


def test_gemma_prefix_reuse_beyond_the_sliding_window_gives_the_same_logprobs(gemma, monkeypatch):
    """Prompts (and a shared prefix) longer than Gemma's 512-token window: the cached prefix is exact."""
    _, backend = gemma
    fmt = TaskFormat("common-sense-reasoning", "en")
    ds = load_dataset("hellaswag-en")
    prompts = [fmt.render_base(ds.splits["train"][:8], row) for row in ds.splits["test"][:3]]
    shared = os.path.commonprefix(prompts)
    window = backend._text_config.sliding_window
    encoded = [backend.encode(p) for p in prompts]
    assert len(backend._common_prefix_ids(encoded, shared)) > window  # the prefix's own cache is cropped
    continuations = [" a", " b", " c", " d"]
    reused = np.array(backend.label_logprobs(prompts, continuations, shared_prefix=shared))
    monkeypatch.setenv("GLOSSA_NO_PREFIX_CACHE", "1")
    full = np.array(backend.label_logprobs(prompts, continuations, shared_prefix=shared))
    assert np.abs(reused - full).max() < 1e-3


def test_smol_ner_structured_output_always_parses(smol):
    info, backend = smol
    ds = load_dataset("ddt-ner-da")
    record, preds, _ = evaluate_dataset(backend, info, ds, EvaluationSettings(iterations=1, limit=3, few_shot=False))
    _check_record(record, "ddt-ner-da", 1, "micro_f1_no_misc", "micro_f1")
    assert record["prompt_style"] == "chat"
    keys = list(TaskFormat("named-entity-recognition", "da").ner_keys().values())
    for p in preds:
        data = json.loads(p["output"])
        assert list(data) == keys
        assert all(isinstance(v, list) and len(v) <= 5 and all(isinstance(x, str) for x in v) for v in data.values())
        assert p["valid_json"] and len(p["prediction"]) == len(p["gold"])
    assert record["structured_output_valid"] == 1.0


def test_smol_batched_json_decoding_equals_each_row_alone(smol):
    """Rows of a batch finish at different steps and leave it: the rest decode as if alone."""
    _, backend = smol
    fmt = TaskFormat("named-entity-recognition", "da")
    schema = ner_json_schema(fmt.ner_keys())
    prefix = (
        "Udtræk navngivne entiteter fra teksten og svar som JSON. "
        "Eksempel: Mette Frederiksen besøgte Aarhus Universitet i går.\n"
    ) * 3
    suffixes = [
        "Tekst: Lars bor i København.\nSvar:",
        "Tekst: Det regner.\nSvar:",
        "Tekst: Novo Nordisk og Carlsberg har hovedsæde i Danmark, skriver Politiken.\nSvar:",
    ]
    prompts = [prefix + s for s in suffixes]
    batched = backend.generate(prompts, 48, json_schema=schema, shared_prefix=prefix)
    encoded = [backend.encode(p) for p in prompts]
    prefix_ids = backend._common_prefix_ids(encoded, prefix, decode_steps=48)
    assert prefix_ids  # the shared-prefix path is the one under test
    alone = [
        backend._greedy_with_prefix(
            prefix_ids, [e[len(prefix_ids) :]], 48, backend._grammar(schema), {backend.tokenizer.eos_token_id}
        )[0][0]
        for e in encoded
    ]
    assert len({len(a) for a in alone}) > 1  # different lengths: rows left the batch at different steps
    for got, want in zip(batched, alone, strict=True):
        assert got == close_truncated_json(want, list(schema["properties"]))
        assert list(json.loads(got)) == list(schema["properties"])


def test_smol_reading_comprehension_and_sentiment(smol):
    info, backend = smol
    rc, preds, _ = evaluate_dataset(
        backend, info, load_dataset("xquad-en"), EvaluationSettings(iterations=1, limit=2, few_shot=False)
    )
    _check_record(rc, "xquad-en", 1, "f1", "em")
    assert all("\n" not in p["prediction"] for p in preds)
    sent, preds, _ = evaluate_dataset(
        backend,
        info,
        load_dataset("lcc-europarl-sentiment-da"),
        EvaluationSettings(iterations=1, limit=4, few_shot=False),
    )
    _check_record(sent, "lcc-europarl-sentiment-da", 1, "mcc", "macro_f1")
    assert {p["prediction"] for p in preds} <= {"positive", "neutral", "negative"}


def test_cli_writes_record_and_predictions(tmp_path):
    from evaluation.__main__ import main

    out = tmp_path / "results.jsonl"
    rc = main(
        [
            "run",
            "--model",
            "HuggingFaceTB/SmolLM2-135M-Instruct",
            "--dataset",
            "scala-da",
            "--iterations",
            "2",
            "--limit",
            "4",
            "--zero-shot",
            "--output",
            str(out),
        ]
    )
    assert rc == 0
    record = json.loads(out.read_text().splitlines()[0])
    for key in (
        "dataset",
        "task",
        "dataset_languages",
        "model",
        "results",
        "num_model_parameters",
        "max_sequence_length",
        "vocabulary_size",
        "generative",
        "generative_type",
        "few_shot",
        "validation_split",
        "model_revision",
        "model_commit",
        "precision",
        "backend",
        "prompt_style",
        "seed",
        "iterations",
        "limit",
        "shot_ids",
        "versions",
        "predictions_file",
        "created_at",
    ):
        assert key in record
    assert record["precision"] == "Q4_1" and record["generative_type"] == "instruction_tuned"
    assert record["limit"] == 4 and record["seed"] == 4242
    lines = Path(record["predictions_file"]).read_text().splitlines()
    assert lines and all("prediction" in json.loads(line) for line in lines)


def test_unknown_dataset_fails_before_loading_the_model():
    with pytest.raises(DatasetNotFound, match="no-such-dataset"):
        evaluate_model("google/gemma-3-270m", ["no-such-dataset"], EvaluationSettings())


def test_cli_reports_errors_cleanly(tmp_path, capsys):
    from evaluation.__main__ import main

    assert main(["run", "--model", "nope", "--dataset", "scala-da", "--output", str(tmp_path / "x.jsonl")]) == 2
    assert "organisation/name" in capsys.readouterr().err
