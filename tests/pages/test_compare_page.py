"""The comparison page (issue #16.3): models picked on a board, compared per dataset on the
examples both answered, with a paired test recomputed here with scipy from the stored
examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from scipy import stats

from leaderboard.models import EvaluationExamples
from leaderboard.selectors.examples import examples_of
from leaderboard.services.dataset_registry import sync_datasets
from leaderboard.services.results_import import import_record
from tests.support.scripted_engine import evaluate_scripted
from tests.support.seeds import import_seed_records

GEMMA = "google/gemma-3-270m"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def pairs_of(html: str) -> list[dict]:
    soup = BeautifulSoup(html, "html.parser")
    return [
        {"dataset": tr.find_parent("section")["data-dataset"], **{k: tr.get(f"data-{k}") for k in "abpn"}}
        for tr in soup.select("section.compare-dataset tr.pair")
    ]


def stored_scores(model: str) -> dict[str, float]:
    stored = EvaluationExamples.objects.get(evaluation__model__model_id=model)
    return {e["example_id"]: e["scores"]["correct"] for e in examples_of(stored)}


def paired_p_from_store(model_a: str, model_b: str) -> tuple[int, float]:
    """The paired p-value of two models on scala-da, from their stored examples, with scipy:
    McNemar's exact test on right/wrong scores, Wilcoxon's signed-rank test when an
    example's score is a mean over differing answers."""
    a, b = stored_scores(model_a), stored_scores(model_b)
    shared = sorted(set(a) & set(b))
    x, y = [a[i] for i in shared], [b[i] for i in shared]
    only_a, only_b = sum(u > v for u, v in zip(x, y)), sum(v > u for u, v in zip(x, y))
    if only_a + only_b == 0:
        return len(shared), 1.0
    if set(x) | set(y) <= {0.0, 1.0}:
        return len(shared), stats.binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue
    return len(shared), stats.wilcoxon(x, y, zero_method="wilcox").pvalue


@pytest.mark.django_db
def test_two_models_compared_on_their_shared_examples(client, monkeypatch, shared_datasets_dir, tmp_path):
    for model, answers in (("org/always-ja", ["ja"]), ("org/mostly-nej", ["nej", "nej", "ja", "måske"])):
        record = evaluate_scripted(monkeypatch, shared_datasets_dir, tmp_path / model.replace("/", "-"), model, answers)
        sync_datasets(tmp_path / model.replace("/", "-") / "data")
        assert import_record(record, source="test", examples=Path(record["examples_file"]).read_bytes()) == "imported"
    html = client.get("/compare/?models=org/always-ja&models=org/mostly-nej").content.decode()
    (pair,) = pairs_of(html)
    assert (pair["dataset"], pair["a"], pair["b"]) == ("scala-da", "org/always-ja", "org/mostly-nej")
    n, p = paired_p_from_store("org/always-ja", "org/mostly-nej")
    assert int(pair["n"]) == n > 0 and float(pair["p"]) == pytest.approx(p)
    soup = BeautifulSoup(html, "html.parser")
    assert soup.select_one("details.disagreements tbody tr[data-example]")  # where they differ, listed
    assert "McNemar (exact)" in soup.select_one("tr.pair").get_text()

    # one model, an unknown one, five: a clear message, never an error
    for query, message in (
        ("?models=org/always-ja", "Pick 2 to 4 models"),
        ("?models=org/always-ja&models=nobody/x", "No model 'nobody/x'"),
        ("?" + "&".join(f"models=m{i}" for i in range(5)), "at most 4"),
    ):
        response = client.get("/compare/" + query)
        text = BeautifulSoup(response.content.decode(), "html.parser").select_one("#compare-problem").get_text()
        assert response.status_code == 200 and message in text


@pytest.mark.django_db
def test_the_board_picks_models_for_the_comparison(client):
    from tests.pages.builders import build_board

    build_board()
    soup = BeautifulSoup(client.get("/leaderboards/da/").content.decode(), "html.parser")
    form = soup.select_one("form#compare-form")
    assert form["action"] == "/compare/" and form["method"] == "get"
    boxes = soup.select('#board-table input.pick[name=models][form="compare-form"]')
    assert len(boxes) == len(soup.select("#board-table th.c-model[scope=row]")) and boxes[0]["value"]


@pytest.mark.django_db
def test_two_models_compared_on_the_examples_the_engine_wrote(client, shared_datasets_dir, tmp_path):
    """Gemma-3-270M and the fine-tuned encoder as the engine evaluated them on scala-da (the
    suite's seeds, with their examples); the page's p-value recomputed."""
    sync_datasets(shared_datasets_dir)
    reports = import_seed_records(tmp_path, lambda r: r["dataset"] == "scala-da" and r["model"] in (GEMMA, MINILM))
    assert sum(r.with_examples for r in reports) == sum(r.imported for r in reports) == 2
    (pair,) = pairs_of(client.get(f"/compare/?models={GEMMA}&models={MINILM}").content.decode())
    n, p = paired_p_from_store(GEMMA, MINILM)
    assert int(pair["n"]) == n >= 30 and float(pair["p"]) == pytest.approx(p)


