"""Seed values of the board registry: language names, the board a code feeds when it is
first seen, and the groups migration 0002 created.

Datasets are tagged with ISO 639-1 codes. Most codes are their own board; Norwegian
Bokmål (``nb``) and Nynorsk (``nn``) both feed the Norwegian board ``no``. A group board
(e.g. Scandinavian) is the mean of its language boards' rank scores. The registry itself
is in the database (``Language``, ``LanguageGroup``, editable in the admin): read it with
:mod:`leaderboard.registry.boards`, never from here.
"""

from __future__ import annotations

BOARD_OF_CODE: dict[str, str] = {"nb": "no", "nn": "no"}

LANGUAGE_NAMES: dict[str, str] = {
    "be": "Belarusian",
    "bg": "Bulgarian",
    "bs": "Bosnian",
    "ca": "Catalan",
    "cs": "Czech",
    "cy": "Welsh",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "et": "Estonian",
    "eu": "Basque",
    "fi": "Finnish",
    "fo": "Faroese",
    "fr": "French",
    "ga": "Irish",
    "gl": "Galician",
    "hr": "Croatian",
    "hu": "Hungarian",
    "is": "Icelandic",
    "it": "Italian",
    "lb": "Luxembourgish",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "mt": "Maltese",
    "nb": "Norwegian Bokmål",
    "nl": "Dutch",
    "nn": "Norwegian Nynorsk",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sq": "Albanian",
    "sr": "Serbian",
    "sv": "Swedish",
    "tr": "Turkish",
    "uk": "Ukrainian",
}

# The group boards EuroEval publishes today (its ``src/leaderboards/leaderboard_configs``):
# slug: (name, member boards). Migration 0015_language_groups writes them into the registry.
SEED_GROUPS: dict[str, tuple[str, list[str]]] = {
    "european": (
        "European",
        ["sq", "be", "bs", "bg", "ca", "hr", "cs", "da", "nl", "en", "et", "fo", "fi", "fr", "de", "el"]
        + ["hu", "is", "it", "lv", "lt", "lb", "no", "pl", "pt", "ro", "sr", "sk", "sl", "es", "sv", "uk"],
    ),
    "baltic": ("Baltic", ["lv", "lt"]),
    "finnic": ("Finnic", ["et", "fi"]),
    "germanic": ("Germanic", ["da", "nl", "en", "fo", "de", "is", "lb", "no", "sv"]),
    "romance": ("Romance", ["ca", "fr", "it", "pt", "ro", "es"]),
    "scandinavian": ("Scandinavian", ["da", "fo", "is", "no", "sv"]),
    "slavic": ("Slavic", ["be", "bs", "bg", "hr", "cs", "pl", "sr", "sk", "sl", "uk"]),
    "west-germanic": ("West Germanic", ["nl", "en", "de", "lb"]),
}

# EuroEval's board files name languages in English (``leaderboards/<name>_<all|nlu>.csv``):
# the board code of each, and the groups of the boards published on 2026-04-17, whose
# ``mainland_scandinavian`` (da, no, sv) is not a group today.
EUROEVAL_BOARD_CODES: dict[str, str] = {
    "albanian": "sq",
    "belarusian": "be",
    "bosnian": "bs",
    "bulgarian": "bg",
    "catalan": "ca",
    "croatian": "hr",
    "czech": "cs",
    "danish": "da",
    "dutch": "nl",
    "english": "en",
    "estonian": "et",
    "faroese": "fo",
    "finnish": "fi",
    "french": "fr",
    "german": "de",
    "greek": "el",
    "hungarian": "hu",
    "icelandic": "is",
    "italian": "it",
    "latvian": "lv",
    "lithuanian": "lt",
    "luxembourgish": "lb",
    "norwegian": "no",
    "polish": "pl",
    "portuguese": "pt",
    "romanian": "ro",
    "serbian": "sr",
    "slovak": "sk",
    "slovene": "sl",
    "spanish": "es",
    "swedish": "sv",
    "ukrainian": "uk",
}
EUROEVAL_GROUP_FILES: dict[str, list[str]] = {
    "baltic": SEED_GROUPS["baltic"][1],
    "european": [c for c in SEED_GROUPS["european"][1] if c not in ("be", "lb")],
    "finnic": SEED_GROUPS["finnic"][1],
    "germanic": [c for c in SEED_GROUPS["germanic"][1] if c != "lb"],
    "mainland_scandinavian": ["da", "no", "sv"],
    "romance": SEED_GROUPS["romance"][1],
    "slavic": [c for c in SEED_GROUPS["slavic"][1] if c != "be"],
}


def default_board(code: str) -> str:
    """The board a language code feeds when its ``Language`` row is first created."""
    return BOARD_OF_CODE.get(code, code)


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)
