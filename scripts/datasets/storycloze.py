"""Common-sense reasoning from XStoryCloze (Lin et al. 2022), the professional translations
of the Story Cloze Test's Spring 2016 validation stories, as two-choice multiple-choice rows.

A story is four sentences and two candidate fifth sentences, one of them the right ending.
A row's ``question`` is the four sentences joined by spaces, followed by the language's
sentence asking for the ending (:class:`StoryClozeSet`, Glossa's own words: the source asks
nothing), its ``choices`` the two endings in the source's order, its ``label`` the index of
the right one. The source's files are tab-separated with a header line and Windows line
ends; no field holds a tab.

Kept here rather than in :mod:`scripts.datasets.sources`, which is at its size limit."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from scripts.datasets.sampling import SEED, cut_val_train, item_key, usable_in_key_order

STORY = ("InputSentence1", "InputSentence2", "InputSentence3", "InputSentence4")
ENDINGS = ("RandomFifthSentenceQuiz1", "RandomFifthSentenceQuiz2")
ANSWER = "AnswerRightEnding"
HEADER = ("InputStoryid", *STORY, *ENDINGS, ANSWER)
SPLITS = ("train", "val", "test")

XSC_REPO = "facebookresearch/fairseq"
# The commit that added the data ("add XStoryCloze data", 2022-10-22); the files are not on
# the repository's main branch today, so the set is read at this commit.
XSC_COMMIT = "fe367795723d23705ae524732411398b0ea5c78c"
XSC_DIR = "examples/xglm/XStoryCloze"
XSC_LICENSE = (
    "CC BY-SA 4.0 (examples/xglm/XStoryCloze/README.md at the commit read: 'the same license as the original "
    "English StoryCloze'; share-alike)"
)
XSC_CITATION = (
    "Lin et al. (2022), Few-shot Learning with Multilingual Generative Language Models, EMNLP (XStoryCloze); "
    "Mostafazadeh et al. (2016), A Corpus and Evaluation Framework for Deeper Understanding of Commonsense "
    "Stories, NAACL"
)

DESCRIPTION = (
    "{language} common-sense reasoning, built by scripts/datasets (storycloze.py) from XStoryCloze (Lin et al. "
    "2022): the Story Cloze Test's Spring 2016 validation stories, professionally translated from English{variety}. "
    "Each story is four sentences and two candidate endings, one of them right. A row's question is the four "
    "sentences joined by spaces, a space and the sentence {ask!r}, written for Glossa (the source asks nothing); "
    "its choices are the two endings in the source's order and its label the index of the right one (0 or 1; the "
    "engine shows the choices as a. and b.). Texts are stripped of surrounding whitespace. Dropped: {dropped} "
    "stories with an empty text or two identical endings and {duplicates} repeats of a story already read (files "
    "read in the order test, val, train). Stories are ordered by a key, SHA-256 of seed {seed} and the story's "
    "texts. The test split is the whole of {test_file} ({test} stories); {pool_file} gives val ({val} stories, a "
    "fifth, as EuroEval's 256 to 1,024) and train ({train} stories, the few-shot pool). The source is small: val "
    "and train are below EuroEval's sizes. Rows per label (0 / 1): {distribution}."
)


@dataclass(frozen=True)
class StoryClozeSet:
    dataset: str
    code: str
    language: str
    xsc: str  # XStoryCloze's language code in the file names, e.g. "es"
    variety: str  # the description's words for the translation's variety, "" where there is none to name
    ask: str  # "Which is the most plausible ending of the story?" in the language

    repo = XSC_REPO
    commit = XSC_COMMIT
    license = XSC_LICENSE
    citation = XSC_CITATION

    @property
    def files(self) -> tuple[tuple[str, str], ...]:  # (split, path); "val+train": a fifth val, the rest train
        stem = f"{XSC_DIR}/spring2016.val.{self.xsc}.tsv.split_20_80"
        return (("test", f"{stem}_eval.tsv"), ("val+train", f"{stem}_train.tsv"))

    @property
    def source(self) -> str:
        return f"github.com/{self.repo} @ {self.commit}: {', '.join(path for _, path in self.files)}"


# XStoryCloze's EuroEval languages: only Spanish (the others are Arabic, Basque, Burmese,
# Chinese, Hindi, Indonesian, Russian, Swahili and Telugu). Not checked by a native reader.
STORYCLOZE: dict[str, StoryClozeSet] = {
    s.dataset: s
    for s in (
        StoryClozeSet(
            "xstorycloze-es", "es", "Spanish", "es", " into Latin American Spanish",
            "¿Cuál es el final más plausible de la historia?",
        ),
    )
}  # fmt: skip


def read_stories(data: bytes, path: str) -> list[dict]:
    """The file's stories (header line first); a line with another number of fields than the
    header, another header or an answer other than 1 or 2 is refused with its line number."""
    lines = data.decode("utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != HEADER:
        raise ValueError(f"{path}:1: the header {' '.join(HEADER)} expected")
    stories = []
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(HEADER):
            raise ValueError(f"{path}:{number}: {len(fields)} fields, {len(HEADER)} expected")
        record = dict(zip(HEADER, fields, strict=True))
        if record[ANSWER].strip() not in ("1", "2"):
            raise ValueError(f"{path}:{number}: answer {record[ANSWER]!r} is not 1 or 2")
        stories.append(
            {
                "story": [record[field].strip() for field in STORY],
                "endings": [record[field].strip() for field in ENDINGS],
                "label": int(record[ANSWER]) - 1,
            }
        )
    return stories


def _key(story: dict) -> bytes:
    return item_key("\x00".join((*story["story"], *story["endings"])))


def _unusable(story: dict) -> bool:
    return not all(story["story"] + story["endings"]) or story["endings"][0] == story["endings"][1]


def row(source: StoryClozeSet, story: dict) -> dict:
    return {"question": " ".join([*story["story"], source.ask]), "choices": story["endings"], "label": story["label"]}


def build(source: StoryClozeSet, files: dict[str, bytes]):
    """(rows of train, val and test; counts of what was dropped). ``files`` maps each of the
    set's paths to its bytes."""
    counts: Counter = Counter()
    seen: set[bytes] = set()
    stories: dict[str, list[dict]] = {}
    for split, path in source.files:
        taken = usable_in_key_order(read_stories(files[path], path), _key, _unusable, seen, counts)
        if split == "val+train":
            stories["val"], stories["train"] = cut_val_train(taken)
        else:
            stories[split] = taken
    return {split: [row(source, story) for story in stories[split]] for split in SPLITS}, counts


def describe(source: StoryClozeSet, rows: dict[str, list[dict]], counts: Counter) -> str:
    labels = {split: Counter(r["label"] for r in rows[split]) for split in SPLITS}
    file_of = dict(source.files)
    return DESCRIPTION.format(
        language=source.language,
        variety=source.variety,
        ask=source.ask,
        dropped=counts["dropped"],
        duplicates=counts["duplicates"],
        seed=SEED,
        test_file=file_of["test"],
        pool_file=file_of["val+train"],
        distribution="; ".join(f"{split} {labels[split][0]} / {labels[split][1]}" for split in SPLITS),
        **{split: len(rows[split]) for split in SPLITS},
    )
