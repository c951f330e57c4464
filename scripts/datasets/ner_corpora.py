"""Named-entity recognition from corpora outside Universal NER, each in its own format:
two-column CoNLL files (token, IOB2 tag; tab- or space-separated), three-column files
(index, token, IOB2 tag), CoNLL-U Plus files with a ``CONLL:NER`` column, CoNLL-U files with
an ``NER=`` attribute in the MISC column (UD_Slovenian-SSJ), CoNLL-U files with entity
columns after FEATS (FullStack-LV), JSON lists of sentences (tokens and their tags) and brat
standoff annotations of tokenized texts, or JSON objects whose nested lists end in a sentence's
words (EstNER_new: documents, sentences, words). The files may be members of a tar archive in the
repository (elNER).

Each reader gives :class:`scripts.datasets.ner_rows.Sentence` items with the corpus's own
tags; from there a set is made as for :mod:`scripts.datasets.uner`, by
:mod:`scripts.datasets.ner_rows`: the files are pooled, duplicate token sequences dropped,
the sentences cut into splits by a key of their own tokens, and the tags mapped onto
PER/LOC/ORG/MISC as valid IOB2. A fixture holding only the sentences used rebuilds the
folder byte for byte (:func:`fixture_files` writes one)."""

from __future__ import annotations

import io
import json
import tarfile

from scripts.datasets.ner_rows import KINDS, LABELS, Sentence, build_rows, is_known_tag, sizes_note
from scripts.datasets.ner_sources import NerCorpus
from scripts.datasets.sampling import SEED

__all__ = ["LABELS", "build", "describe", "fixture_files", "read_corpus"]

FORMATS = {
    "conll": (
        "The files are read as two tab-separated columns, the token and its IOB2 tag, one token a line; a blank "
        "line ends a sentence, and the -DOCSTART- lines between documents are skipped."
    ),
    "indexed": (
        "The files are read as three tab-separated columns, the token's index in its sentence (not read), the token "
        "and its IOB2 tag, one token a line; a blank line ends a sentence."
    ),
    "spaced": (
        "The files are read as two space-separated columns, the token and its IOB2 tag, one token a line; a blank "
        "line ends a sentence."
    ),
    "conllu-ner": (
        "The files are CoNLL-U with entity columns after FEATS, ten tab-separated columns (ID, FORM, LEMMA, UPOS, "
        "XPOS, FEATS, the outer entity's IOB2 tag, the inner entity's, and their two Wikipedia links): the token is "
        "read from FORM and the tag from the seventh column, the outer entity (an entity nested inside another, "
        "the eighth column, is not read, nor are the other columns); '#' comment lines are skipped and a blank "
        "line ends a sentence."
    ),
    "conllup": (
        "The files are CoNLL-U Plus: each begins with a '# global.columns' line naming its columns, the token is "
        "read from FORM and the IOB2 tag from CONLL:NER (other columns are not read), and a blank line ends a "
        "sentence."
    ),
    "conllu": (
        "The files are CoNLL-U: the token is read from FORM and the IOB2 tag from the NER attribute of the MISC "
        "column (NER=B-per and the like; every word has one), lines starting with # are comments, multiword-token "
        "lines (ids such as 3-4) and empty nodes (ids such as 5.1) are skipped (the files read have none), and a "
        "blank line ends a sentence."
    ),
    "json": (
        "Each file is a JSON list of sentences, each an object whose 'tokens' and 'ner_tags' lists (the same "
        "length) are read, the token and its IOB2 tag; its other keys are not read."
    ),
    "json-nested": (
        "Each file is a JSON object in which the lists under the keys {levels} (each level a list of objects "
        "holding the next) lead to the sentences, a sentence being the list under its '{words}' key; of each "
        "word the '{token}' value (the token) and the '{tag}' value (its IOB2 tag) are read, and its other keys "
        "are not. The sentences are read in the order of the file."
    ),
    "standoff": (
        "Each text is a tokenized .tok.txt file (one sentence a line, tokens separated by spaces) with a .tok.ann "
        "file of brat standoff entities (type, start and end character offsets into the .tok.txt, the entity's "
        "text). An entity must start and end at token boundaries within one line, match its text and overlap no "
        "other entity (every one in the source does; the builder refuses anything else); its first token is "
        "tagged B-, the others I-."
    ),
}

