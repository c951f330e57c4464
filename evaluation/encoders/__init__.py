"""Helpers of encoder fine-tuning (evaluation.finetune): heads, training loop, NER alignment, QA."""
