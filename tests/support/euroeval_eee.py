"""A port of EuroEval's own EEE writer and reader, for tests: what EuroEval ≥ 17 writes
into ``euroeval_benchmark_results.jsonl`` and how it reads it back.

EuroEval (github.com/EuroEval/EuroEval, MIT licence, Copyright (c) 2022-2026 Dan Saattrup
Smart) needs a newer Python than Glossa, so its functions are ported here line for line
from ``src/euroeval/eee_utils.py`` and ``BenchmarkResult.from_dict`` in
``src/euroeval/data_models.py`` at commit f37841c8d (2026-08-20): the same keys, the same
string encodings and the same ``null`` values in ``additional_details``. Only the clock is
a parameter (EuroEval uses ``time.time()``), and the library versions EuroEval fills from
the installed packages are taken from the record (absent: ``None``, as on a machine without
them). ``tests/imports/data/eee/NOTICE.md`` carries the licence text.
"""

from __future__ import annotations

import datetime
import json
import math
import re

EEE_SCHEMA_VERSION = "0.2.1"
RESULT_FIELDS = (
    "dataset", "task", "languages", "model", "results", "num_model_parameters", "max_sequence_length",
    "vocabulary_size", "merge", "generative", "generative_type", "few_shot", "validation_split",
    "use_bits_per_character", "euroeval_version", "transformers_version", "torch_version", "vllm_version",
    "xgrammar_version", "litellm_version", "commercially_licensed", "open", "trained_from_scratch",
)  # fmt: skip


def _flatten_old_raw(config: dict) -> None:
    """``_convert_old_raw_results_format``: ``raw = {"test": [...]}`` → ``[{"test_<m>": v}]``."""
    results = config.get("results")
    if not isinstance(results, dict) or not isinstance(results.get("raw"), dict):
        return
    raw_list: list[dict] = []
    for split_name, split_data in results["raw"].items():
        if not isinstance(split_data, list) or not split_data:
            continue
        for i, item in enumerate(split_data):
            if not isinstance(item, dict):
                continue
            while len(raw_list) <= i:
                raw_list.append({})
            for metric, value in item.items():
                if isinstance(value, (int, float)):
                    raw_list[i].setdefault(f"{split_name}_{metric}", float(value))
    if raw_list:
        results["raw"] = raw_list


def benchmark_result_from_dict(record: dict) -> dict:
    """``BenchmarkResult.from_dict`` on a legacy (non-EEE) record, as a plain dict of the
    BenchmarkResult's fields (pydantic drops the record's other keys)."""
    config = json.loads(json.dumps(record))
    val = re.search(r"\(.*val.*\)$", config["model"])
    few = re.search(r"\(.*few-shot.*\)$", config["model"])
    zero = re.search(r"\(.*zero-shot.*\)$", config["model"])
    config["model"] = re.sub(r"\(.*(few-shot|val).*\)$", "", config["model"]).strip()
    config.setdefault("merge", False)
    config.setdefault("generative", few is not None or zero is not None)
    config.setdefault("generative_type", None)
    config.setdefault("few_shot", zero is None)
    config.setdefault("validation_split", val is not None)
    config.setdefault("use_bits_per_character", False)
    if "dataset_languages" in config:
        config["languages"] = config.pop("dataset_languages")
    for key, default in (("task", ""), ("languages", []), ("results", {"raw": [], "total": {}})):
        config.setdefault(key, default)
    for key in ("num_model_parameters", "max_sequence_length", "vocabulary_size"):
        config.setdefault(key, 0)
    _flatten_old_raw(config)
    return {key: config.get(key) for key in RESULT_FIELDS}