# reader → (token column, tag column, columns a line, separator) of the column formats that name no columns
COLUMNS = {
    "conll": (0, 1, 2, "\t"),
    "spaced": (0, 1, 2, " "),
    "indexed": (1, 2, 3, "\t"),
    "conllu-ner": (1, 6, 10, "\t"),
}
COMMENTED = {"conllu-ner"}  # readers whose files have '#' comment lines (a token line begins with its ID)
# NYTK-NerKor's column line, the same in every file at the pinned commit (fixtures begin with it)
CONLLUP_HEADER = "# global.columns = FORM LEMMA UPOS XPOS FEATS CONLL:NER EMMORPH:LEMMA"

DESCRIPTION = (
    "Named-entity recognition for {language}, built by scripts/datasets (ner_corpora.py) from {title}, "
    "github.com/{repo} ({files}).{about} {format} Tokens are kept as written. Tag mapping onto PER/LOC/ORG/MISC: "
    "{mapping}{fixes}. An I- tag that does not continue an entity of its own type (the corpus's type, before the "
    "mapping) becomes B- (tags changed so in the rows kept: {repaired}). Entities in the rows kept: {entities}. "
    "The files are pooled and sentences with the same token sequence dropped (the first kept, in the order the "
    "files are read); each sentence gets a key, SHA-256 of seed {seed} and its tokens joined by tabs; sentences "
    "are sorted by key and the first {test} form test, the next {val} val and the next {train} train{sizes_note}. "
    "Rows are in key order."
)


def _tag_checker(corpus: NerCorpus, where: str):
    types, fixes = dict(corpus.types), dict(corpus.fixes)

    def check(tag: str) -> str:
        if tag not in fixes and not is_known_tag(tag, types):
            raise ValueError(f"{where}: unknown tag {tag!r}")
        return tag

    return check


def _skipped(line: str, reader: str) -> bool:
    """A line that is no token's: a -DOCSTART- line between documents, or a comment where the format has them."""
    return line.startswith("-DOCSTART-\t") or (reader in COMMENTED and line.startswith("#"))


def read_columns(data: bytes, corpus: NerCorpus, where: str = "") -> list[Sentence]:
    """Sentences of a column file or a CoNLL-U Plus file (the corpus's reader says which)."""
    text = data.decode("utf-8").replace("\r\n", "\n")
    check = _tag_checker(corpus, where)
    separator = "\t"
    if corpus.reader in COLUMNS:
        token_col, tag_col, width, separator = COLUMNS[corpus.reader]
    else:
        header, _, text = text.partition("\n")
        columns = header.removeprefix("# global.columns = ").split()
        if not header.startswith("# global.columns = ") or "FORM" not in columns or "CONLL:NER" not in columns:
            raise ValueError(f"{where}: no '# global.columns' line naming FORM and CONLL:NER")
        token_col, tag_col, width = columns.index("FORM"), columns.index("CONLL:NER"), len(columns)
    sentences = []
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not _skipped(line, corpus.reader)]
        rows = [line.split(separator) for line in lines]
        for line, cols in zip(lines, rows, strict=True):
            if len(cols) != width or not cols[token_col]:
                raise ValueError(f"{where}: a token line has {width} columns and a token: {line!r}")
        if rows:
            tokens = tuple(cols[token_col] for cols in rows)
            sentences.append(Sentence(tokens, tuple(check(cols[tag_col]) for cols in rows), "\n".join(lines)))
    return sentences


def _ner_attribute(misc: str, line: str, where: str) -> str:
    for item in misc.split("|"):
        if item.startswith("NER="):
            return item.removeprefix("NER=")
    raise ValueError(f"{where}: a word without NER= in its MISC column: {line!r}")


