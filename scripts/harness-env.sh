#!/usr/bin/env bash
# Build .venv-harness: lm-evaluation-harness beside the project, for
# benchmarks/harness_compare.py. torch is pinned and installed FIRST so that
# lm_eval's `torch>=1.8` is already satisfied by the local CPU build; pip must
# never resolve another torch version (that pulls multi-GB CUDA wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-harness
if [ ! -f "$VENV/.installed" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q torch==2.13.0
  "$VENV/bin/pip" install -q 'lm_eval[hf]==0.4.13' torch==2.13.0
  "$VENV/bin/python" -c 'import torch; assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__'
  touch "$VENV/.installed"
fi
