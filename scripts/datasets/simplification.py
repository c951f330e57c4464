"""Text simplification (EuroEval's ``simplification`` task, METEOR and SARI) from public
corpora of source sentences and their simplified rewrites, one table entry per source.

A row is ``{"text": source, "target_text": [reference, ...]}``: every reference the source
gives for the text, in its order (SARI is computed against all of them, METEOR takes the
best). Each source format has one reader (``READERS``), named by the entry's ``reader``:

- ``simpitiki-xml``: SIMPITIKI's XML, one ``<simplification>`` per pair whose ``<before>``
  and ``<after>`` hold the sentence with escaped ``<del>``/``<ins>`` marks; the original is
  ``<before>`` without the inserted parts (and the marks), the simplification ``<after>``
  without the deleted parts. Pairs of the same original become one row.
- ``parallel-lines``: a file of originals (``*.orig``) and line-aligned reference files
  (``*.simp.0`` ... ``*.simp.<n-1>``), as ASSET has them.

An entry's ``files`` name the role of each original file: ``pool`` (cut into test, val and
train in EuroEval's proportions, 2,048 : 256 : 1,024), ``test`` (the test split) or
``val+train`` (val, then train). Within a role, texts are sorted by a key, SHA-256 of the
seed and the text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass

from scripts.datasets.sampling import SEED, cut_in_order, item_key, split_sizes

SIZES = {"test": 2048, "val": 256, "train": 1024}
SPLITS = ("train", "val", "test")
MIN_CHARS = 3  # a text shorter than this (after stripping) counts as empty
DROP_REASONS = ("empty", "unchanged", "line breaks", "repeats")


@dataclass(frozen=True)
class SimplificationSet:
    """One public simplification corpus and how :mod:`scripts.datasets.simplification` reads it."""

    dataset: str
    code: str
    language: str
    repo: str
    commit: str
    reader: str  # a key of READERS
    files: tuple[tuple[str, str], ...]  # (role, path of the originals): roles pool, test, val+train
    about: str
    license: str
    citation: str
    references: int = 0  # parallel-lines: reference files per original file

    @property
    def source(self) -> str:
        return f"github.com/{self.repo} @ {self.commit}: {', '.join(self.paths())}"

    def paths(self) -> list[str]:
        """Every file the set is read from."""
        return [path for _, original in self.files for path in (original, *reference_paths(self, original))]


def reference_paths(corpus: SimplificationSet, original: str) -> list[str]:
    """The reference files aligned with ``original`` (parallel-lines only)."""
    stem = original.removesuffix(".orig")
    return [f"{stem}.simp.{number}" for number in range(corpus.references)]


SIMPLIFICATION: dict[str, SimplificationSet] = {
    corpus.dataset: corpus
    for corpus in (
        SimplificationSet(
            "simpitiki-it", "it", "Italian", "dhfbk/simpitiki", "13c119cb5e0377e7f4a41c384ecc24f6584c851f",
            "simpitiki-xml", (("pool", "corpus/simpitiki-v2.xml"),),
            "SIMPITIKI v2 (Tonelli, Palmero Aprosio & Saltori 2016; version 2 has the better sentence boundaries): "
            "1,166 pairs of an Italian sentence and its simplification, 575 from edits of the Italian Wikipedia "
            "commented as simplifications (itwiki) and 591 written by hand for documents of the Municipality of "
            "Trento (tn), each annotated with one simplification type",
            "CC BY 4.0 (the repository's README, section License)",
            "Tonelli, Palmero Aprosio & Saltori (2016), SIMPITIKI: a Simplification corpus for Italian, CLiC-it",
        ),
        SimplificationSet(
            "asset-en", "en", "English", "facebookresearch/asset", "9d659040d0d8942dbc4cd65cf357563b43fd9ab4",
            "parallel-lines", (("test", "dataset/asset.test.orig"), ("val+train", "dataset/asset.valid.orig")),
            "ASSET (Alva-Manchego et al. 2020): 2,000 validation and 359 test English sentences (from Wikipedia), each "
            "simplified ten times by different crowd workers, who could paraphrase, delete and split (the "
            "repository's crowdsourcing/ folder holds their instructions)",
            "CC BY-NC 4.0 (the repository's LICENSE: non-commercial)",
            "Alva-Manchego, Martin, Bordes, Scarton, Sagot & Specia (2020), ASSET: A Dataset for Tuning and "
            "Evaluation of Sentence Simplification Models with Multiple Rewriting Transformations, ACL",
            references=10,
        ),
    )
}  # fmt: skip


# --- readers: (role, original path) -> items {"text", "target_text", "record"} -------------------


def _unmarked(text: str, dropped: str) -> str:
    """``text`` without the ``<dropped>`` parts and without the remaining marks."""
    text = re.sub(rf"<{dropped}>.*?</{dropped}>", "", text, flags=re.S)
    return re.sub(r"</?(?:ins|del)>", "", text)


def read_simpitiki(corpus: SimplificationSet, files: dict[str, bytes], path: str) -> list[dict]:
    """One item per ``<simplification>``; its ``record`` is the element, written back as read."""
    root = ET.fromstring(files[path])
    items = []
    for element in root.iter("simplification"):
        before, after = element.find("before"), element.find("after")
        if before is None or after is None:
            raise ValueError(f"{path}: a <simplification> without <before> or <after>")
        text, target = _unmarked(before.text or "", "ins").strip(), _unmarked(after.text or "", "del").strip()
        items.append({"text": text, "target_text": [target], "record": element})
    return items


def read_parallel(corpus: SimplificationSet, files: dict[str, bytes], path: str) -> list[dict]:
    """One item per line of the originals; its ``record`` is the line's number."""
    originals = files[path].decode("utf-8").splitlines()
    references = [files[p].decode("utf-8").splitlines() for p in reference_paths(corpus, path)]
    for ref_path, lines in zip(reference_paths(corpus, path), references, strict=True):
        if len(lines) != len(originals):
            raise ValueError(f"{ref_path}: {len(lines)} lines, {path} has {len(originals)}")
    return [
        {"text": text.strip(), "target_text": [lines[number].strip() for lines in references], "record": number}
        for number, text in enumerate(originals)
    ]