def read_conllu(data: bytes, corpus: NerCorpus, where: str = "") -> list[Sentence]:
    """Sentences of a CoNLL-U file whose words carry ``NER=<tag>`` in MISC (multiword tokens and
    empty nodes skipped); with ``corpus.tagged_paragraphs_only``, only those of the paragraphs
    (from one ``# newpar`` comment to the next) where some word has an entity tag."""
    text = data.decode("utf-8").replace("\r\n", "\n")
    check = _tag_checker(corpus, where)
    paragraphs: list[list[Sentence]] = [[]]
    for block in text.split("\n\n"):
        block = block.strip("\n")
        tokens, tags = [], []
        for line in block.split("\n"):
            if line.startswith("# newpar") and paragraphs[-1]:
                paragraphs.append([])
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 10 or not cols[1]:
                raise ValueError(f"{where}: a word line has 10 columns and a form: {line!r}")
            if "-" in cols[0] or "." in cols[0]:
                continue
            tokens.append(cols[1])
            tags.append(check(_ner_attribute(cols[9], line, where)))
        if tokens:
            paragraphs[-1].append(Sentence(tuple(tokens), tuple(tags), block))
    if corpus.tagged_paragraphs_only:
        paragraphs = [p for p in paragraphs if any(tag != "O" for s in p for tag in s.tags)]
    return [sentence for paragraph in paragraphs for sentence in paragraph]


def read_json(data: bytes, corpus: NerCorpus, where: str = "") -> list[Sentence]:
    """Sentences of a JSON list of objects with ``tokens`` and ``ner_tags``."""
    check = _tag_checker(corpus, where)
    items = json.loads(data.decode("utf-8"))
    if not isinstance(items, list):
        raise ValueError(f"{where}: not a JSON list of sentences")
    sentences = []
    for item in items:
        tokens, tags = item.get("tokens"), item.get("ner_tags")
        if (
            not isinstance(tokens, list)
            or not isinstance(tags, list)
            or len(tokens) != len(tags)
            or not all(isinstance(t, str) and t for t in tokens)
            or not all(isinstance(t, str) for t in tags)
        ):
            raise ValueError(f"{where}: a sentence needs 'tokens' and 'ner_tags' of the same length: {item!r:.200}")
        if tokens:
            block = json.dumps(item, ensure_ascii=False)
            sentences.append(Sentence(tuple(tokens), tuple(check(t) for t in tags), block))
    return sentences


def _objects(value, where: str, what: str) -> list[dict]:
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ValueError(f"{where}: {what} is not a list of objects")
    return value


def read_json_nested(data: bytes, corpus: NerCorpus, where: str = "") -> list[Sentence]:
    """Sentences of a JSON object whose lists of objects under the keys ``corpus.nesting`` lead
    to a sentence's words, each word's token and tag read from ``corpus.word_fields``."""
    check = _tag_checker(corpus, where)
    *outer, words_key = corpus.nesting
    token_key, tag_key = corpus.word_fields
    top = json.loads(data.decode("utf-8"))
    if not isinstance(top, dict):
        raise ValueError(f"{where}: not a JSON object")
    level = [top]
    for key in outer:  # the objects one level down, in file order
        level = [item for parent in level for item in _objects(parent.get(key), where, repr(key))]
    sentences = []
    for sentence in level:
        words = _objects(sentence.get(words_key), where, repr(words_key))
        tokens, tags = [word.get(token_key) for word in words], [word.get(tag_key) for word in words]
        if not all(isinstance(t, str) and t for t in tokens) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"{where}: a word needs a token {token_key!r} and a tag {tag_key!r}: {sentence!r:.200}")
        if tokens:
            block = json.dumps(sentence, ensure_ascii=False)
            sentences.append(Sentence(tuple(tokens), tuple(check(t) for t in tags), block))
    return sentences


READERS = {"conllu": read_conllu, "json": read_json, "json-nested": read_json_nested}


def line_tokens(line: str) -> list[tuple[int, int]]:
    """(start, end) of each space-separated token of ``line``."""
    spans, start = [], 0
    for piece in line.split(" "):
        if piece:
            spans.append((start, start + len(piece)))
        start += len(piece) + 1
    return spans


