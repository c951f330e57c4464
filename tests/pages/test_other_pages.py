import json
import shlex

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from evaluation.stats import mean_ci
from leaderboard import selectors
from leaderboard.models import Dataset, Evaluation, IterationScore, LanguageModel, Submission
from leaderboard.services.results_import import import_file
from tests.pages.builders import build_board


def embedded_figure(html: str, element_id: str) -> dict:
    """The Plotly figure a page embeds as JSON in ``<script id=element_id>``."""
    return json.loads(BeautifulSoup(html, "html.parser").find("script", id=element_id).string)


def example_fields(html: str) -> list[dict[str, str]]:
    """The dataset page's examples: one {field: shown value} per ``<dl class="example">``."""
    return [
        {dt.get_text(): dt.find_next_sibling("dd").get_text() for dt in dl.find_all("dt")}
        for dl in BeautifulSoup(html, "html.parser").select("dl.example")
    ]


# --- pure helpers ------------------------------------------------------------------


def test_mean_ci_against_hand_computed_values():
    from scipy import stats

    # mean 0.5; sample sd of (0.4, 0.5, 0.6) is 0.1; 1.96 * 0.1 / sqrt(3) = 0.113161...
    mean, ci = mean_ci([0.4, 0.5, 0.6])
    assert mean == pytest.approx(0.5)
    assert ci == pytest.approx(0.1131607, abs=1e-6)
    assert ci == pytest.approx(1.96 * stats.sem([0.4, 0.5, 0.6]))
    assert mean_ci([0.7]) == (0.7, None) and mean_ci([0.7, None, float("nan")]) == (0.7, None)
    with pytest.raises(ValueError):
        mean_ci([])


@pytest.mark.parametrize(
    "value, text",
    [
        (None, "–"),
        (-1, "–"),
        (950, "950"),
        (22_000_000, "22M"),
        (124_439_808, "124M"),
        (7_241_732_096, "7.24B"),
        (70_553_706_496, "70.6B"),
        (1_500_000_000_000, "1.5T"),
    ],
)
def test_format_count(value, text):
    assert selectors.format_count(value) == text


@pytest.mark.parametrize(
    "value, bucket",
    [
        (None, "unknown"),
        (-1, "unknown"),
        (1_999_999_999, "lt2"),
        (2_000_000_000, "2-10"),
        (39_999_999_999, "10-40"),
        (40_000_000_000, "40-80"),
        (80_000_000_000, "ge80"),
        (400_000_000_000, "ge80"),
    ],
)
def test_size_buckets(value, bucket):
    assert selectors.size_bucket(value) == bucket


def test_entry_display_names_follow_the_contract():
    assert selectors.entry_display_name("org/m", True, False) == "org/m"
    assert selectors.entry_display_name("org/m", False, False) == "org/m (zero-shot)"
    assert selectors.entry_display_name("org/m", True, True) == "org/m (val)"
    assert selectors.entry_display_name("org/m", False, True) == "org/m (zero-shot, val)"


def test_reproduce_command():
    assert selectors.reproduce_command("org/m", "scala-da", few_shot=True, validation_split=False) == (
        "python -m evaluation run --model org/m --dataset scala-da --iterations 10"
    )
    command = selectors.reproduce_command("we ird/m'x", "dane", few_shot=False, validation_split=True)
    assert shlex.split(command)[5] == "we ird/m'x"
    assert command.endswith("--iterations 10 --zero-shot --validation-split")


# --- home and methodology -------------------------------------------------------------


@pytest.mark.django_db
def test_home_lists_language_and_group_boards_with_counts(client, db):
    build_board()
    build_board("scandinavian", "Scandinavian", kind="group", boards=["da", "sv", "no"])
    html = client.get("/").content.decode()
    assert 'href="/leaderboards/da/"' in html and 'href="/leaderboards/scandinavian/"' in html
    # 7 entries (6 distinct models, one in two variants), 6 ranked: the counts are ranked entries
    soup = BeautifulSoup(html, "html.parser")
    danish = soup.select_one("#lang-da")
    assert danish.select_one(".board-published .ranked-count").get_text() == "6"
    assert "(7 listed)" in danish.select_one(".board-published").get_text()
    assert "Danish, Swedish, Norwegian" in html
    assert 'href="/submit/"' in html and 'href="/queue/"' in html and 'href="/methodology/"' in html


@pytest.mark.django_db
def test_home_without_boards_says_how_to_get_some(client):
    html = client.get("/").content.decode()
    assert "No leaderboards yet" in html and "import_results" in html


