"""The pinned public sources of every folder the builders write (name → source).

Adding a language's datasets is one entry here (``SCALA`` for its Universal Dependencies
treebank, ``SIB200`` for its SIB-200 file, ``UNER`` for its Universal NER corpus,
``NER_CORPORA`` for another NER corpus) and a run of ``python -m scripts.datasets.build``.
The folders scala-da, scala-de, scala-en and scala-nb were built before these builders by
an earlier procedure (their ``dataset.json`` says how) and are not rebuilt here.
"""

from __future__ import annotations

from dataclasses import dataclass

UD_CITATION = (
    "de Marneffe, Manning, Nivre & Zeman (2021), Universal Dependencies, Computational Linguistics 47(2); "
    "the {treebank} treebank's own citation is in its README; task design after ScaLA (Nielsen 2023, "
    "ScandEval, NoDaLiDa)"
)
SIB_REPO = "dadelani/sib-200"
SIB_COMMIT = "593cea88519930f776c1a4a1980b6a35b39dca57"
SIB_LICENSE = "CC BY-SA 4.0 (FLORES-200 sentences); SIB-200 annotations and code Apache-2.0"
SIB_CITATION = (
    "Adelani et al. (2024), SIB-200: A Simple, Inclusive, and Big Evaluation Dataset for Topic Classification in "
    "200+ Languages and Dialects, EACL; NLLB Team (2022), No Language Left Behind (FLORES-200)"
)


@dataclass(frozen=True)
class Treebank:
    code: str  # the dataset's language (ISO 639-1)
    language: str
    name: str  # e.g. "Polish-PDB"
    commit: str
    files: tuple[str, ...]
    license: str
    nouns_capitalised: bool = False

    @property
    def repo(self) -> str:
        return f"UniversalDependencies/UD_{self.name}"

    @property
    def dataset(self) -> str:
        return f"scala-{self.code}"

    @property
    def non_commercial(self) -> bool:
        return "NC" in self.license


def _tb(code, language, name, commit, prefix, splits, license, **kw) -> Treebank:
    return Treebank(code, language, name, commit, tuple(f"{prefix}-ud-{s}.conllu" for s in splits), license, **kw)


