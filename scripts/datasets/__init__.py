"""Builders of the data pack's dataset folders from public sources at pinned commits.

``python -m scripts.datasets.build`` (see :mod:`scripts.datasets.build`) writes each folder
of :mod:`scripts.datasets.sources` under ``data/datasets/``; the same sources give the
same bytes on every run.
"""
