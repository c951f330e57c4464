"""Aggregation tasks (queue ``default``)."""
