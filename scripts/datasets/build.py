"""Build the data pack's dataset folders from their pinned sources.

    python -m scripts.datasets.build                       # every folder, sources from /work/.mirror
    python -m scripts.datasets.build scala-pl sib200-pl uner-hr   # some folders
    python -m scripts.datasets.build --fixtures tests/fixtures/dataset_sources scala-sv   # from test fixtures
    python -m scripts.datasets.build --write-fixtures DIR scala-sv   # also save the source lines used

Sources are read from bare git mirrors (``--mirror``, one ``<owner>+<name>/repo`` per
repository, as the ``fetch`` tool or ``git clone --mirror`` leaves them) at the commits in
:mod:`scripts.datasets.sources`. Every choice is seeded by the items themselves
(:mod:`scripts.datasets.sampling`), so a run writes the same bytes as the last one, and a
fixture holding only the source lines a folder used rebuilds that folder exactly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scripts.datasets import (
    copa,
    knowledge,
    ner_corpora,
    scala,
    sentiment,
    sib200,
    simplification,
    squad,
    storycloze,
    uner,
    xquad,
)
from scripts.datasets.knowledge_sources import KNOWLEDGE
from scripts.datasets.ner_sources import NER_CORPORA
from scripts.datasets.simplification import SIMPLIFICATION
from scripts.datasets.source_files import FixtureFiles, MirrorFiles, SourceMissing
from scripts.datasets.sources import (
    COPA,
    SCALA,
    SENTIMENT,
    SIB200,
    SIB_CITATION,
    SIB_COMMIT,
    SIB_LICENSE,
    SIB_REPO,
    UD_CITATION,
    UNER,
    UNER_CITATION,
    UNER_LICENSE,
    XQUAD,
    XQUAD_CITATION,
    XQUAD_COMMIT,
    XQUAD_LICENSE,
    XQUAD_REPO,
)
from scripts.datasets.squad_sources import SQUAD

REPO = Path(__file__).resolve().parents[2]
SPLITS = ("train", "val", "test")


def write_folder(out: Path, meta: dict, rows: dict[str, list[dict]]) -> Path:
    folder = out / meta["name"]
    folder.mkdir(parents=True, exist_ok=True)
    meta = {**meta, "splits": {split: len(rows[split]) for split in SPLITS}}
    (folder / "dataset.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for split in SPLITS:
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows[split])
        (folder / f"{split}.jsonl").write_text(lines, encoding="utf-8")
    return folder


def write_corpus_folder(out: Path, name: str, corpus, task: str, rows: dict, description: str, labels=None) -> Path:
    """The folder of a set whose source object names its language code, source, licence and citation."""
    meta = {"name": name, "language": corpus.code, "task": task}
    if labels is not None:
        meta["labels"] = list(labels)
    meta |= {"source": corpus.source, "license": corpus.license, "citation": corpus.citation}
    return write_folder(out, {**meta, "description": description}, rows)


def build_scala(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    tb = SCALA[name]
    data = {path: files_from.read(tb.repo, tb.commit, path) for path in tb.files}
    rows, used, counts = scala.build(data, tb.nouns_capitalised)
    if fixtures is not None:
        blocks = {s.block for s in used}
        for path, raw in data.items():
            kept = [s.block for s in scala.read_sentences(raw) if s.block in blocks]
            fixtures.write(tb.repo, path, ("\n\n".join(kept) + "\n\n").encode("utf-8"))
    meta = {
        "name": name,
        "language": tb.code,
        "task": "linguistic-acceptability",
        "labels": ["correct", "incorrect"],
        "source": f"github.com/{tb.repo} @ {tb.commit}: {', '.join(tb.files)}",
        "license": tb.license,
        "citation": UD_CITATION.format(treebank=tb.name),
        "description": scala.describe(tb.language, tb.name, list(tb.files), rows, counts, tb.nouns_capitalised),
    }
    return write_folder(out, meta, rows)


def build_sib(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    lang = SIB200[name]
    data = {path.rsplit("/", 1)[1]: files_from.read(SIB_REPO, SIB_COMMIT, path) for path in lang.files}
    rows, used = sib200.build(data)
    if fixtures is not None:
        for path in lang.files:
            lines = ["index_id\tcategory\ttext", *used[path.rsplit("/", 1)[1]]]
            fixtures.write(SIB_REPO, path, ("\n".join(lines) + "\n").encode("utf-8"))
    meta = {
        "name": name,
        "language": lang.code,
        "task": "topic-classification",
        "labels": list(sib200.LABELS),
        "source": f"github.com/{SIB_REPO} @ {SIB_COMMIT}: {', '.join(lang.files)}",
        "license": SIB_LICENSE,
        "citation": SIB_CITATION,
        "description": sib200.describe(lang.language, lang.flores, [p.rsplit("/", 1)[1] for p in lang.files], rows),
    }
    return write_folder(out, meta, rows)


def build_xquad(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    lang = XQUAD[name]
    english_file = "xquad.en.json"
    english = files_from.read(XQUAD_REPO, XQUAD_COMMIT, english_file)
    data = files_from.read(XQUAD_REPO, XQUAD_COMMIT, lang.file)
    rows, dropped = xquad.build(english, data)
    if fixtures is not None:  # the files are whole: the split is made over all of English's articles
        fixtures.write(XQUAD_REPO, english_file, english)
        fixtures.write(XQUAD_REPO, lang.file, data)
    meta = {
        "name": name,
        "language": lang.code,
        "task": "reading-comprehension",
        "source": f"github.com/{XQUAD_REPO} @ {XQUAD_COMMIT}: {lang.file}, {english_file} (the split)",
        "license": XQUAD_LICENSE,
        "citation": XQUAD_CITATION,
        "description": xquad.describe(lang.language, lang.file, english_file, dropped),
    }
    return write_folder(out, meta, rows)


def build_uner(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    corpus = UNER[name]
    data = {path: files_from.read(corpus.repo, corpus.commit, path) for path in corpus.files}
    rows, used, counts = uner.build(data)
    if fixtures is not None:
        blocks = {s.block for s in used}
        for path, raw in data.items():
            kept = [s.block for s in uner.read_sentences(raw, path) if s.block in blocks]
            fixtures.write(corpus.repo, path, ("\n\n".join(kept) + "\n\n").encode("utf-8"))
    meta = {
        "name": name,
        "language": corpus.code,
        "task": "named-entity-recognition",
        "labels": list(uner.LABELS),
        "source": f"github.com/{corpus.repo} @ {corpus.commit}: {', '.join(corpus.files)}",
        "license": UNER_LICENSE.format(treebank=corpus.name),
        "citation": UNER_CITATION.format(treebank=corpus.name),
        "description": uner.describe(corpus, rows, counts),
    }
    return write_folder(out, meta, rows)


def build_ner(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    corpus = NER_CORPORA[name]
    read = ner_corpora.read_corpus(corpus, files_from)
    rows, used, counts = ner_corpora.build(corpus, read)
    if fixtures is not None:
        for path, data in ner_corpora.fixture_files(corpus, read, used):
            fixtures.write(corpus.repo, path, data)
    description = ner_corpora.describe(corpus, rows, counts)
    return write_corpus_folder(out, name, corpus, "named-entity-recognition", rows, description, ner_corpora.LABELS)


def build_sentiment(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    corpus = SENTIMENT[name]
    data = {path: files_from.read(corpus.repo, corpus.commit, path) for path in corpus.files}
    rows, needed, counts = sentiment.build(corpus, data)
    if fixtures is not None:
        for path, records in needed.items():
            fixtures.write(corpus.repo, path, sentiment.fixture_bytes(corpus, records))
    description = sentiment.describe(corpus, rows, counts)
    return write_corpus_folder(out, name, corpus, "sentiment-classification", rows, description, sentiment.LABELS)


def _whole_files(source, files_from, fixtures: FixtureFiles | None) -> dict[str, bytes]:
    """The source's files (``source.files``: (split, path) pairs), read whole; every item of
    them is used, so a fixture is the files themselves."""
    data = {path: files_from.read(source.repo, source.commit, path) for _, path in source.files}
    if fixtures is not None:
        for path, raw in data.items():
            fixtures.write(source.repo, path, raw)
    return data


def build_copa(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    source = COPA[name]
    rows, items, counts = copa.build(source, _whole_files(source, files_from, fixtures))
    description = copa.describe(source, rows, items, counts)
    return write_corpus_folder(out, name, source, "common-sense-reasoning", rows, description)


def build_squad(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    source = SQUAD[name]
    rows, used, counts = squad.build(source, files_from.read(source.repo, source.commit, source.file))
    if fixtures is not None:  # the paragraphs read, in key order: a fixture of them rebuilds the folder
        fixtures.write(source.repo, source.file, squad.fixture_bytes(source, used))
    description = squad.describe(source, used, counts)
    return write_corpus_folder(out, name, source, "reading-comprehension", rows, description)


def build_storycloze(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    source = storycloze.STORYCLOZE[name]
    rows, counts = storycloze.build(source, _whole_files(source, files_from, fixtures))
    description = storycloze.describe(source, rows, counts)
    return write_corpus_folder(out, name, source, "common-sense-reasoning", rows, description)


def build_knowledge(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    source = KNOWLEDGE[name]
    paths = knowledge.source_paths(source, files_from) + [edited for edited, _ in source.postedits]
    data = {path: files_from.read(source.repo, source.commit, path) for path in paths}
    rows, entries, counts = knowledge.build(source, data)
    if fixtures is not None:
        needed = knowledge.fixture_files(source, entries) | knowledge.edited_fixture_files(source, data, entries)
        for path, raw in needed.items():
            fixtures.write(source.repo, path, raw)
    description = knowledge.describe(source, rows, entries, counts)
    return write_corpus_folder(out, name, source, "knowledge", rows, description)


def build_simplification(name: str, files_from, out: Path, fixtures: FixtureFiles | None = None) -> Path:
    corpus = SIMPLIFICATION[name]
    data = {path: files_from.read(corpus.repo, corpus.commit, path) for path in corpus.paths()}
    rows, read, counts = simplification.build(corpus, data)
    if fixtures is not None:
        for path, raw in simplification.fixture_files(corpus, read).items():
            fixtures.write(corpus.repo, path, raw)
    description = simplification.describe(corpus, rows, counts)
    return write_corpus_folder(out, name, corpus, "simplification", rows, description)


BUILDERS = {
    **dict.fromkeys(SCALA, build_scala),
    **dict.fromkeys(SIB200, build_sib),
    **dict.fromkeys(XQUAD, build_xquad),
    **dict.fromkeys(SQUAD, build_squad),
    **dict.fromkeys(UNER, build_uner),
    **dict.fromkeys(NER_CORPORA, build_ner),
    **dict.fromkeys(SENTIMENT, build_sentiment),
    **dict.fromkeys(COPA, build_copa),
    **dict.fromkeys(storycloze.STORYCLOZE, build_storycloze),
    **dict.fromkeys(KNOWLEDGE, build_knowledge),
    **dict.fromkeys(SIMPLIFICATION, build_simplification),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="folders to build (default: all)")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="bare git mirrors")
    parser.add_argument("--fixtures", type=Path, help="read sources from this fixture folder instead")
    parser.add_argument("--out", type=Path, default=REPO / "data" / "datasets")
    parser.add_argument("--write-fixtures", type=Path, help="also write the source lines used here")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in BUILDERS]
    if unknown:
        parser.error(f"unknown dataset(s) {', '.join(unknown)}; known: {', '.join(sorted(BUILDERS))}")
    files_from = FixtureFiles(args.fixtures) if args.fixtures else MirrorFiles(args.mirror)
    fixtures = FixtureFiles(args.write_fixtures) if args.write_fixtures else None
    missing: dict[str, str] = {}
    for name in args.names or sorted(BUILDERS):
        try:
            folder = BUILDERS[name](name, files_from, args.out, fixtures)
        except SourceMissing as error:  # the other folders are still built; nothing is half-written
            missing[name] = str(error)
            continue
        print(f"{folder}", file=sys.stderr)
    for name, why in missing.items():
        print(f"not built: {name}: its source is missing ({why})", file=sys.stderr)
    if missing:
        print(f"{len(missing)} folder(s) not built: bring their repositories to {args.mirror} (fetch)", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
