"""The pinned sources of the reading-comprehension sets built from one SQuAD-format file
(``{"data": [{"paragraphs": [{"context", "qas": [{"id", "question", "answers"}]}]}]}``,
optionally gzipped), read by :mod:`scripts.datasets.squad`. Adding such a set is one entry
in ``SQUAD`` and a run of ``python -m scripts.datasets.build <name>``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SquadSet:
    dataset: str
    code: str  # the dataset's language (ISO 639-1)
    language: str
    repo: str
    commit: str
    file: str  # a SQuAD v1.1 JSON file; gzipped when its name ends with .gz
    about: str  # what the source is (the description's words)
    license: str
    citation: str
    sizes: tuple[tuple[str, int], ...] = (("test", 1024), ("val", 128), ("train", 512))
    # the source lists a question once per accepted answer: a repeat within a paragraph adds
    # its answers to the question's row instead of being dropped (scripts.datasets.squad)
    merge_repeats: bool = False

    @property
    def source(self) -> str:
        return f"github.com/{self.repo} @ {self.commit}: {self.file}"


SQUAD_CITATION = (
    "Rajpurkar, Zhang, Lopyrev & Liang (2016), SQuAD: 100,000+ Questions for Machine Comprehension of Text, EMNLP"
)

# EuroEval's languages whose reading-comprehension source (or a SQuAD-style one) is in a
# public GitHub repository with a licence that allows redistribution.
SQUAD: dict[str, SquadSet] = {
    source.dataset: source
    for source in (
        SquadSet(
            "squad-it",
            "it",
            "Italian",
            "crux82/squad-it",
            "86a19baebed654d07c4e790c07d39a02ceb6b15f",
            "SQuAD_it-test.json.gz",
            "SQuAD-it (Croce, Zelenanska & Basili 2018; EuroEval's Italian reading-comprehension source): SQuAD v1.1 "
            "semi-automatically translated into Italian, a question kept where its answer was found in the "
            "translated paragraph; its test file is SQuAD v1.1's development set (2,010 paragraphs, 7,609 "
            "questions, one to six answers each)",
            "CC BY-SA 4.0 (the repository's README.md: 'distributed under the CC BY-SA 4.0 license'; share-alike)",
            "Croce, Zelenanska & Basili (2018), Neural Learning for Question Answering in Italian, AI*IA 2018; "
            + SQUAD_CITATION,
        ),
        SquadSet(
            "piaf-fr",
            "fr",
            "French",
            "etalab-ia/piaf-code",
            "86948a73b26498948e70ad92e4b9b0231eac81f7",
            "piaf-v1.0.json",
            "PIAF v1.0 (Keraron et al. 2020; Etalab's 'Pour une IA francophone'): 3,835 questions written in French "
            "by volunteers on an annotation platform, over 761 paragraphs of 191 French Wikipedia articles, in "
            "SQuAD's format with one extractive answer each",
            "MIT (the repository's LICENSE, 'Copyright (c) 2020 DINUM/Etalab'); the paragraphs are French Wikipedia "
            "text (CC BY-SA)",
            "Keraron, Lancrenon, Bras, Allary, Moyse, Scialom, Soriano-Morales & Staiano (2020), Project PIAF: "
            "Building a Native French Question-Answering Dataset, LREC 2020",
        ),
        SquadSet(
            "faquad-pt",
            "pt",
            "Portuguese",
            "liafacom/faquad",
            "6ad978f20672bb41625b3b71fbe4a88b893d0a86",
            "data/dataset.json",
            "FaQuAD (Sayama, Araujo & Fernandes 2019): 900 questions written in Brazilian Portuguese over 249 "
            "paragraphs of 39 documents of Brazilian higher education (federal university regulations and the "
            "Brazilian Ministry of Education's pages), in SQuAD's format; EuroEval's Portuguese reading "
            "comprehension set (MultiWikiQA-pt) is on the Hugging Face Hub only",
            "CC BY 4.0 (the repository's LICENSE.txt)",
            "Sayama, Araujo & Fernandes (2019), FaQuAD: Reading Comprehension Dataset in the Domain of Brazilian "
            "Higher Education, BRACIS 2019",
            sizes=(("test", 512), ("val", 64), ("train", 256)),
        ),
        SquadSet(
            "polaq-pl",
            "pl",
            "Polish",
            "tjur/polaq_master_thesis",
            "685335730b1283257ce1e696330aed18a9ece4ef",
            "polaq_test/data/polaq_dataset_manual.json",
            "PolAQ's manual set (Jurkiewicz 2020, a master's thesis; EuroEval's Polish reading-comprehension set, "
            "PoQuAD, is on the Hugging Face Hub only): SQuAD v1.1's questions and answers machine-translated into "
            "Polish (Google Translate; answers also by rules per answer type), each translated answer looked up in "
            "sentences of the matching Polish Wikipedia article that a doc2vec model ranked similar, the proposed "
            "sentences accepted or rejected by hand by the author, and some questions reworded by rule; the contexts "
            "are Polish Wikipedia paragraphs holding the accepted sentence (not translations of SQuAD's "
            "paragraphs). 5,535 question-answer pairs, one answer each, over 1,969 paragraphs of 344 articles; "
            "integer ids, written here as strings. The repository's separate hand-written test set "
            "(polaq_dataset_test.json, 164 questions) is not used",
            "MIT (the repository's LICENSE, 'Copyright (c) 2020 Tomasz Jurkiewicz') over the translated SQuAD "
            "questions (SQuAD: CC BY-SA 4.0); the paragraphs are Polish Wikipedia text (CC BY-SA)",
            "Jurkiewicz (2020), PolAQ (Polish Answers and Questions), master's thesis, "
            "github.com/tjur/polaq_master_thesis; " + SQUAD_CITATION,
            merge_repeats=True,
        ),
        SquadSet(
            "squad-sv",
            "sv",
            "Swedish",
            "susumu2357/SQuAD_v2_sv",
            "4bbd3fd1402798c16dfb08ccc3bb49bd445cce95",
            "squad_dev_v2_sv.json.gz",
            "SQuAD_v2_sv (Okazawa 2021): SQuAD 2.0's development set machine-translated into Swedish with the "
            "Google Translate API, each answer marked in its paragraph before translation and read back from the "
            "marks (pairs that did not translate cleanly left out, about 10 %); its answerable questions are "
            "SQuAD v1.1-style extractive questions with one to six answers each (5,211 of 11,156 questions over "
            "1,204 paragraphs of 35 articles). EuroEval's Swedish reading-comprehension set (MultiWikiQA-sv) is on the "
            "Hugging Face Hub only; the repository's training file is not in the mirror",
            "Apache-2.0 (the repository's LICENSE); SQuAD 2.0 itself is CC BY-SA 4.0",
            "Okazawa (2021), Swedish translation of SQuAD2.0, github.com/susumu2357/SQuAD_v2_sv; "
            "Rajpurkar, Jia & Liang (2018), Know What You Don't Know: Unanswerable Questions for SQuAD, ACL",
        ),
    )
}
