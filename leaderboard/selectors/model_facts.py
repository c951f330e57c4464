"""What the model page says about a model and each of its evaluations, as its sources say
it: what its id is (a Hub id, a local path, an address), its type and where that comes from
(``services/model_metadata.py``), how each evaluation ran (fine-tuned, few-shot, zero-shot;
the weights' precision and the backend) and the command that produced it."""

from __future__ import annotations

import re

from leaderboard.models import Evaluation, LanguageModel, ModelType, TypeSource
from leaderboard.selectors.formatting import hub_url, model_id_kind, reproduce_command, variant_label

ID_NOTES = {
    "hub": "",
    "path": "A path on the machine that evaluated it, as its results name it: not a Hugging Face Hub id.",
    "url": "An address, as its results name it: not a Hugging Face Hub id.",
    "name": "A name as its results give it (an API model or an old Hub name): not linked to the Hub.",
}
KINDS = {
    ModelType.ENCODER: "Encoder",
    ModelType.BASE: "Decoder",
    ModelType.INSTRUCTION_TUNED: "Decoder",
    ModelType.REASONING: "Decoder",
}
DECODER_TYPES = (ModelType.BASE, ModelType.INSTRUCTION_TUNED, ModelType.REASONING)
SOURCES = {
    TypeSource.FINE_TUNED: "guessed: its published records report a training loss (it was fine-tuned)",
    TypeSource.RECORD: "as its result records or a published board state it",
    TypeSource.CONFIG: "from its own config",
    TypeSource.ADMIN: "set by an administrator",
}
# GGUF quantisation types (llama.cpp): Q4_K_M, Q4_1, Q8_0, IQ3_XS, ...
GGUF_QUANT = re.compile(r"^I?Q\d(_[A-Z0-9]+)*$")


def identity(model: LanguageModel) -> dict:
    kind = model_id_kind(model.model_id)
    return {"id_kind": kind, "hub_url": hub_url(model.model_id), "id_note": ID_NOTES[kind]}


def type_facts(model: LanguageModel) -> dict:
    metadata = model.metadata if isinstance(model.metadata, dict) else {}
    architecture = metadata.get("architecture") if isinstance(metadata.get("architecture"), dict) else {}
    kind = {"encoder-decoder": "Encoder-decoder"}.get(architecture.get("kind"), KINDS.get(model.model_type, "Unknown"))
    source = metadata.get("type_source")
    claims = metadata.get("type_claims") if isinstance(metadata.get("type_claims"), dict) else {}
    return {
        "kind": kind,
        "variant": str(model.model_type) if kind != "Encoder" and model.model_type in DECODER_TYPES else "",
        "architecture": ", ".join(a for a in architecture.get("architectures", []) if isinstance(a, str)),
        "source": SOURCES.get(source, "") if model.model_type != ModelType.UNKNOWN else "",
        "disagreement": (
            "Its sources disagree: "
            + "; ".join(_claim(name, value) for name, value in sorted(claims.items()) if isinstance(value, str))
            + "."
            if metadata.get("type_disagreement")
            else ""
        ),
    }


CLAIMANTS = {
    "config": "its config",
    "record": "its records or a published board",
    "fine-tuned": "the fine-tuning guess",
    "admin": "an administrator",
}


def _claim(source: str, value: str) -> str:
    """One source's claim in words; a config names an architecture, not a decoder's variant."""
    said = KINDS.get(value, value).lower() if source == "config" else value
    return f"{CLAIMANTS.get(source, source)} says {said}"


def fine_tuned(evaluation: Evaluation, model: LanguageModel) -> bool:
    """Whether this evaluation fine-tuned the model (an encoder, or a decoder with a head, as
    ScandEval did in 2023) rather than prompting it: the record says so (``prompt_style``
    ``finetune``, ``generative: false``), or it is an engine-less record of a model whose
    only fine-tuned claim came from records (no prompt style, no generative flag)."""
    record = evaluation.record or {}
    if record.get("prompt_style") == "finetune" or record.get("generative") is False:
        return True
    if "prompt_style" in record or record.get("generative") is True:
        return False
    if "reconstructed_from" in record:  # EuroEval's boards fine-tune encoders and prompt decoders
        return model.model_type == ModelType.ENCODER
    metadata = model.metadata if isinstance(model.metadata, dict) else {}
    claims = metadata.get("type_claims") if isinstance(metadata.get("type_claims"), dict) else {}
    return model.model_type == ModelType.ENCODER or TypeSource.FINE_TUNED.label in claims


def variant(evaluation: Evaluation, model: LanguageModel) -> str:
    """How it ran: "fine-tuned" for a fine-tuned model (an encoder is never "few-shot")."""
    if fine_tuned(evaluation, model):
        return "fine-tuned" + (", validation split" if evaluation.validation_split else "")
    return variant_label(evaluation.few_shot, evaluation.validation_split)


def runtime(record: dict, model: LanguageModel) -> dict:
    """The weights' precision and the backend as they ran. A GGUF quantisation (Q4_K_M) is
    a file format the transformers backend cannot run as is: it dequantises the weights on
    load and computes in floating point, so the page says both."""
    precision = str(record.get("precision") or model.precision or "")
    backend = str(record.get("backend") or "")
    gguf = bool(GGUF_QUANT.match(precision))
    if gguf and backend == "transformers":
        return {
            "precision": f"{precision} (GGUF weights, dequantised on load)",
            "backend": f"transformers (PyTorch, floating point, from the {precision} GGUF file)",
        }
    return {"precision": precision, "backend": backend}


def precision_text(model: LanguageModel) -> str:
    """The model's stored precision; a GGUF quantisation says what it is."""
    precision = model.precision or ""
    return (
        f"{precision} (a GGUF quantisation; see each evaluation's backend)"
        if GGUF_QUANT.match(precision)
        else precision
    )


def command(evaluation: Evaluation, model: LanguageModel) -> dict:
    """The command that produced the evaluation, from its record: the engine's, with the
    record's protocol (iterations, test-row limit), variant, revision and backend. A result
    published by EuroEval or ScandEval was not produced by this engine: the page shows the
    engine's command under that result's protocol and says so."""
    record = evaluation.record or {}
    engine = "iterations" in record and "backend" in record
    iterations = record.get("iterations") if engine else evaluation.num_iterations
    limit = record.get("limit") if engine else (evaluation.test_limit or None)
    text = reproduce_command(
        model.model_id,
        evaluation.dataset.name,
        few_shot=evaluation.few_shot,
        validation_split=evaluation.validation_split,
        iterations=iterations if isinstance(iterations, int) and iterations > 0 else 10,
        limit=limit if isinstance(limit, int) and limit > 0 else None,
        backend=str(record.get("backend") or "") if engine else "",
        revision=str(record.get("model_revision") or "") if engine else "",
        output="results.jsonl",
    )
    note = (
        ""
        if engine
        else "Published by EuroEval or ScandEval, not run here: the engine's command under the same protocol."
    )
    return {"command": text, "command_note": note}
