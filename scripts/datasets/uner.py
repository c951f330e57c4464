"""Named-entity recognition from Universal NER (gold PER/LOC/ORG annotation of Universal
Dependencies sentences), one language at a time.

UNER ships each language as IOB2 column files: one token a line, tab-separated columns
(index, token, tag, then columns this module does not read), ``#`` comment lines and a
blank line after each sentence. The files of a language are pooled, duplicate token
sequences dropped, the sentences cut into splits by a key of their own tokens and the tags
mapped onto PER/LOC/ORG/MISC (:mod:`scripts.datasets.ner_rows`, shared with
:mod:`scripts.datasets.ner_corpora`), so a fixture holding only the used sentences rebuilds
the folder byte for byte. :data:`DESCRIPTION` says every rule and goes into ``dataset.json``."""

from __future__ import annotations

from scripts.datasets.ner_rows import LABELS, Sentence, build_rows, is_known_tag, sizes_note
from scripts.datasets.sampling import SEED

__all__ = ["LABELS", "TYPES", "build", "describe", "read_sentences"]

TYPES = {"PER": "PER", "LOC": "LOC", "ORG": "ORG", "OTH": "MISC"}  # UNER's type → Glossa's

DESCRIPTION = (
    "Named-entity recognition for {language}, built by scripts/datasets (uner.py) from Universal NER's "
    "{repo} ({files}): sentences of the UD {treebank} treebank with the entity annotation of Universal NER v1. "
    "The files are read as IOB2 columns (tab-separated; the token is the second column and the tag the third, "
    "later columns are not read; lines starting with # are comments; a blank line ends a sentence). Tokens are "
    "kept as written{note}. Tag mapping "
    "onto PER/LOC/ORG/MISC: PER, LOC and ORG kept, OTH (UNER's OTHER) -> MISC{misc_note}. An I- tag that does "
    "not continue an entity of its own type becomes B- (tags changed so in the rows kept: {repaired}). The {count} "
    "files are pooled and sentences with the same token sequence dropped (the first kept, in the order {order}); "
    "each sentence gets a key, SHA-256 of seed {seed} and its tokens joined by tabs; sentences are sorted by key "
    "and the first {test} form test, the next {val} val and "
    "the next {train} train{sizes_note}. Rows are in key order."
)


def _check_tag(tag: str, where: str) -> None:
    if not is_known_tag(tag, TYPES):
        raise ValueError(f"{where}: unknown UNER tag {tag!r}")


def read_sentences(data: bytes, where: str = "") -> list[Sentence]:
    text = data.decode("utf-8").replace("\r\n", "\n")
    sentences = []
    for block in text.split("\n\n"):
        block = block.strip("\n")
        tokens, tags = [], []
        for line in block.split("\n"):
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 3 or not cols[1]:
                raise ValueError(f"{where}: a token line has index, token and tag: {line!r}")
            _check_tag(cols[2], where)
            tokens.append(cols[1])
            tags.append(cols[2])
        if tokens:
            sentences.append(Sentence(tuple(tokens), tuple(tags), block))
    return sentences


def build(files: dict[str, bytes], sizes: dict[str, int] | None = None):
    """(splits of rows, the sentences used, counts of the rows kept) of :func:`ner_rows.build_rows`."""
    sentences = [s for path, data in files.items() for s in read_sentences(data, path)]
    return build_rows(sentences, TYPES, sizes=sizes)


COUNTS = {1: "one", 2: "two", 3: "three"}


def describe(corpus, rows: dict, counts: dict) -> str:
    """The description of ``corpus`` (a :class:`scripts.datasets.sources.UnerCorpus`), built from its
    files, one per split of ``corpus.splits``, read in that order."""
    misc = counts["MISC"]
    if misc:
        misc_note = f" ({misc} MISC entities in the rows kept)"
    else:
        misc_note = (
            " (the rows kept have no OTH tag, UNER having annotated OTHER in some corpora only, so no row has a "
            "MISC entity; the primary metric, micro-F1 without MISC, is not affected)"
        )
    return DESCRIPTION.format(
        language=corpus.language,
        repo=corpus.repo,
        treebank=corpus.name,
        files=corpus.files_note or ", ".join(corpus.files),
        count=COUNTS[len(corpus.files)],
        order=", ".join(corpus.splits),
        note=f" ({corpus.note})" if corpus.note else "",
        misc_note=misc_note,
        repaired=counts["repaired"],
        seed=SEED,
        test=len(rows["test"]),
        val=len(rows["val"]),
        train=len(rows["train"]),
        sizes_note=sizes_note(rows),
    )
