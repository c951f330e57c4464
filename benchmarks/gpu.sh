#!/usr/bin/env bash
# The GPU run (issue #30 item 7), by hand on a machine with an NVIDIA GPU:
#   1. the speed benchmark (python -m evaluation speed) on the transformers backend and, where
#      vLLM is installed (the `gpu` extra), on the vLLM backend and against vLLM's own offline
#      throughput on the same prompts (benchmarks/vllm_offline.py; goal: Glossa's path >= 80%);
#   2. a full evaluation (10 iterations, whole test split) of a bundled model on one dataset,
#      on each backend, with its efficiency object (GPU memory, NVML energy, hardware identity);
#   3. a BENCHMARKS.md section from those files (benchmarks/gpu_report.py).
# Every step runs even when one before it failed; each step's log is kept beside its result.
#
#   bash benchmarks/gpu.sh [OUTDIR]          (default var/gpu-bench)
# Settings (environment): PYTHON (default .venv/bin/python), GLOSSA_GPU_MODEL
# (HuggingFaceTB/SmolLM2-135M-Instruct), GLOSSA_GPU_DATASET (lcc-europarl-sentiment-da),
# GLOSSA_GPU_ITERATIONS (10), GLOSSA_GPU_LIMIT (empty: the whole test split; the CPU test sets a
# few rows), GLOSSA_GPU_SPEED_ARGS (extra arguments of the speed command), GLOSSA_GPU_BACKENDS (the
# backends to run, e.g. "vllm"; default: transformers, and vllm where it is importable).
set -uo pipefail
cd "$(dirname "$0")/.."
OUTDIR="${1:-var/gpu-bench}"
mkdir -p "$OUTDIR"
PY="${PYTHON:-.venv/bin/python}"
MODEL="${GLOSSA_GPU_MODEL:-HuggingFaceTB/SmolLM2-135M-Instruct}"
DATASET="${GLOSSA_GPU_DATASET:-lcc-europarl-sentiment-da}"
ITERATIONS="${GLOSSA_GPU_ITERATIONS:-10}"
LIMIT_ARGS=()
[ -n "${GLOSSA_GPU_LIMIT:-}" ] && LIMIT_ARGS=(--limit "$GLOSSA_GPU_LIMIT")
read -r -a SPEED_ARGS <<< "${GLOSSA_GPU_SPEED_ARGS:-}"
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" PYTHONUNBUFFERED=1
# the engine from this checkout, also for the scripts under benchmarks/ where it is not installed
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  echo "host: $(uname -srm), $(nproc) CPU threads"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' \
    || echo "gpu: none (nvidia-smi not found)"
  "$PY" - <<'PYEOF'
import importlib.metadata as m, platform
print("python:", platform.python_version())
for name in ("torch", "transformers", "vllm", "nvidia-ml-py"):
    try:
        print(f"{name}: {m.version(name)}")
    except m.PackageNotFoundError:
        print(f"{name}: not installed")
PYEOF
  echo "model: $MODEL; dataset: $DATASET; iterations: $ITERATIONS; limit: ${GLOSSA_GPU_LIMIT:-whole test split}"
} > "$OUTDIR/environment.txt" 2>&1
cat "$OUTDIR/environment.txt"

if [ -n "${GLOSSA_GPU_BACKENDS:-}" ]; then
  read -r -a backends <<< "$GLOSSA_GPU_BACKENDS"
  echo "backends: ${backends[*]} (GLOSSA_GPU_BACKENDS)" | tee -a "$OUTDIR/environment.txt"
else
  backends=(transformers)
  if "$PY" -c "import vllm" 2>/dev/null; then
    backends+=(vllm)
  else
    echo "vLLM is not importable here: its rows are skipped (install the gpu extra)" | tee -a "$OUTDIR/environment.txt"
  fi
fi

for backend in "${backends[@]}"; do
  echo "== speed, $backend"
  "$PY" -m evaluation speed --model "$MODEL" --backend "$backend" "${SPEED_ARGS[@]}" \
    --output "$OUTDIR/speed-$backend.json" > "$OUTDIR/speed-$backend.log" 2>&1 \
    || { echo "speed on $backend failed:"; tail -20 "$OUTDIR/speed-$backend.log"; }
  echo "== full evaluation, $backend"
  rm -f "$OUTDIR/evaluation-$backend.jsonl"
  started=$(date +%s)
  "$PY" -m evaluation run --model "$MODEL" --dataset "$DATASET" --iterations "$ITERATIONS" "${LIMIT_ARGS[@]}" \
    --backend "$backend" --output "$OUTDIR/evaluation-$backend.jsonl" > "$OUTDIR/evaluation-$backend.log" 2>&1 \
    || { echo "evaluation on $backend failed:"; tail -20 "$OUTDIR/evaluation-$backend.log"; }
  echo $(( $(date +%s) - started )) > "$OUTDIR/evaluation-$backend.time"
done

if [[ " ${backends[*]} " == *" vllm "* ]]; then
  echo "== vLLM offline"
  "$PY" benchmarks/vllm_offline.py --model "$MODEL" --output "$OUTDIR/vllm-offline.json" \
    > "$OUTDIR/vllm-offline.log" 2>&1 || { echo "vLLM offline failed:"; tail -20 "$OUTDIR/vllm-offline.log"; }
fi

"$PY" benchmarks/gpu_report.py "$OUTDIR" > "$OUTDIR/section.md"
cat "$OUTDIR/section.md"
