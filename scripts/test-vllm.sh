#!/usr/bin/env bash
# The vLLM backend, for real, on vLLM's CPU build in its own environment (.venv-vllm).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/vllm-env.sh
export VLLM_ENABLE_V1_MULTIPROCESSING=0   # in-process engine: no spawn of the caller's __main__
export VLLM_CPU_KVCACHE_SPACE="${VLLM_CPU_KVCACHE_SPACE:-1}"
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}"
export GLOSSA_VAR_DIR="${GLOSSA_VAR_DIR:-$PWD/var/test-vllm}"
exec .venv-vllm/bin/python -m pytest -m vllm -p no:django tests/evaluation "$@"
