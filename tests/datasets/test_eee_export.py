"""Every Eval Ever out: every stored evaluation downloads as a log the vendored schema
accepts, with its examples as instance-level rows; ``export_eee`` → ``import_results`` into
a fresh database gives the same boards, scores, versions, commits and protocols exactly."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboard.eee.export import counted_evaluation_ids
from leaderboard.eee.schema import INSTANCE_SCHEMA, schema_errors
from leaderboard.models import Evaluation, EvaluationExamples, Leaderboard
from leaderboard.services.aggregation import aggregate
from leaderboard.services.dataset_registry import sync_datasets
from leaderboard.services.results_import import import_file
from tests.imports.test_eee_import import SAMPLE, stored_scores, wipe_results, without_row_ids

from .test_examples_store import engine_output  # noqa: F401 (a fixture)

SUITE_ENCODER = Path(__file__).resolve().parents[2] / "data" / "results" / "suite"
ENCODER_FILE = SUITE_ENCODER / "sentence-transformers--all-MiniLM-L6-v2.jsonl"
MOVED = ("examples_file", "predictions_file")  # paths on the machine that wrote them


def records() -> list[tuple]:
    return sorted(
        (
            ev.model.model_id,
            ev.dataset.name,
            ev.dataset_version.fingerprint,
            ev.commit_sha,
            ev.protocol.key,
            json.dumps({k: v for k, v in ev.record.items() if k not in MOVED}, sort_keys=True),
            ev.model.model_type,
            ev.model.num_parameters,
        )
        for ev in Evaluation.objects.select_related("model", "dataset", "dataset_version")
    )


def boards() -> dict[str, list[tuple]]:
    aggregate(replicates=0)
    return {
        lb.code: sorted(
            (
                e.model.model_id,
                e.few_shot,
                e.validation_split,
                e.rank,
                e.rank_score,
                e.commit_sha,
                without_row_ids(e.scores),
            )
            for e in lb.entries.select_related("model")
        )
        for lb in Leaderboard.objects.all()
    }


def examples() -> list[tuple]:
    return sorted(
        (ex.evaluation.model.model_id, ex.evaluation.dataset.name, bytes(ex.data))
        for ex in EvaluationExamples.objects.select_related("evaluation__model", "evaluation__dataset")
    )


@pytest.fixture
def stored(engine_output, data_dir):  # noqa: F811
    results, _ = engine_output
    assert import_file(results).with_examples == 1
    assert import_file(SAMPLE).imported == 28  # EuroEval's own EEE lines (published versions)
    assert import_file(ENCODER_FILE).imported == 4  # an encoder of the suite, on data-pack versions
    return data_dir


@pytest.mark.django_db
def test_export_then_import_gives_the_same_boards_exactly(stored, tmp_path):
    before = (stored_scores(), records(), boards(), examples())
    assert len(before[2]["nl"]) == 4 and before[3]
    out = tmp_path / "eee"
    call_command("export_eee", str(out), stdout=io.StringIO())
    logs = sorted(out.glob("*.json"))
    assert len(logs) == Evaluation.objects.count() == 33
    for log in logs:
        assert schema_errors(json.loads(log.read_text(encoding="utf-8"))) == [], log.name
    sidecars = sorted(out.glob("*.instances.jsonl"))
    # one per evaluation with stored examples: the engine's, and the suite encoder's four
    # (ddt-ner-da, lcc-europarl-sentiment-da, norec-sentence-nb, norne-nb: re-run with their examples)
    assert len(sidecars) == EvaluationExamples.objects.count() == 5
    for sidecar in sidecars:
        rows = [json.loads(line) for line in sidecar.read_text(encoding="utf-8").splitlines()]
        assert rows and all(schema_errors(row, INSTANCE_SCHEMA) == [] for row in rows)
        log = json.loads(out.joinpath(sidecar.name.replace(".instances.jsonl", ".json")).read_text(encoding="utf-8"))
        detail = log["detailed_evaluation_results"]
        assert detail["checksum"] == hashlib.sha256(sidecar.read_bytes()).hexdigest()
        assert detail["total_rows"] == len(rows)
        assert {row["evaluation_id"] for row in rows} == {log["evaluation_id"]}

    wipe_results()
    sync_datasets(stored)  # a fresh deployment registers its data directory as before
    call_command("import_results", *map(str, logs), stdout=io.StringIO())
    assert (stored_scores(), records(), boards(), examples()) == before
    # The same files again change nothing.
    report = import_file(logs[0])
    assert (report.unchanged, report.errors) == (1, [])


@pytest.mark.django_db
def test_a_board_exports_what_it_counts_and_the_api_links_every_log(stored, tmp_path, client):
    aggregate(replicates=0)
    counted = counted_evaluation_ids("nl")
    assert len(counted) == 28
    out = tmp_path / "nl"
    call_command("export_eee", str(out), "--board", "nl", stdout=io.StringIO())
    assert len(list(out.glob("*.json"))) == 28
    call_command("export_eee", str(tmp_path / "one"), "--model", "Qwen/Qwen3-0.6B", stdout=io.StringIO())
    assert len(list((tmp_path / "one").glob("*.json"))) == 8

    doc = client.get(reverse("api-leaderboard-json", args=["nl"])).json()
    assert doc["eee"] == "/api/leaderboards/nl/eee.zip"
    # every score of the board names its evaluation and links that evaluation's log
    cells = [cell for entry in doc["entries"] for cell in entry["scores"].values()]
    assert sorted(cell["evaluation"] for cell in cells) == sorted(counted)
    assert all(cell["eee"] == reverse("api-evaluation-eee", args=[cell["evaluation"]]) for cell in cells)
    qwen_dbrd = Evaluation.objects.get(model__model_id="Qwen/Qwen3-0.6B", dataset__name="dbrd").pk
    url = reverse("api-evaluation-eee", args=[qwen_dbrd])
    response = client.get(url)
    assert response.status_code == 200 and schema_errors(json.loads(response.content)) == []
    archive = zipfile.ZipFile(io.BytesIO(client.get(doc["eee"]).content))
    assert len([n for n in archive.namelist() if n.endswith(".json")]) == 28
    page = client.get(reverse("model", args=["Qwen/Qwen3-0.6B"])).content.decode()
    assert url in page

    with_examples = EvaluationExamples.objects.order_by("pk").first().evaluation_id
    lines = client.get(reverse("api-evaluation-eee-instances", args=[with_examples])).content.splitlines()
    assert lines and schema_errors(json.loads(lines[0]), INSTANCE_SCHEMA) == []
    log = json.loads(client.get(reverse("api-evaluation-eee", args=[with_examples])).content)
    assert log["detailed_evaluation_results"]["file_path"].endswith("eee-instances.jsonl")
    assert client.get(reverse("api-evaluation-eee-instances", args=[counted[0]])).status_code == 404
    assert client.get("/api/evaluations/999999/eee.json").status_code == 404
    assert client.get("/api/leaderboards/nowhere/eee.zip").status_code == 404
