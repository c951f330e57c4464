#!/usr/bin/env bash
# Issue #29's check, one command per dataset: SmolLM2-135M-Instruct, 2 iterations on the first 16
# test rows, on every dataset of the languages added since July 2023 (every scala-*, sib200-*
# and xquad-* folder of data/datasets but English, Danish, Swedish, Norwegian and German).
#
#   bash benchmarks/new_datasets_check.sh [OUT]     # OUT defaults to var/new-datasets-check
#
# Writes OUT/summary.tsv (dataset, exit status, wall seconds), each run's log and record.
# float32 (the boards' dtype on every CPU), one BLAS thread, the bundled weights only.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-var/new-datasets-check}"
mkdir -p "$out/records" "$out/logs"
: > "$out/summary.tsv"
export GLOSSA_DTYPE=float32 HF_HUB_OFFLINE=1 OMP_NUM_THREADS=1
for folder in data/datasets/scala-* data/datasets/sib200-* data/datasets/xquad-*; do
  name=$(basename "$folder")
  case "$name" in *-en|*-da|*-sv|*-nb|*-de) continue ;; esac
  start=$(date +%s.%N)
  .venv/bin/python -m evaluation run --model HuggingFaceTB/SmolLM2-135M-Instruct --dataset "$name" \
    --iterations 2 --limit 16 --output "$out/records/$name.jsonl" >"$out/logs/$name.log" 2>&1
  rc=$?
  awk -v n="$name" -v rc="$rc" -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%s\t%s\t%.1f\n", n, rc, e - s }' >>"$out/summary.tsv"
done
failed=$(awk -F'\t' '$2 != 0' "$out/summary.tsv" | wc -l)
echo "$(wc -l <"$out/summary.tsv") datasets, $failed failed: $out/summary.tsv"
[ "$failed" -eq 0 ]
