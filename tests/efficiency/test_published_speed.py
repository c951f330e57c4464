"""EuroEval's (ScandEval's) speed pseudo-task records: imported as their own kind, with the
unit and document-length buckets the version that wrote them used (issue #26.4)."""

from __future__ import annotations

import json

import pytest

from leaderboard.models import EvaluationCost, IterationScore, PublishedSpeed
from leaderboard.services.published_speed import KINDS
from leaderboard.services.results_import import import_file


@pytest.mark.django_db
def test_the_2023_file_speed_records_are_stored_by_kind_with_their_buckets(shared_results_file):
    report = import_file(shared_results_file)
    assert report.speed == {"imported": 138}
    assert PublishedSpeed.objects.count() == 138
    by_kind = {key: PublishedSpeed.objects.filter(protocol=key).count() for key in KINDS}
    # ScandEval 6-7 measured documents/s on a CPU; the July 2023 GPU run (gpt-sw3) the
    # model's own tokens/s on a long and a short document; nothing in the file is GPT-2 counted
    assert by_kind == {"scandeval-cpu-documents": 132, "scandeval-gpu-model-tokens": 6, "euroeval-gpu-gpt2-tokens": 0}
    bert = PublishedSpeed.objects.get(model__model_id="KBLab/bert-base-swedish-cased-new")
    assert bert.iterations[0] == {"speed": 1.85} and len(bert.iterations) == 10
    assert bert.means["speed"]["mean"] == pytest.approx(1.884)
    sw3 = PublishedSpeed.objects.get(model__model_id="/mnt/data_6tb/dan/gpt_sw3/models/gpt-sw3-126m-instruct/")
    assert set(sw3.iterations[0]) == {"speed", "speed_short"}
    assert sw3.means["speed_short"]["mean"] == pytest.approx(5709.076)
    kind = KINDS[sw3.protocol]
    assert [kind.bucket_label("speed", i) for i in (0, 9)] == ["~100 tokens (long)", "~1000 tokens (long)"]
    assert [kind.bucket_label("speed_short", i) for i in (0, 9)] == ["~20 tokens (short)", "~250 tokens (short)"]
    # never scores, never costs of Glossa's own evaluations
    assert not IterationScore.objects.filter(metric__contains="speed").exists()
    assert not EvaluationCost.objects.exists()

    assert import_file(shared_results_file).speed == {"unchanged": 138}


def speed(model: str, raw: object, **extra) -> dict:
    return {"dataset": "speed", "task": "speed", "model": model, "results": {"raw": raw}, **extra}


@pytest.mark.django_db
def test_hostile_speed_records_are_numbered_errors_and_the_others_import(tmp_path):
    good = [{"test_speed": 10.0, "test_speed_short": 4.0}] * 3
    lines = [
        speed("ok/one", good),
        speed("bad/nan", [{"test_speed": float("nan")}]),
        speed("bad/text", [{"test_speed": "fast"}]),
        speed("bad/none", []),
        speed("bad/mixed", [{"test_speed": 1.0}, {"test_speed": 1.0, "test_speed_short": 2.0}]),
        speed("bad/model id", good),
        speed("bad/version", good, euroeval_version="latest"),
        speed("ok/gpt2", good, euroeval_version="15.3.0"),
    ]
    path = tmp_path / "speed.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    report = import_file(path)
    errors = dict(report.errors)
    assert sorted(errors) == [2, 3, 4, 5, 6, 7]
    assert "finite number" in errors[2] and "finite number" in errors[3]
    assert "1 to 1000 speed iterations" in errors[4] and "differ in their buckets" in errors[5]
    assert "model must be" in errors[6] and "euroeval_version" in errors[7]
    assert report.speed == {"imported": 2}
    assert PublishedSpeed.objects.get(model__model_id="ok/gpt2").protocol == "euroeval-gpu-gpt2-tokens"
    assert PublishedSpeed.objects.get(model__model_id="ok/one").protocol == "scandeval-gpu-model-tokens"