def _entities(ann: str, text: str, types: dict, where: str) -> dict[int, tuple[int, str]]:
    """start → (end, type) of each entity of a .tok.ann, checked against its text."""
    found: dict[int, tuple[int, str]] = {}
    for line in ann.replace("\r\n", "\n").split("\n"):
        if not line.strip():
            continue
        parts = line.split("\t")
        kind, *offsets = parts[1].split(" ") if len(parts) == 3 and parts[0].startswith("T") else ("", "")
        if kind not in types or len(offsets) != 2:
            raise ValueError(f"{where}: not an entity of a known type with one span: {line!r}")
        start, end = int(offsets[0]), int(offsets[1])
        if start in found:
            raise ValueError(f"{where}: two entities start at {start}")
        if text[start:end] != parts[2] or "\n" in parts[2]:
            raise ValueError(f"{where}: the span {start}-{end} is not {parts[2]!r} within one line")
        found[start] = (end, kind)
    return found


def read_standoff(text_data: bytes, ann_data: bytes, corpus: NerCorpus, where: str = "") -> list[Sentence]:
    """Sentences (lines) of a tokenized text with their entities as IOB2 tags in the corpus's types."""
    text = text_data.decode("utf-8")
    entities = _entities(ann_data.decode("utf-8"), text, dict(corpus.types), where)
    sentences, offset, placed = [], 0, 0
    for line in text.split("\n"):
        spans = line_tokens(line)
        tags, inside = [], None  # inside: (end, type) of the entity being tagged
        for start, end in spans:
            begun = entities.get(offset + start)
            if begun and inside:
                raise ValueError(f"{where}: overlapping entities at {offset + start}")
            if begun:
                inside, placed = begun, placed + 1
            tags.append("O" if inside is None else f"{'B' if begun else 'I'}-{inside[1]}")
            if inside and offset + end > inside[0]:
                raise ValueError(f"{where}: an entity ends inside the token at {offset + start}")
            if inside and offset + end == inside[0]:
                inside = None
        if inside:
            raise ValueError(f"{where}: an entity runs past the end of its line")
        if spans:
            sentences.append(Sentence(tuple(line[s:e] for s, e in spans), tuple(tags), line))
        offset += len(line) + 1
    if placed != len(entities):
        raise ValueError(f"{where}: {len(entities) - placed} entities do not start at a token")
    return sentences


def source_paths(corpus: NerCorpus, files_from) -> list[str]:
    if corpus.files:
        return list(corpus.files)
    return sorted(p for p in files_from.list(corpus.repo, corpus.commit, corpus.under) if p.endswith(corpus.suffix))


def archive_members(data: bytes, names: tuple[str, ...], where: str = "") -> dict[str, bytes]:
    """The bytes of the regular files ``names`` of a tar archive (compressed or not); nothing is extracted to disk."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        members = {m.name: m for m in archive.getmembers() if m.isfile()}
        missing = [name for name in names if name not in members]
        if missing:
            raise ValueError(f"{where}: no file {', '.join(missing)} in the archive")
        return {name: archive.extractfile(members[name]).read() for name in names}  # type: ignore[union-attr]


def tar_of(files: list[tuple[str, bytes]]) -> bytes:
    """An uncompressed tar of these files with fixed metadata (no dates or owners), the same bytes every time."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def read_corpus(corpus: NerCorpus, files_from) -> list[tuple[str, list[Sentence]]]:
    """(path, its sentences) for every file of the corpus, in the order read."""
    if corpus.archive:
        data = files_from.read(corpus.repo, corpus.commit, corpus.archive)
        members = archive_members(data, corpus.files, corpus.archive)
        return [(name, read_columns(members[name], corpus, f"{corpus.archive}:{name}")) for name in corpus.files]
    out = []
    for path in source_paths(corpus, files_from):
        data = files_from.read(corpus.repo, corpus.commit, path)
        if corpus.reader == "standoff":
            ann = files_from.read(corpus.repo, corpus.commit, path.removesuffix(".txt") + ".ann")
            out.append((path, read_standoff(data, ann, corpus, path)))
        elif corpus.reader in READERS:
            out.append((path, READERS[corpus.reader](data, corpus, path)))
        else:
            out.append((path, read_columns(data, corpus, path)))
    return out


