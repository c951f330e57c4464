"""Prompt rendering in both styles, every language, label words, NER mapping, truncation."""

import json
from pathlib import Path

import pytest

from evaluation.answer_formats import bio_to_entities, entities_to_bio, ner_json_schema
from evaluation.prompt_languages import LANGUAGES, NAMES, read_language_file
from evaluation.prompts import TaskFormat, fit_prompt, language_table
from evaluation.tasks import ENGINE_TASKS

REPO = Path(__file__).resolve().parents[2]
ROWS = {
    "sentiment-classification": {"text": "Godt arbejde", "label": "positive"},
    "linguistic-acceptability": {"text": "Han går hjem", "label": "correct"},
    "named-entity-recognition": {"tokens": ["Anders", "bor", "i", "Aarhus"], "labels": ["B-PER", "O", "O", "B-LOC"]},
    "reading-comprehension": {
        "id": "1",
        "context": "Himlen er blå.",
        "question": "Hvilken farve?",
        "answers": {"text": ["blå"], "answer_start": [10]},
    },
    "knowledge": {"question": "2+2?", "choices": ["3", "4", "5", "6"], "label": 1},
    "common-sense-reasoning": {"question": "Hun tog", "choices": ["a", "b", "c", "d"], "label": 3},
    "summarization": {"text": "Lang tekst.", "target_text": "Kort."},
    "simplification": {"text": "En indviklet sætning.", "target_text": ["En let sætning.", "Let."]},
    "topic-classification": {"text": "Holdet vandt kampen.", "label": "sports"},
}


def test_danish_sentiment_base_prompt_exact():
    fmt = TaskFormat("sentiment-classification", "da")
    shot = {"text": "Dårligt", "label": "negative"}
    prompt = fmt.render_base([shot], {"text": "Godt", "label": "positive"})
    assert prompt == (
        "Følgende er dokumenter og deres sentiment, som kan være positiv, neutral eller negativ.\n\n"
        "Dokument: Dårligt\nSentiment: negativ\n\n"
        "Dokument: Godt\nSentiment:"
    )
    assert fmt.label_words() == ["positiv", "neutral", "negativ"]


def test_danish_acceptability_and_rc_label_words():
    assert TaskFormat("linguistic-acceptability", "da").label_words() == ["ja", "nej"]
    rc = TaskFormat("reading-comprehension", "da")
    assert rc.render_base([], ROWS["reading-comprehension"]).endswith(
        "Tekst: Himlen er blå.\nSpørgsmål: Hvilken farve?\nSvar med maks. 3 ord:"
    )


def test_instruction_style_shots_are_turns():
    fmt = TaskFormat("linguistic-acceptability", "da")
    shot = {"text": "Hun løb", "label": "correct"}
    msgs = fmt.messages([shot, shot], ROWS["linguistic-acceptability"])
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user"]
    assert msgs[1]["content"] == "ja"
    assert msgs[-1]["content"].startswith("Sætning: Han går hjem\n\n")
    assert "ja eller nej" in msgs[-1]["content"]


@pytest.mark.parametrize("code", [*LANGUAGES, "no", "nn"])
@pytest.mark.parametrize("task", list(ENGINE_TASKS))
def test_every_language_renders_every_task(code, task):
    fmt = TaskFormat(task, code)
    row = ROWS[task]
    base = fmt.render_base([row], row)
    assert "{" not in fmt.prefix(row) and base.count("\n\n") >= 2
    user = fmt.user_turn(row)
    assert "{doc}" not in user and "{labels}" not in user
    assert fmt.gold_answer(row)


def test_language_table_alias_and_unknown():
    assert language_table("no") is LANGUAGES["nb"]
    with pytest.raises(ValueError, match="prompt_texts"):
        language_table("xx")


EUROEVAL_LANGUAGES = [
    "sq",
    "be",
    "bs",
    "bg",
    "ca",
    "hr",
    "cs",
    "da",
    "nl",
    "en",
    "et",
    "fo",
    "fi",
    "fr",
    "de",
    "el",
    "hu",
    "is",
    "it",
    "lv",
    "lt",
    "lb",
    "nb",
    "pl",
    "pt",
    "ro",
    "sr",
    "sk",
    "sl",
    "es",
    "sv",
    "uk",
]


def test_every_euroeval_language_has_prompts_named_as_the_board_registry_names_it():
    from leaderboard.registry.languages import LANGUAGE_NAMES

    assert sorted(EUROEVAL_LANGUAGES) == sorted(LANGUAGES)
    assert {code: NAMES[code] for code in LANGUAGES} == {code: LANGUAGE_NAMES[code] for code in LANGUAGES}


