"""The dataset builders (scripts/datasets) rebuild committed folders byte for byte from
small fixtures of their pinned sources, and corrupt sentences by the stated rules."""

from __future__ import annotations

import filecmp
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from scripts.datasets import build, copa, ner_corpora, ner_rows, scala, sentiment, uner, xquad
from scripts.datasets.conllu import read_sentences
from scripts.datasets.source_files import FixtureFiles

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "dataset_sources"
SAMPLE = [
    "scala-sq",
    "scala-lv",
    "scala-ca",
    "sib200-pl",
    "sib200-el",
    "xquad-ro",
    "uner-sk",
    "turku-ner-fi",
    "wikineural-pl",
    "ssj-ner-sl",
    "lv-twitter-sentiment-lv",
    "husst-hu",
    "elner4-el",
    "estner-et",
    "xcopa-et",
    "copa-lv",
    "squad-it",
    "xstorycloze-es",
    "valence-et",
    "zno-geography-uk",
    "piaf-fr",
    "exams-pt",
    "slovakbert-reviews-sk",
    "faquad-pt",
    "simpitiki-it",
    "poem-sentiment-en",
    "senticomments-sr",
    "polaq-pl",
    "squad-sv",
]


@pytest.mark.parametrize("name", SAMPLE)
def test_the_builder_reproduces_the_committed_folder_from_its_fixture(tmp_path, name):
    assert build.main(["--fixtures", str(FIXTURES), "--out", str(tmp_path), name]) == 0
    files = sorted(p.name for p in (REPO / "data" / "datasets" / name).iterdir())
    assert files == ["dataset.json", "test.jsonl", "train.jsonl", "val.jsonl"]
    match, mismatch, errors = filecmp.cmpfiles(REPO / "data" / "datasets" / name, tmp_path / name, files, shallow=False)
    assert (mismatch, errors) == ([], [])


def test_the_xquad_split_is_the_one_of_the_older_english_folder_byte_for_byte():
    """xquad-en was split before the builders; xquad.py reproduces that split and row order
    from the source, so every XQuAD language built here has xquad-en's paragraphs per split."""
    english = FixtureFiles(FIXTURES).read(build.XQUAD_REPO, build.XQUAD_COMMIT, "xquad.en.json")
    rows, dropped = xquad.build(english, english)
    assert dropped == 0  # the five repeated English questions never enter the assignment
    for split in build.SPLITS:
        written = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows[split])
        assert written == (REPO / "data" / "datasets" / "xquad-en" / f"{split}.jsonl").read_text(encoding="utf-8")


def test_an_xquad_question_is_dropped_when_its_answer_is_not_at_its_offset_or_its_text_repeats():
    english = FixtureFiles(FIXTURES).read(build.XQUAD_REPO, build.XQUAD_COMMIT, "xquad.en.json")
    source = json.loads(english)
    first = next(p for a in source["data"] for p in a["paragraphs"] if p["qas"][0]["id"] in xquad.assignment(english))
    first["qas"][0]["answers"][0]["answer_start"] += 1
    first["qas"][1]["question"] = first["qas"][2]["question"] + " "  # the same text once stripped
    rows, dropped = xquad.build(english, json.dumps(source).encode())
    ids = {row["id"] for split in rows.values() for row in split}
    assert dropped == 2 and first["qas"][0]["id"] not in ids
    assert len({first["qas"][1]["id"], first["qas"][2]["id"]} & ids) == 1


def test_every_built_folder_is_committed_and_the_older_scala_folders_are_not_rebuilt():
    committed = {p.name for p in (REPO / "data" / "datasets").iterdir() if p.is_dir()}
    assert set(build.BUILDERS) <= committed
    assert not {"scala-da", "scala-de", "scala-en", "scala-nb"} & set(build.BUILDERS)


def test_a_missing_source_says_which_and_the_other_folders_are_still_built(tmp_path, capsys):
    shutil.copytree(
        FIXTURES / "UniversalDependencies+UD_Albanian-STAF", tmp_path / "src" / "UniversalDependencies+UD_Albanian-STAF"
    )
    argv = ["--fixtures", str(tmp_path / "src"), "--out", str(tmp_path / "out"), "scala-sv", "scala-sq"]
    assert build.main(argv) == 1
    said = capsys.readouterr().err
    assert "not built: scala-sv: its source is missing (no fixture" in said and "1 folder(s) not built" in said
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["scala-sq"]  # nothing of scala-sv written