@pytest.mark.django_db
def test_methodology_page_explains_rank_score(client):
    html = client.get(reverse("methodology")).content.decode()
    assert "1.96 · s / √10" in html
    assert "Welch" in html and "Lower is better" in html and "anchor" in html


# --- model page ---------------------------------------------------------------------


@pytest.mark.django_db
def test_model_page_shows_scores_with_cis_history_and_reproducibility(client, db):
    build_board()
    model = LanguageModel.objects.get(model_id="acme/big-chat-70b")
    Submission.objects.create(
        model=model, revision="abc123", few_shot=True, status="FAILED", failure_reason="Out of <memory>"
    )
    response = client.get("/models/acme/big-chat-70b/")
    assert response.status_code == 200
    html = response.content.decode()
    # Every score with its CI, recomputed from the iteration scores.
    evaluation = Evaluation.objects.get(model=model, dataset__name="scala-da", few_shot=True)
    values = list(
        IterationScore.objects.filter(evaluation=evaluation, metric="mcc")
        .order_by("iteration")
        .values_list("value", flat=True)
    )
    mean, ci = mean_ci(values)
    assert f'{mean * 100:.2f} <span class="ci">± {ci * 100:.2f}</span>' in html
    assert html.count('<tr data-dataset="') == 8  # 4 datasets × 2 variants
    # Boards it is on, reproducibility facts and the command.
    assert 'href="/leaderboards/da/"' in html
    assert "bf16" in html and "torch 2.13.0, transformers 5.23.0" in html and "chat" in html
    assert "python -m evaluation run --model acme/big-chat-70b --dataset scala-da --iterations 10 --zero-shot" in html
    assert "--model acme/big-chat-70b --dataset scala-da --iterations 10 --output results.jsonl</code>" in html
    # Submission history, escaped.
    assert "abc123" in html and "Out of &lt;memory&gt;" in html
    # Charts: a strip plot with one point per iteration, bars per task.
    strip = embedded_figure(html, "strip-data")
    assert {t["name"] for t in strip["data"]} == {"few-shot", "zero-shot"}
    assert sum(len(t["y"]) for t in strip["data"]) == 8 * 10
    bars = embedded_figure(html, "task-data")
    assert len(bars["data"][0]["x"]) == 4


@pytest.mark.django_db
def test_model_ids_without_org_or_with_many_slashes(client, db):
    build_board()
    assert client.get("/models/claude-sonnet-4-6/").status_code == 200
    assert reverse("model", kwargs={"model_id": "claude-sonnet-4-6"}) == "/models/claude-sonnet-4-6/"
    LanguageModel.objects.create(model_id="a/b/c/d")
    assert reverse("model", kwargs={"model_id": "a/b/c/d"}) == "/models/a/b/c/d/"
    assert client.get("/models/a/b/c/d/").status_code == 200
    assert client.get("/models/no/such-model/").status_code == 404


@pytest.mark.django_db
def test_model_page_for_imported_path_ids(client, db, tmp_path, shared_results_file):
    wanted = "/mnt/data_6tb/dan/gpt_sw3/models/gpt-sw3-126m-instruct/"
    lines = [line for line in shared_results_file.read_text().splitlines() if f'"model": "{wanted}"' in line]
    subset = tmp_path / "subset.jsonl"
    subset.write_text("\n".join(lines))
    report = import_file(subset)
    assert report.imported >= 5
    url = reverse("model", kwargs={"model_id": wanted})
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "scala-da" in html and "angry-tweets" in html
    assert url == "/models//mnt/data_6tb/dan/gpt_sw3/models/gpt-sw3-126m-instruct//"
    # Without the id's trailing slash the same model is found; without its leading one it is not.
    assert client.get("/models//mnt/data_6tb/dan/gpt_sw3/models/gpt-sw3-126m-instruct/").status_code == 200
    assert client.get("/models/mnt/data_6tb/dan/gpt_sw3/models/gpt-sw3-126m-instruct/").status_code == 404


# --- dataset page -------------------------------------------------------------------


