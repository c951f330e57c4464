"""The pinned public sources of the knowledge sets (four-choice exam questions), read by
:mod:`scripts.datasets.knowledge`: adding one is an entry in ``KNOWLEDGE`` and a run of
``python -m scripts.datasets.build``. ``mmlu-en`` and ``lid-citizenship-de`` were made by hand
before these builders (their ``dataset.json`` says how) and are not rebuilt here."""

from __future__ import annotations

from dataclasses import dataclass

from scripts.datasets.sources import PinnedCorpus


@dataclass(frozen=True)
class ExamSource(PinnedCorpus):
    """Exam questions with four options and one right answer, in a format :mod:`scripts.datasets.knowledge` reads."""

    # "mmlu-json" (a JSON list of {question, choices: four texts, answer: 0-3}, one file per subject) or
    # "zno" (ZNO-Eval's parsed exams: a JSON list of exams, each with its tasks)
    reader: str
    about: str  # what the questions are (the description's words)
    license: str
    citation: str
    files: tuple[str, ...] = ()  # read in this order; or, with ``under``, every ``.json`` file there (sorted)
    under: str = ""
    # (a post-edited file, the file whose first questions it replaces, one for one, the right answer unchanged)
    postedits: tuple[tuple[str, str], ...] = ()
    only: str = ""  # a multilingual source: read only the questions in this language (the source's own name for it)
    # (a file, the split it is the source's own of): each split takes only its file's questions
    split_of: tuple[tuple[str, str], ...] = ()
    skipped: str = "tasks that are not such a question"  # what the questions the reader skips are

    @property
    def source(self) -> str:
        read = ", ".join(self.files) if self.files else f"{self.under}/*.json"
        return f"github.com/{self.repo} @ {self.commit}: {read}"


VTI_COMMIT = "80bff53e024580a41948fc5b62bd65c8028b55cd"  # the commit of copa-lv
MMLU_CITATION = (
    "Hendrycks, Burns, Basart, Zou, Mazeika, Song & Steinhardt (2021), Measuring Massive Multitask Language "
    "Understanding, ICLR"
)

EXAMS_COMMIT = "f859e665de6c370f6214ca5f36a34ace36ada6cb"  # its multilingual files are those of the first commit
EXAMS_FILES = tuple(f"data/exams/multilingual/{split}.jsonl.tar.gz" for split in ("test", "dev", "train"))
EXAMS_LICENSE = (
    "CC BY-SA 4.0 (the repository's README, License: the dataset is licensed under CC-BY-SA 4.0; LICENSE holds its "
    "text); share-alike: this sample is under the same licence"
)
EXAMS_CITATION = (
    "Hardalov, Mihaylov, Zlatkova, Dinkov, Koychev & Nakov (2020), EXAMS: A Multi-subject High School Examinations "
    "Dataset for Cross-lingual and Multilingual Question Answering, EMNLP"
)
# (dataset, language code, the language's name in EXAMS, the source's own splits used)
EXAMS_LANGUAGES = ()
# EXAMS's languages with a board here: built by this table (byte-identical rebuilds), left
# out because the bundled models' seeds were not done in time; an entry moved to EXAMS_LANGUAGES adds the set
EXAMS_NOT_SEEDED = (
    ("exams-bg", "bg", "Bulgarian", True),
    ("exams-hr", "hr", "Croatian", True),
    ("exams-hu", "hu", "Hungarian", True),
    ("exams-it", "it", "Italian", True),
    ("exams-lt", "lt", "Lithuanian", False),  # test questions only: cut into the three splits
    ("exams-pl", "pl", "Polish", True),
    ("exams-pt", "pt", "Portuguese", True),
    ("exams-sq", "sq", "Albanian", True),
    ("exams-sr", "sr", "Serbian", True),
)


def exams_source(dataset: str, code: str, language: str, own_splits: bool) -> ExamSource:
    files = EXAMS_FILES if own_splits else EXAMS_FILES[:1]
    return ExamSource(
        dataset,
        code,
        language,
        "EXAMS (Hardalov et al. 2020), multilingual high-school examination questions",
        "mhardalov/exams-qa",
        EXAMS_COMMIT,
        "exams",
        f"the {language} questions of school-leaving and high-school exams in EXAMS's multilingual split (the "
        "questions alone, without the Wikipedia paragraphs of its with_paragraphs files); only a question with "
        "the four options A to D is read",
        EXAMS_LICENSE,
        EXAMS_CITATION,
        files=files,
        only=language,
        split_of=tuple(zip(files, ("test", "val", "train"), strict=True)) if own_splits else (),
        skipped="questions with three or five options (the engine's multiple-choice task needs the same number)",
    )


# EuroEval's languages without a knowledge set here whose exam questions (or a translation of
# MMLU) have their data files in a public GitHub repository under a licence that allows passing
# on a sample. Sources looked at and left out are in data/datasets/README.md.
KNOWLEDGE: dict[str, ExamSource] = {
    source.dataset: source
    for source in (
        ExamSource(
            "mmlu-lv",
            "lv",
            "Latvian",
            "the Latvian MMLU of the Latvian Language Technology Initiative (VTI-Data, LUMII AI Lab)",
            "LUMII-AILab/VTI-Data",
            VTI_COMMIT,
            "mmlu-json",
            "the test questions of MMLU's 57 subjects (Hendrycks et al. 2021) machine-translated into Latvian, one "
            "file per subject; the repository's sociology_postedited.json holds the first 100 questions of "
            "sociology.json post-edited by people, and those replace their machine translations here",
            "MIT (mmlu/LICENSE of the repository: © 2020 Dan Hendrycks, © 2024 Bruno Bakanovs)",
            "Skadiņa, Bakanovs & Darģis (2025), First Steps in Benchmarking Latvian in Large Language Models, "
            "RESOURCEFUL-2025; " + MMLU_CITATION,
            under="mmlu",
            postedits=(("mmlu/sociology_postedited.json", "mmlu/sociology.json"),),
        ),
        ExamSource(
            "zno-geography-uk",
            "uk",
            "Ukrainian",
            "ZNO-Eval (Syromiatnikov, Ruvinskaya & Troynina 2024)",
            "NLPForUA/ZNO",
            "35d4c976599243b08dcd04303b557a7c2dc86068",
            "zno",
            "the tasks of 32 geography tests of Ukraine's external independent evaluation (ZNO, the school-leaving "
            "exam), written in Ukrainian and parsed from zno.osvita.ua; only a task that is a text question with "
            "four options (А to Г) and one right answer is read",
            "CC BY-NC 4.0 (the repository's DATA_LICENSE; its README: non-commercial use only, models trained on the "
            "data for research only)",
            "Syromiatnikov, Ruvinskaya & Troynina (2024), ZNO-Eval: Benchmarking reasoning capabilities of large "
            "language models in Ukrainian, Informatics. Culture. Technology 1, 186-191",
            files=("tests/geography_raw.json",),
        ),
    )
}
KNOWLEDGE |= {dataset: exams_source(dataset, *rest) for dataset, *rest in EXAMS_LANGUAGES}