SENTENCE = """# text = Anna reads the old book.
1\tAnna\tAnna\tPROPN\t_\t_\t2\tnsubj\t_\t_
2\treads\tread\tVERB\t_\t_\t0\troot\t_\t_
3\tthe\tthe\tDET\t_\t_\t5\tdet\t_\t_
4\told\told\tADJ\t_\t_\t5\tamod\t_\t_
5\tbook\tbook\tNOUN\t_\t_\t2\tobj\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_
"""


def test_corruptions_follow_the_rules():
    [sentence] = read_sentences(SENTENCE.encode())
    assert sentence.text() == "Anna reads the old book."
    assert scala.swap_positions(sentence) == [0, 1, 2, 3]  # never with the full stop
    assert scala.deletion_positions(sentence) == [1, 4]  # "reads" and "book" head words; leaves do not
    assert scala._delete(sentence, 4)[3].space_after is False  # "old." keeps the deleted word's spacing
    assert sentence.text(scala._delete(sentence, 4)) == "Anna reads the old."
    assert (
        sentence.text(scala._recase(sentence.tokens[0], scala._swap(sentence, 0), False)) == "Reads Anna the old book."
    )
    text, kind = scala.corrupt(sentence, {"Anna the old book."}, nouns_capitalised=False)
    assert text != sentence.text() and text != "Anna the old book." and kind in ("swap", "deletion")
    assert scala.corrupt(sentence, set(), False) == scala.corrupt(sentence, set(), False)  # seeded by the text


# UNER's columns as in UNER_Croatian-SET (index, token, tag, an older tag, annotator): only the third is read.
UNER_SENTENCES = """# newdoc id = doc.1
# sent_id = s1
# text = Ana i Jean Pierre iz Zagreba vole Turke.
1\tAna\tB-PER\tB-PER\t-
2\ti\tO\tO\t-
3\tJean\tB-OTH\tB-PER\t-
4\tPierre\tI-PER\tI-PER\t-
5\tiz\tO\tO\t-
6\tZagreba\tB-LOC\tB-LOC\t-
7\tvole\tO\tO\t-
8\tTurke\tB-OTH\tB-PER\t-
9\t.\tO\tO\t-

# sent_id = s2
1\tVlada\tB-ORG\tB-ORG\t-
2\tHrvatske\tI-ORG\tI-ORG\t-

"""


def test_uner_tags_map_onto_glossa_types_as_valid_iob2():
    first, second = uner.read_sentences(UNER_SENTENCES.encode())
    assert first.tokens[:3] == ("Ana", "i", "Jean") and first.tags[2] == "B-OTH"  # the third column
    tags, repaired, fixed = ner_rows.glossa_tags(first.tags, uner.TYPES)
    assert tags == ["B-PER", "O", "B-MISC", "B-PER", "O", "B-LOC", "O", "B-MISC", "O"]
    assert (repaired, fixed) == (1, 0)  # I-PER after an OTHER entity starts its own entity
    assert ner_rows.glossa_tags(second.tags, uner.TYPES) == (["B-ORG", "I-ORG"], 0, 0)
    assert set(tags) <= set(uner.LABELS)


def test_uner_sentences_are_deduplicated_by_tokens_and_split_by_their_own_key():
    files = {"a.iob2": UNER_SENTENCES.encode(), "b.iob2": UNER_SENTENCES.replace("B-ORG", "B-LOC").encode()}
    rows, used, counts = uner.build(files, {"test": 1, "val": 0, "train": 1})
    assert [len(rows[s]) for s in ("test", "val", "train")] == [1, 0, 1]
    # the first file's copy of each sentence is kept (the second file tags "Vlada Hrvatske" LOC)
    assert {"tokens": ["Vlada", "Hrvatske"], "labels": ["B-ORG", "I-ORG"]} in rows["test"] + rows["train"]
    assert {s.tags[0] for s in used} == {"B-PER", "B-ORG"}
    assert counts == {"repaired": 1, "fixed": 0, "PER": 2, "LOC": 1, "ORG": 1, "MISC": 2}


