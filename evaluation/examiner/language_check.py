"""Is a question written in the exam's language? Offline language identification (lingua).

Small examiners often write in English whatever the instructions say ("The weather is very
cold." in a Danish exam); such a question tests nothing the board claims to test. For each
exam language the detector knows only that language's family among the exam languages
and English (``FAMILIES``: a question drifts into English or a related language), which
keeps it small and fast (a few of lingua's 75 language models, loaded once per process)
and keeps it from guessing languages no exam has. A question passes when the exam language's
confidence is at least ``RATIO`` of the most likely language's: close languages (Danish
and Bokmål share most short questions) pass, a question plainly in another does not.
"""

from __future__ import annotations

from functools import cache

from evaluation.errors import EvaluationError

RATIO = 0.5
# Exam language code → lingua's names for it (Norwegian is written in two standards).
LINGUA_NAMES = {
    "da": ("DANISH",),
    "de": ("GERMAN",),
    "en": ("ENGLISH",),
    "es": ("SPANISH",),
    "fr": ("FRENCH",),
    "it": ("ITALIAN",),
    "nl": ("DUTCH",),
    "no": ("BOKMAL", "NYNORSK"),
    "nb": ("BOKMAL",),
    "nn": ("NYNORSK",),
    "sv": ("SWEDISH",),
}


# Exam languages by family: a question drifts into English or into a related language
# (Danish into Bokmål or Swedish, Dutch-like babble into Dutch), so each exam's detector knows
# its family and English.
FAMILIES = (("da", "no", "nb", "nn", "sv", "de", "nl", "en"), ("fr", "es", "it", "en"))


@cache
def _detector(language: str):
    from lingua import Language, LanguageDetectorBuilder

    codes = {language, "en", *(code for family in FAMILIES if language in family for code in family)}
    languages = {getattr(Language, name) for code in codes for name in LINGUA_NAMES[code]}
    return LanguageDetectorBuilder.from_languages(*languages).build()


def language_share(text: str, language: str) -> float:
    """The exam language's confidence relative to the most likely language's (0 to 1)."""
    names = LINGUA_NAMES.get(language)
    if names is None:
        raise EvaluationError(f"no language identification for exam language {language!r}")
    values = _detector(language).compute_language_confidence_values(text)
    top = values[0].value if values else 0.0
    if top <= 0:
        return 0.0
    ours = sum(v.value for v in values if v.language.name in names)
    return min(1.0, ours / top)


def in_language(text: str, language: str) -> bool:
    """Whether ``text`` reads as written in ``language`` (an exam language code)."""
    return language_share(text, language) >= RATIO


def checks_language(language: str) -> bool:
    """Whether exams in ``language`` can be checked (every exam language of domains.json can)."""
    return language in LINGUA_NAMES