def build(corpus: NerCorpus, read: list[tuple[str, list[Sentence]]], sizes: dict[str, int] | None = None):
    """(splits of rows, the sentences used, counts of the rows kept) of :func:`ner_rows.build_rows`."""
    sentences = [s for _, file_sentences in read for s in file_sentences]
    return build_rows(sentences, dict(corpus.types), dict(corpus.fixes), sizes)


def describe(corpus: NerCorpus, rows: dict, counts: dict) -> str:
    fixes = "".join(
        f"; a tag {bad!r}, not IOB2, is read as {good} (in the rows kept: {counts['fixed']})"
        for bad, good in corpus.fixes
    )
    return DESCRIPTION.format(
        language=corpus.language,
        title=corpus.title,
        repo=corpus.repo,
        files=corpus.files_note or ", ".join(corpus.files),
        about=f" {corpus.about}" if corpus.about else "",
        format=FORMATS[corpus.reader].format(
            levels=" → ".join(f"'{key}'" for key in corpus.nesting[:-1]),
            words=corpus.nesting[-1] if corpus.nesting else "",
            token=corpus.word_fields[0],
            tag=corpus.word_fields[1],
        ),
        mapping=corpus.mapping,
        fixes=fixes,
        repaired=counts["repaired"],
        entities=", ".join(f"{kind} {counts[kind]}" for kind in KINDS),
        seed=SEED,
        test=len(rows["test"]),
        val=len(rows["val"]),
        train=len(rows["train"]),
        sizes_note=sizes_note(rows),
    )


def _standoff_excerpt(sentences: list[Sentence]) -> tuple[bytes, bytes]:
    """A .tok.txt of just these sentences and its .tok.ann, the offsets counted anew."""
    lines, entities, offset = [], [], 0
    for sentence in sentences:
        spans = line_tokens(sentence.block)
        for i, tag in enumerate(sentence.tags):
            if tag.startswith("B-"):
                last = i
                while last + 1 < len(sentence.tags) and sentence.tags[last + 1] == f"I-{tag[2:]}":
                    last += 1
                start, end = spans[i][0], spans[last][1]
                entities.append((offset + start, offset + end, tag[2:], sentence.block[start:end]))
        lines.append(sentence.block)
        offset += len(sentence.block) + 1
    ann = "".join(f"T{n}\t{kind} {start} {end}\t{text}\n" for n, (start, end, kind, text) in enumerate(entities, 1))
    return ("\n".join(lines) + "\n").encode("utf-8"), ann.encode("utf-8")


def fixture_files(corpus: NerCorpus, read: list[tuple[str, list[Sentence]]], used: list[Sentence]):
    """(path, bytes) of excerpts of the source files holding just the sentences used (files with none left out)."""
    blocks = {s.block for s in used}
    if corpus.archive:  # one archive of excerpts of its members (FixtureFiles gzips it)
        kept = [(name, [s for s in sentences if s.block in blocks]) for name, sentences in read]
        yield corpus.archive, tar_of([(name, _column_excerpt(corpus, sentences)) for name, sentences in kept])
        return
    for path, sentences in read:
        kept = [s for s in sentences if s.block in blocks]
        if not kept and not corpus.files:
            continue
        if corpus.reader == "standoff":
            text, ann = _standoff_excerpt(kept)
            yield path, text
            yield path.removesuffix(".txt") + ".ann", ann
            continue
        yield path, _column_excerpt(corpus, kept)


def _column_excerpt(corpus: NerCorpus, kept: list[Sentence]) -> bytes:
    if corpus.reader == "json":
        return ("[\n" + ",\n".join(s.block for s in kept) + "\n]\n").encode("utf-8")
    if corpus.reader == "json-nested":  # one object on each outer level, holding every sentence kept
        outer = corpus.nesting[:-1]
        head = "".join(f'{{"{key}": [' for key in outer)
        return (head + "\n" + ",\n".join(s.block for s in kept) + "\n" + "]}" * len(outer) + "\n").encode("utf-8")
    prefix = CONLLUP_HEADER + "\n" if corpus.reader == "conllup" else ""
    return (prefix + "\n\n".join(s.block for s in kept) + "\n\n").encode("utf-8")
