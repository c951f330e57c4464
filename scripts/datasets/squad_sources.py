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
    )
}
