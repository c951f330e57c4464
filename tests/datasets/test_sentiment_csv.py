"""A sentiment corpus of headerless CSV (or tab-separated) files (``SentimentCorpus.columns``): its lines are read
as records of those columns, a line with another number of fields is refused, and a fixture
written from the records a build needs rebuilds the same splits."""

from __future__ import annotations

import pytest

from scripts.datasets import build, sentiment

VALENCE = build.SENTIMENT["valence-et"]
POEMS = build.SENTIMENT["poem-sentiment-en"]
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
    "corpus, data, problem",
    [
        (VALENCE, b"positiivne\n", "x.csv:1: 1 fields, 2 expected"),
        (VALENCE, b"segane,Tekst.\n", "unknown label 'segane'"),
        (POEMS, b"7\tsome verse\n", "x.csv:1: 2 fields, 3 expected"),  # tab-separated, unquoted
        (POEMS, b"7\tsome verse\t3\n", "unknown label '3'"),
    ],
)
def test_a_delimited_line_with_another_number_of_fields_or_an_unknown_label_is_refused(corpus, data, problem):
    with pytest.raises(ValueError, match=problem):
        sentiment.read_records(data, corpus, "x.csv")


SENTICOMMENTS = build.SENTIMENT["senticomments-sr"]
SR_PATH = SENTICOMMENTS.files[0]
# Lines 1, 2, 13, 26, 125, 181, 575 and 2238 of SentiComments.SR.corr.txt @ 294b3be, as the
# file has them (tab-separated, CRLF line ends, quote characters inside and at the start of a text).
SR_LINES = (
    "+1\t1-1\t\u2665 Znao sam da će ovaj biti prvi! :)\r\n"
    "+NS\t1-2\tpa mora... The Dude Abides! :)\r\n"
    '-1\t5-2\tIsto... projekat je ceo nekako "ofrlje" urađen, moglo je mnogo bolje..\r\n'
    "+M\t7-1-1\tnemaju ljudi pažnju za film koji se kroz duraciju gradi.\r\n"  # the text cut short here
    '+1\t50-2\t"Ugasite svoj snobizam, i prepustite se filmu." - kratko i jasno!!!\r\n'  # cut short too
    "-1s\t75-13\tGledala; ali sam izgleda propustila momenat gde ne pričamo o komercijalnim SF filmovima :)\r\n"
    "+NS\t159-4-1-1\tHvala.\r\n"
    "+NS\t624-1-1\tHvala.\r\n"
).encode()


def test_senticomments_lines_are_read_tab_separated_without_quoting_and_their_labels_mapped_by_hand():
    rows = sentiment.read_records(SR_LINES, SENTICOMMENTS, SR_PATH)
    assert [(row["record"]["id"], row["label"]) for row in rows] == [
        ("1-1", "positive"),
        ("1-2", "neutral"),
        ("5-2", "negative"),
        ("7-1-1", None),  # +M: mixed, left out
        ("50-2", "positive"),
        ("75-13", None),  # -1s: sarcastic, left out
        ("159-4-1-1", "neutral"),
        ("624-1-1", "neutral"),
    ]
    assert rows[2]["text"] == 'Isto... projekat je ceo nekako "ofrlje" urađen, moglo je mnogo bolje..'
    assert rows[4]["text"] == '"Ugasite svoj snobizam, i prepustite se filmu." - kratko i jasno!!!'
    assert rows[0]["text"] == "\u2665 Znao sam da će ovaj biti prvi! :)"  # no "\r" left


def test_senticomments_left_out_labels_and_repeats_are_counted_and_a_fixture_builds_the_same():
    sizes = {"test": 3, "val": 1, "train": 1}
    rows, needed, counts = sentiment.build(SENTICOMMENTS, {SR_PATH: SR_LINES}, sizes)
    assert sorted(row["label"] for split in rows.values() for row in split) == [
        "negative",
        "neutral",
        "neutral",
        "positive",
        "positive",
    ]
    assert (counts["unmapped", "+M"], counts["unmapped", "-1s"], counts["duplicates"]) == (1, 1, 1)
    description = sentiment.describe(SENTICOMMENTS, rows, counts)
    assert (
        "Dropped: 2 records of a label left out (1 labelled +M, 0 labelled -M, 0 labelled +1s, "
        "1 labelled -1s, 0 labelled +Ms, 0 labelled -Ms), 0 empty" in description
    )
    again = {SR_PATH: sentiment.fixture_bytes(SENTICOMMENTS, needed[SR_PATH])}
    assert len(again[SR_PATH].splitlines()) == 8  # every line is needed: the left-out ones for their counts
    assert sentiment.build(SENTICOMMENTS, again, sizes)[::2] == (rows, counts)


def test_a_senticomments_label_neither_mapped_nor_left_out_is_refused():
    with pytest.raises(ValueError, match="unknown label '0'"):
        sentiment.read_records(b"0\t1-1\tTekst.\r\n", SENTICOMMENTS, "x.txt")
