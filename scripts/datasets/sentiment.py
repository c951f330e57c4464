"""Sentiment classification from corpora whose files are JSON lists of records or headerless
CSV (or tab-separated) files, one text and one label each
(:class:`scripts.datasets.sources.SentimentCorpus` names the fields, or the columns, maps the
labels onto positive, neutral and negative and names the labels whose records are left out)."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

from scripts.datasets.sampling import SEED, item_key, split_sizes

LABELS = ("positive", "neutral", "negative")
SIZES = {"test": 2048, "val": 256, "train": 1024}

DESCRIPTION = (
    "Sentiment classification for {language}, built by scripts/datasets (sentiment.py) from {title}: {about} Labels: "
    "{mapping}. Texts are kept as written, only stripped of surrounding whitespace. Dropped: {unmapped}{empty} empty "
    "texts, {conflicts} texts the source gives more than one label ({conflict_rows} records) and {duplicates} "
    "further copies of a text already read. {order} Within a file, texts are sorted by a key, SHA-256 of seed {seed} "
    "and the text, and the splits are filled in the order test, val, train, each up to its size ({test} test, {val} "
    "val, {train} train), taking a file's texts in key order before the next file's. Rows per label: {distribution}."
)


def _dialect(corpus) -> dict:
    """The csv module's reading and writing options for the corpus's files."""
    unquoted = {} if corpus.quoted else {"quoting": csv.QUOTE_NONE, "quotechar": None}
    return {"delimiter": corpus.delimiter, **unquoted}


def _source_records(data: bytes, corpus, path: str) -> list:
    """The file's records: a JSON list, or the lines of a headerless CSV file as dicts of the
    corpus's ``columns`` (a line with another number of fields is refused)."""
    if not corpus.columns:
        records = json.loads(data.decode("utf-8"))
        if not isinstance(records, list):
            raise ValueError(f"{path}: a JSON list of records expected")
        return records
    records = []
    lines = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), **_dialect(corpus))
    for number, fields in enumerate(lines, 1):
        if len(fields) != len(corpus.columns):
            raise ValueError(f"{path}:{number}: {len(fields)} fields, {len(corpus.columns)} expected")
        records.append(dict(zip(corpus.columns, fields, strict=True)))
    return records


def read_records(data: bytes, corpus, path: str) -> list[dict]:
    """The file's records as ``{"text", "label", "record"}`` (label mapped; None for a label of
    the corpus's ``unmapped``, whose record is left out); an unknown label or a record without
    the corpus's fields is refused with the file's name."""
    records = _source_records(data, corpus, path)
    mapping = dict(corpus.labels)
    rows = []
    for number, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get(corpus.text_field), str):
            raise ValueError(f"{path}: record {number} has no text field {corpus.text_field!r}")
        label = record.get(corpus.label_field)
        if label not in mapping and label not in corpus.unmapped:
            raise ValueError(f"{path}: record {number} has the unknown label {label!r}")
        rows.append({"text": record[corpus.text_field].strip(), "label": mapping.get(label), "record": record})
    return rows


def build(corpus, files: dict[str, bytes], sizes: dict[str, int] | None = None):
    """(splits of rows, the source records a fixture needs per file, counts of what was dropped).

    A record of an unmapped label is left out first (counted per label, ``("unmapped", label)``);
    conflicts and copies are then sought among the others. A fixture holds the records used and
    those dropped (with the kept copy of a dropped duplicate), so that a build from it drops and
    counts the same."""
    read = {path: read_records(files[path], corpus, path) for path in corpus.files}
    counts = Counter()
    left_out: dict[str, list[dict]] = {}
    for path, rows in read.items():
        left_out[path] = [row["record"] for row in rows if row["label"] is None]
        counts.update(("unmapped", record[corpus.label_field]) for record in left_out[path])
        read[path] = [row for row in rows if row["label"] is not None]
    labels_of: dict[str, set[str]] = {}
    for rows in read.values():
        for row in rows:
            labels_of.setdefault(row["text"], set()).add(row["label"])
    conflicting = {text for text, labels in labels_of.items() if len(labels) > 1}
    counts["conflicts"] = len(conflicting)
    kept: dict[str, dict] = {}
    pools: dict[str, list[dict]] = {}
    needed: dict[str, list[dict]] = {}
    for path, rows in read.items():
        pools[path], needed[path] = [], list(left_out[path])
        for row in sorted(rows, key=lambda r: item_key(r["text"])):
            reason = _dropped(row["text"], conflicting, kept)
            if reason:
                counts[reason] += 1
                needed[path].append(row["record"])
                if reason == "duplicates":
                    kept[row["text"]]["needed"] = True
            else:
                kept[row["text"]] = row
                pools[path].append(row)
    room = split_sizes(sum(len(pool) for pool in pools.values()), sizes or SIZES)
    splits: dict[str, list[dict]] = {split: [] for split in room}
    for path, pool in pools.items():
        start = 0
        for split in room:
            taken = pool[start : start + room[split] - len(splits[split])]
            splits[split].extend(taken)
            for row in taken:
                row["needed"] = True
            start += len(taken)
        needed[path].extend(row["record"] for row in pool if row.get("needed"))
    rows = {split: [{"text": r["text"], "label": r["label"]} for r in taken] for split, taken in splits.items()}
    return rows, needed, counts


def _dropped(text: str, conflicting: set[str], kept: dict) -> str:
    if not text:
        return "empty"
    if text in conflicting:
        return "conflict_rows"
    return "duplicates" if text in kept else ""


def fixture_bytes(corpus, records: list[dict]) -> bytes:
    """A source file holding only ``records`` (those a build needs) and of them only the two
    fields read, read as the source is."""
    if corpus.columns:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n", **_dialect(corpus))
        writer.writerows([r[c] for c in corpus.columns] for r in records)
        return out.getvalue().encode("utf-8")
    fields = (corpus.text_field, corpus.label_field)
    return (json.dumps([{f: r[f] for f in fields} for r in records], ensure_ascii=False) + "\n").encode("utf-8")


def _unmapped(corpus, counts: Counter) -> str:
    """The description's words for the records left out by label ("" for a corpus that leaves none)."""
    if not corpus.unmapped:
        return ""
    each = ", ".join(f"{counts['unmapped', label]} labelled {label}" for label in corpus.unmapped)
    total = sum(counts["unmapped", label] for label in corpus.unmapped)
    return f"{total} records of a label left out ({each}), "


def describe(corpus, rows: dict[str, list[dict]], counts: Counter) -> str:
    tally = Counter(row["label"] for split in rows.values() for row in split)
    per_split = "; ".join(
        f"{split} " + ", ".join(f"{sum(r['label'] == label for r in rows[split])} {label}" for label in LABELS)
        for split in ("train", "val", "test")
    )
    return DESCRIPTION.format(
        language=corpus.language,
        title=corpus.title,
        about=corpus.about,
        mapping=corpus.mapping,
        unmapped=_unmapped(corpus, counts),
        empty=counts["empty"],
        conflicts=counts["conflicts"],
        conflict_rows=counts["conflict_rows"],
        duplicates=counts["duplicates"],
        order=corpus.order,
        seed=SEED,
        test=len(rows["test"]),
        val=len(rows["val"]),
        train=len(rows["train"]),
        distribution=f"{per_split} ({sum(tally.values())} in all)",
    )
