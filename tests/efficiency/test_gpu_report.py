"""benchmarks/gpu_report.py: the BENCHMARKS.md section of a GPU run, on the files of the H200 run
(benchmarks/results/h200-2026-11-26/) standing in for a vLLM-only run (GLOSSA_GPU_BACKENDS=vllm)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "benchmarks" / "results" / "h200-2026-11-26"


def report(folder: Path) -> str:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "gpu_report.py"), str(folder)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_a_vllm_only_run_reports_vllm_and_its_offline_reference_alone(tmp_path):
    shutil.copy(H200 / "environment.txt", tmp_path / "environment.txt")
    shutil.copy(H200 / "speed-transformers.json", tmp_path / "speed-vllm.json")
    shutil.copy(H200 / "evaluation-transformers.jsonl", tmp_path / "evaluation-vllm.jsonl")
    (tmp_path / "evaluation-vllm.time").write_text("41\n")
    runs = json.loads((tmp_path / "speed-vllm.json").read_text())["runs"]
    offline = {
        "kind": "vllm-offline",
        "vllm": "0.20.2",
        "load_seconds": 31.5,
        "runs": [{**run, "generated_tokens_per_second": 2 * run["generated_tokens_per_second"]} for run in runs],
    }
    (tmp_path / "vllm-offline.json").write_text(json.dumps(offline))

    text = report(tmp_path)

    assert text.startswith("## GPU run (`benchmarks/gpu.sh`): vllm\n")
    assert "transformers backend" not in text
    assert "speed, **vllm** backend on NVIDIA H200" in text
    assert "full evaluation, **vllm** backend: HuggingFaceTB/SmolLM2-135M-Instruct" in text
    assert "command 41 s" in text
    assert "vLLM offline (`benchmarks/vllm_offline.py`), vLLM 0.20.2, load 31.5 s" in text
    assert text.count("| 50% |") == len(runs)  # Glossa's path against vLLM's own, per row


def test_failed_vllm_steps_are_named_and_the_untried_backend_left_out(tmp_path):
    for name in ("speed-vllm.log", "evaluation-vllm.log", "vllm-offline.log"):
        (tmp_path / name).write_text("error: vLLM could not load\n")

    text = report(tmp_path)

    assert "- speed, vllm backend: not run here (see the log)" in text
    assert "- full evaluation, vllm backend: not run here (see the log)" in text
    assert "- vLLM offline (`benchmarks/vllm_offline.py`): not run here (see vllm-offline.log)" in text
    assert "transformers" not in text


def test_an_empty_folder_names_every_backend(tmp_path):
    text = report(tmp_path)

    assert "- speed, transformers backend: not run here" in text
    assert "- speed, vllm backend: not run here" in text
    assert "vLLM offline" not in text
