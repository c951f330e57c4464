"""An evaluation's cost travels in its Every Eval Ever log (issue #26.1): JSON-encoded in
``eval_library.additional_details.efficiency`` (EEE has no field for it), the log still
valid against the vendored schema, and importing the log gives the same cost back."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.eee.schema import schema_errors
from leaderboard.models import Evaluation, EvaluationCost, LanguageModel
from leaderboard.services.efficiency_store import cost_fields
from leaderboard.services.results_import import import_file, import_record
from tests.support.efficiency import GPU, efficiency


@pytest.mark.django_db
def test_the_cost_is_in_the_eee_log_and_comes_back_from_it(client, tmp_path):
    eff = efficiency(GPU, rate=5000.0)
    raw = [{"test_mcc": 0.3 + 0.01 * i, "test_macro_f1": 0.6} for i in range(10)]
    record = {
        "dataset": "scala-da",
        "task": "linguistic-acceptability",
        "dataset_languages": ["da"],
        "model": "org/measured",
        "results": {"raw": raw},
        "efficiency": eff,
    }
    import_record(record, source="test")
    evaluation = Evaluation.objects.get(model__model_id="org/measured")
    before = cost_fields(eff)

    response = client.get(reverse("api-evaluation-eee", args=[evaluation.pk]))
    log = json.loads(response.content)
    assert schema_errors(log) == []
    details = log["eval_library"]["additional_details"]
    assert json.loads(details["efficiency"]) == eff
    assert "efficiency" not in json.loads(details.get("glossa_record") or "{}")  # once, in its own field

    LanguageModel.objects.all().delete()
    path = tmp_path / "measured.json"
    path.write_text(json.dumps(log))
    assert import_file(path).imported == 1
    cost = EvaluationCost.objects.get(evaluation__model__model_id="org/measured")
    assert {key: getattr(cost, key) for key in before} == before


@pytest.mark.django_db
def test_a_hostile_efficiency_in_an_eee_log_is_a_numbered_error(tmp_path):
    log_line = {
        "schema_version": "0.2.1",
        "model_info": {"name": "org/x", "id": "org/x"},
        "eval_library": {
            "name": "glossa",
            "version": "unknown",
            "additional_details": {
                "dataset": "scala-da",
                "task": "linguistic-acceptability",
                "raw_results": json.dumps([{"test_mcc": 0.5, "test_macro_f1": 0.5}]),
                "efficiency": "{not json",
            },
        },
        "evaluation_results": [],
    }
    hostile_value = json.loads(json.dumps(log_line))
    hostile_value["eval_library"]["additional_details"]["efficiency"] = json.dumps(efficiency(wall_seconds=-3))
    path = tmp_path / "eee.jsonl"
    path.write_text(json.dumps(log_line) + "\n" + json.dumps(hostile_value) + "\n")
    errors = dict(import_file(path).errors)
    assert "efficiency is not valid JSON" in errors[1]
    assert "efficiency" in errors[2] and "wall_seconds" in errors[2]  # the field named, by either validator
