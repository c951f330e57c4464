"""A model's metadata from what a source says about it (a results file, a published board,
the Hub, the bundled catalogue or the site's catalogue of configs): fill what is unknown,
never overwrite what a person or an earlier source recorded. One rule for every writer
(``results_import``, ``board_import``, ``submissions``).

The model's type is the exception, because sources differ in how much they know. Each
claim comes with its source's strength (``TypeSource``): the model's own config (bundled
models, the Hub at submission, ``leaderboard/data/model_configs.json``) outranks what a
record or a published board states (``generative``, ``generative_type``, the board's Type
column), which outranks what a record only implies (it reports a training loss: the model
was fine-tuned, which ScandEval did to decoders too in 2023). A stronger source replaces a
weaker one's type; an administrator's choice is never replaced. Every claim is kept in
``metadata["type_claims"]``, and claims that disagree set ``metadata["type_disagreement"]``
(an admin list filter), so a person can look.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from evaluation.encoders.detect import is_encoder_config
from leaderboard.models import LanguageModel, ModelType, TypeSource

UNKNOWN_VALUES = (None, "", ModelType.UNKNOWN)
NOT_A_VALUE = (None, "", -1)  # EuroEval writes -1 for "unknown"
CONFIGS = Path(__file__).resolve().parents[1] / "data" / "model_configs.json"


def fill_unknown(model: LanguageModel, values: dict, type_source: TypeSource = TypeSource.RECORD) -> list[str]:
    """Set each field of ``values`` that ``model`` does not know yet, and its type by the
    rule above; returns the names set (the caller saves them)."""
    values = dict(values)
    changed = claim_type(model, values.pop("model_type", None), type_source)
    for name, value in values.items():
        if value in NOT_A_VALUE or getattr(model, name) not in UNKNOWN_VALUES:
            continue
        setattr(model, name, value)
        changed.append(name)
    return changed


def _metadata(model: LanguageModel) -> dict:
    """The model's metadata as a dict (an admin can store any JSON there)."""
    return dict(model.metadata) if isinstance(model.metadata, dict) else {}


def _source_of(model: LanguageModel) -> int:
    """The strength of the source behind the model's current type; a type stored before
    sources were recorded counts as the weakest (the old rule guessed from training losses)."""
    stored = _metadata(model).get("type_source")
    if model.model_type in UNKNOWN_VALUES:
        return 0
    return stored if isinstance(stored, int) else TypeSource.FINE_TUNED


def claim_type(model: LanguageModel, value: str | None, source: TypeSource) -> list[str]:
    """Record ``source``'s claim that ``model`` is of type ``value``; the model takes it when
    no stronger source has spoken. Returns the fields changed."""
    if value in NOT_A_VALUE or value == ModelType.UNKNOWN or value not in ModelType.values:
        return []
    metadata = _metadata(model)
    claims = metadata.get("type_claims") if isinstance(metadata.get("type_claims"), dict) else {}
    claims = dict(claims)
    changed = []
    if claims.get(source.label) != value:
        claims[source.label] = value
        metadata["type_claims"] = claims
    if source >= _source_of(model) and model.model_type != value:
        model.model_type = value
        metadata["type_source"] = int(source)
        changed.append("model_type")
    elif source >= _source_of(model):
        metadata["type_source"] = int(source)
    disagree = len(set(claims.values()) | {model.model_type}) > 1
    if disagree:
        metadata["type_disagreement"] = True
    else:
        metadata.pop("type_disagreement", None)
    if metadata != model.metadata:
        model.metadata = metadata
        changed.append("metadata")
    return changed


@cache
def _catalogue() -> dict[str, dict]:
    try:
        return json.loads(CONFIGS.read_text(encoding="utf-8"))["models"]
    except (OSError, ValueError, KeyError):
        return {}


def catalogued_config(model_id: str) -> dict | None:
    """The architecture fields of ``model_id``'s config, when the site's catalogue has them."""
    found = _catalogue().get(model_id)
    return dict(found) if isinstance(found, dict) else None


def architecture_kind(config: dict) -> str:
    """``encoder``, ``decoder`` or ``encoder-decoder``, from a config (or its architecture fields)."""
    if config.get("is_encoder_decoder"):
        return "encoder-decoder"
    return "encoder" if is_encoder_config(config) else "decoder"


def apply_catalogue(model: LanguageModel) -> list[str]:
    """Take the catalogue's config for ``model``: its architecture into the metadata and, for an
    encoder, its type (a decoder's variant, base or instruction-tuned, is not in a config:
    a decoder the config names keeps what records say, or becomes a base decoder when the only
    claim was the fine-tuning guess). Returns the fields changed."""
    config = catalogued_config(model.model_id)
    if config is None:
        return []
    kind = architecture_kind(config)
    changed = []
    architecture = {"kind": kind, "architectures": config.get("architectures") or [], "source": "catalogue"}
    if _metadata(model).get("architecture") != architecture:
        model.metadata = {**_metadata(model), "architecture": architecture}
        changed.append("metadata")
    claims = _metadata(model).get("type_claims")
    stated = claims.get(TypeSource.RECORD.label) if isinstance(claims, dict) else None
    if kind == "encoder":
        value = ModelType.ENCODER
    elif stated and stated != ModelType.ENCODER:
        value = stated  # the config says decoder, a record says which kind of decoder
    else:
        value = ModelType.BASE
    changed += [name for name in claim_type(model, value, TypeSource.CONFIG) if name not in changed]
    return changed
