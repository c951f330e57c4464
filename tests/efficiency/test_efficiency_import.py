"""Records with an ``efficiency`` object (issue #26): stored as the evaluation's cost, by the
file import and by the workers' path alike; a hostile efficiency field is a line-numbered
error, nothing of that record is stored, and the records after it import."""

from __future__ import annotations

import json

import pytest

from leaderboard.models import Evaluation, EvaluationCost, IterationScore
from leaderboard.record_fields import InvalidRecord
from leaderboard.services.record_efficiency import check_efficiency
from leaderboard.services.results_import import import_file, import_record
from tests.support.efficiency import CPU, GPU, efficiency, remote_efficiency


def record(model: str, eff: object = None, dataset: str = "scala-da") -> dict:
    value = {
        "dataset": dataset,
        "task": "linguistic-acceptability",
        "dataset_languages": ["da"],
        "model": model,
        "results": {"raw": [{"test_mcc": 0.1 + 0.05 * i, "test_macro_f1": 0.5} for i in range(10)]},
    }
    if eff is not None:
        value["efficiency"] = eff
    return value


def write(tmp_path, lines):
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def hardware(**changes) -> dict:
    return CPU | changes


# (what, efficiency object, the field the line's error must name). The engine's validator
# (evaluation/efficiency.py) decides the shape when it is there, this site's check otherwise;
# both name the field.
HOSTILE = [
    ("a list", [1, 2], "efficiency"),
    ("a string", "fast", "efficiency"),
    ("schema 2", efficiency(schema_version=2), "schema_version"),
    ("schema true", efficiency(schema_version=True), "schema_version"),
    ("unknown field", efficiency(price_eur=3), "price_eur"),
    ("no hardware", {k: v for k, v in efficiency().items() if k != "hardware"}, "hardware"),
    ("hardware a string", efficiency() | {"hardware": "H100"}, "hardware"),
    ("class with a newline", efficiency(hardware(**{"class": "cpu:\nx"})), "hardware.class"),
    ("class too long", efficiency(hardware(**{"class": "cpu:" + "c" * 201})), "hardware.class"),
    ("class of another device", efficiency(hardware(**{"class": "cuda:H100"})), "hardware.class"),
    ("device tpu", efficiency(hardware(device="tpu")), "hardware.device"),
    ("device count negative", efficiency(hardware(device_count=-1)), "hardware.device_count"),
    ("threads as text", efficiency(hardware(cpu_threads="2")), "hardware.cpu_threads"),
    ("batch size zero", efficiency(hardware(batch_size=0)), "hardware.batch_size"),
    ("unknown hardware field", efficiency(hardware(rack="A3")), "rack"),
    ("wall time NaN", efficiency(wall_seconds=float("nan")), "wall_seconds"),
    ("wall time negative", efficiency(wall_seconds=-1.0), "wall_seconds"),
    ("wall time true", efficiency(wall_seconds=True), "wall_seconds"),
    ("tokens as float", efficiency(prompt_tokens=10.5), "prompt_tokens"),
    ("tokens huge", efficiency(generated_tokens=10**16), "generated_tokens"),
    ("throughput huge", efficiency(prompt_tokens_per_second=1e300), "prompt_tokens_per_second"),
    ("latency list", efficiency(latency_ms=[1, 2]), "latency_ms"),
    ("p95 below median", efficiency(latency_ms={"median": 10.0, "p95": 5.0}), "latency_ms.p95"),
    ("memory kind tape", efficiency(peak_memory_kind="tape"), "peak_memory_kind"),
    ("gpu memory on a cpu", efficiency(peak_memory_kind="gpu"), "peak_memory_kind"),
    ("no memory on a cpu", efficiency(peak_memory_kind=None, peak_memory_bytes=None), "peak_memory"),
    ("energy and reason", efficiency(energy_joules=3.0), "energy"),
    ("neither energy nor reason", efficiency(energy_unavailable_reason=None), "energy"),
    ("reason with a NUL", efficiency(energy_unavailable_reason="no\x00"), "energy_unavailable_reason"),
    ("tokenizer as a number", efficiency(reference_tokenizer=2), "reference_tokenizer"),
    ("memory on a remote server", remote_efficiency(peak_memory_bytes=10, peak_memory_kind="gpu"), "peak_memory"),
]


