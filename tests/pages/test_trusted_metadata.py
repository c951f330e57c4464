"""Metadata a visitor can trust (issue #27.3): a model's type from its config before its
records, a path-named model never linked as a Hub id, encoders never "few-shot", a GGUF
model's precision and backend as they ran, the reproduce command of the record, EuroEval's
facts on dataset pages, and "counts toward leaderboards" from the boards that count it."""

from __future__ import annotations

import shlex
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup
from django.utils import timezone

from leaderboard.models import Dataset, LanguageModel, Leaderboard, ModelType, Submission
from leaderboard.selectors.formatting import model_id_kind, model_url
from leaderboard.services.record_parsing import parse_record
from leaderboard.services.results_import import store_record

PATH_ID = "/mnt/data_6tb/dan/gpt_sw3/models/gpt-sw3-126m-instruct/"


def scandeval_2023(model: str, dataset: str = "angry-tweets") -> dict:
    """A record as ScandEval wrote them in 2023: fine-tuned (a loss per iteration), no
    generative flag, no protocol."""
    raw = [{"test_loss": 0.7 + i / 100, "test_mcc": 0.3 + i / 100, "test_macro_f1": 0.5} for i in range(10)]
    return {
        "dataset": dataset,
        "task": "sentiment-classification",
        "dataset_languages": ["da"],
        "model": model,
        "results": {"raw": {"test": raw}},
        "num_model_parameters": 124_442_112,
        "max_sequence_length": 1024,
        "vocabulary_size": 50257,
    }


def engine_record(model: str, *, generative: bool, precision: str, prompt_style: str) -> dict:
    """A record as the engine writes it under the demo protocol (3 iterations on 32 rows)."""
    raw = [{"mcc": 0.2 + i / 50, "macro_f1": 0.4} for i in range(3)]
    return {
        "dataset": "angry-tweets",
        "task": "sentiment-classification",
        "dataset_languages": ["da"],
        "model": model,
        "results": {"raw": raw},
        "generative": generative,
        "generative_type": "base" if generative else None,
        "few_shot": True,
        "validation_split": False,
        "model_revision": "main",
        "precision": precision,
        "backend": "transformers",
        "prompt_style": prompt_style,
        "iterations": 3,
        "limit": 32,
    }


def store(record: dict) -> None:
    store_record(parse_record(record), source="test")


def page(client, url: str) -> BeautifulSoup:
    response = client.get(url)
    assert response.status_code == 200, url
    return BeautifulSoup(response.content, "html.parser")


@pytest.mark.django_db
def test_gpt2_fine_tuned_in_2023_is_a_decoder_from_its_config_and_the_disagreement_is_flagged(client):
    store(scandeval_2023("gpt2"))
    model = LanguageModel.objects.get(model_id="gpt2")
    assert model.model_type == ModelType.BASE
    assert model.metadata["type_claims"] == {"fine-tuned": "encoder", "config": "base"}
    assert model.metadata["type_disagreement"] is True
    assert LanguageModel.objects.filter(metadata__type_disagreement=True).count() == 1  # the admin filter's query
    soup = page(client, "/models/gpt2/")
    assert soup.select_one("#model-kind").get_text(" ", strip=True).startswith("Decoder (base)")
    assert "from its own config" in soup.select_one("#model-kind").get_text()
    assert "GPT2LMHeadModel" in soup.select_one(".page-head").get_text()
    said = " ".join(soup.select_one("#type-disagreement").get_text().split())
    assert "its config says decoder; the fine-tuning guess says encoder" in said
    variants = [tr.select("td")[2].get_text() for tr in soup.select("#scores-table tbody tr")]
    assert variants == ["fine-tuned"]  # ScandEval fine-tuned it: not "few-shot"


