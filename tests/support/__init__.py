"""Test helpers that are not tests: a local Hugging Face Hub and its client driver."""
