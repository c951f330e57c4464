"""XStoryCloze's stories become two-choice rows (scripts/datasets/storycloze.py): the story
and Glossa's question in ``question``, the two endings in the source's order, the right one's
index; bad lines are refused with their number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.datasets import build, storycloze

REPO = Path(__file__).resolve().parents[2]
SPANISH = storycloze.STORYCLOZE["xstorycloze-es"]
HEADER = "\t".join(storycloze.HEADER)


def _tsv(*stories: tuple[str, str, str, str, str, str, str]) -> bytes:
    lines = [HEADER, *("\t".join((f"id{n}", *story)) for n, story in enumerate(stories))]
    return ("\r\n".join(lines)).encode("utf-8")


def test_a_story_becomes_a_two_choice_row_and_a_repeat_of_a_test_story_leaves_the_pool():
    story = ("Ana tenía sed. ", "Abrió la nevera.", "Vio una botella.", "La cogió.", "Bebió agua.", "Se durmió.", "1")
    other = ("Luis corrió.", "Se cansó.", "Paró.", "Respiró.", "Siguió corriendo.", "Voló.", "2")
    test_file, pool_file = (path for _, path in SPANISH.files)
    rows, counts = storycloze.build(SPANISH, {test_file: _tsv(story), pool_file: _tsv(story, other)})
    assert rows["test"] == [
        {
            "question": "Ana tenía sed. Abrió la nevera. Vio una botella. La cogió. " + SPANISH.ask,
            "choices": ["Bebió agua.", "Se durmió."],
            "label": 0,
        }
    ]
    assert counts["duplicates"] == 1 and rows["val"] == [] and [r["label"] for r in rows["train"]] == [1]


@pytest.mark.parametrize(
    "data, problem",
    [
        (b"id\tstory\n", "the header"),
        ((HEADER + "\nx\ta\tb\tc\td\te\tf\t3").encode(), "answer '3' is not 1 or 2"),
        ((HEADER + "\nx\ta\tb\tc\td\te\t1").encode(), "7 fields, 8 expected"),
    ],
)
def test_a_bad_line_is_refused_with_its_number(data, problem):
    with pytest.raises(ValueError, match=f"x.tsv:[12]: .*{problem}"):
        storycloze.read_stories(data, "x.tsv")


def test_the_committed_folder_has_two_choices_a_row_and_the_source_balance():
    rows = {
        split: [json.loads(line) for line in (REPO / "data" / "datasets" / "xstorycloze-es" / f"{split}.jsonl").open()]
        for split in build.SPLITS
    }
    assert [len(rows[split]) for split in ("train", "val", "test")] == [288, 72, 1511]
    assert all(len(row["choices"]) == 2 and row["label"] in (0, 1) for split in rows.values() for row in split)
    assert 0.45 < sum(row["label"] for row in rows["test"]) / len(rows["test"]) < 0.55
    assert all(row["question"].endswith(SPANISH.ask) for row in rows["test"])
