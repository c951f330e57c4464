"""Prompt texts per language (METHODOLOGY §1, "Prompts").

HOW TO ADD A LANGUAGE: add one ``TABLE["xx"] = {...}`` entry below with the same keys
as the English one (``or``, ``ner_and`` (the word that joins the entity types in the
NER prompt), every task's ``prefix``, ``doc``, ``label`` (the label prefix),
``instruction`` and the ``labels`` / ``ner_tags`` translations), then add the code to
``ALIASES`` if the data pack uses other codes for it (``no``/``nn`` → ``nb``). Nothing else
changes: each entry is typed at import into a :class:`LanguagePrompts` (a missing word
fails there, not mid-evaluation), :mod:`evaluation.prompts` reads those, and
``tests/evaluation`` renders every language for every task. Placeholders: ``{labels}`` (the translated label words
joined with "or"), ``{doc}`` (the document block, e.g. ``Dokument: …``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class TaskPrompt:
    """One task's texts in one language."""

    prefix: str  # the base prompt's first line; may hold {labels}
    doc: str  # the document prefix, e.g. "Sentence"
    label: str  # the answer prefix, e.g. "Sentiment"
    instruction: str  # the chat turn; holds {doc}, may hold {labels}


@dataclass(frozen=True)
class LanguagePrompts:
    """Every string a prompt in one language needs (no language word is written in code)."""

    code: str
    or_word: str  # joins the last two label words: "a, b or c"
    ner_and: str  # joins the entity types in the NER prompt
    labels: Mapping[str, str]  # canonical label → its word
    ner_tags: Mapping[str, str]  # PER, LOC, ORG, MISC → the JSON key
    choices: str  # the heading of multiple-choice options
    question: str  # the question prefix of reading comprehension
    tasks: Mapping[str, TaskPrompt]

    @classmethod
    def from_table(cls, code: str, entry: dict) -> LanguagePrompts:
        """The typed entry; a missing or extra key fails here, at import, not mid-evaluation."""
        fixed = {"or", "ner_and", "labels", "ner_tags", "choices", "question"}
        missing = fixed - set(entry)
        if missing:
            raise ValueError(f"prompt language {code!r} lacks {', '.join(sorted(missing))}")
        tasks = {name: TaskPrompt(**texts) for name, texts in entry.items() if name not in fixed}
        return cls(
            code=code,
            or_word=entry["or"],
            ner_and=entry["ner_and"],
            labels=MappingProxyType(dict(entry["labels"])),
            ner_tags=MappingProxyType(dict(entry["ner_tags"])),
            choices=entry["choices"],
            question=entry["question"],
            tasks=MappingProxyType(tasks),
        )

    def task(self, name: str) -> TaskPrompt:
        try:
            return self.tasks[name]
        except KeyError:
            raise KeyError(f"no {name} prompts for language {self.code!r} in evaluation/prompt_languages.py") from None


