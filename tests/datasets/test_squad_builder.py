"""squad.py: SQuAD-format files become reading-comprehension splits of whole paragraphs,
questions with a misplaced answer or a repeated text dropped, the same from a fixture."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

from scripts.datasets import squad
from scripts.datasets.squad_sources import SQUAD

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
    assert len(used) == 4 and counts == {"repeated": 0, "misplaced": 0}  # 2 + 1 + 1 paragraphs
    row = rows["test"][0]
    assert row["answers"]["text"] == ["alfa"] and row["context"][row["answers"]["answer_start"][0] :].startswith("alfa")


def test_a_misplaced_answer_or_a_repeated_question_is_dropped_and_counted():
    paragraphs = _paragraphs(6)
    paragraphs[0][1][0] = ("Domanda sbagliata?", "alfa", 0)
    paragraphs[1][1][1] = (paragraphs[2][1][2][0] + " ", "alfa", len("Testo 1 dice "))
    every = replace(SOURCE, sizes=(("test", 30), ("val", 1), ("train", 1)))  # every paragraph read (all to test)
    rows, used, counts = squad.build(every, _file(paragraphs))
    ids = {row["id"] for split in rows.values() for row in split}
    assert len(used) == 6 and counts == {"repeated": 1, "misplaced": 1} and len(ids) == 16
    assert "p0q0" not in ids and len({"p1q1", "p2q2"} & ids) == 1


def test_a_gzipped_source_and_its_fixture_give_the_same_rows():
    gz = replace(SOURCE, file="data.json.gz")
    data = gzip.compress(_file(_paragraphs(8)))
    rows, used, _ = squad.build(gz, data)
    again, used_again, _ = squad.build(gz, squad.fixture_bytes(gz, used))
    assert again == rows and used_again == used and len(used) < 8
