"""Topic classification from SIB-200 (sentences of FLORES-200 labelled with one of seven
topics), one language at a time."""

from __future__ import annotations

from scripts.datasets.sampling import SEED, item_key, take_splits

SIZES = {"test": 256, "val": 64, "train": 256}
SPLIT_FILES = {"train": "train.tsv", "val": "dev.tsv", "test": "test.tsv"}
LABELS = ("science/technology", "travel", "politics", "sports", "health", "entertainment", "geography")

DESCRIPTION = (
    "Topic classification for {language}, built by scripts/datasets (sib200.py) from SIB-200's annotated "
    "{flores} files ({files}): FLORES-200 sentences, each labelled with one of the seven SIB-200 topics, kept as "
    "written (label words unchanged). Each split comes from the source split of the same role (dev.tsv gives val); "
    "rows are sorted by a key, SHA-256 of seed {seed} and the sentence, and the first {test} test, {val} val and "
    "{train} train rows are kept (all of a source split when it is smaller). The source splits are the same "
    "sentences in every SIB-200 language (FLORES-200 is a parallel corpus), so a model's scores across languages "
    "compare the same content."
)


def read_tsv(data: bytes) -> list[dict]:
    lines = data.decode("utf-8").replace("\r\n", "\n").split("\n")
    if not lines or lines[0].split("\t")[:3] != ["index_id", "category", "text"]:
        raise ValueError("a SIB-200 file starts with the header index_id, category, text")
    rows = []
    for line in lines[1:]:
        if not line.strip():
            continue
        index_id, category, text = line.split("\t", 2)
        if category not in LABELS:
            raise ValueError(f"unknown SIB-200 topic {category!r}")
        rows.append({"index_id": index_id, "text": text.strip(), "label": category, "line": line})
    return rows


def build(files: dict[str, bytes], sizes: dict[str, int] | None = None):
    """(splits of rows, the source lines used per split)."""
    wanted = sizes or SIZES
    rows, used = {}, {}
    for split, name in SPLIT_FILES.items():
        source = read_tsv(files[name])
        taken = take_splits(source, lambda r: item_key(r["text"]), {split: wanted[split]})[split]
        rows[split] = [{"text": r["text"], "label": r["label"]} for r in taken]
        used[name] = [r["line"] for r in taken]
    return rows, used


def describe(language: str, flores: str, files: list[str], rows: dict) -> str:
    return DESCRIPTION.format(
        language=language,
        flores=flores,
        files=", ".join(files),
        seed=SEED,
        test=len(rows["test"]),
        val=len(rows["val"]),
        train=len(rows["train"]),
    )
