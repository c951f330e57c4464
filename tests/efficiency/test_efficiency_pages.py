"""Records with an efficiency object, imported and aggregated as in production, show on their
model pages and in the board's efficiency view with the hardware line; CPU and GPU
identities stay apart; the Pareto front is drawn and named; EuroEval's speed records show
under their own heading; nothing of it changes a rank score (issue #26.2-4)."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from leaderboard.models import LeaderboardEntry
from leaderboard.services.aggregation import aggregate
from leaderboard.services.results_import import import_file
from tests.support.efficiency import CPU, GPU, efficiency

DATASETS = (("scala-da", "linguistic-acceptability"), ("angry-tweets", "sentiment-classification"))
# model → (quality, hardware, reference tokens/s): on the CPU, fast/low is fast and worst,
# careful/high slow and best, slow/mid slower than careful/high and worse: dominated.
MODELS = {
    "fast/low": (0.2, CPU, 800.0),
    "careful/high": (0.8, CPU, 200.0),
    "slow/mid": (0.5, CPU, 100.0),
    "big/gpu": (0.6, GPU, 9000.0),
}


def record(model: str, dataset: str, task: str, quality: float, eff: dict | None) -> dict:
    raw = [{"test_mcc": quality + 0.01 * (i % 3), "test_macro_f1": quality} for i in range(10)]
    value = {"dataset": dataset, "task": task, "dataset_languages": ["da"], "model": model, "results": {"raw": raw}}
    return value | ({"efficiency": eff} if eff else {})


@pytest.fixture
def measured_board(db, tmp_path):
    lines = [
        record(model, dataset, task, quality, efficiency(hardware, rate=rate))
        for model, (quality, hardware, rate) in MODELS.items()
        for dataset, task in DATASETS
    ]
    lines.append(record("no/cost", "scala-da", "linguistic-acceptability", 0.4, None))
    lines.append(record("no/cost", "angry-tweets", "sentiment-classification", 0.4, None))
    speed = [{"test_speed": 1.5 + 0.1 * i} for i in range(10)]  # a ScandEval 6-7 record: documents/s on a CPU
    lines.append({"dataset": "speed", "task": "speed", "model": "careful/high", "results": {"raw": {"test": speed}}})
    path = tmp_path / "measured.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    report = import_file(path)
    assert (report.imported, report.total_skipped, report.speed["imported"]) == (10, 0, 1)
    before = {e.model.model_id: e.rank_score for e in _aggregated()}
    return before


def _aggregated():
    aggregate(["da"])
    return list(LeaderboardEntry.objects.filter(leaderboard_id="da").select_related("model"))


def page(client, url: str) -> BeautifulSoup:
    response = client.get(url)
    assert response.status_code == 200, url
    return BeautifulSoup(response.content, "html.parser")


def table_rows(table) -> list[list[str]]:
    return [
        [cell.get_text(" ", strip=True) for cell in row.find_all("td")] for row in table.find("tbody").find_all("tr")
    ]


def test_the_board_links_its_efficiency_view_which_keeps_cpu_and_gpu_apart(client, measured_board):
    board = page(client, reverse("board", args=["da"]))
    assert board.select_one("#efficiency-link a")["href"] == reverse("board-efficiency", args=["da"])

    view = page(client, reverse("board-efficiency", args=["da"]))
    assert view.select_one("#mixed-devices") is not None
    groups = view.select("#evaluation-costs ~ section.efficiency-group")
    assert [g["data-device"] for g in groups] == ["cuda", "cpu"]  # GPU first; one table each
    gpu, cpu = groups
    assert gpu.select_one(".hardware-line").get_text() == (
        "GPU: 1 × NVIDIA H100 80GB HBM3 · vllm 0.11.0 · bfloat16 · batch 8 · driver 550.54.15 · torch 2.13.0"
    )
    assert cpu.select_one(".hardware-line").get_text() == (
        "CPU: AMD EPYC 7B13, 2 threads · transformers 4.57.1 · float32 · batch 8 · torch 2.13.0"
    )
    assert cpu.find("h3").get_text() == f"CPU · {CPU['class']} · transformers"
    rows = {row[1]: row for row in table_rows(cpu.find("table"))}
    assert set(rows) == {"fast/low", "careful/high", "slow/mid"}  # no GPU figure in the CPU table
    # reference tokens/s pooled over both datasets, as each record's rate; median latency; peak memory
    assert [rows["fast/low"][i] for i in (3, 4, 7, 8, 9, 10)] == [
        "2 of 2",
        "800",
        "350 ms",
        "610 ms",
        "1.50 GB resident",
        "–",
    ]
    assert rows["careful/high"][4] == "200" and rows["slow/mid"][4] == "100"
    assert table_rows(gpu.find("table"))[0][1] == "big/gpu" and table_rows(gpu.find("table"))[0][10] == "1.90 kJ"

    # the Pareto front of each identity, named: on the CPU fast/low and careful/high; slow/mid is dominated
    front = {li.contents[0].strip(): li["data-group"] for li in view.select("#quality-cost .pareto-list li")}
    assert front == {
        "fast/low": cpu.find("h3").get_text(),
        "careful/high": cpu.find("h3").get_text(),
        "big/gpu": gpu.find("h3").get_text(),
    }
    figure = json.loads(view.select_one("#quality-cost-data").string)
    fronts = [trace for trace in figure["data"] if trace["name"].startswith("Pareto front")]
    assert sorted(tuple(trace["text"]) for trace in fronts) == [("big/gpu",), ("careful/high", "fast/low")]

    # EuroEval's speed record under its own heading, in its own unit
    published = view.select_one("#published-speed ~ section.published-speed")
    assert published["data-kind"] == "scandeval-cpu-documents"
    assert "documents/s on ScandEval's CPU" in published.find("h3").get_text()
    assert table_rows(published.find("table")) == [["careful/high", "1.95 ± 0.188"]]


def test_the_memory_axis_and_an_unknown_axis(client, measured_board):
    view = page(client, reverse("board-efficiency", args=["da"]) + "?cost=memory")
    figure = json.loads(view.select_one("#quality-cost-data").string)
    assert figure["layout"]["xaxis"]["title"]["text"].startswith("Peak memory")
    unknown = page(client, reverse("board-efficiency", args=["da"]) + "?cost=%3Cscript%3E")
    assert json.loads(unknown.select_one("#quality-cost-data").string)["layout"]["xaxis"]["title"]["text"].startswith(
        "Throughput"
    )


def test_the_model_page_shows_the_cost_of_each_evaluation_and_the_published_speed_apart(client, measured_board):
    model = page(client, reverse("model", args=["careful/high"]))
    section = model.select_one("#model-efficiency")
    assert section is not None
    assert section.select_one(".hardware-line").get_text().startswith("CPU: AMD EPYC 7B13, 2 threads")
    rows = table_rows(section.select_one("table.evaluation-costs"))
    assert [row[0] for row in rows] == ["angry-tweets", "scala-da"]
    assert rows[0][3:7] == ["32", "12.5 s", "3.2 s", "200"]
    assert "no RAPL counters readable on this machine" in rows[0][-1]
    speed = section.select_one(".published-speed")
    assert speed["data-kind"] == "scandeval-cpu-documents"
    assert table_rows(speed.find("table"))[0] == ["~600-token document (cut at the model's maximum length)", "1.5"]
    # a model without measurements has no cost section
    assert page(client, reverse("model", args=["no/cost"])).select_one("#model-efficiency") is None


def test_costs_never_move_a_rank_score(measured_board):
    from leaderboard.models import EvaluationCost, PublishedSpeed

    EvaluationCost.objects.all().delete()
    PublishedSpeed.objects.all().delete()
    assert {e.model.model_id: e.rank_score for e in _aggregated()} == measured_board


def test_a_speed_benchmark_is_the_views_primary_table(client, measured_board):
    from leaderboard.services.speed_jobs import store_benchmark
    from tests.support.efficiency import speed_report

    store_benchmark(speed_report("careful/high", None), source="speed.json")
    view = page(client, reverse("board-efficiency", args=["da"]))
    section = view.select_one("#speed-benchmarks ~ section.efficiency-group")
    assert section.find("h3").get_text() == f"CPU · {CPU['class']} · transformers"
    rows = table_rows(section.find("table"))
    assert rows[0][0] == "careful/high" and rows[0][2:5] == ["100", "1", "250"] and len(rows) == 4


@pytest.mark.django_db
def test_a_group_board_pools_its_language_boards_datasets(client):
    from leaderboard.models import Evaluation
    from leaderboard.services.efficiency_store import store_cost
    from tests.pages.builders import EntrySpec, build_board

    built = build_board(
        "mainland",
        "Mainland",
        entries=[EntrySpec("g/one", quality=0.8), EntrySpec("g/two", quality=0.3)],
        kind="group",
        boards=["da", "sv"],
    )
    for number, evaluation in enumerate(Evaluation.objects.order_by("pk")):
        store_cost(evaluation, efficiency(CPU, rate=100.0 * (1 + number % 2)))
    view = page(client, reverse("board-efficiency", args=[built.board.code]))
    rows = table_rows(view.select_one("#evaluation-costs ~ section.efficiency-group table"))
    datasets = Evaluation.objects.filter(model__model_id="g/one").count()
    assert [row[1] for row in rows] == ["g/one", "g/two"]
    assert rows[0][3] == f"{datasets} of {datasets}" and datasets == 8  # 4 datasets on each of two boards
    assert view.select_one("#mixed-devices") is None  # one CPU identity: nothing to warn about
