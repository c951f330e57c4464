"""A sentiment corpus of headerless CSV files (``SentimentCorpus.columns``): its lines are read
as records of those columns, a line with another number of fields is refused, and a fixture
written from the records a build needs rebuilds the same splits."""

from __future__ import annotations

import pytest

from scripts.datasets import build, sentiment

VALENCE = build.SENTIMENT["valence-et"]
PATH = VALENCE.files[0]


def test_csv_lines_become_records_and_a_fixture_of_the_needed_ones_builds_the_same_splits():
    data = (
        'positiivne,"Päike paistis, kõik olid rõõmsad."\n'
        "negatiivne,Rong jäi hiljaks.\n"
        "neutraalne,Koosolek algab kell kümme.\n"
        "positiivne,Rong jäi hiljaks.\n"  # a conflict: both copies leave
        "neutraalne,Koosolek algab kell kümme.\n"  # a repeat
    ).encode()
    sizes = {"test": 1, "val": 0, "train": 1}
    rows, needed, counts = sentiment.build(VALENCE, {PATH: data}, sizes)
    texts = sorted(row["text"] for split in rows.values() for row in split)
    assert texts == ["Koosolek algab kell kümme.", "Päike paistis, kõik olid rõõmsad."]
    assert (counts["conflicts"], counts["conflict_rows"], counts["duplicates"]) == (1, 2, 1)
    again = {PATH: sentiment.fixture_bytes(VALENCE, needed[PATH])}
    assert sentiment.build(VALENCE, again, sizes)[::2] == (rows, counts)


@pytest.mark.parametrize(
    "data, problem",
    [(b"positiivne\n", "x.csv:1: 1 fields, 2 expected"), (b"segane,Tekst.\n", "unknown label 'segane'")],
)
def test_a_csv_line_with_another_number_of_fields_or_an_unknown_label_is_refused(data, problem):
    with pytest.raises(ValueError, match=problem):
        sentiment.read_records(data, VALENCE, "x.csv")
