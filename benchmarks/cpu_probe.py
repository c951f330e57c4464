"""How fast this machine is, in two numbers to set beside a suite time measured on it.

VMs of one kind differ by a fifth to a third (BENCHMARKS.md), and not by the same factor for
all work: the ranking's scalar loops and the models' matrix products move apart. Run on one
pinned core with nothing else running::

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python benchmarks/cpu_probe.py

It measures float32 matrix products, the work of the real models in the suite; the
ranking's scalar work is ``benchmarks/ranking_speed.py``'s ``rank_language_board`` line.
"""

from __future__ import annotations

import time

import torch

SIZE, REPEATS = 1024, 50


def matmul_gflops() -> float:
    """float32 GFLOP/s of one thread on SIZE×SIZE products."""
    torch.set_num_threads(1)
    a, b = torch.randn(SIZE, SIZE), torch.randn(SIZE, SIZE)
    for _ in range(3):
        a @ b
    start = time.process_time()
    for _ in range(REPEATS):
        a @ b
    return REPEATS * 2 * SIZE**3 / (time.process_time() - start) / 1e9


if __name__ == "__main__":
    capability = torch.backends.cpu.get_cpu_capability()
    print(f"float32 matrix products, one thread: {matmul_gflops():.1f} GFLOP/s ({capability})")
