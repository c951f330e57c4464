"""squad.py: SQuAD-format files become reading-comprehension splits of whole paragraphs,
questions with a misplaced answer, no answer or a repeated text dropped (or, where the source
lists a question once per answer, merged), the same from a fixture."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

from scripts.datasets import squad
from scripts.datasets.squad_sources import SQUAD

NONE_DROPPED = {"repeated": 0, "misplaced": 0, "unanswerable": 0, "merged": 0}
SOURCE = replace(SQUAD["squad-it"], file="data.json", sizes=(("test", 4), ("val", 2), ("train", 3)))


def _file(paragraphs: list[tuple[str, list[tuple[str, str, int]]]]) -> bytes:
    """paragraphs: (context, [(question, answer, offset)]); ids are 'p<i>q<j>'."""
    data = [
        {
            "context": context,
            "qas": [
                {"id": f"p{i}q{j}", "question": q, "answers": [{"text": a, "answer_start": at}]}
                for j, (q, a, at) in enumerate(qas)
            ],
        }
        for i, (context, qas) in enumerate(paragraphs)
    ]
    return json.dumps({"data": [{"title": "t", "paragraphs": data}]}).encode()


def _paragraphs(count: int) -> list[tuple[str, list[tuple[str, str, int]]]]:
    return [(f"Testo {i} dice alfa.", [(f"Domanda {i}.{j}?", "alfa", len(f"Testo {i} dice ")) for j in range(3)])
            for i in range(count)]  # fmt: skip


def test_paragraphs_go_whole_to_one_split_and_the_splits_have_their_sizes():
    rows, used, counts = squad.build(SOURCE, _file(_paragraphs(6)))
    assert {split: len(r) for split, r in rows.items()} == {"train": 3, "val": 2, "test": 4}
    contexts = {split: {row["context"] for row in r} for split, r in rows.items()}
    assert not (contexts["test"] & contexts["val"] or contexts["test"] & contexts["train"])
    assert not contexts["val"] & contexts["train"]
    assert len(used) == 4 and counts == {
        "repeated": 0,
        "misplaced": 0,
        "unanswerable": 0,
        "merged": 0,
    }  # 2 + 1 + 1 paragraphs
    row = rows["test"][0]
    assert row["answers"]["text"] == ["alfa"] and row["context"][row["answers"]["answer_start"][0] :].startswith("alfa")


def test_a_misplaced_answer_or_a_repeated_question_is_dropped_and_counted():
    paragraphs = _paragraphs(6)
    paragraphs[0][1][0] = ("Domanda sbagliata?", "alfa", 0)
    paragraphs[1][1][1] = (paragraphs[2][1][2][0] + " ", "alfa", len("Testo 1 dice "))
    every = replace(SOURCE, sizes=(("test", 30), ("val", 1), ("train", 1)))  # every paragraph read (all to test)
    rows, used, counts = squad.build(every, _file(paragraphs))
    ids = {row["id"] for split in rows.values() for row in split}
    assert len(used) == 6 and counts == {**NONE_DROPPED, "repeated": 1, "misplaced": 1} and len(ids) == 16
    assert "p0q0" not in ids and len({"p1q1", "p2q2"} & ids) == 1


def test_a_gzipped_source_and_its_fixture_give_the_same_rows():
    gz = replace(SOURCE, file="data.json.gz")
    data = gzip.compress(_file(_paragraphs(8)))
    rows, used, _ = squad.build(gz, data)
    again, used_again, _ = squad.build(gz, squad.fixture_bytes(gz, used))
    assert again == rows and used_again == used and len(used) < 8


def test_an_unanswerable_question_is_left_out_and_counted_and_named_in_the_description():
    data = json.loads(_file(_paragraphs(2)))
    data["data"][0]["paragraphs"][0]["qas"][1]["answers"] = []  # SQuAD 2.0: is_impossible, no answers
    every = replace(SOURCE, sizes=(("test", 30), ("val", 1), ("train", 1)))
    rows, used, counts = squad.build(every, json.dumps(data).encode())
    assert counts == {"repeated": 0, "misplaced": 0, "unanswerable": 1, "merged": 0}
    assert "p0q1" not in {row["id"] for split in rows.values() for row in split}
    assert "are left out (1)." in squad.describe(every, used, counts)
    assert "left out (" not in squad.describe(every, used, {**counts, "unanswerable": 0})


def test_integer_ids_become_strings():
    data = json.loads(_file(_paragraphs(1)))
    for n, qa in enumerate(data["data"][0]["paragraphs"][0]["qas"]):
        qa["id"] = n + 1
    rows, _, _ = squad.build(replace(SOURCE, sizes=(("test", 3),)), json.dumps(data).encode())
    assert sorted(row["id"] for row in rows["test"]) == ["1", "2", "3"]


def test_a_repeat_within_a_paragraph_adds_its_answers_where_the_source_lists_a_question_per_answer():
    context = "Testo 0 dice alfa e beta."
    paragraphs = [
        (context, [("Cosa?", "alfa", 13), ("Cosa?", "beta", 20), ("Cosa?", "alfa", 13), ("Altro?", "beta", 20)]),
        ("Testo 1 dice alfa.", [("Cosa?", "alfa", 13), ("Nuova?", "alfa", 13)]),
    ]
    merging = replace(SOURCE, sizes=(("test", 30),), merge_repeats=True)
    rows, used, counts = squad.build(merging, _file(paragraphs))
    by_id = {row["id"]: row for row in rows["test"]}
    # the same-paragraph repeats merge (the identical answer once); another paragraph's repeat is dropped
    assert counts == {"repeated": 1, "misplaced": 0, "unanswerable": 0, "merged": 2}
    assert sorted(by_id) == ["p0q0", "p0q3", "p1q1"]
    assert by_id["p0q0"]["answers"] == {"text": ["alfa", "beta"], "answer_start": [13, 20]}
    assert "(2 merged)" in squad.describe(merging, used, counts)
    # the default drops every repeat, as before
    rows, _, counts = squad.build(replace(merging, merge_repeats=False), _file(paragraphs))
    assert counts["repeated"] == 3 and rows["test"][0]["answers"]["text"] in (["alfa"], ["beta"])
