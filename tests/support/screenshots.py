"""Screenshots the browser tests take for a person to look at, written to ``test-artifacts/``
only with ``GLOSSA_TEST_SCREENSHOTS=1``: Chromium spends seconds of CPU on each full-page
shot, and no test reads them back. Without the variable, a shot of one element still
checks that the element is shown."""

from __future__ import annotations

import os
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TAKE_SHOTS = os.environ.get("GLOSSA_TEST_SCREENSHOTS") == "1"


def shot(target, name: str, **options) -> None:
    """A screenshot of ``target`` (a Playwright page or locator) as ``test-artifacts/<name>``."""
    if not TAKE_SHOTS:
        if hasattr(target, "wait_for"):  # a locator: what the shot would have waited for
            target.wait_for(state="visible")
        return
    path = ARTIFACTS / name
    path.parent.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(path), **options)
