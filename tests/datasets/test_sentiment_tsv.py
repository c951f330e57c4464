"""Poem Sentiment (``poem-sentiment-en``): tab-separated lines of id, verse and label read as
they stand (a double quote is text, not CSV quoting), the labels mapped -1 -> negative,
0 (no impact) -> neutral, 1 -> positive, and the mixed lines (2) left out and counted. The
expected labels below were read by hand from the source's first lines (data/train.tsv @ 612e9a1)."""

from __future__ import annotations

import json
from pathlib import Path

from scripts.datasets import build, sentiment
from scripts.datasets.source_files import FixtureFiles

POEMS = build.SENTIMENT["poem-sentiment-en"]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dataset_sources"
FOLDER = Path(__file__).resolve().parents[2] / "data" / "datasets" / "poem-sentiment-en"

# data/train.tsv's first lines and line 58, as the source gives them (id, verse, label)
HAND_CHECKED = [
    ("0", "with pale blue berries. in these peaceful shades--", "1", "positive"),
    ("1", "it flows so long as falls the rain,", "0", "neutral"),
    ("2", "and that is why, the lonesome day,", "-1", "negative"),
    ("57", '"what did you hear, for instance?" willis said.', "0", "neutral"),
]
MIXED = (
    "3",
    "when i peruse the conquered fame of heroes, and the victories of mighty generals, i do not envy the generals,",
    "2",
)


def _tsv(*lines: tuple[str, ...]) -> bytes:
    return "\n".join("\t".join(fields) for fields in lines).encode()  # no final newline, as the source


def test_the_source_labels_map_as_the_paper_defines_them_and_mixed_is_left_out():
    assert dict(POEMS.labels) == {"-1": "negative", "0": "neutral", "1": "positive"} and POEMS.unmapped == ("2",)
    data = _tsv(*(line[:3] for line in HAND_CHECKED), MIXED)
    rows = sentiment.read_records(data, POEMS, "data/train.tsv")
    assert [(r["text"], r["label"]) for r in rows] == [(v, label) for _, v, _, label in HAND_CHECKED] + [
        (MIXED[1], None)
    ]
    built, needed, counts = sentiment.build(POEMS, dict.fromkeys(POEMS.files, b"") | {"data/train.tsv": data})
    kept = {row["text"]: row["label"] for split in built.values() for row in split}
    assert kept == {verse: label for _, verse, _, label in HAND_CHECKED}
    assert counts["unmapped", "2"] == 1 and MIXED[1] not in kept
    assert {"id": "3", "verse": MIXED[1], "label": "2"} in needed["data/train.tsv"]  # a fixture keeps it, to count
    again = {path: sentiment.fixture_bytes(POEMS, records) for path, records in needed.items()}
    assert sentiment.build(POEMS, again)[::2] == (built, counts)


def test_the_committed_folder_has_the_hand_checked_lines_with_their_labels_and_no_mixed_line():
    source = FixtureFiles(FIXTURES).read(POEMS.repo, POEMS.commit, "data/train.tsv").decode()
    for fields in (*HAND_CHECKED, MIXED):
        assert "\t".join(fields[:3]) + "\n" in source
    rows = {}
    for split in ("train", "val", "test"):
        for line in (FOLDER / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[row["text"]] = row["label"]
    for _, verse, _, label in HAND_CHECKED:
        assert rows[verse] == label
    assert MIXED[1] not in rows and len(rows) == 1052
    meta = json.loads((FOLDER / "dataset.json").read_text(encoding="utf-8"))
    assert "Dropped: 49 records of a label left out (49 labelled 2), 0 empty" in meta["description"]
    assert meta["splits"] == {"train": 323, "val": 80, "test": 649} and meta["license"].startswith("CC BY 4.0")
