#!/usr/bin/env bash
# Encoder fine-tuning end to end (BENCHMARKS.md, "Encoder fine-tuning"): MiniLM on
# poem-sentiment-en, 10 iterations (fine-tune + score per iteration), 256 test rows,
# methodology defaults (early stopping on val loss, patience 2, eval every 30 steps).
# Usage: bash benchmarks/encoder_finetune.sh [OUTPUT.jsonl [--max-train-steps N]]
# OMP_NUM_THREADS defaults to 1 here: on a shared, oversubscribed 2-core VM one torch
# thread trained ~3x faster than two (spin-waiting threads); set it to 2 on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/encoder_benchmark.jsonl}"
rm -f "$out"
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
start=$(date +%s)
.venv/bin/python -m evaluation run --model sentence-transformers/all-MiniLM-L6-v2 \
    --dataset poem-sentiment-en --iterations 10 --limit 256 --output "$out" "${@:2}"
end=$(date +%s)
echo "wall time: $((end - start)) s (OMP_NUM_THREADS=$OMP_NUM_THREADS)"
.venv/bin/python - "$out" <<'PY'
import json, sys
record = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print({k: round(v, 2) for k, v in record["results"]["total"].items()})
PY