READERS = {"simpitiki-xml": read_simpitiki, "parallel-lines": read_parallel}


# --- the splits --------------------------------------------------------------------------------


def _dropped(item: dict) -> str | None:
    texts = [item["text"], *item["target_text"]]
    if any(len(text) < MIN_CHARS for text in texts):
        return "empty"
    if all(target == item["text"] for target in item["target_text"]):
        return "unchanged"
    if any("\n" in text for text in texts):
        return "line breaks"
    return None


def _merged(items: list[dict], seen: set[str], counts: Counter) -> list[dict]:
    """The kept items of one file, those of the same text merged into one (references in the
    file's order, a repeated reference once); a text of an earlier file is a repeat."""
    kept: dict[str, dict] = {}
    for item in items:
        reason = _dropped(item) or ("repeats" if item["text"] in seen else None)
        if reason:
            counts[reason] += 1
            item["needed"] = True
            continue
        if item["text"] in kept:
            counts["merged"] += 1
            merged = kept[item["text"]]
            merged["target_text"] += [t for t in item["target_text"] if t not in merged["target_text"]]
            merged["sources"].append(item)
        else:
            kept[item["text"]] = {**item, "target_text": list(item["target_text"]), "sources": [item]}
    seen.update(kept)
    return sorted(kept.values(), key=lambda item: item_key(item["text"]))


ROLES = {"pool": SIZES, "test": {"test": SIZES["test"]}, "val+train": {"val": SIZES["val"], "train": SIZES["train"]}}


def build(corpus: SimplificationSet, files: dict[str, bytes]):
    """(rows of train, val and test; the items read from each original file, those a build
    needs marked ``needed``; counts of what was dropped and merged). Files are read in the
    entry's order, so a text of the test file is never in val or train."""
    counts: Counter = Counter()
    seen: set[str] = set()
    read: dict[str, list[dict]] = {}
    splits: dict[str, list[dict]] = {}
    for role, path in corpus.files:
        read[path] = READERS[corpus.reader](corpus, files, path)
        counts[f"read {path}"] = len(read[path])
        pool = _merged(read[path], seen, counts)
        for split, taken in cut_in_order(pool, split_sizes(len(pool), ROLES[role])).items():
            splits[split] = splits.get(split, []) + taken
            for item in taken:
                for source in item["sources"]:
                    source["needed"] = True
    rows = {
        split: [{"text": i["text"], "target_text": i["target_text"]} for i in splits.get(split, [])] for split in SPLITS
    }
    return rows, read, counts


