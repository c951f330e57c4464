"""Turn the files ``benchmarks/gpu.sh`` wrote into a BENCHMARKS.md section (issue #30 item 7).

    python benchmarks/gpu_report.py var/gpu-bench > var/gpu-bench/section.md

Reads what is there and says what is missing: ``environment.txt``, ``speed-<backend>.json``
(``python -m evaluation speed``), ``vllm-offline.json`` (``benchmarks/vllm_offline.py``) and
``evaluation-<backend>.jsonl`` with ``evaluation-<backend>.time`` (the full evaluation). A backend
the run did not try (no file of it there, e.g. ``GLOSSA_GPU_BACKENDS=vllm``) is left out.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

BACKENDS = ("transformers", "vllm")


def _load(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _gib(n) -> str:
    return f"{n / 2**30:.2f} GiB" if n else "–"


def tried(folder: Path) -> list[str]:
    """The backends the run tried: those with a file of theirs in ``folder`` (all when none has)."""
    found = [b for b in BACKENDS if any(folder.glob(f"speed-{b}.*")) or any(folder.glob(f"evaluation-{b}.*"))]
    return found or list(BACKENDS)


def offline_rows(folder: Path) -> list[str]:
    """vLLM's own offline throughput (``benchmarks/vllm_offline.py``), when the run has it."""
    offline = _load(folder / "vllm-offline.json")
    if offline is None:
        return (
            ["- vLLM offline (`benchmarks/vllm_offline.py`): not run here (see vllm-offline.log)"]
            if (folder / "vllm-offline.log").exists()
            else []
        )
    lines = [
        f"- vLLM offline (`benchmarks/vllm_offline.py`), vLLM {offline.get('vllm')}, "
        f"load {offline.get('load_seconds')} s, the speed benchmark's prompts straight to `LLM.generate`:",
        "",
        "  | prompt (GPT-2 tokens) | batch | prompt tok/s | generated tok/s | median s |",
        "  | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in offline.get("runs", []):
        lines.append(
            f"  | {run['prompt_reference_tokens']} | {run['batch_size']} | {run['prompt_tokens_per_second']:,} "
            f"| {run['generated_tokens_per_second']:,} | {run['median_seconds']} |"
        )
    return [*lines, ""]


def speed_rows(folder: Path) -> list[str]:
    offline = _load(folder / "vllm-offline.json")
    reference = {(r["prompt_reference_tokens"], r["batch_size"]): r for r in (offline or {}).get("runs", [])}
    lines = []
    for backend in tried(folder):
        report = _load(folder / f"speed-{backend}.json")
        if report is None:
            lines.append(f"- speed, {backend} backend: not run here (see the log)")
            continue
        hw = report["hardware"]
        lines.append(
            f"- speed, **{backend}** backend on {hw['device_name']} ×{hw['device_count']} "
            f"({hw['dtype']}, torch {hw['torch']}, transformers {hw.get('transformers')}, vLLM {hw.get('vllm')}):"
        )
        lines.append("")
        lines.append(
            "  | prompt (GPT-2 tokens) | batch | prompt tok/s | generated tok/s | median s | peak memory "
            "| vLLM offline gen tok/s | ratio |"
        )
        lines.append("  | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for run in report["runs"]:
            ref = reference.get((run["prompt_reference_tokens"], run["batch_size"])) if backend == "vllm" else None
            ratio = (
                f"{run['generated_tokens_per_second'] / ref['generated_tokens_per_second']:.0%}"
                if ref and ref["generated_tokens_per_second"]
                else "–"
            )
            lines.append(
                f"  | {run['prompt_reference_tokens']} | {run['batch_size']} | {run['prompt_tokens_per_second']:,} "
                f"| {run['generated_tokens_per_second']:,} | {run['median_seconds']} "
                f"| {_gib(run.get('peak_memory_bytes'))} "
                f"| {ref['generated_tokens_per_second'] if ref else '–'} | {ratio} |"
            )
        lines.append("")
    return lines


def describe(record: dict, backend: str, elapsed: str) -> str:
    eff = record.get("efficiency") or {}
    hw = eff.get("hardware") or {}
    latency = eff.get("latency_ms") or {}
    total = record["results"]["total"]
    main = next(k for k in total if not k.endswith("_se"))
    metric = main.removeprefix("test_")
    scores = [row[metric] for row in record["results"]["raw"] if metric in row]
    rows = "whole test split" if not record.get("limit") else f"limit {record['limit']}"
    shots = "few-shot" if record.get("few_shot") else "zero-shot"
    if eff.get("energy_joules") is not None:
        energy = f"{eff['energy_joules']:,.0f} J"
    else:
        energy = f"not measured ({eff.get('energy_unavailable_reason')})"
    parts = [
        f"- full evaluation, **{backend}** backend: {record['model']} on {record['dataset']}, "
        f"{record['iterations']} iterations, {rows}, {shots}",
        f"{main} {total[main]:.2f} ± {total.get(main + '_se', 0):.2f} "
        f"(iterations {min(scores):.2f} to {max(scores):.2f}, sd {statistics.pstdev(scores):.2f})",
        f"command {elapsed} s, engine {eff.get('wall_seconds')} s of which model load {eff.get('load_seconds')} s",
        f"{eff.get('examples')} examples, {eff.get('prompt_tokens')} prompt tokens "
        f"at {eff.get('prompt_tokens_per_second')} tok/s",
        f"latency median {latency.get('median')} ms, p95 {latency.get('p95')} ms",
        f"peak {eff.get('peak_memory_kind')} memory {_gib(eff.get('peak_memory_bytes'))}",
        f"energy {energy}",
        f"hardware class `{hw.get('class')}`, batch {hw.get('batch_size')}, dtype {hw.get('dtype')}, "
        f"driver {hw.get('driver')}",
    ]
    return "; ".join(parts)


def evaluation_rows(folder: Path) -> list[str]:
    lines = []
    for backend in tried(folder):
        path = folder / f"evaluation-{backend}.jsonl"
        try:
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, ValueError):
            records = []
        if not records:
            lines.append(f"- full evaluation, {backend} backend: not run here (see the log)")
            continue
        timing = folder / f"evaluation-{backend}.time"
        elapsed = timing.read_text(encoding="utf-8").strip() if timing.exists() else "?"
        lines.extend(describe(record, backend, elapsed) for record in records)
    return lines


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "var/gpu-bench")
    environment = (
        (folder / "environment.txt").read_text(encoding="utf-8") if (folder / "environment.txt").exists() else ""
    )
    print(f"## GPU run (`benchmarks/gpu.sh`): {', '.join(tried(folder))}\n")
    print("```\n" + environment.strip() + "\n```\n")
    for line in speed_rows(folder) + offline_rows(folder) + evaluation_rows(folder):
        print(line)


if __name__ == "__main__":
    main()
