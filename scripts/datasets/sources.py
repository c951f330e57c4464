"""The pinned public sources of every folder the builders write (name → source).

Adding a language's datasets is one entry here (``SCALA`` for its Universal Dependencies
treebank, ``SIB200`` for its SIB-200 file, ``UNER`` for its Universal NER corpus,
``NER_CORPORA`` in :mod:`scripts.datasets.ner_sources` for another NER corpus,
``SQUAD`` in :mod:`scripts.datasets.squad_sources` for a SQuAD-format reading-comprehension file,
``SENTIMENT`` for a sentiment corpus, ``COPA`` for a translation of COPA, ``STORYCLOZE`` in
:mod:`scripts.datasets.storycloze` for an XStoryCloze language, ``KNOWLEDGE`` in
:mod:`scripts.datasets.knowledge_sources` for exam questions, ``SIMPLIFICATION`` in
:mod:`scripts.datasets.simplification` for a simplification corpus) and a run of
``python -m scripts.datasets.build``.
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
    splits: tuple[str, ...] = ("train", "dev", "test")  # the files read, and pooled, in this order
    files_note: str = ""  # what the description says of the files instead of their list, if set

    @property
    def repo(self) -> str:
        return f"UniversalNER/UNER_{self.name}"

    @property
    def dataset(self) -> str:
        return f"uner-{self.code}"

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(f"{self.prefix}-ud-{s}.iob2" for s in self.splits)


# EuroEval's languages with a UNER v1 corpus and no NER set here (EuroEval's uner-sk and
# uner-sr use the same corpora; its Swedish NER set is SUC 3.0, another corpus, so uner-sv is
# not comparable with it). Each LICENSE.txt says CC BY-SA 4.0, like its UD treebank. uner-en
# replaced conll-en (withdrawn 2026-11-27: CoNLL-2003's Reuters RCV1 text may not be
# redistributed); EuroEval's English NER set is CoNLL-2003, so uner-en is not comparable with it.
# UNER_English-EWT's en_ewt-ud-train.iob2 is listed in the mirrored snapshot without contents,
# so uner-en reads the dev and test files only, as scala-en does with UD_English-EWT.
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
        UnerCorpus(
            "en",
            "English",
            "English-EWT",
            "8ed072de2fd24022cc62458997fe96a8fe191ea4",
            "en_ewt",
            splits=("dev", "test"),
            files_note="en_ewt-ud-dev.iob2, then en_ewt-ud-test.iob2; en_ewt-ud-train.iob2, listed in the mirrored "
            "snapshot without contents, is not read",
        ),
    )
}


@dataclass(frozen=True)
class PinnedCorpus:
    """A corpus in a GitHub repository at a pinned commit, and the set built from it."""

    dataset: str
    code: str
    language: str
    title: str  # how the description names the corpus
    repo: str
    commit: str


@dataclass(frozen=True)
class SentimentCorpus(PinnedCorpus):
    """A sentiment corpus of JSON-list or delimited-text files, read by :mod:`scripts.datasets.sentiment`."""

    files: tuple[str, ...]  # read, and drawn from, in this order
    text_field: str
    label_field: str
    labels: tuple[tuple[str, str], ...]  # the source's label → Glossa's
    mapping: str  # the description's words for ``labels``
    about: str  # what the texts are and who labelled them
    order: str  # the description's words for which file gives which split
    license: str
    citation: str
    columns: tuple[str, ...] = ()  # a headerless CSV file's column names; () for JSON-list files
    delimiter: str = ","  # between a CSV line's fields
    quoted: bool = True  # False: fields are taken as written, quote characters included (no CSV quoting)
    unmapped: tuple[str, ...] = ()  # source labels whose records are left out (and counted per label)

    @property
    def source(self) -> str:
        return f"github.com/{self.repo} @ {self.commit}: {', '.join(self.files)}"


LTEC = "sub-corpora/sentiment-analysis/ltec-sentiment-annotated-{}.json"
HUSST_NOTE = (
    "HuSST's sst_test.json carries no labels (they are withheld for HuLU's own evaluation) and its sst_dev.json is "
    "skewed (697 negative, 435 neutral, 33 positive of 1,165), so both are left unread"
)
VALENCE = SentimentCorpus(
    "valence-et", "et", "Estonian", "the corpus of the Estonian valence classifier EKT1/valence "
    "(Pajupuu, Altrov & Pajupuu 2016)", "EKT1/valence", "c04db8e397ec01e5cc2c8dd6be2abd86aae91cd7",
    ("valence/korpus.csv",), "text", "label",
    (("positiivne", "positive"), ("neutraalne", "neutral"), ("negatiivne", "negative")),
    "positiivne -> positive, neutraalne -> neutral, negatiivne -> negative",
    "paragraphs of Estonian online dailies and weeklies of different rubrics and of reader comments, each "
    "labelled positive, neutral or negative by native readers. The project's later release, the Estonian "
    "Valence Corpus with a fourth label (mixed), is EuroEval's Estonian sentiment source; this file holds "
    "2,122 paragraphs and no mixed label.",
    "All three splits come from valence/korpus.csv (label, text; the corpus has no splits of its own).",
    "GNU GPL 3.0 (the repository's LICENSE.txt and setup.py; its README asks users of valence/korpus.csv to "
    "cite the paper)",
    "Pajupuu, Altrov & Pajupuu (2016), Identifying Polarity in Different Text Types, Folklore: Electronic "
    "Journal of Folklore 64, 25-42", ("label", "text"),
)  # fmt: skip
KINIT_DOMAINS = ("accomodation", "books", "cars", "games", "mobiles", "movies")  # the repository's spelling
SLOVAKBERT_REVIEWS = SentimentCorpus(
    "slovakbert-reviews-sk", "sk", "Slovak", "the sentiment test sets of the SlovakBERT paper "
    "(kinit-sk/slovakbert-auxiliary, Pikuliak et al. 2022)", "kinit-sk/slovakbert-auxiliary",
    "004af86de8afc1854ec75db0f7177e9aa65d64db",
    tuple(f"sentiment_reviews/kinit_golden_{domain}.csv" for domain in KINIT_DOMAINS), "text", "label",
    (("1", "positive"), ("0", "neutral"), ("-1", "negative")),
    "1 -> positive, 0 -> neutral, -1 -> negative",
    "sentences of Slovak reviews of accommodation, books, cars, games, mobile phones and films, each labelled "
    "positive, neutral or negative by hand (few are neutral). EuroEval's Slovak sentiment set (CSFD-sk) is on "
    "the Hugging Face Hub only.",
    "The six domain files are read in that order (the repository's seventh, kinit_golden_stress.csv, holds "
    "constructed sentences that stress-test negation and the like, and is left out), so the test split takes "
    "the first domains' sentences and the train split the last ones'.",
    "Apache License 2.0 (the repository's LICENSE)",
    "Pikuliak, Grivalský, Konôpka, Blšták, Tamajka, Bachratý, Šimko, Balážik, Trnka & Uhlárik (2022), "
    "SlovakBERT: Slovak Masked Language Model, Findings of EMNLP 2022", ("text", "label"),
)  # fmt: skip
POEM_SENTIMENT = SentimentCorpus(
    "poem-sentiment-en", "en", "English", "Poem Sentiment (google-research-datasets/poem-sentiment, Sheng & Uthus "
    "2020)", "google-research-datasets/poem-sentiment", "612e9a1f86799126c68f0c5d9c3f1fc28f88068f",
    ("data/test.tsv", "data/dev.tsv", "data/train.tsv"), "verse", "label",
    (("-1", "negative"), ("0", "neutral"), ("1", "positive")),
    "-1 -> negative, 0 (no impact) -> neutral, 1 -> positive; 2 (mixed) is left out",
    "single lines of English poems from Project Gutenberg (lower-case in the source), each labelled negative, "
    "no impact, positive or mixed. It replaces tweeteval-sentiment-en, withdrawn on 2026-11-27 because its tweets "
    "(SemEval-2017 Task 4) come under Twitter terms that forbid passing them on.",
    "The repository's test, dev and train files (id, verse, label; tab-separated, no header) are read in that "
    "order, so the test split holds every verse of the official test and dev splits and then verses of the train "
    "file, and val and train come from the train file. The pool is smaller than 2048 + 256 + 1024 rows, so each "
    "split gets that share of it (the remainder to test).",
    "CC BY 4.0 (the repository's LICENSE, Creative Commons Attribution 4.0 International)",
    "Sheng & Uthus (2020), Investigating Societal Biases in a Poetry Composition System, Proceedings of the Second "
    "Workshop on Gender Bias in Natural Language Processing (GeBNLP), pages 93-106; arXiv:2011.02686",
    ("id", "verse", "label"), "\t", False, ("2",),
)  # fmt: skip
SENTICOMMENTS_SARCASTIC = ("+1s", "-1s", "+Ms", "-Ms")  # the label with the sarcasm suffix s
SENTICOMMENTS = SentimentCorpus(
    "senticomments-sr", "sr", "Serbian", "SentiComments.SR (Batanović, Cvetanović & Nikolić 2020)",
    "vukbatanovic/SentiComments.SR", "294b3be77fa3c4eee4b18fa9eb9627cd45abdccc",
    ("SentiComments.SR.corr.txt",), "text", "label",
    (("+1", "positive"), ("+NS", "neutral"), ("-NS", "neutral"), ("-1", "negative")),
    "+1 -> positive, -1 -> negative, +NS and -NS -> neutral (NS marks a comment without sentiment; its sign, a "
    "polarity lean, is set aside as in the authors' own four-way task, whose classes are NS, M, +1 and -1); left "
    "out are +M and -M (mixed sentiment, mainly positive or mainly negative) and every label carrying the suffix s "
    "(sarcasm: +1s, -1s, +Ms, -Ms), which do not map onto one of the three labels",
    "comments on films by visitors of the Serbian film-review site kakavfilm.com, each labelled by two annotators "
    "working together with one of six labels (+1, -1, +M, -M, +NS, -NS), a suffix s marking sarcasm. The texts "
    "are the corrected, manually proofread variant (SentiComments.SR.corr.txt; the original texts are in "
    "SentiComments.SR.orig.txt, with the same labels), mostly in Serbian Latin script: 26 of the 3,490 comments "
    "contain Cyrillic, kept as written (the prompts are in Cyrillic). The repository's movie and book "
    "verification corpora (labels of six annotators each) are left unread. EuroEval's Serbian sentiment set "
    "(MMS-sr) is on the Hugging Face Hub only.",
    "All three splits come from SentiComments.SR.corr.txt (tab-separated: label, comment ID, text; read without "
    "quoting; the corpus has no splits of its own).",
    "CC BY-NC-SA 4.0 (SentiComments.SR, as its LICENSE.md and README say: non-commercial, share-alike; for a "
    "commercial product the README asks to contact the author)",
    "Batanović, Cvetanović & Nikolić (2020), A versatile framework for resource-limited sentiment articulation, "
    "annotation, and analysis of short texts, PLoS ONE 15(11): e0242050",
    ("label", "id", "text"), "\t", False, ("+M", "-M", *SENTICOMMENTS_SARCASTIC),
)  # fmt: skip
# EuroEval's languages without a sentiment set here whose EuroEval source (or an equivalent)
# has its data files in a public GitHub repository under a licence that allows passing on a
# sample. lv-twitter-sentiment-lv is EuroEval's latvian-twitter-sentiment source; husst-hu is
# EuroEval's husst source (EuroEval draws its splits its own way, so the samples differ).
SENTIMENT: dict[str, SentimentCorpus] = {
    corpus.dataset: corpus
    for corpus in (
        SentimentCorpus(
            "lv-twitter-sentiment-lv",
            "lv",
            "Latvian",
            "the sentiment sub-corpus of the Latvian Twitter Eater Corpus (LTEC, Sproģis & Rikters 2020)",
            "Usprogis/Latvian-Twitter-Eater-Corpus",
            "a264d72111b4cd88067545d32650319e109da6ac",
            (LTEC.format("test"), LTEC.format("train")),
            "tweet_text",
            "sentiment",
            (("pos", "positive"), ("neu", "neutral"), ("neg", "negative")),
            "pos -> positive, neu -> neutral, neg -> negative",
            "Latvian tweets about food and eating (2011-2020), each labelled positive, neutral or negative by human "
            "annotators. Tweets are verbatim: user mentions (@name) and links are not masked, as in the source.",
            "The test split is the whole of the source's test file (the paper's test set) followed by tweets of its "
            "train file; val and train come from the train file.",
            "MIT (the repository's LICENSE, © 2020 Usprogis); the tweets remain subject to the Twitter/X terms of "
            "service",
            "Sproģis & Rikters (2020), What Can We Learn From Almost a Decade of Food Tweets, Baltic HLT 2020",
        ),
        SentimentCorpus(
            "husst-hu",
            "hu",
            "Hungarian",
            "HuSST, the Hungarian Stanford Sentiment Treebank of the HuLU benchmark (Ligeti-Nagy et al. 2024)",
            "nytud/HuSST",
            "05a9250b1c41419a0da8fe73c4e2b82f262a3383",
            ("data/sst_train.json",),
            "Sent",
            "label",
            (("positive", "positive"), ("neutral", "neutral"), ("negative", "negative")),
            "HuSST's positive, neutral and negative, unchanged",
            "the full sentences of the Stanford Sentiment Treebank (English film-review sentences) translated into "
            "Hungarian and re-annotated for sentiment on a three-point scale.",
            f"All three splits come from data/sst_train.json: {HUSST_NOTE}.",
            "CC BY-SA 4.0 (HuSST, as its LICENSE.md says; share-alike)",
            "Ligeti-Nagy et al. (2024), HuLU: Hungarian Language Understanding Benchmark Kit, LREC-COLING 2024; "
            "Socher et al. (2013), Recursive Deep Models for Semantic Compositionality Over a Sentiment Treebank, "
            "EMNLP",
        ),
        VALENCE,
        SLOVAKBERT_REVIEWS,
        POEM_SENTIMENT,
        SENTICOMMENTS,
    )
}


XCOPA_REPO = "cambridgeltl/xcopa"
XCOPA_COMMIT = "e2e9d7f105a758ee869cd13e0fe251ef93a29840"
XCOPA_ABOUT = (
    "XCOPA (Ponti et al. 2020): the Choice of Plausible Alternatives (COPA) validation and test items, translated "
    "from English and re-annotated by native speakers; its 'changed' flag, kept in no row, marks items adapted in "
    "translation"
)
XCOPA_LICENSE = "CC BY 4.0 (the repository's LICENSE.md; attribution: cite XCOPA and COPA)"
XCOPA_CITATION = (
    "Ponti, Glavaš, Majewska, Liu, Vulić & Korhonen (2020), XCOPA: A Multilingual Dataset for Causal Commonsense "
    "Reasoning, EMNLP; Roemmele, Bejan & Gordon (2011), Choice of Plausible Alternatives: An Evaluation of "
    "Commonsense Causal Reasoning, AAAI Spring Symposium"
)
COPA_CITATION = (
    "Roemmele, Bejan & Gordon (2011), Choice of Plausible Alternatives: An Evaluation of Commonsense Causal "
    "Reasoning, AAAI Spring Symposium"
)


@dataclass(frozen=True)
class CopaSet:
    """A translation of COPA in XCOPA's JSON-lines format, read by :mod:`scripts.datasets.copa`,
    and the language's sentences asking for the cause or the effect (Glossa's own words: the
    sources give only a word naming which is asked)."""

    dataset: str
    code: str
    language: str
    repo: str
    commit: str
    files: tuple[tuple[str, str], ...]  # (split, path); split "val+train": a fifth val, the rest train
    asked: tuple[tuple[str, str], ...]  # the source's question word -> cause or effect
    cause: str  # "What was the cause of this?"
    effect: str  # "What was the result of this?"
    about: str  # what the source is (the description's words)
    license: str
    citation: str
    unreadable_lines: int = 0  # lines of the source that are not JSON and are skipped (none elsewhere)

    @property
    def source(self) -> str:
        return f"github.com/{self.repo} @ {self.commit}: {', '.join(path for _, path in self.files)}"


def _xcopa(code: str, language: str, cause: str, effect: str) -> CopaSet:
    files = (("test", f"data/{code}/test.{code}.jsonl"), ("val+train", f"data/{code}/val.{code}.jsonl"))
    asked = (("cause", "cause"), ("effect", "effect"))
    return CopaSet(
        f"xcopa-{code}", code, language, XCOPA_REPO, XCOPA_COMMIT, files, asked, cause, effect, XCOPA_ABOUT,
        XCOPA_LICENSE, XCOPA_CITATION,
    )  # fmt: skip


VTI = "copa/post-edited/{}.jsonl"
# XCOPA's EuroEval languages (the others are Haitian Creole, Indonesian, Quechua, Swahili,
# Tamil, Thai, Turkish, Vietnamese and Chinese) and COPA-lv, EuroEval's own Latvian
# common-sense source. The questions were not checked by a native reader.
COPA: dict[str, CopaSet] = {
    copa.dataset: copa
    for copa in (
        _xcopa("et", "Estonian", "Mis oli selle põhjus?", "Mis oli selle tagajärg?"),
        _xcopa("it", "Italian", "Qual è stata la causa?", "Qual è stata la conseguenza?"),
        CopaSet(
            "copa-lv",
            "lv",
            "Latvian",
            "LUMII-AILab/VTI-Data",
            "80bff53e024580a41948fc5b62bd65c8028b55cd",
            (("test", VTI.format("test")), ("val", VTI.format("val")), ("train", VTI.format("train"))),
            (("cēlonis", "cause"), ("sekas", "effect")),
            "Kas bija tā cēlonis?",
            "Kādas bija tā sekas?",
            "COPA-lv of the Latvian Language Technology Initiative (Skadiņa, Bakanovs & Darģis 2025; EuroEval's "
            "Latvian common-sense source): SuperGLUE's COPA machine-translated into Latvian (Tilde) and post-edited "
            "by people; the post-edited test file holds 260 of COPA's 500 test items",
            "CC BY 4.0 (copa/LICENSE of the repository)",
            "Skadiņa, Bakanovs & Darģis (2025), First Steps in Benchmarking Latvian in Large Language Models, "
            "RESOURCEFUL-2025; " + COPA_CITATION,
            unreadable_lines=2,
        ),
    )
}
