"""This deployment's evaluation suite: the protocol it evaluates submissions with.

Every process of a deployment (site, workers, commands) reads the same settings
(``GLOSSA_ITERATIONS``, ``GLOSSA_TEST_LIMIT``), so the suite boards they write and the
evaluations the workers store agree on one protocol.
"""

from __future__ import annotations

from django.conf import settings

from leaderboard.identity import FULL_SPLIT, Protocol


def suite_protocol() -> Protocol:
    """The protocol submissions are evaluated with here, and the suite boards count."""
    return Protocol(settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT or FULL_SPLIT)