# --- the description and the fixtures ---------------------------------------------------------

READ_AS = {
    "simpitiki-xml": (
        "A pair's original is its <before> text without the parts marked <ins> and its simplification the <after> "
        "text without the parts marked <del> (the marks removed; in this version <before> holds only <del> marks "
        "and <after> only <ins> marks, so the original and the simplified sentence are written out whole)."
    ),
    "parallel-lines": (
        "An item is a line of an original file and the same line of each of its {references} reference files."
    ),
}

DESCRIPTION = (
    "{language} text simplification, built by scripts/datasets (simplification.py) from {about}. {read_as} A row's "
    "text is an original and its target_text the simplifications the source gives of it, in the source's order "
    "(those of items of the same original merged, a simplification already listed not repeated); texts are "
    "stripped of surrounding whitespace and otherwise kept as written. Dropped: {empty} items with a text shorter "
    "than {min_chars} characters, {unchanged} whose simplifications all equal the original, {line_breaks} holding "
    "line breaks (passages of several paragraphs, not sentences; the engine cuts a generated answer at its first "
    "blank line), and {repeats} whose original is in a file read before. {merged} further items repeated an "
    "original already kept and were merged into its row. Within each file, originals are sorted by a key, SHA-256 "
    "of seed {seed} and the text. {splits} References per row: {references}."
)


def describe(corpus: SimplificationSet, rows: dict[str, list[dict]], counts: Counter) -> str:
    role_text = {
        "pool": "{path} is cut into test, val and train in EuroEval's proportions (2,048 : 256 : 1,024; the source "
        "is smaller than EuroEval's 3,328 rows): test {test}, val {val}, train {train} rows.",
        "test": "The test split is {path} ({test:,} rows).",
        "val+train": "Val is the first {val:,} and train the next {train:,} rows of {path} in key order (EuroEval's "
        "sizes; the rest of the file is not used).",
    }
    sizes = {split: len(rows[split]) for split in SPLITS}
    splits = " ".join(role_text[role].format(path=path, **sizes) for role, path in corpus.files)
    per_row = Counter(len(row["target_text"]) for split in SPLITS for row in rows[split])
    references = ", ".join(f"{n} in {per_row[n]} rows" for n in sorted(per_row))
    return DESCRIPTION.format(
        language=corpus.language,
        about=corpus.about,
        read_as=READ_AS[corpus.reader].format(references=corpus.references),
        empty=counts["empty"],
        min_chars=MIN_CHARS,
        unchanged=counts["unchanged"],
        line_breaks=counts["line breaks"],
        repeats=counts["repeats"],
        merged=counts["merged"],
        seed=SEED,
        splits=splits,
        references=references,
    )


def _simpitiki_fixture(corpus, path: str, items: list[dict]) -> dict[str, bytes]:
    body = "".join(ET.tostring(item["record"], encoding="unicode") for item in items)
    return {path: f"<resource><simplifications>{body}</simplifications></resource>\n".encode()}


def _parallel_fixture(corpus, path: str, items: list[dict]) -> dict[str, bytes]:
    out = {path: "".join(item["text"] + "\n" for item in items).encode("utf-8")}
    for number, ref_path in enumerate(reference_paths(corpus, path)):
        out[ref_path] = "".join(item["target_text"][number] + "\n" for item in items).encode("utf-8")
    return out


FIXTURE_WRITERS = {"simpitiki-xml": _simpitiki_fixture, "parallel-lines": _parallel_fixture}


def fixture_files(corpus: SimplificationSet, read: dict[str, list[dict]]) -> dict[str, bytes]:
    """Source files holding only the items a build needs (used or counted as dropped), in the
    source's order, read back as the source is."""
    out: dict[str, bytes] = {}
    for path, items in read.items():
        out |= FIXTURE_WRITERS[corpus.reader](corpus, path, [item for item in items if item.get("needed")])
    return out
