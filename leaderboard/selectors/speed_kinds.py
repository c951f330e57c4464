"""The kinds of speed records EuroEval and ScandEval published: each its own unit, hardware
and document-length buckets (read by the pages, written by ``services/published_speed.py``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpeedKind:
    """One kind of published speed record: its unit, hardware and buckets."""

    key: str
    title: str
    unit: str
    hardware: str
    buckets: tuple[str, ...]  # the metric names per iteration: "speed", "speed_short"
    note: str

    def bucket_label(self, bucket: str, iteration: int) -> str:
        """The document a bucket's value of iteration ``iteration`` (from 0) was measured on."""
        if bucket == "speed" and len(self.buckets) == 1:
            return "~600-token document (cut at the model's maximum length)"
        sentences = 10 * (iteration + 1) if bucket == "speed" else self.short_sentences(iteration)
        return f"~{sentences * 10} tokens ({'long' if bucket == 'speed' else 'short'})"

    def short_sentences(self, iteration: int) -> int:
        if self.key == "scandeval-gpu-model-tokens":
            return int(2.5 * (iteration + 1))  # the multiplier on the 2023 file's date
        return round(1.25 * (iteration + 1))


KINDS = {
    kind.key: kind
    for kind in (
        SpeedKind(
            "scandeval-cpu-documents",
            "ScandEval 6-7 (CPU)",
            "documents/s on ScandEval's CPU",
            "ScandEval's CPU (machine not published)",
            ("speed",),
            "One ~600-token dummy document per pass, 100 passes after 10 warm-up passes, each iteration.",
        ),
        SpeedKind(
            "scandeval-gpu-model-tokens",
            "ScandEval 8-13 (GPU)",
            "the model's own tokens/s on ScandEval's GPU",
            "ScandEval's GPU (machine not published)",
            ("speed", "speed_short"),
            "Counted with each model's own tokenizer, so models with different tokenizers do not compare; "
            "iteration i reads ~100·(i+1) tokens (long) and a short document.",
        ),
        SpeedKind(
            "euroeval-gpu-gpt2-tokens",
            "EuroEval 14+ (GPU)",
            "GPT-2 tokens/s on EuroEval's hardware",
            "EuroEval's GPU (machine not published)",
            ("speed", "speed_short"),
            "Counted in GPT-2 tokens; iteration i reads ~100·(i+1) tokens (long) and ~12.5·(i+1) (short).",
        ),
    )
}