TABLE: dict[str, dict] = {
    "en": {
        "or": "or",
        "ner_and": "or",  # joins the entity types in the NER prompt
        "labels": {
            "positive": "positive",
            "neutral": "neutral",
            "negative": "negative",
            "correct": "yes",
            "incorrect": "no",
        },
        "ner_tags": {"PER": "person", "LOC": "location", "ORG": "organization", "MISC": "miscellaneous"},
        "choices": "Choices",
        "question": "Question",
        "sentiment-classification": {
            "prefix": "The following are texts and their sentiment, which can be {labels}.",
            "doc": "Text",
            "label": "Sentiment",
            "instruction": "{doc}\n\nClassify the sentiment in the text. Answer with {labels}, and nothing else.",
        },
        "linguistic-acceptability": {
            "prefix": "The following are sentences and whether they are grammatically correct.",
            "doc": "Sentence",
            "label": "Grammatically correct",
            "instruction": "{doc}\n\nDetermine whether the sentence is grammatically correct or not. "
            "Reply with {labels}, and nothing else.",
        },
        "named-entity-recognition": {
            "prefix": "Below are sentences and JSON dictionaries with the named entities that occur in the given "
            "sentence.",
            "doc": "Sentence",
            "label": "Named entities",
            "instruction": "{doc}\n\nIdentify the named entities in the sentence. You should output this as a JSON "
            "dictionary with the keys {labels}. The values should be lists of the named entities of "
            "that type, exactly as they appear in the sentence.",
        },
        "reading-comprehension": {
            "prefix": "The following are texts with accompanying questions and answers.",
            "doc": "Text",
            "label": "Answer in max 3 words",
            "instruction": "{doc}\n\nAnswer the above question based on the text in max 3 words.",
        },
        "knowledge": {
            "prefix": "The following are multiple choice questions (with answers).",
            "doc": "Question",
            "label": "Answer",
            "instruction": "{doc}\n\nAnswer the above question by replying with {labels}, and nothing else.",
        },
        "common-sense-reasoning": {
            "prefix": "The following are multiple choice questions (with answers).",
            "doc": "Question",
            "label": "Answer",
            "instruction": "{doc}\n\nAnswer the above question by replying with {labels}, and nothing else.",
        },
        "summarization": {
            "prefix": "The following are documents with accompanying summaries.",
            "doc": "Document",
            "label": "Summary",
            "instruction": "{doc}\n\nWrite a summary of the above document.",
        },
        "simplification": {
            "prefix": "The following are texts with accompanying simplified versions.",
            "doc": "Text",
            "label": "Simplified text",
            "instruction": "{doc}\n\nRewrite the above text in simpler language, keeping its meaning.",
        },
    },
    "da": {
        "or": "eller",
        "ner_and": "og",  # joins the entity types in the NER prompt
        "labels": {
            "positive": "positiv",
            "neutral": "neutral",
            "negative": "negativ",
            "correct": "ja",
            "incorrect": "nej",
        },
        "ner_tags": {"PER": "person", "LOC": "sted", "ORG": "organisation", "MISC": "diverse"},
        "choices": "Svarmuligheder",
        "question": "Spørgsmål",
        "sentiment-classification": {
            "prefix": "Følgende er dokumenter og deres sentiment, som kan være {labels}.",
            "doc": "Dokument",
            "label": "Sentiment",
            "instruction": "{doc}\n\nKlassificer sentimentet i dokumentet. Svar kun med {labels}, og intet andet.",
        },
        "linguistic-acceptability": {
            "prefix": "Følgende er sætninger og om de er grammatisk korrekte.",
            "doc": "Sætning",
            "label": "Grammatisk korrekt",
            "instruction": "{doc}\n\nBestem om sætningen er grammatisk korrekt eller ej. Svar med {labels}, og "
            "intet andet.",
        },
        "named-entity-recognition": {
            "prefix": "Følgende er sætninger og JSON-ordbøger med de navngivne enheder, som forekommer i den givne "
            "sætning.",
            "doc": "Sætning",
            "label": "Navngivne enheder",
            "instruction": "{doc}\n\nIdentificér de navngivne enheder i sætningen. Du skal outputte dette som en "
            "JSON-ordbog med nøglerne {labels}. Værdierne skal være lister over de navngivne enheder "
            "af den type, præcis som de forekommer i sætningen.",
        },
        "reading-comprehension": {
            "prefix": "Følgende er tekster med tilhørende spørgsmål og svar.",
            "doc": "Tekst",
            "label": "Svar med maks. 3 ord",
            "instruction": "{doc}\n\nBesvar ovenstående spørgsmål ud fra teksten med maks. 3 ord.",
        },
        "knowledge": {
            "prefix": "Følgende er multiple choice spørgsmål (med svar).",
            "doc": "Spørgsmål",
            "label": "Svar",
            "instruction": "{doc}\n\nBesvar ovenstående spørgsmål ved at svare med {labels}, og intet andet.",
        },
        "common-sense-reasoning": {
            "prefix": "Følgende er multiple choice spørgsmål (med svar).",
            "doc": "Spørgsmål",
            "label": "Svar",
            "instruction": "{doc}\n\nBesvar ovenstående spørgsmål ved at svare med {labels}, og intet andet.",
        },
        "summarization": {
            "prefix": "Følgende er dokumenter med tilhørende resuméer.",
            "doc": "Dokument",
            "label": "Resumé",
            "instruction": "{doc}\n\nSkriv et resumé af ovenstående dokument.",
        },
        "simplification": {
            "prefix": "Følgende er tekster med tilhørende forenklede versioner.",
            "doc": "Tekst",
            "label": "Forenklet tekst",
            "instruction": "{doc}\n\nOmskriv ovenstående tekst til et enklere sprog, så betydningen bevares.",
        },
    },
    "sv": {
        "or": "eller",
        "ner_and": "eller",  # joins the entity types in the NER prompt
        "labels": {
            "positive": "positiv",
            "neutral": "neutral",
            "negative": "negativ",
            "correct": "ja",
            "incorrect": "nej",
        },
        "ner_tags": {"PER": "person", "LOC": "plats", "ORG": "organisation", "MISC": "diverse"},
        "choices": "Svarsalternativ",
        "question": "Fråga",
        "sentiment-classification": {
            "prefix": "Följande är recensioner och deras sentiment, som kan vara {labels}.",
            "doc": "Recension",
            "label": "Sentiment",
            "instruction": "{doc}\n\nKlassificera sentimentet i recensionen. Svara med {labels}, och inget annat.",
        },
        "linguistic-acceptability": {
            "prefix": "Följande är meningar och huruvida de är grammatiskt korrekta.",
            "doc": "Mening",
            "label": "Grammatisk korrekt",
            "instruction": "{doc}\n\nBestäm om meningen är grammatiskt korrekt eller inte. Svara med {labels}, och "
            "inget annat.",
        },
        "named-entity-recognition": {
            "prefix": "Följande är meningar och JSON-ordböcker med de namngivna enheter som förekommer i den givna "
            "meningen.",
            "doc": "Mening",
            "label": "Namngivna entiteter",
            "instruction": "{doc}\n\nIdentifiera de namngivna enheterna i meningen. Du ska outputta detta som en "
            "JSON-ordbok med nycklarna {labels}. Värdena ska vara listor över de namngivna enheter av "
            "den typen, precis som de förekommer i meningen.",
        },
        "reading-comprehension": {
            "prefix": "Nedan följer texter med tillhörande frågor och svar.",
            "doc": "Text",
            "label": "Svara på max 3 ord",
            "instruction": "{doc}\n\nBesvara frågan ovan baserat på texten med högst 3 ord.",
        },
        "knowledge": {
            "prefix": "Följande är flervalsfrågor (med svar).",
            "doc": "Fråga",
            "label": "Svar",
            "instruction": "{doc}\n\nBesvara följande fråga med {labels}, och inget annat.",
        },
        "common-sense-reasoning": {
            "prefix": "Följande är flervalsfrågor (med svar).",
            "doc": "Fråga",
            "label": "Svar",
            "instruction": "{doc}\n\nBesvara följande fråga med {labels}, och inget annat.",
        },
        "summarization": {
            "prefix": "Nedan följer dokument med tillhörande sammanfattningar.",
            "doc": "Dokument",
            "label": "Sammanfattning",
            "instruction": "{doc}\n\nSkriv en sammanfattning av ovanstående dokument.",
        },
        "simplification": {
            "prefix": "Nedan följer texter med tillhörande förenklade versioner.",
            "doc": "Text",
            "label": "Förenklad text",
            "instruction": "{doc}\n\nSkriv om texten ovan på ett enklare språk och behåll dess betydelse.",
        },
    },
    "nb": {
        "or": "eller",
        "ner_and": "og",  # joins the entity types in the NER prompt
        "labels": {
            "positive": "positiv",
            "neutral": "nøytral",
            "negative": "negativ",
            "correct": "ja",
            "incorrect": "nei",
        },
        "ner_tags": {"PER": "person", "LOC": "sted", "ORG": "organisasjon", "MISC": "diverse"},
        "choices": "Svaralternativer",
        "question": "Spørsmål",
        "sentiment-classification": {
            "prefix": "Følgende er anmeldelser og deres sentiment, som kan være {labels}.",
            "doc": "Anmeldelse",
            "label": "Sentiment",
            "instruction": "{doc}\n\nKlassifiser sentimentet i anmeldelsen. Svar med {labels}, og ikke noe annet.",
        },
        "linguistic-acceptability": {
            "prefix": "Følgende er setninger og hvorvidt de er grammatisk korrekte.",
            "doc": "Setning",
            "label": "Grammatisk korrekt",
            "instruction": "{doc}\n\nBestem om setningen er grammatisk korrekt eller ikke. Svar med {labels}, og "
            "ikke noe annet.",
        },
        "named-entity-recognition": {
            "prefix": "Følgende er fraser og JSON-ordbøker med de navngitte enhetene som forekommer i den gitte "
            "frasen.",
            "doc": "Frase",
            "label": "Navngitte enheter",
            "instruction": "{doc}\n\nIdentifiser de navngitte enhetene i frasen. Du bør outputte dette som en "
            "JSON-ordbok med nøklene {labels}. Verdiene skal være lister over de navngitte enhetene "
            "av den typen, akkurat som de vises i frasen.",
        },
        "reading-comprehension": {
            "prefix": "Her følger tekster med tilhørende spørsmål og svar.",
            "doc": "Tekst",
            "label": "Svar på maks 3 ord",
            "instruction": "{doc}\n\nBesvar spørsmålet ovenfor basert på teksten med maks 3 ord.",
        },
        "knowledge": {
            "prefix": "Følgende er flervalgsspørsmål (med svar).",
            "doc": "Spørsmål",
            "label": "Svar",
            "instruction": "{doc}\n\nBesvar følgende spørsmål med {labels}, og ikke noe annet.",
        },
        "common-sense-reasoning": {
            "prefix": "Følgende er flervalgsspørsmål (med svar).",
            "doc": "Spørsmål",
            "label": "Svar",
            "instruction": "{doc}\n\nBesvar følgende spørsmål med {labels}, og ikke noe annet.",
        },
        "summarization": {
            "prefix": "Nedenfor følger dokumenter med tilhørende sammendrag.",
            "doc": "Dokument",
            "label": "Sammendrag",
            "instruction": "{doc}\n\nSkriv et sammendrag av dokumentet ovenfor.",
        },
        "simplification": {
            "prefix": "Nedenfor følger tekster med tilhørende forenklede versjoner.",
            "doc": "Tekst",
            "label": "Forenklet tekst",
            "instruction": "{doc}\n\nSkriv om teksten ovenfor på et enklere språk, og behold betydningen.",
        },
    },
    "de": {
        "or": "oder",
        "ner_and": "oder",  # joins the entity types in the NER prompt
        "labels": {
            "positive": "positiv",
            "neutral": "neutral",
            "negative": "negativ",
            "correct": "ja",
            "incorrect": "nein",
        },
        "ner_tags": {"PER": "person", "LOC": "ort", "ORG": "organisation", "MISC": "verschiedenes"},
        "choices": "Antwortmöglichkeiten",
        "question": "Frage",
        "sentiment-classification": {
            "prefix": "Im Folgenden sind Texte und ihre Stimmung, die {labels} sein kann.",
            "doc": "Text",
            "label": "Stimmung",
            "instruction": "{doc}\n\nKlassifizieren Sie die Stimmung im Text. Antworten Sie mit {labels}, und nichts "
            "anderes.",
        },
        "linguistic-acceptability": {
            "prefix": "Die folgenden Sätze und ob sie grammatikalisch korrekt sind.",
            "doc": "Satz",
            "label": "Grammatikalisch richtig",
            "instruction": "{doc}\n\nBestimmen Sie, ob der Satz grammatikalisch korrekt ist oder nicht. Antworten "
            "Sie mit {labels}, und nichts anderes.",
        },
        "named-entity-recognition": {
            "prefix": "Es folgen Sätze und JSON-Wörterbücher mit den benannten Entitäten, die in der angegebenen "
            "Phrase vorkommen.",
            "doc": "Satz",
            "label": "Benannte Entitäten",
            "instruction": "{doc}\n\nIdentifizieren Sie die benannten Entitäten im Satz. Sie sollten dies als "
            "JSON-Wörterbuch mit den Schlüsseln {labels} ausgeben. Die Werte sollten Listen der "
            "benannten Entitäten dieses Typs sein, genau wie sie im Satz erscheinen.",
        },
        "reading-comprehension": {
            "prefix": "Im Folgenden finden Sie Texte mit den dazugehörigen Fragen und Antworten.",
            "doc": "Text",
            "label": "Beantworten Sie mit maximal 3 Wörtern",
            "instruction": "{doc}\n\nBeantworten Sie die obige Frage auf der Grundlage des Textes mit maximal 3 "
            "Wörtern.",
        },
        "knowledge": {
            "prefix": "Die folgenden Fragen sind Multiple-Choice-Fragen (mit Antworten).",
            "doc": "Frage",
            "label": "Antwort",
            "instruction": "{doc}\n\nBeantworten Sie die obige Frage mit {labels}, und nichts anderes.",
        },
        "common-sense-reasoning": {
            "prefix": "Die folgenden Fragen sind Multiple-Choice-Fragen (mit Antworten).",
            "doc": "Frage",
            "label": "Antwort",
            "instruction": "{doc}\n\nBeantworten Sie die obige Frage mit {labels}, und nichts anderes.",
        },
        "summarization": {
            "prefix": "Nachfolgend finden Sie Dokumente mit zugehörigen Zusammenfassungen.",
            "doc": "Dokument",
            "label": "Zusammenfassung",
            "instruction": "{doc}\n\nSchreiben Sie eine Zusammenfassung des obigen Dokuments.",
        },
        "simplification": {
            "prefix": "Nachfolgend finden Sie Texte mit zugehörigen vereinfachten Fassungen.",
            "doc": "Text",
            "label": "Vereinfachter Text",
            "instruction": (
                "{doc}\n\nFormulieren Sie den obigen Text in einfacherer Sprache um, ohne seine Bedeutung zu ändern."
            ),
        },
    },
}

ALIASES = {"no": "nb", "nn": "nb", "dk": "da", "se": "sv"}

LANGUAGES: dict[str, LanguagePrompts] = {code: LanguagePrompts.from_table(code, entry) for code, entry in TABLE.items()}


class _AnyTask(dict):
    """Every task's texts are the bare document (no prompt words)."""

    def __missing__(self, name: str) -> TaskPrompt:
        return TaskPrompt(prefix="", doc="", label="", instruction="{doc}")


DATASET_TEXT = LanguagePrompts(
    code="",
    or_word="/",
    ner_and="/",
    labels=MappingProxyType({}),
    ner_tags=MappingProxyType({tag: tag for tag in ("PER", "LOC", "ORG", "MISC")}),
    choices="choices",  # the dataset's own field names, not prompt words
    question="question",
    tasks=_AnyTask(),
)
"""The rows as the dataset spells them: what encoders, which need no prompts, show."""