def test_a_uner_corpus_without_its_train_file_reads_and_describes_the_files_it_has():
    english, swedish = build.UNER["uner-en"], build.UNER["uner-sv"]
    assert english.files == ("en_ewt-ud-dev.iob2", "en_ewt-ud-test.iob2")
    assert swedish.files == tuple(f"sv_talbanken-ud-{s}.iob2" for s in ("train", "dev", "test"))
    rows, _, counts = uner.build({"a.iob2": UNER_SENTENCES.encode()}, {"test": 1, "val": 0, "train": 1})
    text = uner.describe(english, rows, counts)
    assert f"({english.files_note}): sentences" in text and "en_ewt-ud-train.iob2, listed in" in text
    assert "The two files are pooled and sentences with the same token sequence dropped" in text
    assert "(the first kept, in the order dev, test)" in text
    three = uner.describe(swedish, rows, counts)
    assert "(sv_talbanken-ud-train.iob2, sv_talbanken-ud-dev.iob2, sv_talbanken-ud-test.iob2): sentences" in three
    assert "The three files are pooled" in three and "in the order train, dev, test)" in three


@pytest.mark.parametrize("line", ["1\tAna\tB-MISC\t-\t-", "1\tAna\tB-PER-X\t-\t-", "1\tAna", "1\t\tO"])
def test_an_unknown_uner_tag_or_a_short_line_is_refused(line):
    with pytest.raises(ValueError, match="x.iob2"):
        uner.read_sentences(f"{line}\n\n".encode(), "x.iob2")


TURKU, NERKOR, NER_UK = (build.NER_CORPORA[n] for n in ("turku-ner-fi", "nerkor-hu", "ner-uk"))


def test_turku_types_map_as_euroeval_maps_them_and_documents_are_not_sentences():
    data = "-DOCSTART-\tO\n\nTurun\tB-ORG\nyliopisto\tI-ORG\n1.5.\tB-DATE\nNokia\tI-PRO\nLumia\tI-PRO\n\n"
    (sentence,) = ner_corpora.read_columns(data.encode(), TURKU)
    assert sentence.tokens == ("Turun", "yliopisto", "1.5.", "Nokia", "Lumia")
    assert ner_rows.glossa_tags(sentence.tags, dict(TURKU.types)) == (
        ["B-ORG", "I-ORG", "B-MISC", "B-MISC", "I-MISC"],
        1,
        0,
    )
    with pytest.raises(ValueError, match="unknown tag 'B-TIME'"):
        ner_corpora.read_columns(b"klo\tB-TIME\n\n", TURKU)


def test_nerkor_reads_form_and_conll_ner_by_the_header_and_hashtags_are_tokens():
    header = ner_corpora.CONLLUP_HEADER
    data = f"{header}\n#Szeged\t#Szeged\tPROPN\t_\t_\tB-LOC\t#Szeged\n/\t/\tNUM\t_\t_\tV\t/\n\n"
    (sentence,) = ner_corpora.read_columns(data.encode(), NERKOR, "x.conllup")
    assert (sentence.tokens, sentence.tags) == (("#Szeged", "/"), ("B-LOC", "V"))
    assert ner_rows.glossa_tags(sentence.tags, dict(NERKOR.types), dict(NERKOR.fixes)) == (
        ["B-LOC", "O"],
        0,
        1,
    )  # the one malformed tag
    with pytest.raises(ValueError, match="global.columns"):
        ner_corpora.read_columns(data.replace(" CONLL:NER", "").encode(), NERKOR, "x.conllup")
    with pytest.raises(ValueError, match="7 columns"):
        ner_corpora.read_columns(f"{header}\nSzeged\tB-LOC\n\n".encode(), NERKOR, "x.conllup")


