"""The pinned public NER corpora other than Universal NER (name → source), read by
:mod:`scripts.datasets.ner_corpora`: adding one is an entry in ``NER_CORPORA`` and a run of
``python -m scripts.datasets.build``."""

from __future__ import annotations

from dataclasses import dataclass

from scripts.datasets.sources import PinnedCorpus


@dataclass(frozen=True)
class NerCorpus(PinnedCorpus):
    """A named-entity corpus of its own (not Universal NER), read by :mod:`scripts.datasets.ner_corpora`."""

    # "conll" (token, tag), "spaced" (token, tag, space-separated), "indexed" (index, token, tag), "conllup"
    # (CoNLL-U Plus), "conllu" (NER= in MISC), "conllu-ner" (CoNLL-U with entity columns after FEATS),
    # "json" (a list of objects with tokens and ner_tags), "json-nested" (an object whose lists of objects,
    # ``nesting`` deep, end in a sentence's words, each with ``word_fields``), "standoff" (brat)
    reader: str
    types: tuple[tuple[str, str], ...]  # the corpus's entity type → Glossa's
    mapping: str  # the description's words for ``types``
    files: tuple[str, ...] = ()  # read in this order; or, with ``under``, every file there ending in ``suffix``
    under: str = ""
    suffix: str = ""
    archive: str = ""  # a tar archive in the repository whose members ``files`` are (column readers only)
    files_note: str = ""  # the description's words for the files, where a list of them would not say enough
    about: str = ""  # what the description says of the corpus's annotation, where there is something to say
    fixes: tuple[tuple[str, str], ...] = ()  # a malformed source tag → the tag read in its place
    tagged_paragraphs_only: bool = False  # "conllu": read only the paragraphs with an entity tag
    # "json-nested": the keys from the file's object down to a sentence's list of words (each level a list
    # of objects), and the keys of a word's token and its IOB2 tag
    nesting: tuple[str, ...] = ()
    word_fields: tuple[str, str] = ("", "")
    license: str = ""
    citation: str = ""

    @property
    def source(self) -> str:
        read = ", ".join(self.files) if self.files else f"{self.under}/**/*{self.suffix}"
        if self.archive:
            read = f"{self.archive} ({read})"
        return f"github.com/{self.repo} @ {self.commit}: {read}"


WIKINEURAL_REPO = "Babelscape/wikineural"
WIKINEURAL_COMMIT = "d2e28c770cba2b285e742529ae18ed849e336c65"  # the newest; the data files date from 60dcc65
WIKINEURAL_ABOUT = (
    "WikiNEuRal is silver data: Wikipedia sentences annotated automatically (by combining the BabelNet knowledge base "
    "with BERT-based neural models), not gold annotation made or checked by people, so some of its tags are wrong "
    "and a score measures agreement with that automatic annotation."
)
WIKINEURAL_LICENSE = (
    "CC BY-NC-SA 4.0 (WikiNEuRal: its LICENSE file is the Attribution-NonCommercial-ShareAlike 4.0 International "
    "text, its README says 'CC BY-SA-NC 4.0' and its badge 'CC BY-NC 4.0'; non-commercial, share-alike); the "
    "sentences are from Wikipedia, the annotations by Babelscape"
)
WIKINEURAL_CITATION = (
    "Tedeschi, Maiorca, Campolungo, Cecconi & Navigli (2021), WikiNEuRal: Combined Neural and Knowledge-based Silver "
    "Data Creation for Multilingual NER, Findings of EMNLP 2021"
)


def _wikineural(code: str, language: str) -> NerCorpus:
    folder = f"data/wikineural/{code}"
    return NerCorpus(
        f"wikineural-{code}",
        code,
        language,
        "WikiNEuRal (Tedeschi et al. 2021)",
        WIKINEURAL_REPO,
        WIKINEURAL_COMMIT,
        "indexed",
        (("PER", "PER"), ("LOC", "LOC"), ("ORG", "ORG"), ("MISC", "MISC")),
        "PER, LOC, ORG and MISC kept (WikiNEuRal has CoNLL-2003's four types)",
        files=(f"{folder}/val.conllu", f"{folder}/test.conllu"),
        files_note=f"{folder}/val.conllu, then {folder}/test.conllu; its train.conllu, not in the mirrored "
        "snapshot, is not read",
        about=WIKINEURAL_ABOUT,
        license=WIKINEURAL_LICENSE,
        citation=WIKINEURAL_CITATION,
    )