# --- on a board: every shared dataset, from the iteration scores (issue #27.1) -----------


def iteration_scores(model_id: str, dataset: str, **variant) -> list[float]:
    from evaluation.tasks import get_task
    from leaderboard.models import Evaluation, IterationScore

    ev = Evaluation.objects.filter(model__model_id=model_id, dataset__name=dataset, **variant).latest("created_at")
    metric = get_task(ev.dataset.task).primary_metric
    rows = IterationScore.objects.filter(evaluation=ev, metric=metric).order_by("iteration")
    return list(rows.values_list("value", flat=True))


def iteration_pairs(soup) -> dict[str, dict]:
    return {
        tr.find_parent("section")["data-dataset"]: {k: tr.get(f"data-{k}") for k in ("a", "b", "p", "test", "winner")}
        for tr in soup.select("section.compare-dataset tr.iteration-pair")
    }


@pytest.mark.django_db
def test_two_models_on_a_board_compared_on_every_dataset_from_their_iterations(client):
    from tests.pages.builders import DA_DATASETS, build_board

    build_board()
    a, b = "acme/base-7b", "danish/bert-base"
    query = f"?board=da&models={a}&models={b}&type=base&type=encoder&sort=params&dir=desc&bogus=1"
    soup = BeautifulSoup(client.get("/compare/" + query).content.decode(), "html.parser")
    # back to the board with the same (validated) view
    back = soup.select_one("#compare-back a")["href"]  # the filters in their canonical order, "bogus" dropped
    assert back == "/leaderboards/da/?type=encoder&type=base&sort=params&dir=desc"
    pairs = iteration_pairs(soup)
    assert set(pairs) == {name for name, _ in DA_DATASETS}
    wins = {a: 0, b: 0, "": 0}
    for dataset, pair in pairs.items():
        x, y = iteration_scores(a, dataset), iteration_scores(b, dataset)
        expected = stats.ttest_rel(x, y)  # same version, same protocol: iteration i is the same resample
        assert (pair["a"], pair["b"], pair["test"]) == (a, b, "paired t-test over iterations")
        assert float(pair["p"]) == pytest.approx(expected.pvalue)
        better = "" if expected.pvalue >= 0.05 else a if sum(x) > sum(y) else b
        assert pair["winner"] == better
        wins[better] += 1
        section = soup.select_one(f'section[data-dataset="{dataset}"]')
        means = [float(td["data-mean"]) for td in section.select("table.compare-scores td[data-mean]")]
        assert means == pytest.approx([100 * sum(x) / len(x), 100 * sum(y) / len(y)])
        verdict = section.select_one("tr.iteration-pair td.verdict").get_text()
        assert verdict == (f"{better} is better" if better else "no significant difference")
    # the board's ranks and the odds of one ranking above the other
    sides = [tr["data-model"] for tr in soup.select("table.compare-sides tbody tr")]
    assert sides == [a, b]  # in the board's order
    (tally,) = soup.select("#compare-tally li")
    assert [int(n.get_text()) for n in tally.select("b")] == [wins[a], wins[b], wins[""]] and wins[a] > 0
    (odds,) = soup.select("#compare-odds li")
    assert 0.0 <= float(odds["data-p"]) <= 1.0 and (odds["data-a"], odds["data-b"]) == (a, b)
    assert not soup.select("tr.pair")  # published results: no examples, no example-level test


@pytest.mark.django_db
def test_scores_the_board_does_not_count_are_compared_unpaired_and_said_so(client):
    from leaderboard.services.aggregation import aggregate
    from tests.pages.builders import build_board
    from tests.ranking.builders import add_evaluation, it

    build_board()
    # acme/mid-13b misses dane on the board's version; it has dane on another version
    dane = __import__("leaderboard.models", fromlist=["Dataset"]).Dataset.objects.get(name="dane")
    add_evaluation("acme/mid-13b", dane, it(0.45, seed=3, n=5), version="sha256:" + "ab" * 32)
    # two models on a set of reconstructed iterations (a published board's mean ± interval)
    from tests.ranking.builders import dataset

    rebuilt = dataset("rebuilt-da", "sentiment-classification", ["da"])
    for k, model_id in enumerate(("acme/mid-13b", "acme/base-7b")):
        add_evaluation(model_id, rebuilt, it(0.5 + 0.1 * k, seed=k), version="reconstructed:EuroEval/leaderboards@0123")
    aggregate(["da"])
    a, b = "acme/mid-13b", "acme/base-7b"
    soup = BeautifulSoup(client.get(f"/compare/?board=da&models={a}&models={b}").content.decode(), "html.parser")
    pairs = iteration_pairs(soup)
    x, y = iteration_scores(a, "dane"), iteration_scores(b, "dane")
    assert pairs["dane"]["test"] == "Welch's t-test over iterations (unpaired)"
    assert float(pairs["dane"]["p"]) == pytest.approx(stats.ttest_ind(x, y, equal_var=False).pvalue)
    dane_section = soup.select_one('section[data-dataset="dane"]')
    assert "different versions of the dataset" in dane_section.select_one("tr.iteration-pair").get_text()
    assert "no: evaluated on dataset version sha256:abab" in dane_section.select_one("table.compare-scores").get_text()
    x, y = iteration_scores(a, "rebuilt-da"), iteration_scores(b, "rebuilt-da")
    assert pairs["rebuilt-da"]["test"] == "Welch's t-test over iterations (unpaired)"
    assert float(pairs["rebuilt-da"]["p"]) == pytest.approx(stats.ttest_ind(x, y, equal_var=False).pvalue)
    assert "reconstructed" in soup.select_one('section[data-dataset="rebuilt-da"] tr.iteration-pair').get_text()