@pytest.mark.django_db
def test_each_hostile_efficiency_field_is_a_numbered_error_and_the_records_after_it_import(tmp_path):
    lines, expected = [], {}
    for number, (what, eff, words) in enumerate(HOSTILE):
        lines.append(record(f"hostile/{number}", eff))
        expected[len(lines)] = (what, words)
        lines.append(record(f"good/after-{number}", efficiency(rate=100.0 + number)))

    report = import_file(write(tmp_path, lines))

    errors = dict(report.errors)
    for line, (what, words) in expected.items():
        assert line in errors, f"{what}: no error for line {line}"
        assert words in errors[line], f"{what}: {errors[line]!r}"
    assert set(errors) == set(expected)
    assert report.imported == len(HOSTILE) and report.skipped == {"invalid record": len(HOSTILE)}
    # nothing of a refused record is stored; every good record has its cost
    assert not Evaluation.objects.filter(model__model_id__startswith="hostile/").exists()
    assert EvaluationCost.objects.count() == len(HOSTILE)
    assert IterationScore.objects.filter(evaluation__model__model_id__startswith="hostile/").count() == 0


@pytest.mark.django_db
def test_a_records_efficiency_is_stored_as_its_cost_and_reimporting_changes_nothing(tmp_path):
    path = write(tmp_path, [record("org/cpu", efficiency(CPU)), record("org/gpu", efficiency(GPU, rate=9000.0))])
    assert import_file(path).imported == 2
    cpu = EvaluationCost.objects.get(evaluation__model__model_id="org/cpu")
    assert (cpu.hardware_class, cpu.backend, cpu.device) == (CPU["class"], "transformers", "cpu")
    assert cpu.hardware == CPU
    assert cpu.prompt_tokens_per_second == 500.0 and cpu.latency_p95_ms == 610.0
    assert cpu.peak_memory_kind == "resident" and cpu.energy_joules is None
    assert cpu.energy_unavailable_reason == "no RAPL counters readable on this machine"
    gpu = EvaluationCost.objects.get(evaluation__model__model_id="org/gpu")
    assert (gpu.device, gpu.backend, gpu.energy_joules, gpu.energy_unavailable_reason) == ("cuda", "vllm", 950.0, "")
    assert gpu.reference_prompt_tokens / gpu.prompt_seconds == pytest.approx(9000.0)
    # a remote server's memory is not seen: stored as unknown, never as zero
    assert import_file(write(tmp_path, [record("org/remote", remote_efficiency())])).imported == 1
    remote = EvaluationCost.objects.get(evaluation__model__model_id="org/remote")
    assert (remote.device, remote.peak_memory_bytes, remote.peak_memory_kind) == ("remote", None, "")

    path = write(tmp_path, [record("org/cpu", efficiency(CPU)), record("org/gpu", efficiency(GPU, rate=9000.0))])
    again = import_file(path)
    assert (again.imported, again.updated, again.unchanged) == (0, 0, 2)

    # a newer record of the same evaluation without efficiency leaves no stale cost
    assert import_file(write(tmp_path, [record("org/cpu")])).updated == 1
    assert not EvaluationCost.objects.filter(evaluation__model__model_id="org/cpu").exists()


@pytest.mark.django_db
def test_the_workers_path_stores_the_cost_and_refuses_a_hostile_one_before_anything_is_stored():
    assert import_record(record("org/worker", efficiency(GPU)), source="submission:1") == "imported"
    assert EvaluationCost.objects.get(evaluation__model__model_id="org/worker").device == "cuda"
    with pytest.raises(InvalidRecord, match="latency_ms"):
        import_record(record("org/worker2", efficiency(latency_ms={"median": -1, "p95": 3})), source="x")
    assert not Evaluation.objects.filter(model__model_id="org/worker2").exists()


def test_the_checked_object_keeps_known_fields_only_and_null_efficiency_is_none():
    assert check_efficiency({"efficiency": None}) is None
    checked = check_efficiency({"efficiency": efficiency()})
    assert checked == efficiency() and checked is not efficiency()
