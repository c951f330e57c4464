"""Writing what running a model cost (docs/methodology.md §11): an evaluation's checked ``efficiency``
object (``record_efficiency.check_efficiency``) as its ``EvaluationCost`` row. Called by
``results_import.store_record`` inside the record's transaction, so a file import and a
GPU worker's record (``submission_lifecycle`` → the same importer) store it alike."""

from __future__ import annotations

from leaderboard.models import Evaluation, EvaluationCost


def cost_fields(efficiency: dict) -> dict:
    """The row's columns from a checked efficiency object."""
    hardware = efficiency["hardware"]
    return {
        "hardware_class": hardware["class"],
        "backend": hardware["backend"],
        "device": hardware["device"],
        "hardware": hardware,
        "wall_seconds": efficiency["wall_seconds"],
        "load_seconds": efficiency["load_seconds"],
        "examples": efficiency["examples"],
        "prompt_tokens": efficiency["prompt_tokens"],
        "generated_tokens": efficiency["generated_tokens"],
        "reference_tokenizer": efficiency["reference_tokenizer"],
        "reference_prompt_tokens": efficiency["reference_prompt_tokens"],
        "prompt_tokens_per_second": efficiency["prompt_tokens_per_second"],
        "generated_tokens_per_second": efficiency["generated_tokens_per_second"],
        "latency_median_ms": efficiency["latency_ms"]["median"],
        "latency_p95_ms": efficiency["latency_ms"]["p95"],
        "peak_memory_bytes": efficiency["peak_memory_bytes"],
        "peak_memory_kind": efficiency["peak_memory_kind"] or "",
        "energy_joules": efficiency["energy_joules"],
        "energy_unavailable_reason": efficiency["energy_unavailable_reason"] or "",
    }


def store_cost(evaluation: Evaluation, efficiency: dict | None) -> None:
    """The evaluation's cost as its record gives it; a record without one leaves none."""
    if efficiency is None:
        EvaluationCost.objects.filter(evaluation=evaluation).delete()
        return
    EvaluationCost.objects.update_or_create(evaluation=evaluation, defaults=cost_fields(efficiency))