@pytest.mark.django_db
def test_compare_on_a_suite_board_adds_the_example_level_test(
    client, monkeypatch, settings, shared_datasets_dir, tmp_path
):
    from leaderboard.services.aggregation import aggregate

    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 2, 60  # the scripted runs' protocol
    models = ("org/always-ja", "org/mostly-nej")
    for model, answers in zip(models, (["ja"], ["nej", "nej", "ja", "måske"]), strict=True):
        root = tmp_path / model.replace("/", "-")
        record = evaluate_scripted(monkeypatch, shared_datasets_dir, root, model, answers)
        sync_datasets(root / "data")
        assert import_record(record, source="test", examples=Path(record["examples_file"]).read_bytes()) == "imported"
    aggregate()
    # without a board: the example-level comparison, and the boards both are on
    soup = BeautifulSoup(client.get(f"/compare/?models={models[0]}&models={models[1]}").content.decode(), "html.parser")
    links = {a.get_text(): a["href"] for a in soup.select("#compare-boards a")}
    assert "Danish (evaluated here)" in links and "board=da-suite" in links["Danish (evaluated here)"]
    soup = BeautifulSoup(client.get("/compare/" + links["Danish (evaluated here)"]).content.decode(), "html.parser")
    (pair,) = pairs_of(str(soup))
    n, p = paired_p_from_store(*models)
    assert pair["dataset"] == "scala-da" and int(pair["n"]) == n and float(pair["p"]) == pytest.approx(p)
    it_pair = iteration_pairs(soup)["scala-da"]
    x, y = iteration_scores(models[0], "scala-da"), iteration_scores(models[1], "scala-da")
    assert it_pair["test"] == "paired t-test over iterations"
    assert float(it_pair["p"]) == pytest.approx(stats.ttest_rel(x, y).pvalue, nan_ok=True) or x == y
    assert soup.select_one("#compare-back a")["href"] == "/leaderboards/da-suite/"


@pytest.mark.django_db
def test_compare_on_a_board_refuses_what_it_cannot_answer(client):
    from tests.pages.builders import build_board

    build_board()
    for query, selector, message in (
        ("?board=nowhere&models=acme/base-7b&models=danish/bert-base", "#compare-problem", "No board 'nowhere'"),
        ("?board=da&models=acme/base-7b", "#compare-problem", "Pick 2 to 4 models"),
        ("?board=da&models=acme/base-7b&models=nobody/x", "#compare-problem", "No model 'nobody/x'"),
    ):
        response = client.get("/compare/" + query)
        assert response.status_code == 200
        assert message in BeautifulSoup(response.content.decode(), "html.parser").select_one(selector).get_text()


@pytest.mark.django_db
def test_compare_follows_the_method_the_board_was_viewed_with(client):
    from leaderboard.models import LanguageModel, Leaderboard
    from leaderboard.ranking import entry_token
    from leaderboard.services.aggregation import current_ranking
    from tests.pages.builders import build_board

    build_board()
    url = "/compare/?board=da&models=acme/base-7b&models=danish/bert-base&method=euroeval-2026"
    soup = BeautifulSoup(client.get(url).content.decode(), "html.parser")
    assert "not computed yet" in soup.select_one("#compare-explained").get_text()  # never computed in a request
    ranking = current_ranking(Leaderboard.objects.get(code="da"), "euroeval-2026")
    soup = BeautifulSoup(client.get(url).content.decode(), "html.parser")
    text = soup.select_one("#compare-explained").get_text()
    assert "EuroEval 2026" in text and "not computed yet" not in text
    assert soup.select_one("#compare-back a")["href"] == "/leaderboards/da/?method=euroeval-2026"
    ranks = {tr["data-model"]: tr.select("td")[0].get_text() for tr in soup.select("table.compare-sides tbody tr")}
    token = lambda m: entry_token((LanguageModel.objects.get(model_id=m).pk, True, False))  # noqa: E731
    decided = {m: ranking.entries[token(m)]["rank"] for m in ranks}
    assert ranks == {m: str(r) for m, r in decided.items()}
