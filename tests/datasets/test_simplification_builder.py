"""The simplification builder (scripts/datasets/simplification.py): SIMPITIKI's marked pairs
become the original and the simplified sentence, pairs of one original one row, ASSET's ten
aligned references one row; asset-en is rebuilt from a small excerpt of its source.
(simpitiki-it is rebuilt byte for byte in test_dataset_builders.py.)"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from scripts.datasets import build, simplification
from scripts.datasets.simplification import SIMPLIFICATION

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "dataset_sources"
SIMPITIKI, ASSET = SIMPLIFICATION["simpitiki-it"], SIMPLIFICATION["asset-en"]


def _simpitiki(*pairs: tuple[str, str]) -> dict[str, bytes]:
    def escaped(text: str) -> str:
        return text.replace("<", "&lt;").replace(">", "&gt;")

    body = "".join(
        f'<simplification type="31" origin="tn"><before>{escaped(b)}</before><after>{escaped(a)}</after>'
        "</simplification>"
        for b, a in pairs
    )
    return {SIMPITIKI.files[0][1]: f"<resource><simplifications>{body}</simplifications></resource>".encode()}


def test_a_simpitiki_pair_is_read_without_the_other_sides_marks_and_pairs_of_one_original_are_one_row():
    marked = "Il bambino deve <del>ri</del>s<del>ulta</del>re residente."
    files = _simpitiki(
        (marked, "Il bambino deve <ins>e</ins>s<ins>se</ins>re residente."),
        ("Il bambino deve risultare residente.", "Il bambino <ins>è</ins> residente."),
        ("Il bambino deve risultare residente.", "Il bambino <ins>è</ins> residente."),  # the same pair again
        ("La domanda<ins> scritta</ins> va <del>data</del> a maggio.", "La domanda <del>va</del>si dà a maggio."),
        ("  ", "  "),
        ("Uguale.", "Uguale."),
        ("Prima riga.\n\nSeconda riga.", "Prima riga."),
    )  # fmt: skip
    rows, read, counts = simplification.build(SIMPITIKI, files)
    everything = sorted((row for split in build.SPLITS for row in rows[split]), key=lambda r: r["text"])
    assert everything == [
        {
            "text": "Il bambino deve risultare residente.",
            "target_text": ["Il bambino deve essere residente.", "Il bambino è residente."],
        },
        {"text": "La domanda va data a maggio.", "target_text": ["La domanda si dà a maggio."]},
    ]
    assert (counts["empty"], counts["unchanged"], counts["line breaks"], counts["merged"]) == (1, 1, 1, 2)
    assert all(item.get("needed") for item in read[SIMPITIKI.files[0][1]])  # each is used or counted


def test_asset_rows_keep_the_ten_references_in_file_order_and_misaligned_files_are_refused():
    files = {}
    for _, original in ASSET.files:
        files[original] = b"A long sentence.\nAnother long sentence.\n"
        for number, path in enumerate(simplification.reference_paths(ASSET, original)):
            files[path] = f"Short {number}.\nShort again.\n".encode()
    rows, _, counts = simplification.build(ASSET, files)
    assert sum(counts[reason] for reason in simplification.DROP_REASONS) == 2  # the valid file repeats the test's
    assert sorted(rows["test"], key=lambda r: r["text"])[0] == {
        "text": "A long sentence.",
        "target_text": [f"Short {n}." for n in range(10)],
    }
    assert sorted(rows["test"], key=lambda r: r["text"])[1]["target_text"] == ["Short again."] * 10  # as written
    files[simplification.reference_paths(ASSET, ASSET.files[0][1])[3]] = b"Only one line.\n"
    with pytest.raises(ValueError, match="asset.test.simp.3: 1 lines"):
        simplification.build(ASSET, files)


def _rows(folder: Path, split: str) -> list[dict]:
    return [json.loads(line) for line in (folder / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_asset_en_rows_rebuilt_from_an_excerpt_of_its_source_are_the_committed_ones_in_the_same_order(tmp_path):
    """The excerpt holds 16 test and 32 used validation lines of each file (the whole source
    is 22 files of 2,359 lines): each row built from it is a committed row, test rows in
    test, validation rows in val or train, in the committed order."""
    assert build.main(["--fixtures", str(FIXTURES), "--out", str(tmp_path), "asset-en"]) == 0
    committed = REPO / "data" / "datasets" / "asset-en"
    built = {split: _rows(tmp_path / "asset-en", split) for split in build.SPLITS}
    assert len(built["test"]) == 16 and len(built["val"]) + len(built["train"]) == 32
    assert built["test"] == [row for row in _rows(committed, "test") if row in built["test"]]
    validation = _rows(committed, "val") + _rows(committed, "train")
    excerpt = built["val"] + built["train"]
    assert excerpt == [row for row in validation if row in excerpt]
    assert all(len(row["target_text"]) == 10 for split in build.SPLITS for row in _rows(committed, split))


def test_the_simplification_folders_have_their_sizes_and_no_original_in_two_splits():
    sizes = {}
    for name in SIMPLIFICATION:
        folder = REPO / "data" / "datasets" / name
        rows = {split: _rows(folder, split) for split in build.SPLITS}
        sizes[name] = [len(rows[split]) for split in build.SPLITS]
        texts = Counter(row["text"] for split in build.SPLITS for row in rows[split])
        assert max(texts.values()) == 1, name
        assert json.loads((folder / "dataset.json").read_text(encoding="utf-8"))["task"] == "simplification"
    assert sizes == {"simpitiki-it": [163, 40, 327], "asset-en": [1024, 256, 359]}