# EuroEval's Finnish, Hungarian and Ukrainian NER languages, from the corpora's own
# repositories. turku-ner-fi and ner-uk are EuroEval's names and corpora (EuroEval's ner-uk is
# the Hugging Face copy benjamin/ner-uk of NER-UK v1.0); EuroEval's Hungarian set is SzegedNER,
# another corpus, so nerkor-hu (NYTK-NerKor) is not comparable with it. WikiNEuRal gives NER
# to Spanish, French, Italian, Dutch and Polish; EuroEval's sets for these (conll-es, eltec,
# multinerd-it, conll-nl, kpwr-ner) are other corpora, so the wikineural-* sets are not
# comparable with them. WikiNEuRal's train.conllu files are listed in the mirror's snapshot
# without contents; its val and test files hold 19,158 (es) to 27,105 (pl)
# sentences, far more than the 3,328 rows a set takes. RONEC v2.0 (ronec-ro) and the NER
# annotation in UD_Slovenian-SSJ's MISC column (ssj-ner-sl) give NER to Romanian and Slovene:
# EuroEval's sets for these are RoNEC (EuroEval/ronec-mini, the same corpus; its type mapping
# and sample were not compared) and ssj500k-ner (the ssj500k corpus, of which the SSJ treebank
# is a part, sampled otherwise), so the scores are not known to be comparable. Both read only
# the files whose contents the mirror holds: RONEC's data/train.json and SSJ's train file are
# listed without contents. UD_Catalan-AnCora has no NER set: the files the mirror holds (UD
# 2.8 and before) have no entity annotation in MISC (only MWE and MWEPOS, untyped multiword
# names), and the files from UD 2.9 on, which carry CorefUD entities, are listed without contents.
# fullstack-ner-lv is EuroEval's name, corpus (FullStack-LV's NamedEntities layer) and tag
# mapping (time and money -> MISC too). EuroEval's Greek set, elner, is elNER-18 (OntoNotes'
# eighteen types, dates and numbers -> MISC); elner4-el is elNER-4, the same sentences annotated
# by the authors with CoNLL-2003's four types, so the two are not comparable. estner-et reads
# EstNER_new's dev and test files (its train file is listed in the mirror without contents).
# EuroEval's estner is the Hugging Face copy tartuNLP/EstNER: EstNER_new joined with the older
# EstNER reannotated, 16,966 / 3,297 / 2,797 sentences where EstNER_new has 8,773. The examples
# its documentation shows have every type other than PER, LOC and ORG as MISC (GPE and TITLE
# included); its later script maps DATE, TIME, PERCENT and MONEY to O and leaves GPE, PROD,
# EVENT and TITLE outside the four types. estner-et follows that O for the numeric and time
# types and EuroEval's elner for OntoNotes-style types (GPE -> LOC; products and events ->
# MISC), and tags TITLE O; the scores are not comparable.
RONEC_CITATION = (
    "Dumitrescu & Avram (2020), Introducing RONEC - the Romanian Named Entity Corpus, LREC (arXiv:1909.01247; "
    "it describes v1.0, and the repository's README asks users of v2.0 to cite it)"
)
SSJ_CITATION = (
    "Dobrovoljc, Erjavec & Krek (2017), The Universal Dependencies Treebank for Slovenian, BSNLP; Dobrovoljc & "
    "Ljubešić (2022), Extending the SSJ Universal Dependencies Treebank for Slovenian: Was it Worth it?, LAW-XVI; "
    "the named entities are those of the ssj500k corpus (Krek et al. 2020, The ssj500k Training Corpus for "
    "Slovene Language Processing, JT-DH)"
)
NER_CORPORA: dict[str, NerCorpus] = {
    corpus.dataset: corpus
    for corpus in (
        NerCorpus(
            "turku-ner-fi",
            "fi",
            "Finnish",
            "the Turku NER corpus (Luoma et al. 2020)",
            "TurkuNLP/turku-ner-corpus",
            "41856819d45580f1c4ce7100e75ea6b859fb75dc",
            "conll",
            (("PER", "PER"), ("LOC", "LOC"), ("ORG", "ORG"), ("PRO", "MISC"), ("EVENT", "MISC"), ("DATE", "MISC")),
            "PER, LOC and ORG kept; PRO (product), EVENT and DATE -> MISC, the mapping of EuroEval's turku-ner-fi "
            "(so MISC here includes dates, unlike CoNLL's MISC)",
            files=("data/conll/train.tsv", "data/conll/dev.tsv", "data/conll/test.tsv"),
            license="CC BY-SA 4.0 (the Turku NER corpus, all parts, as its LICENSE says; share-alike)",
            citation="Luoma, Oinonen, Pyykönen, Laippala & Pyysalo (2020), A Broad-coverage Corpus for Finnish "
            "Named Entity Recognition, LREC",
        ),
        NerCorpus(
            "nerkor-hu",
            "hu",
            "Hungarian",
            "NYTK-NerKor (Simon & Vadász 2021)",
            "nytud/NYTK-NerKor",
            "7c9c5b5f1f3ec7f94e724e0b92f3afa8eb262d00",
            "conllup",
            (("PER", "PER"), ("LOC", "LOC"), ("ORG", "ORG"), ("MISC", "MISC")),
            "PER, LOC, ORG and MISC kept (NerKor follows CoNLL-2002's four types)",
            under="data",
            suffix=".conllup",
            files_note="the 798 .conllup files under data/, in its train, devel and test folders of five genres each, "
            "read in path order",
            fixes=(("V", "O"),),  # one token, "/" in data/train/legal/jrc_1.conllup, has the tag "V"
            license="CC BY-SA 4.0 (NYTK-NerKor, as its README and license.txt say; share-alike)",
            citation="Simon & Vadász (2021), Introducing NYTK-NerKor, A Gold Standard Hungarian Named Entity "
            "Annotated Corpus, TSD 2021, LNCS 12848",
        ),
        NerCorpus(
            "ner-uk",
            "uk",
            "Ukrainian",
            "NER-UK v1.0 (lang-uk), texts of the Open Corpus of Ukrainian Texts (BRUK)",
            "lang-uk/ner-uk",
            "7772b45807453854883a8e6d23e4d145014a1a42",
            "standoff",
            (("PERS", "PER"), ("LOC", "LOC"), ("ORG", "ORG"), ("MISC", "MISC")),
            "PERS -> PER; LOC, ORG and MISC kept (v1.0 has these four types only; v2.0's thirteen are not used)",
            under="v1.0/data",
            suffix=".tok.txt",
            files_note="the 262 texts of v1.0/data, each a .tok.txt file with its .tok.ann, read in path order",
            license="CC BY-NC-SA 4.0 (NER-UK, as its README says; non-commercial, share-alike)",
            citation="lang-uk, NER-UK: Корпус NER-анотацій українських текстів, github.com/lang-uk/ner-uk (v1.0); "
            "the texts are from the Open Corpus of Ukrainian Texts (BRUK, github.com/brown-uk/corpus)",
        ),
        NerCorpus(
            "ronec-ro",
            "ro",
            "Romanian",
            "RONEC v2.0, the Romanian Named Entity Corpus (Dumitrescu & Avram)",
            "dumitrescustefan/ronec",
            "5ca6a898d4fa42f27fd49501d4a3265e61e9340c",
            "json",
            (
                ("PERSON", "PER"),
                ("GPE", "LOC"),
                ("LOC", "LOC"),
                ("FACILITY", "LOC"),
                ("ORG", "ORG"),
                ("NAT_REL_POL", "MISC"),
                ("EVENT", "MISC"),
                ("LANGUAGE", "MISC"),
                ("WORK_OF_ART", "MISC"),
                ("DATETIME", "O"),
                ("PERIOD", "O"),
                ("QUANTITY", "O"),
                ("MONEY", "O"),
                ("NUMERIC", "O"),
                ("ORDINAL", "O"),
            ),
            "PERSON -> PER; GPE (countries, cities), LOC and FACILITY (buildings, airports and the like) -> LOC; ORG "
            "kept; NAT_REL_POL (nationalities, religious and political groups), EVENT, LANGUAGE and WORK_OF_ART -> "
            "MISC; the six numeric and time types DATETIME, PERIOD, QUANTITY, MONEY, NUMERIC and ORDINAL are not "
            "names and their tokens are tagged O (CoNLL's four types have no dates or numbers)",
            files=("data/valid.json", "data/test.json"),
            files_note="data/valid.json, then data/test.json; its data/train.json, listed in the mirrored snapshot "
            "without contents, is not read",
            about="RONEC v2.0 annotates 15 entity types (its README's table), every sentence annotated anew for v2.0; "
            "the older v1.0 in ronec_v1/ is not read.",
            license="MIT (RONEC v2.0: the repository's LICENSE file, 'Copyright (c) 2018 Stefan Dumitrescu', the "
            "same text as ronec_v1/LICENSE)",
            citation=RONEC_CITATION,
        ),
        NerCorpus(
            "ssj-ner-sl",
            "sl",
            "Slovene",
            "the named-entity annotation of the UD Slovenian-SSJ treebank",
            "UniversalDependencies/UD_Slovenian-SSJ",
            "17011b12eae4e522da4d1eeeffd439085466623c",
            "conllu",
            (("per", "PER"), ("loc", "LOC"), ("org", "ORG"), ("misc", "MISC"), ("deriv-per", "MISC")),
            "per, loc, org and misc -> PER, LOC, ORG and MISC; deriv-per (a possessive adjective formed from a "
            "person's name, such as Jezusovim or Dalíjevih) -> MISC, as CoNLL-2003 tags words derived from names "
            "(the adjective German) MISC rather than O",
            files=("sl_ssj-ud-dev.conllu", "sl_ssj-ud-test.conllu"),
            files_note="sl_ssj-ud-dev.conllu, then sl_ssj-ud-test.conllu, at the commit scala-sl reads; "
            "sl_ssj-ud-train.conllu, listed in the mirrored snapshot without contents, is not read",
            about="The treebank's words carry the named entities of the ssj500k corpus in the MISC column (NER=), "
            "manual annotation of five types: per, loc, org, misc and deriv-per. Only part of the treebank was "
            "annotated for entities, the rest having NER=O on every word: in the two files 37 of the 597 paragraphs "
            "(581 of the 2,532 sentences) have an entity tag, and the other 560 hold 1,396 proper nouns (UPOS "
            "PROPN), every one tagged O. So only the paragraphs (from one '# newpar' comment to the next) in which "
            "some word has an entity tag are read; an annotated paragraph without entities, if there is one, is "
            "dropped with the unannotated ones (in the paragraphs read, 12 proper nouns are tagged O).",
            tagged_paragraphs_only=True,
            license="CC BY-SA 4.0 (UD_Slovenian-SSJ, as its LICENSE.txt and README say; share-alike)",
            citation=SSJ_CITATION,
        ),
        NerCorpus(
            "fullstack-ner-lv",
            "lv",
            "Latvian",
            "the named-entity layer of FullStack-LV, the Latvian multilayer corpus (Gruzitis et al. 2018)",
            "LUMII-AILab/FullStack",
            "1b24076eeb6f628a65578ea84022ede65f881cd4",
            "conllu-ner",
            (
                ("person", "PER"),
                ("GPE", "LOC"),
                ("location", "LOC"),
                ("organization", "ORG"),
                ("entity", "MISC"),
                ("event", "MISC"),
                ("product", "MISC"),
                ("time", "MISC"),
                ("money", "MISC"),
            ),
            "person -> PER; GPE and location -> LOC; organization -> ORG; entity, event, product, time and money "
            "-> MISC, the mapping of EuroEval's fullstack-ner-lv (so MISC here includes times and amounts of money, "
            "unlike CoNLL's MISC)",
            under="NamedEntities/data",
            suffix=".conll2003",
            files_note="the 3,947 .conll2003 files of NamedEntities/data, one paragraph each, read in path order",
            about="Its texts are isolated paragraphs chosen from a balanced Latvian corpus (news, fiction, legal "
            "texts, spoken language and other), annotated by hand in WebAnno.",
            license="CC BY-SA 4.0 (FullStack-LV by AiLab, IMCS University of Latvia, as its README and LICENCE.txt "
            "say; share-alike)",
            citation="Gruzitis, Pretkalnina, Saulite, Rituma, Nespore-Berzkalne, Znotins & Paikens (2018), Creation "
            "of a Balanced State-of-the-Art Multilayer Corpus for NLU, LREC",
        ),
        NerCorpus(
            "elner4-el",
            "el",
            "Greek",
            "elNER-4 (Bartziokas, Mavropoulos & Kotropoulos 2020), Greek newswire articles",
            "nmpartzio/elNER",
            "414b3f9ac3b5d0e087bfeee86c86bb380d7fbd15",
            "spaced",
            (("PERSON", "PER"), ("LOC", "LOC"), ("ORG", "ORG"), ("MISC", "MISC")),
            "PERSON -> PER; LOC, ORG and MISC kept (elNER-4 has CoNLL-2003's four types; elNER-18, EuroEval's "
            "elner, is not used)",
            files=("IOB2/train_elNER4.iob2", "IOB2/dev_elNER4.iob2", "IOB2/test_elNER4.iob2"),
            archive="dataset/elNER4/IOB2.tar.gz",
            files_note="IOB2/train_elNER4.iob2, IOB2/dev_elNER4.iob2 and IOB2/test_elNER4.iob2 in that order, the "
            "members of dataset/elNER4/IOB2.tar.gz, read from the archive",
            license="CC BY-NC-SA 4.0 (elNER, as the badge of its README says; it has no licence file; non-commercial, "
            "share-alike)",
            citation="Bartziokas, Mavropoulos & Kotropoulos (2020), Datasets and Performance Metrics for Greek Named "
            "Entity Recognition, SETN 2020 (11th Hellenic Conference on Artificial Intelligence), ACM, "
            "doi:10.1145/3411408.3411437",
        ),
        NerCorpus(
            "estner-et",
            "et",
            "Estonian",
            "EstNER_new, the new Estonian NER corpus (Sirts 2023), Estonian news and social media texts",
            "TartuNLP/EstNER_new",
            "85c749e61e04c723f1440c03441c3b5174064594",
            "json-nested",
            (
                ("PER", "PER"),
                ("GPE", "LOC"),
                ("LOC", "LOC"),
                ("ORG", "ORG"),
                ("PROD", "MISC"),
                ("EVENT", "MISC"),
                ("TITLE", "O"),
                ("DATE", "O"),
                ("TIME", "O"),
                ("MONEY", "O"),
                ("PERCENT", "O"),
            ),
            "PER, LOC and ORG kept; GPE (geopolitical entities: countries, cities) -> LOC, as EuroEval's elner maps "
            "OntoNotes' GPE; PROD (products, works of art) and EVENT -> MISC; TITLE (titles and professions, common "
            "nouns such as peaminister or peatreener, not names) and the numeric and time types DATE, TIME, MONEY "
            "and PERCENT are not names and their tokens are tagged O (EuroEval's Estonian set, estner, built from "
            "tartuNLP/EstNER, maps DATE, TIME, PERCENT and MONEY to O in its later script; the examples of its "
            "documentation show GPE and TITLE as MISC, which is not followed here)",
            files=("EstNER_new_dev.json", "EstNER_new_test.json"),
            files_note="EstNER_new_dev.json (882 sentences), then EstNER_new_test.json (890); EstNER_new_train.json, "
            "listed in the mirrored snapshot without contents, is not read, so train, val and test are all cut "
            "from the pooled dev and test sentences",
            about="EstNER_new annotates eleven types (PER, GPE, LOC, ORG, PROD, EVENT, DATE, TIME, TITLE, MONEY, "
            "PERCENT) in up to three levels, an entity nested in another on the next level (ner_1, ner_2, ner_3 on "
            "every word): only ner_1, the outermost entity, is read, so the GPE Tartu in the ORG Tartu ülikoolis "
            "is not an entity here, nor is an entity nested in one whose type is tagged O.",
            nesting=("documents", "sentences", "words"),
            word_fields=("word", "ner_1"),
            license="CC BY 4.0 (EstNER_new, as its LICENCE file and README say)",
            citation="Sirts (2023), Estonian Named Entity Recognition: New Datasets and Models, NoDaLiDa 2023 "
            "(aclanthology.org/2023.nodalida-1.76); the corpus's README gives no citation of its own",
        ),
        *(
            _wikineural(code, language)
            for code, language in (
                ("es", "Spanish"),
                ("fr", "French"),
                ("it", "Italian"),
                ("nl", "Dutch"),
                ("pl", "Polish"),
            )
        ),
    )
}
