"""The runner routes an encoder to fine-tuning and writes a record the importer accepts."""

from __future__ import annotations

import pytest

from evaluation.runner import EvaluationSettings, evaluate_model


@pytest.mark.slow
@pytest.mark.django_db
def test_runner_fine_tunes_minilm_and_the_record_imports():
    from leaderboard.models import Evaluation, IterationScore
    from leaderboard.services.results_import import import_record

    progress = []
    settings = EvaluationSettings(iterations=2, limit=6, max_train_steps=1)
    records = evaluate_model(
        "sentence-transformers/all-MiniLM-L6-v2",
        ["poem-sentiment-en"],
        settings,
        on_progress=lambda *args: progress.append(args),
    )
    assert len(records) == 1
    record = records[0]
    assert record["dataset"] == "poem-sentiment-en" and record["task"] == "sentiment-classification"
    assert record["generative"] is False and record["generative_type"] is None
    assert record["iterations"] == 2 and record["limit"] == 6 and record["prompt_style"] == "finetune"
    assert [set(it) for it in record["results"]["raw"]] == [{"mcc", "macro_f1"}] * 2
    assert set(record["results"]["total"]) == {"test_mcc", "test_mcc_se", "test_macro_f1", "test_macro_f1_se"}
    assert progress == [("poem-sentiment-en", 1, 2), ("poem-sentiment-en", 2, 2)]

    assert import_record(record, source="test") == "imported"
    evaluation = Evaluation.objects.get(model__model_id="sentence-transformers/all-MiniLM-L6-v2")
    assert IterationScore.objects.filter(evaluation=evaluation, metric="mcc").count() == 2
