"""Static files: content-hashed names, compressed copies and a year's caching.

``collectstatic`` writes every file under a name with its content hash (``board.3f2a….js``)
beside a gzip copy, and a manifest; ``{% static %}`` then links the hashed name, which
WhiteNoise serves with ``Cache-Control: public, max-age=31536000, immutable`` (a changed
file is a new name, so nothing stale is ever served). Without a manifest entry (tests and
``runserver`` before ``collectstatic``) ``{% static %}`` links the plain name instead of
failing, which the development static handler serves from ``static/``.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage

YEAR = 365 * 24 * 3600


class HashedStaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed static files; an entry missing from the manifest keeps its name."""

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:  # no manifest (collectstatic has not run) or a file added since
            return name


def immutable_for_a_year(headers, path: str, url: str) -> None:
    """WhiteNoise's header hook: a hashed file is cached for a year instead of ten."""
    if "immutable" in headers.get("Cache-Control", ""):
        headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