@pytest.mark.parametrize("code", sorted(LANGUAGES))
def test_label_words_are_distinct_and_every_task_label_has_one(code):
    table = LANGUAGES[code]
    for spec in ENGINE_TASKS.values():
        words = [table.labels[label] for label in spec.default_labels]
        assert len(set(words)) == len(words), (code, spec.name, words)


def _check_data_pack_prompts() -> int:
    """Build every data-pack dataset's prompt format in each of its languages (raises
    UnsupportedLanguage naming what a language lacks); the number of datasets checked."""
    from evaluation.datasets import discover

    found = discover(REPO / "data" / "datasets")
    assert not found.refused
    for info in found:
        for language in info.languages:
            TaskFormat(info.task, language, info.labels)
    return len(found.datasets)


def test_every_dataset_of_the_data_pack_has_prompts_for_its_language_and_task():
    """A language that lacks a prompt (or a label word) one of its datasets needs fails here."""
    assert _check_data_pack_prompts() >= 125


def test_the_data_pack_check_fails_for_a_language_that_lacks_a_task_its_datasets_need(monkeypatch):
    from dataclasses import replace
    from types import MappingProxyType

    from evaluation import prompt_languages
    from evaluation.prompts import UnsupportedLanguage

    greek = LANGUAGES["el"]
    tasks = {name: texts for name, texts in greek.tasks.items() if name != "reading-comprehension"}
    monkeypatch.setitem(prompt_languages.LANGUAGES, "el", replace(greek, tasks=MappingProxyType(tasks)))
    with pytest.raises(UnsupportedLanguage, match="no reading-comprehension prompts for language 'el'"):
        _check_data_pack_prompts()  # xquad-el needs them
    words = {label: word for label, word in greek.labels.items() if label != "incorrect"}
    monkeypatch.setitem(prompt_languages.LANGUAGES, "el", replace(greek, labels=MappingProxyType(words)))
    with pytest.raises(UnsupportedLanguage, match="no word for the linguistic-acceptability label"):
        _check_data_pack_prompts()  # scala-el needs a word for 'incorrect'


def test_a_task_may_share_another_tasks_texts_and_a_bad_reference_fails(tmp_path):
    assert LANGUAGES["pl"].task("common-sense-reasoning") == LANGUAGES["pl"].task("knowledge")
    path = tmp_path / "xx.json"
    path.write_text(json.dumps({"code": "xx", "tasks": {"knowledge": "summarization"}}), encoding="utf-8")
    with pytest.raises(ValueError, match="refers to 'summarization'"):
        read_language_file(path)
    path.write_text(json.dumps({"code": "yy"}), encoding="utf-8")
    with pytest.raises(ValueError, match="not the file's name"):
        read_language_file(path)


def test_multiple_choice_letters():
    fmt = TaskFormat("knowledge", "en")
    assert fmt.block(ROWS["knowledge"], True).endswith("a. 3\nb. 4\nc. 5\nd. 6\nAnswer: b")


def test_ner_roundtrip_and_schema():
    fmt = TaskFormat("named-entity-recognition", "da")
    keys = fmt.ner_keys()
    tokens = ["Anders", "Fogh", "bor", "i", "Aarhus", "og", "Aarhus"]
    tags = ["B-PER", "I-PER", "O", "O", "B-LOC", "O", "B-LOC"]
    ents = bio_to_entities(tokens, tags, keys)
    assert ents == {"person": ["Anders Fogh"], "sted": ["Aarhus", "Aarhus"], "organisation": [], "diverse": []}
    assert entities_to_bio(tokens, ents, keys) == tags
    assert entities_to_bio(tokens, {"person": ["Nobody"], "ukendt": ["Aarhus"]}, keys) == ["O"] * 7
    schema = ner_json_schema(keys)
    assert schema["required"] == ["person", "sted", "organisation", "diverse"]
    assert json.loads(fmt.gold_answer(ROWS["named-entity-recognition"])) == {
        "person": ["Anders"],
        "sted": ["Aarhus"],
        "organisation": [],
        "diverse": [],
    }


def test_fit_prompt_drops_shots_then_truncates():
    fmt = TaskFormat("sentiment-classification", "en")
    shots = [{"text": "word " * 20, "label": "positive"}] * 3
    row = {"text": "long " * 100, "label": "negative"}
    count = lambda text: len(text.split())  # noqa: E731 - a whitespace "tokenizer"
    full = count(fmt.render_base(shots, row))
    prompt, kept, truncated = fit_prompt(fmt.render_base, shots, row, fmt.task, count, full - 10)
    assert kept == 2 and not truncated
    prompt, kept, truncated = fit_prompt(fmt.render_base, shots, row, fmt.task, count, 60)
    assert kept == 0 and truncated and count(prompt) <= 60 and prompt.endswith("Sentiment:")