def test_wikineural_reads_the_token_and_tag_after_the_index_and_its_description_says_silver():
    corpus = build.NER_CORPORA["wikineural-pl"]
    data = "0\tW\tO\n1\tKrakowie\tB-LOC\n2\tJan\tI-PER\n\n0\tONZ\tB-ORG\n\n"
    first, second = ner_corpora.read_columns(data.encode(), corpus, "x.conllu")
    assert (first.tokens, first.tags, second.tokens) == (("W", "Krakowie", "Jan"), ("O", "B-LOC", "I-PER"), ("ONZ",))
    assert ner_rows.glossa_tags(first.tags, dict(corpus.types)) == (["O", "B-LOC", "B-PER"], 1, 0)
    with pytest.raises(ValueError, match="3 columns"):
        ner_corpora.read_columns(b"W\tO\n\n", corpus, "x.conllu")
    meta = json.loads((REPO / "data" / "datasets" / "wikineural-pl" / "dataset.json").read_text(encoding="utf-8"))
    assert "silver data" in meta["description"] and "NC" in meta["license"]


def test_fullstack_reads_form_and_the_outer_entity_and_skips_comments():
    corpus = build.NER_CORPORA["fullstack-ner-lv"]
    lines = [
        "# sent_id = a-c1-p1s1",
        "# text = Rīgas domes 1 00 eiro",
        "1\tRīgas\tRīga\tPROPN\t_\t_\tB-organization\tB-GPE\t_\t_",
        "2\tdomes\tdome\tNOUN\t_\t_\tI-organization\tO\t_\t_",
        "3\t1 00\t1 00\tNUM\t_\t_\tB-money\tO\t_\t_",
        "4\teiro\teiro\tNOUN\t_\t_\tI-money\tO\t_\t_",
    ]
    (sentence,) = ner_corpora.read_columns(("\n".join(lines) + "\n\n").encode(), corpus, "x.conll2003")
    assert sentence.tokens == ("Rīgas", "domes", "1 00", "eiro")  # a token may hold a space
    assert ner_rows.glossa_tags(sentence.tags, dict(corpus.types)) == (["B-ORG", "I-ORG", "B-MISC", "I-MISC"], 0, 0)
    with pytest.raises(ValueError, match="10 columns"):
        ner_corpora.read_columns(b"1\tR\xc4\xabga\tB-GPE\n\n", corpus, "x.conll2003")


def test_elner_reads_space_separated_members_of_its_archive_and_a_fixture_tar_is_the_same_bytes():
    corpus = build.NER_CORPORA["elner4-el"]
    first = "Ο O\nΚυριάκος B-PERSON\nΜητσοτάκης I-PERSON\nστην O\nΑθήνα B-LOC\n\n".encode()
    members = [(name, first if n == 0 else "ΟΗΕ B-ORG\n\n".encode()) for n, name in enumerate(corpus.files)]
    archive = ner_corpora.tar_of(members)
    assert archive == ner_corpora.tar_of(members)  # no dates or owners in it
    read = ner_corpora.archive_members(archive, corpus.files)
    (sentence,) = ner_corpora.read_columns(read[corpus.files[0]], corpus)
    assert ner_rows.glossa_tags(sentence.tags, dict(corpus.types))[0] == ["O", "B-PER", "I-PER", "O", "B-LOC"]
    with pytest.raises(ValueError, match="no file IOB2/x.iob2"):
        ner_corpora.archive_members(archive, ("IOB2/x.iob2",), "a.tar.gz")
    with pytest.raises(ValueError, match="2 columns"):
        ner_corpora.read_columns("Κυριάκος\tB-PERSON\n\n".encode(), corpus)


UK_TEXT = "Тарас Шевченко жив у Києві .\n\nООН і ЮНЕСКО\n"
UK_ANN = "T1\tPERS 0 14\tТарас Шевченко\nT2\tLOC 21 26\tКиєві\nT3\tORG 30 33\tООН\nT4\tORG 36 42\tЮНЕСКО\n"


def test_ner_uk_standoff_entities_become_iob2_tags_of_their_tokens():
    first, second = ner_corpora.read_standoff(UK_TEXT.encode(), UK_ANN.encode(), NER_UK)
    assert first.tags == ("B-PERS", "I-PERS", "O", "O", "B-LOC", "O") and first.tokens[4] == "Києві"
    assert second.tags == ("B-ORG", "O", "B-ORG")
    assert ner_rows.glossa_tags(first.tags, dict(NER_UK.types))[0] == ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]
    text, ann = ner_corpora._standoff_excerpt([second])  # a fixture of one sentence, offsets counted anew
    assert ner_corpora.read_standoff(text, ann, NER_UK) == [second]


