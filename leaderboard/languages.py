"""Seed values of the board registry: language names, the board a code feeds when it is
first seen, and the groups migration 0002 created.

Datasets are tagged with ISO 639-1 codes. Most codes are their own board; Norwegian
Bokmål (``nb``) and Nynorsk (``nn``) both feed the Norwegian board ``no``. A group board
(e.g. Scandinavian) is the mean of its language boards' rank scores. The registry itself
is in the database (``Language``, ``LanguageGroup``, editable in the admin): read it with
:mod:`leaderboard.board_registry`, never from here.
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

SEED_GROUPS: dict[str, tuple[str, list[str]]] = {
    "scandinavian": ("Scandinavian", ["da", "sv", "no"]),
    "nordic": ("Nordic", ["da", "sv", "no", "is", "fo"]),
    "germanic": ("Germanic", ["da", "sv", "no", "is", "fo", "de", "nl", "en"]),
}


def default_board(code: str) -> str:
    """The board a language code feeds when its ``Language`` row is first created."""
    return BOARD_OF_CODE.get(code, code)


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)