SA4, NCSA3, NCSA4 = "CC BY-SA 4.0", "CC BY-NC-SA 3.0", "CC BY-NC-SA 4.0"
GPL3 = "GNU GPL 3.0"  # UD_Catalan-AnCora up to UD 2.8, inherited from AnCora (its README)
DT = ("dev", "test")
SCALA: dict[str, Treebank] = {
    tb.dataset: tb
    for tb in (
        _tb(
            "sq",
            "Albanian",
            "Albanian-STAF",
            "22ae839b1d7c78005e900dd97747f0739b233c42",
            "sq_staf",
            ("train", "dev", "test"),
            SA4,
        ),
        _tb("be", "Belarusian", "Belarusian-HSE", "1233cdd9e512a426e31cdcf95dcb0bd3a4752e54", "be_hse", DT, SA4),
        _tb("bg", "Bulgarian", "Bulgarian-BTB", "b5cd6324b2015dbf3cd328ddebefc54dceddd202", "bg_btb", DT, NCSA3),
        _tb("ca", "Catalan", "Catalan-AnCora", "93a3ab9be7a03fa93da702b4f34ec0df418ae327", "ca_ancora", DT, GPL3),
        _tb("hr", "Croatian", "Croatian-SET", "54322513ea2a96eae0b974d1702d327d5785078f", "hr_set", DT, SA4),
        _tb("cs", "Czech", "Czech-PUD", "f68c66ccd8ab08fa343783a806fed446b905c07e", "cs_pud", ("test",), SA4),
        _tb("nl", "Dutch", "Dutch-Alpino", "95e374a608d114ec6c6b32f0fbd5f324d29ef286", "nl_alpino", DT, SA4),
        _tb("et", "Estonian", "Estonian-EWT", "018e4ff3d004b7da291919d2e31aad65342dcc48", "et_ewt", DT, NCSA4),
        _tb(
            "fo",
            "Faroese",
            "Faroese-FarPaHC",
            "65e3d0ad051167ff508e7b13175deab5ba5d7c09",
            "fo_farpahc",
            ("train", "dev", "test"),
            SA4,
        ),
        _tb("fi", "Finnish", "Finnish-TDT", "5e3a88a671ea673fa330e10cc59f54da587a95a7", "fi_tdt", DT, SA4),
        _tb("fr", "French", "French-GSD", "830e2782304af08b3cc1c9250475343e04274d81", "fr_gsd", DT, SA4),
        _tb("el", "Greek", "Greek-GDT", "1485f849d5ac7fcafa092a75804b41dbb1a3f194", "el_gdt", DT, NCSA3),
        _tb("hu", "Hungarian", "Hungarian-Szeged", "8f08ba648e6f6345212a721b7cb1ad78c5924f0e", "hu_szeged", DT, NCSA3),
        _tb("is", "Icelandic", "Icelandic-Modern", "1544211214896c757bde3d09beeb06cfc4c5a965", "is_modern", DT, SA4),
        _tb("it", "Italian", "Italian-ISDT", "689c1bf3c7d132903d2196ac69b76a0933c90997", "it_isdt", DT, NCSA3),
        _tb("lv", "Latvian", "Latvian-LVTB", "aaedfc18ee5ff98d93fce737a97f9f9ca272b074", "lv_lvtb", ("dev",), SA4),
        _tb(
            "lt", "Lithuanian", "Lithuanian-ALKSNIS", "46ffdba3396a793c3f0f47435ff9b7066c9aefa0", "lt_alksnis", DT, SA4
        ),
        _tb("pl", "Polish", "Polish-PDB", "27235e131faed50feb291faed1ff2fa5389a06be", "pl_pdb", DT, NCSA4),
        _tb("pt", "Portuguese", "Portuguese-Bosque", "5de7ac34028ff6d1718031a4b0ae895717ed8dbe", "pt_bosque", DT, SA4),
        _tb("ro", "Romanian", "Romanian-RRT", "cc00bf852bc3c19ac345457eef8b3e5665392a72", "ro_rrt", DT, SA4),
        _tb("sr", "Serbian", "Serbian-SET", "c88193deceecd1c5332f927c1aa0f888085f63f7", "sr_set", DT, SA4),
        _tb("sk", "Slovak", "Slovak-SNK", "d1ab58f827508e7c18610b931786f3b4a3a6e1be", "sk_snk", DT, SA4),
        _tb("sl", "Slovenian", "Slovenian-SSJ", "17011b12eae4e522da4d1eeeffd439085466623c", "sl_ssj", DT, SA4),
        _tb("es", "Spanish", "Spanish-GSD", "57c045644664e5c1e169263cc4e3b95e40c078ba", "es_gsd", DT, SA4),
        _tb("sv", "Swedish", "Swedish-Talbanken", "30067217d275233ed460d0c0abafeaf22d63a3d2", "sv_talbanken", DT, SA4),
        _tb("uk", "Ukrainian", "Ukrainian-IU", "21f641ba6109044ce9aafd4b2cbfa20a4ac6e479", "uk_iu", DT, NCSA4),
    )
}
"""Catalan is read at UD release 2.8 (tag r2.8, the last release whose dev and test files
the mirror holds; from UD 2.9 the treebank is CC BY 4.0 and the mirror lists those files
without contents; its train file is absent at every commit), so ``scala-ca`` carries the
GNU GPL 3.0 of that release. Languages without a treebank here: Bosnian (no UD treebank),
Luxembourgish (UD_Luxembourgish-LuxBank @ 7a01d1c, CC BY-SA 4.0, has one 9 KB test file
of 20 translated grammar examples: the builder would make 9 test, 2 val and 8 train rows,
too few to measure anything)."""


@dataclass(frozen=True)
class SibLanguage:
    code: str
    language: str
    flores: str  # SIB-200's folder, e.g. "pol_Latn"

    @property
    def dataset(self) -> str:
        return f"sib200-{self.code}"

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(f"data/annotated/{self.flores}/{name}" for name in ("train.tsv", "dev.tsv", "test.tsv"))


_SIB = {
    "sq": ("Albanian", "als_Latn"),
    "be": ("Belarusian", "bel_Cyrl"),
    "bs": ("Bosnian", "bos_Latn"),
    "bg": ("Bulgarian", "bul_Cyrl"),
    "ca": ("Catalan", "cat_Latn"),
    "hr": ("Croatian", "hrv_Latn"),
    "cs": ("Czech", "ces_Latn"),
    "da": ("Danish", "dan_Latn"),
    "nl": ("Dutch", "nld_Latn"),
    "en": ("English", "eng_Latn"),
    "et": ("Estonian", "est_Latn"),
    "fo": ("Faroese", "fao_Latn"),
    "fi": ("Finnish", "fin_Latn"),
    "fr": ("French", "fra_Latn"),
    "de": ("German", "deu_Latn"),
    "el": ("Greek", "ell_Grek"),
    "hu": ("Hungarian", "hun_Latn"),
    "is": ("Icelandic", "isl_Latn"),
    "it": ("Italian", "ita_Latn"),
    "lv": ("Latvian", "lvs_Latn"),
    "lt": ("Lithuanian", "lit_Latn"),
    "lb": ("Luxembourgish", "ltz_Latn"),
    "nb": ("Norwegian Bokmål", "nob_Latn"),
    "pl": ("Polish", "pol_Latn"),
    "pt": ("Portuguese", "por_Latn"),
    "ro": ("Romanian", "ron_Latn"),
    "sr": ("Serbian", "srp_Cyrl"),
    "sk": ("Slovak", "slk_Latn"),
    "sl": ("Slovenian", "slv_Latn"),
    "es": ("Spanish", "spa_Latn"),
    "sv": ("Swedish", "swe_Latn"),
    "uk": ("Ukrainian", "ukr_Cyrl"),
}
SIB200: dict[str, SibLanguage] = {
    lang.dataset: lang for lang in (SibLanguage(code, name, flores) for code, (name, flores) in _SIB.items())
}