@pytest.mark.parametrize(
    "ann, problem",
    [
        ("T1\tPERS 0 5\tТарас\nT2\tPERS 0 14\tТарас Шевченко\n", "two entities start"),
        ("T1\tPERS 0 4\tТара\n", "ends inside the token"),
        ("T1\tPERS 1 5\tарас\n", "do not start at a token"),
        ("T1\tPERS 0 5\tТарик\n", "is not 'Тарик'"),
        ("T1\tJOB 0 5\tТарас\n", "known type"),
        ("T1\tPERS 0 14\tТарас Шевченко\nT2\tPERS 6 14\tШевченко\n", "overlapping"),
    ],
)
def test_a_misplaced_or_unknown_standoff_entity_is_refused(ann, problem):
    with pytest.raises(ValueError, match=problem):
        ner_corpora.read_standoff(UK_TEXT.encode(), ann.encode(), NER_UK, "x.tok.txt")


RONEC_SENTENCES = [
    {
        "id": 1,
        "tokens": ["Ion", "Popescu", "a", "plecat", "la", "Cluj", "pe", "3", "martie"],
        "ner_tags": ["B-PERSON", "I-PERSON", "O", "O", "O", "B-GPE", "O", "B-DATETIME", "I-DATETIME"],
    },
    {"id": 2, "tokens": ["Guvernul", "român"], "ner_tags": ["B-ORG", "I-NAT_REL_POL"]},
]


def test_ronec_reads_tokens_and_tags_of_its_json_and_drops_numeric_and_time_types():
    corpus = build.NER_CORPORA["ronec-ro"]
    first, second = ner_corpora.read_json(json.dumps(RONEC_SENTENCES).encode(), corpus, "x.json")
    assert first.tokens[:2] == ("Ion", "Popescu") and second.tags == ("B-ORG", "I-NAT_REL_POL")
    types = dict(corpus.types)
    assert ner_rows.glossa_tags(first.tags, types) == (
        ["B-PER", "I-PER", "O", "O", "O", "B-LOC", "O", "O", "O"],  # DATETIME is not a name: O, not counted
        0,
        0,
    )
    assert ner_rows.glossa_tags(second.tags, types) == (["B-ORG", "B-MISC"], 1, 0)
    [(path, excerpt)] = ner_corpora.fixture_files(corpus, [("x.json", [first, second])], [second])
    assert ner_corpora.read_json(excerpt, corpus, path) == [second]  # a fixture of the sentences used
    with pytest.raises(ValueError, match="unknown tag 'B-PRODUCT'"):
        ner_corpora.read_json(b'[{"tokens": ["iPhone"], "ner_tags": ["B-PRODUCT"]}]', corpus, "x.json")
    with pytest.raises(ValueError, match="the same length"):
        ner_corpora.read_json(b'[{"tokens": ["Cluj", "-"], "ner_tags": ["B-GPE"]}]', corpus, "x.json")


def _estner_words(text: str) -> list[dict]:
    """EstNER_new's words from "word/ner_1[/ner_2]" items (ner_3 is O in every sentence here)."""
    words = []
    for item in text.split(" "):
        word, outer, *inner = item.split("/")
        words.append({"word": word, "ner_1": outer, "ner_2": inner[0] if inner else "O", "ner_3": "O"})
    return words


# Two sentences of EstNER_new_test.json and one of EstNER_new_dev.json at 85c749e, as tagged there
# (the second level only where it is not O); the expected tags were checked by hand.
ESTNER_A = (
    "Homme/B-DATE ja/O ülehomme/B-DATE viibib/O Eesti/B-ORG/B-GPE Panga/I-ORG president/B-TITLE Ardo/B-PER "
    "Hansson/I-PER Rahvusvahelises/B-ORG Arvelduspangas/I-ORG (/O BIS/B-ORG )/O keskpankade/O juhtide/O "
    "kohtumisel/O ./O"
)
ESTNER_B = (
    "Tähtpäevakontserdid/O Hortus/B-ORG Musicusega/I-ORG toob/O Mustonen/B-PER publiku/O ette/O veel/O 18./B-DATE "
    "novembril/I-DATE Peterburis/B-GPE Filharmoonia/B-ORG väikeses/B-LOC saalis/I-LOC ja/O 20./B-DATE "
    "novembril/I-DATE Moskvas/B-GPE Filharmoonia/B-ORG Tšaikovski/B-LOC/B-PER saalis/I-LOC ./O"
)
ESTNER_C = (
    "FC/B-ORG Levadia/I-ORG ridades/O Eesti/B-TITLE/B-GPE meistri/I-TITLE tiitlit/O tähistanud/O Hunt/B-PER lõi/O "
    "lõppenud/O hooajal/O siinse/O jalgpalliajaloo/O esimese/O kübaratriki/O eurosarjas/B-EVENT ja/O tegi/O "
    "debüüdi/O ka/O rahvuskoondises/O ./O"
)


