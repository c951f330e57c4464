"""Display helpers for the public pages (pure): labels, numbers, sizes, URLs and the
command that reproduces a result."""

from __future__ import annotations

import math
import re
import shlex
from functools import lru_cache
from urllib.parse import urlencode

from django.urls import NoReverseMatch, reverse

from evaluation.tasks import METRIC_LABELS
from leaderboard.models import (
    ModelType,
)
from leaderboard.ranking import (
    entry_display_name,  # noqa: F401  (the contract's display name)
)

# --- display helpers (pure) ---------------------------------------------------------

# Labels of model types come from ModelType (models/submissions.py), the one place they are written.
TYPE_SHORT_LABELS = {t.value: t.short_label for t in ModelType}
MODEL_TYPES: dict[str, tuple[str, str]] = {t.value: (t.badge, t.label) for t in ModelType}  # value → (badge, label)

# key → (label, lower bound inclusive, upper bound exclusive); None bounds = unknown size.
SIZE_BUCKETS: dict[str, tuple[str, float | None, float | None]] = {
    "lt2": ("< 2B", 0, 2e9),
    "2-10": ("2–10B", 2e9, 10e9),
    "10-40": ("10–40B", 10e9, 40e9),
    "40-80": ("40–80B", 40e9, 80e9),
    "ge80": ("≥ 80B", 80e9, math.inf),
    "unknown": ("Unknown", None, None),
}

SHOTS = {"few": "Few-shot", "zero": "Zero-shot"}
DASH = "–"


def variant_label(few_shot: bool, validation_split: bool) -> str:
    return ("few-shot" if few_shot else "zero-shot") + (", validation split" if validation_split else "")


def format_count(value: int | None) -> str:
    """Parameters in short form: 124M, 7.2B, 1.1T; a dash when unknown."""
    if value is None or value <= 0:
        return DASH
    for threshold, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= threshold:
            scaled = value / threshold
            return f"{scaled:.0f}{suffix}" if scaled >= 100 else f"{scaled:.3g}{suffix}"
    return str(value)


def format_int(value: int | None) -> str:
    return f"{value:,}" if value else DASH


def format_number(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    return f"{value:.{digits}f}"


def size_bucket(num_parameters: int | None) -> str:
    if not num_parameters or num_parameters <= 0:
        return "unknown"
    for key, (_, low, high) in SIZE_BUCKETS.items():
        if low is not None and low <= num_parameters < high:
            return key
    return "unknown"


def reproduce_command(
    model_id: str,
    dataset: str,
    *,
    few_shot: bool,
    validation_split: bool,
    iterations: int = 10,
    limit: int | None = None,
    backend: str = "",
    revision: str = "",
    output: str = "",
) -> str:
    """The engine's command for one evaluation under the protocol given (iterations, test-row
    limit, variant, backend, revision): the one that produced a record, built from it."""
    parts = ["python", "-m", "evaluation", "run", "--model", model_id]
    if revision and revision != "main":
        parts += ["--revision", revision]
    parts += ["--dataset", dataset, "--iterations", str(iterations)]
    if limit:
        parts += ["--limit", str(limit)]
    if not few_shot:
        parts.append("--zero-shot")
    if validation_split:
        parts.append("--validation-split")
    if backend and backend != "transformers":
        parts += ["--backend", backend]
    if output:
        parts += ["--output", output]
    return shlex.join(parts)


# Model ids that are not Hugging Face Hub ids: a path on the machine that evaluated the model
# (``/mnt/...``, ``./x``, ``~/x``, ``C:/x``) or an address. A Hub id is ``org/name``; a bare
# name may be an old Hub id (``gpt2``) or an API model (``gpt-3.5-turbo-0613``): not linked.
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


def model_id_kind(model_id: str) -> str:
    """``hub`` (a Hub id, linked to its Hub page), ``url``, ``path`` or ``name`` (an API
    model's name or anything else: shown as written, never linked)."""
    if "://" in model_id:
        return "url"
    if model_id.startswith(("/", "./", "../", "~")) or "\\" in model_id or re.match(r"^[A-Za-z]:[\\/]", model_id):
        return "path"
    if _HUB_ID.match(model_id.split("#", 1)[0]) and ".." not in model_id:
        return "hub"
    return "name"


def hub_url(model_id: str) -> str:
    """The model's Hugging Face Hub page, only for a Hub id (``org/model#low`` names a variant)."""
    if model_id_kind(model_id) != "hub":
        return ""
    return f"https://huggingface.co/{model_id.split('#', 1)[0]}"


@lru_cache(maxsize=8192)
def model_url(model_id: str) -> str:
    """The model's page. An id that an address path cannot carry as written (a local path
    like ``/mnt/x/``: slashes at either end or doubled, which proxies merge) is passed as
    ``/model/?id=...`` instead."""
    if model_id.startswith("/") or model_id.endswith("/") or "//" in model_id or "?" in model_id or "%" in model_id:
        try:
            return f"{reverse('model-by-id')}?{urlencode({'id': model_id})}"
        except NoReverseMatch:
            return ""
    return _url_or_empty("model", model_id=model_id)


def _url_or_empty(view: str, **kwargs) -> str:
    """The page's address, or "" for a stored name no address can carry (e.g. a board
    code ``x/y`` written before names were validated): a page never fails over a link."""
    try:
        return reverse(view, kwargs=kwargs)
    except NoReverseMatch:
        return ""


def board_url(code: str) -> str:
    return _url_or_empty("board", code=code)


def examples_url(model_id: str, dataset: str) -> str:
    """The prediction browser of a model on a dataset."""
    return _url_or_empty("model-examples", model_id=model_id, dataset=dataset)


def dataset_url(name: str) -> str:
    return _url_or_empty("dataset", name=name)


def metric_label(metric: str | None) -> str:
    """Display name of a metric; "" for a task without that metric (no secondary)."""
    return METRIC_LABELS.get(metric, metric) if metric else ""
