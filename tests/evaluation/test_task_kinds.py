"""A task is one object (issue #18.1): its kind carries the behaviour, nothing else
compares task names, and a new task of an existing kind is one table entry, its prompt
texts and a dataset folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaluation import prompt_languages, task_kinds, tasks
from evaluation.finetune import UnsupportedEncoderTask, check_task_supported, task_labels
from evaluation.metrics import METRIC_FUNCTIONS
from evaluation.prompts import TaskFormat, truncate_row

REPO = Path(__file__).resolve().parents[2]
# Where task names may be written: the task table, the prompt texts, and migrations (history).
TASK_NAME_HOMES = {REPO / "evaluation" / "tasks.py", REPO / "evaluation" / "prompt_languages.py"}


def test_no_task_name_is_compared_outside_the_task_table():
    # A kind may share its name with a task (``multiple-choice``): naming a kind is not
    # comparing task names.
    kinds = {kind.name for kind in vars(task_kinds).values() if isinstance(kind, task_kinds.TaskKind)}
    # "speed" is also the word for EuroEval's speed metrics ("speed", "speed_short") and the
    # engine's speed benchmark (issue #26): the published speed records own its one use as a
    # task name (``services/published_speed.SPEED_TASK``).
    names = (set(tasks.TASKS) | set(tasks.TASK_ALIASES) | set(tasks.NON_TASKS)) - kinds - {"speed"}
    alternatives = "|".join(map(re.escape, sorted(names)))
    pattern = re.compile(rf"""["']({alternatives})["']""")
    offenders = []
    for package in ("evaluation", "leaderboard"):
        for path in (REPO / package).rglob("*.py"):
            if path in TASK_NAME_HOMES or "migrations" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


@pytest.mark.parametrize("name", [name for name, spec in tasks.TASKS.items() if spec.evaluable])
def test_every_evaluable_task_has_its_metrics_and_prompts(name):
    spec = tasks.TASKS[name]
    assert all(metric in METRIC_FUNCTIONS for metric in spec.metrics)
    assert spec.short_label and spec.label and spec.category in ("nlu", "nlg")
    for language in prompt_languages.LANGUAGES.values():
        texts = language.task(name)
        assert texts.prefix and texts.doc and texts.label and "{doc}" in texts.instruction


def test_each_kind_answers_for_its_rows():
    sentiment = TaskFormat("sentiment-classification", "da")
    assert sentiment.labels == ("positive", "neutral", "negative")  # the task's default labels
    assert sentiment.label_words() == ["positiv", "neutral", "negativ"]
    assert sentiment.gold_answer({"text": "godt", "label": "positive"}) == "positiv"
    assert sentiment.kind.gold({"text": "godt", "label": "positive"}) == "positive"

    mc = TaskFormat("knowledge", "en")
    row = {"question": "2+2?", "choices": ["3", "4", "5"], "label": 1}
    assert mc.document(row) == "2+2?\nChoices:\na. 3\nb. 4\nc. 5"
    assert mc.label_words(row) == ["a", "b", "c"] and mc.canonical_labels(row) == [0, 1, 2]
    assert mc.gold_answer(row) == "b" and mc.kind.gold(row) == 1 == mc.gold_label(row)

    ner = TaskFormat("named-entity-recognition", "nb")
    ner_row = {"tokens": ["Kari", "bor", "i", "Oslo"], "labels": ["B-PER", "O", "O", "B-LOC"]}
    assert ner.labels_phrase().endswith(" og diverse")  # the language's word, from its table
    assert json.loads(ner.gold_answer(ner_row))["person"] == ["Kari"]
    assert ner.gold_label(ner_row) is None
    assert truncate_row(ner_row, "named-entity-recognition", 0.5) == {
        **ner_row,
        "tokens": ner_row["tokens"][:2],
        "labels": ner_row["labels"][:2],
    }

    rc_row = {"context": "abcdefghij", "question": "q?", "answers": {"text": ["cde"]}}
    assert TaskFormat("reading-comprehension", "en").shot_text(rc_row) == "abcdefghij"
    assert truncate_row(rc_row, "reading-comprehension", 0.3)["context"] == "abc"
    assert truncate_row({"text": "abcdefghij", "label": "x"}, "linguistic-acceptability", 0.5)["text"] == "abcde"


def test_encoders_follow_the_kind():
    assert check_task_supported("question-answering") == "reading-comprehension"
    with pytest.raises(UnsupportedEncoderTask, match="summarization needs a generative model"):
        check_task_supported("summarization")
    train = [{"tokens": ["a"], "labels": ["B-PER"]}, {"tokens": ["b"], "labels": ["O"]}]
    assert task_labels("named-entity-recognition", {}, train) == ["O", "B-PER"]
    assert task_labels("sentiment-classification", {}, [{"label": "b"}, {"label": "a"}]) == ["a", "b"]
    assert task_labels("knowledge", {"labels": []}, [{"label": 1}]) == []


def test_a_language_entry_missing_a_word_fails_at_import_time():
    entry = {k: v for k, v in prompt_languages.TABLE["da"].items() if k != "ner_and"}
    with pytest.raises(ValueError, match="lacks ner_and"):
        prompt_languages.LanguagePrompts.from_table("xx", entry)
    with pytest.raises(TypeError):  # a task's texts without an instruction
        prompt_languages.LanguagePrompts.from_table("xx", {**entry, "ner_and": "og", "knowledge": {"prefix": "p"}})