@pytest.mark.django_db
def test_dataset_page_reads_examples_from_the_data_dir(client, db, settings, shared_datasets_dir):
    settings.DATA_DIR = shared_datasets_dir
    build_board()
    dataset = Dataset.objects.get(name="scala-da")
    dataset.description = "Danish <b>acceptability</b>"
    dataset.save()
    html = client.get("/datasets/scala-da/").content.decode()
    text = BeautifulSoup(html, "html.parser").get_text(" ")
    # Description escaped (shown as text, not markup); licence and sizes from dataset.json.
    assert "Danish <b>acceptability</b>" in text and "<b>acceptability" not in html
    assert "CC BY-SA 4.0" in text and "340 / 84 / 424" in text
    # Three examples per split, read from the files, in file order.
    first_test = json.loads((shared_datasets_dir / "scala-da" / "test.jsonl").open().readline())
    examples = example_fields(html)
    assert len(examples) == 9
    assert first_test["text"] in [example["text"] for example in examples[6:]]
    # Its own leaderboard, best primary mean first, with CIs, and the distribution chart.
    rows = selectors.dataset_leaderboard(dataset)
    assert [r["primary"]["mean"] for r in rows] == sorted((r["primary"]["mean"] for r in rows), reverse=True)
    assert rows[0]["name"] == "claude-sonnet-4-6"
    assert len(rows) == 7
    figure = embedded_figure(html, "distribution-data")
    assert [t["type"] for t in figure["data"]] == ["histogram", "box"]
    assert len(figure["data"][0]["x"]) == 7


@pytest.mark.django_db
def test_dataset_page_for_ner_and_without_files(client, db, settings, shared_datasets_dir, tmp_path):
    settings.DATA_DIR = shared_datasets_dir
    build_board(datasets=[("ddt-ner-da", "named-entity-recognition")])
    html = client.get("/datasets/ddt-ner-da/").content.decode()
    # NER rows show their tokens with tags, e.g. "[Anders|B-PER] [Fogh|I-PER] bor"
    tagged = [field for example in example_fields(html) for field in example.values() if "|B-" in field]
    marked = [word for word in tagged[0].split() if "|" in word]
    tags = {word.rsplit("|", 1)[1].rstrip("]") for word in marked}
    assert all(word.startswith("[") and word.endswith("]") for word in marked)
    assert tags and tags <= {f"{p}-{t}" for p in "BI" for t in ("PER", "LOC", "ORG", "MISC")}
    settings.DATA_DIR = tmp_path
    build_board("sv", "Swedish", datasets=[("swerec", "sentiment-classification")])
    html = client.get("/datasets/swerec/").content.decode()
    assert "not in this site&#x27;s data directory" in html or "not in this site's data directory" in html
    assert client.get("/datasets/no-such-dataset/").status_code == 404


# --- charts (pure) ------------------------------------------------------------------


def test_task_bars_average_datasets_per_task_and_variant():
    from leaderboard import charts

    def row(dataset, task, variant, mean):
        return {
            "dataset": dataset,
            "task_label": task,
            "variant": variant,
            "primary": {"mean": mean},
            "primary_values": [mean],
            "primary_metric": "MCC",
        }

    figure = charts.model_task_bars(
        [
            row("a", "NER", "few-shot", 40.0),
            row("b", "NER", "few-shot", 60.0),
            row("c", "Sentiment", "few-shot", 30.0),
            row("a", "NER", "zero-shot", 10.0),
        ]
    )
    few, zero = figure.data
    assert (few.name, list(few.x), list(few.y)) == ("few-shot", ["NER", "Sentiment"], [50.0, 30.0])
    assert (zero.name, list(zero.x), list(zero.y)) == ("zero-shot", ["NER"], [10.0])


def test_embed_cannot_close_its_script_element():
    import plotly.graph_objects as go

    from leaderboard import charts

    text = str(charts.embed(go.Figure(go.Scatter(x=[1], y=[2], text=["</script><b>&"]))))
    assert "</script>" not in text and "<b>" not in text and "&" not in text
    assert json.loads(text)["data"][0]["text"] == ["</script><b>&"]


def test_every_page_carries_a_content_security_policy(client, db):
    for url in ("/", "/methodology/", "/submit/", "/queue/", "/admin/login/", "/no-such-page/"):
        policy = client.get(url).headers.get("Content-Security-Policy", "")
        assert "default-src 'self'" in policy and "script-src 'self'" in policy, url
        assert "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";", 1)[0]
        assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy


def test_no_template_has_an_inline_script_or_event_handler():
    from pathlib import Path

    for path in (Path(__file__).resolve().parents[2] / "templates").rglob("*.html"):
        soup = BeautifulSoup(path.read_text(), "html.parser")
        for script in soup.find_all("script"):
            assert script.get("src") or script.get("type") == "application/json", (path.name, str(script)[:80])
        for tag in soup.find_all(True):
            assert not [a for a in tag.attrs if a.lower().startswith("on")], (path.name, tag.name)