def test_estner_reads_the_outer_level_of_its_nested_json_and_maps_eleven_types_onto_four():
    corpus = build.NER_CORPORA["estner-et"]
    source = {
        "documents": [
            {"sentences": [{"words": _estner_words(ESTNER_A)}, {"words": _estner_words(ESTNER_B)}]},
            {"sentences": [{"words": _estner_words(ESTNER_C)}]},
        ]
    }
    first, second, third = ner_corpora.read_json_nested(json.dumps(source).encode(), corpus, "x.json")
    assert first.tokens[4:9] == ("Eesti", "Panga", "president", "Ardo", "Hansson")
    assert first.tags[4:6] == ("B-ORG", "I-ORG")  # ner_1 only: Eesti's inner B-GPE is not read
    types = dict(corpus.types)
    # DATE and TITLE are tagged O; ORG and PER kept
    assert ner_rows.glossa_tags(first.tags, types) == (
        ["O", "O", "O", "O", "B-ORG", "I-ORG", "O", "B-PER", "I-PER", "B-ORG", "I-ORG", "O", "B-ORG", "O"] + ["O"] * 4,
        0,
        0,
    )
    # GPE -> LOC (Peterburis, Moskvas), LOC kept, each Filharmoonia its own ORG
    assert ner_rows.glossa_tags(second.tags, types)[0] == [
        *("O", "B-ORG", "I-ORG", "O", "B-PER", "O", "O", "O", "O", "O"),
        *("B-LOC", "B-ORG", "B-LOC", "I-LOC", "O", "O", "O", "B-LOC", "B-ORG", "B-LOC", "I-LOC", "O"),
    ]
    # EVENT -> MISC; the TITLE "Eesti meistri" is O, its inner GPE Eesti lost with it
    tags = ner_rows.glossa_tags(third.tags, types)[0]
    assert tags[:5] == ["B-ORG", "I-ORG", "O", "O", "O"] and tags[7] == "B-PER" and tags[15] == "B-MISC"
    assert tags.count("O") == len(tags) - 4
    [(path, excerpt)] = ner_corpora.fixture_files(corpus, [("x.json", [first, second, third])], [third, first])
    assert ner_corpora.read_json_nested(excerpt, corpus, path) == [first, third]  # a fixture of the sentences used
    with pytest.raises(ValueError, match="unknown tag 'B-NORP'"):
        words = [{"word": "eestlased", "ner_1": "B-NORP"}]
        ner_corpora.read_json_nested(json.dumps({"documents": [{"sentences": [{"words": words}]}]}).encode(), corpus)
    with pytest.raises(ValueError, match="'sentences' is not a list of objects"):
        ner_corpora.read_json_nested(b'{"documents": [{"sentence": []}]}', corpus, "x.json")
    with pytest.raises(ValueError, match="a word needs a token 'word'"):
        words = [{"token": "Tartu", "ner_1": "B-GPE"}]
        ner_corpora.read_json_nested(json.dumps({"documents": [{"sentences": [{"words": words}]}]}).encode(), corpus)


