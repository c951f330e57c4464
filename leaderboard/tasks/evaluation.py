"""Evaluation tasks (queue ``gpu``)."""