@pytest.mark.django_db
def test_a_record_or_board_statement_replaces_the_fine_tuning_guess_but_never_a_config():
    store(scandeval_2023("org/some-decoder"))
    model = LanguageModel.objects.get(model_id="org/some-decoder")
    assert model.model_type == ModelType.ENCODER  # the weakest claim, while it is the only one
    record = engine_record("org/some-decoder", generative=True, precision="bfloat16", prompt_style="base")
    store(record)
    model.refresh_from_db()
    assert model.model_type == ModelType.BASE and model.metadata["type_disagreement"] is True
    store({**record, "generative": False, "generative_type": None, "prompt_style": "finetune"})
    model.refresh_from_db()
    assert model.model_type == ModelType.ENCODER  # records of equal strength: the newest statement


@pytest.mark.django_db
def test_a_path_named_model_is_shown_as_a_path_never_linked_to_the_hub_and_its_page_works(client):
    store(scandeval_2023(PATH_ID))
    assert model_id_kind(PATH_ID) == "path" and model_id_kind("org/name") == "hub"
    assert model_id_kind("https://example.org/m") == "url" and model_id_kind("gpt-3.5-turbo-0613") == "name"
    url = model_url(PATH_ID)
    assert not url.startswith("/models//")
    assert parse_qs(urlsplit(url).query)["id"] == [PATH_ID]
    soup = page(client, url)
    assert soup.select_one(".model-id").get_text() == PATH_ID
    assert soup.select_one("#hub-link") is None
    assert not [a for a in soup.select("a[href]") if "huggingface.co" in a["href"]]
    assert "not a Hugging Face Hub id" in soup.select_one("#model-id-note").get_text()
    # the dataset page links it by the same working address
    links = [a["href"] for a in page(client, "/datasets/angry-tweets/").select("#dataset-board a")]
    assert links == [url]
    store(scandeval_2023("org/other"))
    assert page(client, model_url("org/other")).select_one("#hub-link")["href"] == "https://huggingface.co/org/other"


@pytest.mark.django_db
def test_an_encoder_is_fine_tuned_never_few_shot_and_the_command_is_the_records(client):
    store(engine_record("org/encoder", generative=False, precision="float32", prompt_style="finetune"))
    Submission.objects.create(model=LanguageModel.objects.get(model_id="org/encoder"), few_shot=True)
    soup = page(client, "/models/org/encoder/")
    assert soup.select("table.data")[-1].select_one("tbody tr").select("td")[3].get_text() == "fine-tuned"
    assert [tr.select("td")[2].get_text() for tr in soup.select("#scores-table tbody tr")] == ["fine-tuned"]
    assert "few-shot" not in soup.select_one("#repro-table").get_text()
    command = shlex.split(soup.select_one("#repro-table code.reproduce").get_text())
    assert command[command.index("--iterations") + 1] == "3" and command[command.index("--limit") + 1] == "32"


@pytest.mark.django_db
def test_a_gguf_model_says_its_quantisation_and_that_transformers_dequantised_it(client):
    store(engine_record("org/tiny-gguf", generative=True, precision="Q4_K_M", prompt_style="base"))
    soup = page(client, "/models/org/tiny-gguf/")
    row = soup.select_one("#repro-table tbody tr").get_text(" | ")
    assert "Q4_K_M (GGUF weights, dequantised on load)" in row
    assert "transformers (PyTorch, floating point, from the Q4_K_M GGUF file)" in row
    command = shlex.split(soup.select_one("#repro-table code.reproduce").get_text())
    assert "--zero-shot" not in command and command[command.index("--iterations") + 1] == "3"


@pytest.mark.django_db
def test_a_published_record_says_its_command_is_the_engines_equivalent(client):
    store(scandeval_2023("org/published"))
    soup = page(client, "/models/org/published/")
    command = shlex.split(soup.select_one("#repro-table code.reproduce").get_text())
    assert command[command.index("--iterations") + 1] == "10" and "--limit" not in command
    assert "not run here" in soup.select_one("#repro-table tr.cmd").get_text()


