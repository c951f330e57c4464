"""Glossa's evaluation engine: (model, dataset) → EuroEval result record.

This package never imports Django; the website uses it, never the reverse.
"""