XQUAD_REPO = "google-deepmind/xquad"
XQUAD_COMMIT = "60cac411649156efb6aab9dd4c9cde787a2c0345"  # the commit of xquad-en and xquad-de
XQUAD_LICENSE = "CC BY-SA 4.0"
XQUAD_CITATION = (
    "Artetxe, Ruder & Yogatama (2020), On the Cross-lingual Transferability of Monolingual Representations, ACL"
)


@dataclass(frozen=True)
class XquadLanguage:
    code: str
    language: str

    @property
    def dataset(self) -> str:
        return f"xquad-{self.code}"

    @property
    def file(self) -> str:
        return f"xquad.{self.code}.json"


# XQuAD's European languages without a reading-comprehension set here (xquad-de and xquad-en
# were built before these builders; ru and tr are not EuroEval languages).
XQUAD: dict[str, XquadLanguage] = {
    lang.dataset: lang
    for lang in (XquadLanguage("el", "Greek"), XquadLanguage("es", "Spanish"), XquadLanguage("ro", "Romanian"))
}


UNER_LICENSE = "CC BY-SA 4.0 (Universal NER annotations and the UD {treebank} sentences; share-alike)"
UNER_CITATION = (
    "Mayhew et al. (2024), Universal NER: A Gold-Standard Multilingual Named Entity Recognition Benchmark, "
    "NAACL; the sentences are those of the UD {treebank} treebank (its README has its citation)"
)


@dataclass(frozen=True)
class UnerCorpus:
    code: str
    language: str
    name: str  # e.g. "Croatian-SET": the repository UniversalNER/UNER_<name>, built on UD_<name>
    commit: str
    prefix: str  # the files' stem, e.g. "hr_set"
    note: str = ""  # what the description says of the tokens, where there is something to say

    @property
    def repo(self) -> str:
        return f"UniversalNER/UNER_{self.name}"

    @property
    def dataset(self) -> str:
        return f"uner-{self.code}"

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(f"{self.prefix}-ud-{s}.iob2" for s in ("train", "dev", "test"))


# EuroEval's languages with a UNER v1 corpus and no NER set here (EuroEval's uner-sk and
# uner-sr use the same corpora; its Swedish NER set is SUC 3.0, another corpus, so uner-sv is
# not comparable with it). Each LICENSE.txt says CC BY-SA 4.0, like its UD treebank.
UNER: dict[str, UnerCorpus] = {
    corpus.dataset: corpus
    for corpus in (
        UnerCorpus("hr", "Croatian", "Croatian-SET", "20dcb2ef6b6bf9d5e03605a74c4d87215a1574c1", "hr_set"),
        UnerCorpus(
            "pt",
            "Portuguese",
            "Portuguese-Bosque",
            "f2c2ad67aed900385fbe5d655af41f439c9b3333",
            "pt_bosque",
            "the treebank's syntactic words: a contraction such as 'dos' appears as 'de os'",
        ),
        UnerCorpus("sk", "Slovak", "Slovak-SNK", "886e7c6d7e066e23246af5070d115a036a465c6d", "sk_snk"),
        UnerCorpus(
            "sr",
            "Serbian",
            "Serbian-SET",
            "0d9685f001c10895572d844ef789c53dade0e265",
            "sr_set",
            "in Latin script, as in the source",
        ),
        UnerCorpus("sv", "Swedish", "Swedish-Talbanken", "dbb692085267da83a35d1e1d2c111671b3c7c46b", "sv_talbanken"),
    )
}


@dataclass(frozen=True)
class NerCorpus:
    """A named-entity corpus of its own (not Universal NER), read by :mod:`scripts.datasets.ner_corpora`."""

    dataset: str
    code: str
    language: str
    title: str  # how the description names the corpus
    repo: str
    commit: str
    # "conll" (token, tag), "spaced" (token, tag, space-separated), "indexed" (index, token, tag), "conllup"
    # (CoNLL-U Plus), "conllu-ner" (CoNLL-U with entity columns after FEATS), "standoff" (brat)
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
# sentences, far more than the 3,328 rows a set takes. fullstack-ner-lv is EuroEval's name, corpus
# (FullStack-LV's NamedEntities layer) and tag mapping (time and money -> MISC too). EuroEval's
# Greek set, elner, is elNER-18 (OntoNotes' eighteen types, dates and numbers -> MISC); elner4-el
# is elNER-4, the same sentences annotated by the authors with CoNLL-2003's four types, so the
# two are not comparable.
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