def benchmark_result_to_eee_dict(result: dict, now: float) -> dict:
    """``benchmark_result_to_eee_dict`` at f37841c8d, ``time.time()`` replaced by ``now``."""
    retrieved_timestamp = str(int(now))
    evaluation_timestamp = datetime.datetime.fromtimestamp(now, tz=datetime.UTC).isoformat()
    evaluation_id = f"{result['dataset']}/{result['model']}/{retrieved_timestamp}"
    total_results: dict = {}
    raw_results: list = []
    if isinstance(result["results"], dict):
        if "total" in result["results"] and isinstance(result["results"]["total"], dict):
            total_results = result["results"]["total"]
        if "raw" in result["results"]:
            raw_results = list(result["results"]["raw"])
    num_samples = len(raw_results)
    metric_names = [k for k in total_results if not k.endswith("_se") and k != "num_failed_instances"]
    num_failed = total_results.get("num_failed_instances", 0.0)
    evaluation_results = []
    for metric_name in metric_names:
        score = total_results[metric_name]
        ci_half_width = total_results.get(f"{metric_name}_se", float("nan"))
        score_details: dict = {"score": score, "details": {"num_failed_instances": str(num_failed)}}
        uncertainty: dict = {}
        if not math.isnan(ci_half_width):
            uncertainty["confidence_interval"] = {
                "lower": score - ci_half_width,
                "upper": score + ci_half_width,
                "confidence_level": 0.95,
                "method": "bootstrap",
            }
        if num_samples > 0:
            uncertainty["num_samples"] = num_samples
        if uncertainty:
            score_details["uncertainty"] = uncertainty
        metric_config: dict = {"lower_is_better": False}
        if "speed" not in metric_name:
            metric_config.update(score_type="continuous", min_score=0, max_score=100)
        evaluation_results.append(
            {
                "evaluation_name": metric_name,
                "source_data": {"dataset_name": result["dataset"], "source_type": "hf_dataset"},
                "metric_config": metric_config,
                "score_details": score_details,
            }
        )
    return {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "evaluation_timestamp": evaluation_timestamp,
        "retrieved_timestamp": retrieved_timestamp,
        "source_metadata": {
            "source_name": "EuroEval",
            "source_type": "evaluation_run",
            "source_organization_name": "EuroEval",
            "source_organization_url": "https://euroeval.com",
            "evaluator_relationship": "third_party",
        },
        "model_info": _model_info(result),
        "eval_library": {
            "name": "euroeval",
            "version": result["euroeval_version"] or "unknown",
            "additional_details": _library_details(result, raw_results),
        },
        "evaluation_results": evaluation_results,
    }


def _model_info(result: dict) -> dict:
    engine: dict = {}
    if result["litellm_version"]:
        engine = {"name": "litellm", "version": result["litellm_version"]}
    elif result["vllm_version"]:
        engine = {"name": "vllm", "version": result["vllm_version"]}
    elif result["transformers_version"]:
        engine = {"name": "transformers", "version": result["transformers_version"]}
    details: dict = {
        "num_model_parameters": str(result["num_model_parameters"]),
        "max_sequence_length": str(result["max_sequence_length"]),
        "vocabulary_size": str(result["vocabulary_size"]),
        "merge": str(result["merge"]).lower(),
        "generative": str(result["generative"]).lower(),
        "generative_type": result["generative_type"] if result["generative_type"] is not None else None,
    }
    for key in ("commercially_licensed", "open", "trained_from_scratch"):
        if result[key] is not None:
            details[key] = result[key]
    info: dict = {"name": result["model"], "id": result["model"], "additional_details": details}
    if engine:
        info["inference_engine"] = engine
    return info


def _lower(value: object) -> str | None:
    return str(value).lower() if value is not None else None


def _library_details(result: dict, raw_results: list) -> dict:
    return {
        "dataset": result["dataset"],
        "languages": json.dumps(list(result["languages"]), ensure_ascii=False),
        "task": result["task"],
        "few_shot": _lower(result["few_shot"]),
        "validation_split": _lower(result["validation_split"]),
        "use_bits_per_character": _lower(result["use_bits_per_character"]),
        "transformers_version": result["transformers_version"] or None,
        "torch_version": result["torch_version"] or None,
        "vllm_version": result["vllm_version"] or None,
        "xgrammar_version": result["xgrammar_version"] or None,
        "litellm_version": result["litellm_version"] or None,
        "raw_results": json.dumps(raw_results, ensure_ascii=False),
    }


def legacy_to_eee(record: dict, now: float = 1_780_000_000.0) -> dict:
    """What EuroEval writes for a legacy record it reads: ``from_dict`` then ``to_eee_dict``."""
    return benchmark_result_to_eee_dict(benchmark_result_from_dict(record), now)
