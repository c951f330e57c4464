"""The one registry of boards: which language board each language code feeds, and the
group boards.

The database holds it: ``Language.board`` (``nb`` and ``nn`` feed ``no``) and
``LanguageGroup`` (a group's name and member boards), seeded by migration 0002 from
``leaderboard/registry/languages.py`` and editable in the admin. Every reader (aggregation,
submissions, the importer, the dataset registry, the pages) asks here, so an admin's edit
applies everywhere at the next aggregation. ``languages.py`` only supplies names and the
board of a code seen for the first time (:func:`leaderboard.registry.languages.default_board`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from leaderboard.models import Language, LanguageGroup
from leaderboard.registry.languages import LANGUAGE_NAMES, SEED_GROUPS, default_board


@dataclass(frozen=True)
class Group:
    slug: str
    name: str
    boards: tuple[str, ...]


def groups() -> dict[str, Group]:
    """The group boards, by slug (one query)."""
    return {
        row.slug: Group(row.slug, row.name, tuple(str(board) for board in row.boards or ()))
        for row in LanguageGroup.objects.order_by("slug")
    }


def members(slug: str) -> tuple[str, ...]:
    """A group's member boards as the registry has them (one query; empty for no such group)."""
    boards = LanguageGroup.objects.filter(slug=slug).values_list("boards", flat=True).first()
    return tuple(str(board) for board in boards or ())


def boards_of(codes: Iterable[str]) -> dict[str, str]:
    """``{language code: its board}`` for these codes (one query); a code without a row
    feeds the board it would be given on first sight."""
    codes = set(codes)
    stored = dict(Language.objects.filter(code__in=codes).values_list("code", "board"))
    return {code: stored.get(code) or default_board(code) for code in codes}


def board_of(code: str) -> str:
    return boards_of([code])[code]


def seed_if_empty(using: str = "default") -> bool:
    """Write the seed languages and groups (``languages.py``) into an empty registry; True
    if it did. Run after every ``migrate`` and ``flush`` (``apps.py``): a registry with any
    row is the administrators' and is never touched."""
    if Language.objects.using(using).exists() or LanguageGroup.objects.using(using).exists():
        return False
    Language.objects.using(using).bulk_create(
        Language(code=code, name=name, board=default_board(code)) for code, name in LANGUAGE_NAMES.items()
    )
    LanguageGroup.objects.using(using).bulk_create(
        LanguageGroup(slug=slug, name=name, boards=list(boards)) for slug, (name, boards) in SEED_GROUPS.items()
    )
    return True
