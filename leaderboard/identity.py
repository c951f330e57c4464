"""What a score is a score of: the protocol part of a result's identity (pure, no Django).

A stored score belongs to a model *commit*, a dataset *version* and a *protocol*. Two
scores are compared on a board only when all three line up with what the board counts
(see ``services/aggregation.py``). The model commit and the dataset version are stored
as they are (a sha, a fingerprint); the protocol is the part of the run's settings that
changes the number: how many bootstrap iterations and how many test rows. Few-shot or
zero-shot and the split are part of the entry itself (separate rows on a board).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FULL_SPLIT = 0  # ``test_limit`` of an evaluation on the whole test split

_KEY = re.compile(r"^iterations=(?P<iterations>[1-9][0-9]{0,3})(?:,test-limit=(?P<limit>[1-9][0-9]{0,6}))?$")


class InvalidProtocol(ValueError):
    pass


@dataclass(frozen=True, order=True)
class Protocol:
    """Iterations and the test-row limit (0: the full test split) of an evaluation."""

    iterations: int
    test_limit: int = FULL_SPLIT

    @property
    def key(self) -> str:
        """Canonical text form, e.g. ``iterations=10`` or ``iterations=3,test-limit=32``."""
        limit = f",test-limit={self.test_limit}" if self.test_limit else ""
        return f"iterations={self.iterations}{limit}"

    @classmethod
    def parse(cls, key: str) -> Protocol:
        match = _KEY.match(key or "")
        if not match:
            raise InvalidProtocol(
                f"not a protocol: {key!r} (expected e.g. 'iterations=10' or 'iterations=3,test-limit=32')"
            )
        return cls(int(match["iterations"]), int(match["limit"] or FULL_SPLIT))

    def describe(self) -> str:
        rows = f"the first {self.test_limit} test rows" if self.test_limit else "the full test split"
        return f"{self.iterations} iterations on {rows}"

    def __str__(self) -> str:
        return self.key


# docs/methodology.md §2: 10 bootstrapped iterations on the whole test split.
METHODOLOGY_PROTOCOL = Protocol(iterations=10, test_limit=FULL_SPLIT)

# The dataset version of a record that carries no fingerprint (EuroEval's published
# results): the dataset as its publisher ran it, told apart only by split sizes.
PUBLISHED = "published"


# The dataset version of cells reconstructed from EuroEval's published boards at a commit of
# EuroEval/leaderboards (``import_board``): another identity than evaluated scores.
RECONSTRUCTED_REPOSITORY = "EuroEval/leaderboards"
RECONSTRUCTED_PREFIX = "reconstructed:"
RECONSTRUCTED_RE = re.compile(r"^reconstructed:EuroEval/leaderboards@[0-9a-f]{7,40}$")


def reconstructed_fingerprint(commit: str) -> str:
    """The dataset version of the cells of the boards at ``commit``."""
    return f"{RECONSTRUCTED_PREFIX}{RECONSTRUCTED_REPOSITORY}@{commit[:12]}"


def is_reconstructed(fingerprint: str) -> bool:
    """Whether a dataset version holds cells of a published board: their iterations are
    chosen to give the printed mean and interval, not real resamples, so iteration i of two
    models is no pair."""
    return fingerprint.startswith(RECONSTRUCTED_PREFIX)


def published_fingerprint(test_size: int | None = None) -> str:
    """Fingerprint of a published dataset version known only by its name (and test size)."""
    return PUBLISHED if not test_size else f"{PUBLISHED}:test={int(test_size)}"


def short_fingerprint(fingerprint: str) -> str:
    """``sha256:0123456789ab…`` → ``sha256:0123456789ab``; other fingerprints as they are."""
    if fingerprint.startswith("sha256:"):
        return fingerprint[: len("sha256:") + 12]
    return fingerprint


# A suite board (``da-suite``) ranks what this deployment evaluates itself: the data
# directory's dataset versions under the deployment's protocol.
SUITE_SUFFIX = "-suite"


def suite_code(board: str) -> str:
    return f"{board}{SUITE_SUFFIX}"


def suite_language(code: str) -> str | None:
    """The language board a suite code belongs to (``da-suite`` → ``da``); None for any other code."""
    return code.removesuffix(SUITE_SUFFIX) if code.endswith(SUITE_SUFFIX) else None
