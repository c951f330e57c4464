"""Builds the ranking's compiled loops (leaderboard/ranking/_kernels.c) at ``pip install``.

Everything else is declared in pyproject.toml. The kernels do the floating-point operations
of the numpy code they replace in the same order, so they are compiled without fused
multiply-add or reassociation; without a compiler the build is skipped (``optional``) and
the numpy code runs, with the same results.
"""

from pathlib import Path

from setuptools import Extension, setup

PARTS = sorted(str(p) for p in Path("leaderboard/ranking").glob("_kernels_*.c"))  # included by _kernels.c

setup(
    ext_modules=[
        Extension(
            "leaderboard.ranking._kernels",
            ["leaderboard/ranking/_kernels.c"],
            depends=PARTS,
            extra_compile_args=["-O2", "-fno-fast-math", "-ffp-contract=off"],
            optional=True,
        )
    ]
)