SSJ_TEXT = """# newdoc id = d1
# newpar id = d1.1
# sent_id = d1.1.1
1\tVlada\tvlada\tNOUN\t_\t_\t0\troot\t_\tNER=B-org
2\tSlovenije\tSlovenija\tPROPN\t_\t_\t1\tnmod\t_\tNER=I-org|SpaceAfter=No
3-4\tzanj\t_\t_\t_\t_\t_\t_\t_\t_
3\tza\tza\tADP\t_\t_\t4\tcase\t_\tNER=O
4\tnj\ton\tPRON\t_\t_\t1\tnmod\t_\tNER=O

# sent_id = d1.1.2
1\tPrešernovo\tPrešernov\tADJ\t_\t_\t0\troot\t_\tNER=B-deriv-per

# newpar id = d1.2
# sent_id = d1.2.1
1\tMolly\tMolly\tPROPN\t_\t_\t0\troot\t_\tNER=O

"""


def test_ssj_reads_ner_from_misc_skips_multiword_tokens_and_unannotated_paragraphs():
    corpus = build.NER_CORPORA["ssj-ner-sl"]
    first, second = ner_corpora.read_conllu(SSJ_TEXT.encode(), corpus, "x.conllu")  # paragraph d1.2 has no entity
    assert (first.tokens, first.tags) == (("Vlada", "Slovenije", "za", "nj"), ("B-org", "I-org", "O", "O"))
    assert ner_rows.glossa_tags(second.tags, dict(corpus.types)) == (["B-MISC"], 0, 0)  # deriv-per
    every = ner_corpora.read_conllu(SSJ_TEXT.encode(), replace(corpus, tagged_paragraphs_only=False))
    assert [s.tokens for s in every][2:] == [("Molly",)]
    with pytest.raises(ValueError, match="without NER="):
        ner_corpora.read_conllu(SSJ_TEXT.replace("NER=O\n\n", "_\n\n").encode(), corpus, "x.conllu")
    with pytest.raises(ValueError, match="unknown tag 'B-PER'"):
        ner_corpora.read_conllu(SSJ_TEXT.replace("B-org", "B-PER").encode(), corpus, "x.conllu")


LTEC = build.SENTIMENT["lv-twitter-sentiment-lv"]


def _ltec(*records: tuple[str, str]) -> bytes:
    return json.dumps([{"tweet_text": text, "sentiment": label, "tweet_id": "1"} for text, label in records]).encode()


def test_sentiment_splits_fill_from_the_first_file_then_the_next_and_drop_empty_conflicting_and_repeated_texts():
    test_file, train_file = LTEC.files
    files = {
        test_file: _ltec(("Garšīgi!", "pos"), ("Nu nē.", "neg"), ("  ", "neu"), ("Zupa.", "neu")),
        train_file: _ltec(
            ("Zupa.", "neu"), ("Kafija.", "neu"), ("Kafija.", "pos"), ("Labi ", "pos"), ("Slikti", "neg")
        ),
    }
    rows, needed, counts = sentiment.build(LTEC, files, {"test": 4, "val": 1, "train": 1})
    assert (counts["empty"], counts["conflicts"], counts["conflict_rows"], counts["duplicates"]) == (1, 1, 2, 1)
    test_texts = [row["text"] for row in rows["test"]]
    assert set(test_texts[:3]) == {"Garšīgi!", "Nu nē.", "Zupa."}  # the whole first file comes first
    kept = {row["text"] for split in rows.values() for row in split}
    assert kept == {"Garšīgi!", "Nu nē.", "Zupa.", "Labi", "Slikti"}
    assert {"text": "Nu nē.", "label": "negative"} in rows["test"] and len(rows["train"]) == 0  # the pool ran out
    # a fixture of the needed records (used, dropped, and a dropped copy's kept one) builds the same
    again = {path: sentiment.fixture_bytes(LTEC, records) for path, records in needed.items()}
    assert sentiment.build(LTEC, again, {"test": 4, "val": 1, "train": 1})[::2] == (rows, counts)


@pytest.mark.parametrize(
    "data, problem",
    [
        (b'[{"tweet_text": "Zupa.", "sentiment": "mixed"}]', "unknown label 'mixed'"),
        (b'[{"sentiment": "pos"}]', "no text"),
    ],
)
def test_a_sentiment_record_with_an_unknown_label_or_no_text_is_refused(data, problem):
    with pytest.raises(ValueError, match=problem):
        sentiment.read_records(data, LTEC, "x.json")


