"""The knowledge builder (scripts/datasets/knowledge.py): which exam questions it reads, skips
and drops, how post-edits replace machine translations, and that fixtures of what a build
needed build the same rows (the committed folders are rebuilt in test_dataset_builders)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from scripts.datasets import knowledge
from scripts.datasets.knowledge_sources import EXAMS_NOT_SEEDED, KNOWLEDGE, exams_source

REPO = Path(__file__).resolve().parents[2]
MMLU_LV, ZNO = KNOWLEDGE["mmlu-lv"], KNOWLEDGE["zno-geography-uk"]
EXAMS_PT = exams_source(*EXAMS_NOT_SEEDED[6])  # Portuguese, its own splits
SMALL = {"test": 2, "val": 1, "train": 1}


def _mmlu(*questions: tuple[str, list[str], int]) -> bytes:
    return json.dumps([{"question": q, "choices": c, "answer": a} for q, c, a in questions]).encode()


def _task(question: str, texts: list[str], correct: str, **changes) -> dict:
    answers = [{"answer": letter, "text": text} for letter, text in zip("АБВГД", texts, strict=False)]
    task = {"question": question, "answers": answers, "answer_hheader": [], "correct_answer": [correct]}
    return {**task, "with_photo": False, **changes}


def test_mmlu_questions_are_rows_and_empty_repeated_conflicting_and_copied_ones_are_dropped():
    source = replace(MMLU_LV, postedits=())
    files = {
        "mmlu/a.json": _mmlu(
            (" Kas? ", ["1", "2", "3", "4"], 1),
            ("Kur?", ["x", "x", "y", "z"], 0),  # two identical options
            ("Kad?", ["", "b", "c", "d"], 2),  # an empty option
            ("Cik?", ["5", "6", "7", "8"], 3),
        ),
        "mmlu/b.json": _mmlu(
            ("Kas?", ["1", "2", "3", "4"], 1),  # a copy, once stripped
            ("Cik?", ["5", "6", "7", "8"], 0),  # the same question with another answer: both copies go
            ("Kāpēc?", ["p", "q", "r", "s"], 2),
        ),
    }
    rows, entries, counts = knowledge.build(source, files, SMALL)
    assert (counts["repeated"], counts["empty"], counts["duplicates"]) == (1, 1, 1)
    assert (counts["conflicts"], counts["conflict_rows"]) == (1, 2)
    every = [row for split in rows.values() for row in split]
    assert sorted(every, key=lambda r: r["question"]) == [
        {"question": "Kas?", "choices": ["1", "2", "3", "4"], "label": 1},
        {"question": "Kāpēc?", "choices": ["p", "q", "r", "s"], "label": 2},
    ]
    assert [len(rows[s]) for s in ("test", "val", "train")] == [2, 0, 0]  # the pool ran out
    # a fixture of the needed records builds the same rows and counts
    again = knowledge.fixture_files(source, entries)
    assert knowledge.build(source, again, SMALL)[::2] == (rows, counts)


def test_a_post_edit_replaces_its_machine_translation_and_its_fixture_lines_up():
    files = {
        "mmlu/sociology.json": _mmlu(("MT 0?", ["a", "b", "c", "d"], 0), ("MT 1?", ["e", "f", "g", "h"], 1)),
        "mmlu/sociology_postedited.json": _mmlu(("PE 0?", ["a", "b", "c", "d"], 0)),
    }
    rows, entries, counts = knowledge.build(MMLU_LV, files, SMALL)
    questions = {row["question"] for split in rows.values() for row in split}
    assert questions == {"PE 0?", "MT 1?"} and counts["edited"] == 1
    fixture = knowledge.fixture_files(MMLU_LV, entries) | knowledge.edited_fixture_files(MMLU_LV, files, entries)
    assert knowledge.build(MMLU_LV, fixture, SMALL)[0] == rows
    files["mmlu/sociology_postedited.json"] = _mmlu(("PE 0?", ["a", "b", "c", "d"], 3))
    with pytest.raises(ValueError, match="does not edit"):
        knowledge.build(MMLU_LV, files, SMALL)


@pytest.mark.parametrize(
    "record, problem",
    [
        ({"question": "Q", "choices": ["a", "b", "c"], "answer": 0}, "four options"),
        ({"question": "Q", "choices": ["a", "b", "c", "d"], "answer": 4}, "four options"),
        ({"question": "Q", "choices": ["a", "b", "c", "d"], "answer": True}, "four options"),
        ({"choices": ["a", "b", "c", "d"], "answer": 0}, "a question needs a text"),
    ],
)
def test_a_malformed_mmlu_question_is_refused(record, problem):
    with pytest.raises(ValueError, match=f"x.json: question 0: {problem}"):
        knowledge.build(replace(MMLU_LV, postedits=()), {"x.json": json.dumps([record]).encode()})


def test_zno_reads_text_questions_with_four_options_and_one_answer_and_skips_other_tasks():
    tasks = [
        _task("Яка річка?", ["Дніпро", "Дунай", "Десна", "Рось"], "Б"),
        _task("На карті?", ["А", "Б", "В", "Г"], "А", with_photo=True),
        _task("Відповідність?", ["1", "2", "3", "4"], "А", answer_hheader=["1", "2"]),
        _task("П'ять?", ["a", "b", "c", "d", "e"], "В"),
        _task("Два?", ["a", "b", "c", "d"], "А", correct_answer=["А", "Б"]),
    ]
    path = ZNO.files[0]
    data = json.dumps([{"tasks": tasks[:2]}, {"tasks": tasks[2:]}]).encode()
    rows, entries, counts = knowledge.build(ZNO, {path: data}, SMALL)
    assert rows["test"] == [{"question": "Яка річка?", "choices": ["Дніпро", "Дунай", "Десна", "Рось"], "label": 1}]
    assert counts["skipped"] == 4
    fixture = knowledge.fixture_files(ZNO, entries)[path]
    assert "карті" not in fixture.decode()  # a skipped task's texts are left out of a fixture
    assert knowledge.build(ZNO, {path: fixture}, SMALL)[::2] == (rows, counts)
    with pytest.raises(ValueError, match="is not one of the options"):
        knowledge.build(ZNO, {path: json.dumps([{"tasks": [_task("Q", list("abcd"), "Д")]}]).encode()})


def test_the_knowledge_folders_have_four_choices_a_row_and_no_question_twice():
    for name in KNOWLEDGE:
        folder = REPO / "data" / "datasets" / name
        rows = [json.loads(line) for split in ("train", "val", "test") for line in (folder / f"{split}.jsonl").open()]
        assert all(len(row["choices"]) == 4 and row["label"] in range(4) for row in rows)
        assert len({(row["question"], *row["choices"]) for row in rows}) == len(rows)
        meta = json.loads((folder / "dataset.json").read_text(encoding="utf-8"))
        assert meta["task"] == "knowledge" and meta["source"].startswith(f"github.com/{KNOWLEDGE[name].repo} @ ")


def _exams_archive(*questions: tuple[str, str, list[str], str]) -> bytes:
    """An EXAMS-like archive of (language, stem, option texts, answer key) questions."""
    records = [
        {
            "question": {"stem": stem, "choices": [{"label": lab, "text": t} for lab, t in zip("ABCDE", texts)]},
            "answerKey": key,
            "info": {"language": language},
        }
        for language, stem, texts, key in questions
    ]
    return knowledge.exams_fixture(records, [True] * len(records))


def test_exams_reads_one_languages_four_option_questions_and_each_split_from_the_sources_own():
    source = replace(EXAMS_PT, split_of=tuple(zip(EXAMS_PT.files, ("test", "val", "train"), strict=True)))
    test, dev, train = source.files
    files = {
        test: _exams_archive(
            ("Portuguese", " Qual? ", ["a", "b", "c", "d"], "C"),
            ("Portuguese", "Três?", ["a", "b", "c"], "A"),  # three options: skipped
            ("Croatian", "Koji?", ["a", "b", "c", "d"], "A"),  # another language: not read
        ),
        dev: _exams_archive(("Portuguese", "Onde?", ["e", "f", "g", "h"], "D")),
        train: _exams_archive(
            ("Portuguese", "Quem?", ["i", "j", "k", "l"], "A"),
            ("Portuguese", "Cinco?", ["a", "b", "c", "d", "e"], "E"),  # five options: skipped
        ),
    }
    rows, entries, counts = knowledge.build(source, files, SMALL)
    assert rows == {
        "test": [{"question": "Qual?", "choices": ["a", "b", "c", "d"], "label": 2}],
        "val": [{"question": "Onde?", "choices": ["e", "f", "g", "h"], "label": 3}],
        "train": [{"question": "Quem?", "choices": ["i", "j", "k", "l"], "label": 0}],
    }
    assert counts["skipped"] == 2 and len(entries) == 5
    fixture = knowledge.fixture_files(source, entries)
    assert "Koji" not in b"".join(fixture.values()).decode("latin-1")
    assert knowledge.build(source, fixture, SMALL)[::2] == (rows, counts)
    assert knowledge.exams_fixture([], []) == knowledge.exams_fixture([], [])  # no dates in an archive
    bad = {test: _exams_archive(("Portuguese", "Q?", ["a", "b", "c", "d"], "E")), dev: files[dev], train: files[train]}
    with pytest.raises(ValueError, match="is not one of the options"):
        knowledge.build(source, bad)


def test_exams_without_the_sources_splits_cuts_the_pooled_questions():
    source = replace(EXAMS_PT, files=EXAMS_PT.files[:1], split_of=())
    questions = [("Portuguese", f"Q{i}?", ["a", "b", "c", "d"], "ABCD"[i % 4]) for i in range(8)]
    rows, _, _ = knowledge.build(source, {source.files[0]: _exams_archive(*questions)}, SMALL)
    assert [len(rows[s]) for s in ("test", "val", "train")] == [2, 1, 1]