@pytest.mark.django_db
def test_a_dataset_not_counted_on_its_published_board_counts_on_the_suite_board_that_lists_it(client):
    dataset = Dataset.objects.create(
        name="ddt-ner-da", task="named-entity-recognition", counts_toward_leaderboard=False
    )
    Leaderboard.objects.create(
        code="da-suite",
        name="Danish (evaluated here)",
        kind="language",
        datasets=[{"name": "ddt-ner-da", "task": dataset.task}],
        generated_at=timezone.now(),
    )
    soup = page(client, "/datasets/ddt-ner-da/")
    counts = soup.select_one("#counts-toward")
    assert counts.get_text(" ", strip=True).startswith("yes: a column of Danish (evaluated here)")
    assert counts.select_one("a")["href"] == "/leaderboards/da-suite/"
    assert "listed, not ranked" in soup.select_one("#published-standing").get_text()
    Leaderboard.objects.all().delete()
    assert page(client, "/datasets/ddt-ner-da/").select_one("#counts-toward").get_text() == "no"


@pytest.mark.django_db
def test_a_published_dataset_shows_what_euroeval_says_about_it(client):
    Dataset.objects.create(name="angry-tweets", task="sentiment-classification")
    soup = page(client, "/datasets/angry-tweets/")
    facts = soup.select_one("#euroeval-facts")
    text = " ".join(facts.get_text(" ").split())
    assert "sentiment classification dataset in Danish" in text
    assert "1,024 training, 256 validation, 2,048 test examples" in text
    assert facts.select_one('a[href="https://aclanthology.org/2021.nodalida-main.53/"]') is not None
    assert facts.select_one('a[href="https://huggingface.co/datasets/EuroEval/angry-tweets-mini"]') is not None
    assert "f37841c8d538" in text  # the EuroEval commit the facts come from
    assert soup.select_one("#split-sizes").get_text(" ", strip=True) == "1,024 / 256 / 2,048 (EuroEval's)"


@pytest.mark.django_db
def test_the_methodology_page_says_the_deployments_own_protocol(client, settings):
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 3, 32  # the demo's
    soup = page(client, "/methodology/")
    said = " ".join(soup.select_one("#deployment-protocol").get_text(" ").split())
    assert "this deployment evaluates with 3 iterations on the first 32 test rows" in said
    assert "GLOSSA_ITERATIONS=3" in said and "GLOSSA_TEST_LIMIT=32" in said
    command = shlex.split(soup.select_one("#example-command").get_text())
    assert command[command.index("--iterations") + 1] == "3" and command[command.index("--limit") + 1] == "32"
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 10, None
    said = page(client, "/methodology/").select_one("#deployment-protocol").get_text(" ")
    assert "does the same: 10 iterations on the full test split" in " ".join(said.split())


@pytest.mark.django_db
def test_the_admin_lists_the_models_whose_sources_disagree_and_keeps_an_admins_type(admin_client):
    store(scandeval_2023("gpt2"))
    store(scandeval_2023("org/quiet-encoder"))
    response = admin_client.get("/admin/leaderboard/languagemodel/", {"type_disagreement": "yes"})
    assert response.status_code == 200
    listed = [a.get_text() for a in BeautifulSoup(response.content, "html.parser").select("#result_list tbody th a")]
    assert listed == ["gpt2"]
    model = LanguageModel.objects.get(model_id="org/quiet-encoder")
    form = admin_client.get(f"/admin/leaderboard/languagemodel/{model.pk}/change/").context["adminform"].form
    data = {name: form[name].value() or "" for name in form.fields}
    data.update({"model_type": ModelType.INSTRUCTION_TUNED, "remote_code_grants-TOTAL_FORMS": "0"})
    data["remote_code_grants-INITIAL_FORMS"] = "0"
    assert admin_client.post(f"/admin/leaderboard/languagemodel/{model.pk}/change/", data).status_code == 302
    store(engine_record("org/quiet-encoder", generative=False, precision="float32", prompt_style="finetune"))
    model.refresh_from_db()
    assert model.model_type == ModelType.INSTRUCTION_TUNED  # a record never overrides a person
    assert model.metadata["type_claims"]["admin"] == ModelType.INSTRUCTION_TUNED