def test_fixture_files_round_trip(tmp_path):
    files = FixtureFiles(tmp_path)
    files.write("o/r", "a/b.tsv", b"x\ty")
    assert files.read("o/r", "any-commit", "a/b.tsv") == b"x\ty"


XCOPA_IT, COPA_LV = build.COPA["xcopa-it"], build.COPA["copa-lv"]


def _copa(*items: tuple[str, str, str, str, int]) -> bytes:
    keys = ("premise", "choice1", "choice2", "question", "label")
    return "".join(json.dumps(dict(zip(keys, item, strict=True))) + "\n" for item in items).encode()


def test_copa_items_become_two_choice_rows_and_repeats_of_a_test_item_leave_the_pool():
    test = _copa(("Piovve. ", "Il prato si bagnò.", "Il prato seccò.", "effect", 0))
    val = _copa(
        ("Piovve.", "Il prato si bagnò.", "Il prato seccò.", "effect", 0),  # the test item once stripped
        ("Ero stanco.", "Dormii.", "Dormii.", "effect", 0),  # two identical alternatives
        ("Tremavo.", "Faceva caldo.", "Faceva freddo.", "cause", 1),
    )
    test_file, val_file = (path for _, path in XCOPA_IT.files)
    rows, items, counts = copa.build(XCOPA_IT, {test_file: test, val_file: val})
    assert rows["test"] == [
        {
            "question": "Piovve. Qual è stata la conseguenza?",
            "choices": ["Il prato si bagnò.", "Il prato seccò."],
            "label": 0,
        }
    ]
    assert rows["val"] == [] and rows["train"] == [
        {"question": "Tremavo. Qual è stata la causa?", "choices": ["Faceva caldo.", "Faceva freddo."], "label": 1}
    ]
    assert (counts["duplicates"], counts["dropped"]) == (1, 1)


def test_copa_lv_maps_its_latvian_question_words_and_skips_only_as_many_unreadable_lines_as_expected():
    files = {path: _copa(("Lija.", "Zāle bija slapja.", "Zāle bija sausa.", "sekas", 0)) for _, path in COPA_LV.files}
    files[COPA_LV.files[1][1]] = _copa(("Es salu.", "Bija silts.", "Bija auksts.", "cēlonis", 1))
    with pytest.raises(ValueError, match="0 lines are not JSON, 2 expected"):
        copa.build(COPA_LV, files)
    files[COPA_LV.files[2][1]] += b'{"premise": "P", "choice1": A"}\n' * 2
    rows, _, counts = copa.build(COPA_LV, files)
    assert rows["test"][0]["question"] == "Lija. Kādas bija tā sekas?" and counts["duplicates"] == 1  # train's copy
    assert rows["val"] == [
        {"question": "Es salu. Kas bija tā cēlonis?", "choices": ["Bija silts.", "Bija auksts."], "label": 1}
    ]


def test_the_copa_folders_keep_the_source_balance_and_have_two_choices_a_row():
    for name in build.COPA:
        rows = {
            split: [json.loads(line) for line in (REPO / "data" / "datasets" / name / f"{split}.jsonl").open()]
            for split in build.SPLITS
        }
        assert all(len(row["choices"]) == 2 and row["label"] in (0, 1) for split in rows.values() for row in split)
        assert 0.45 < sum(row["label"] for row in rows["test"]) / len(rows["test"]) < 0.55
    assert [len(rows[split]) for split in ("train", "val", "test")] == [398, 100, 260]  # copa-lv, the last


@pytest.mark.parametrize(
    "line, problem",
    [
        (b'{"premise": "P", "choice1": "A", "choice2": "B", "question": "why", "label": 0}', "not one of cause"),
        (b'{"premise": "P", "choice1": "A", "choice2": "B", "question": "cause", "label": 2}', "not 0 or 1"),
        (b'{"premise": "P", "choice1": "A", "question": "cause", "label": 0}', "needs the texts"),
        (b"{premise", "not JSON"),
    ],
)
def test_a_copa_item_without_its_fields_or_with_an_unknown_question_or_label_is_refused(line, problem):
    with pytest.raises(ValueError, match=f"x.jsonl:1: .*{problem}"):
        copa.read_items(line, "x.jsonl", {"cause": "cause", "effect": "effect"})
