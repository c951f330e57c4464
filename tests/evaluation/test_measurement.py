"""The measurement (evaluation/measurement.py) against hand-timed work: a scripted backend that
really sleeps a known time per prompt and reports known token counts, run through the real
runner; and the memory and energy probes on real /proc files and a powercap tree."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from evaluation import reference_tokens
from evaluation.backends.base import Usage
from evaluation.datasets import load_dataset
from evaluation.efficiency import validate_efficiency
from evaluation.hardware import CpuDevice, RunSettings
from evaluation.models import ModelInfo
from evaluation.resources import RaplEnergy, ResidentPeak, TreeResidentPeak
from evaluation.runner import EvaluationSettings, evaluate_dataset

ANSWER_TOKENS = 3


class TimedBackend:
    """Cannot score labels, so every prompt is generated; one prompt per batch, each taking
    0.5, 0.7 or 0.9 s (by its length: long enough that a loaded machine oversleeping by
    some milliseconds stays within 5%) and ``len(prompt.split())`` prompt tokens."""

    name = "timed"
    max_context = 100_000
    has_chat_template = False
    load_seconds = 1.25

    def __init__(self):
        self.usage = Usage()
        self.seen: list[tuple[str, float]] = []

    def device_profile(self):
        return CpuDevice()

    def run_settings(self):
        return RunSettings(backend=self.name, dtype="float32")

    def render_chat(self, messages):
        raise AssertionError("base prompts only")

    def count_tokens(self, text):
        return len(text.split())

    def label_logprobs(self, prompts, continuations, shared_prefix=None):
        return None

    def generate(self, prompts, max_new_tokens, *, json_schema=None, shared_prefix=None):
        out = []
        for prompt in prompts:
            delay = 0.5 + 0.2 * (len(prompt) % 3)
            started = time.perf_counter()
            time.sleep(delay)
            self.usage.add(1, time.perf_counter() - started, self.count_tokens(prompt), ANSWER_TOKENS)
            self.seen.append((prompt, delay))
            out.append("correct " * ANSWER_TOKENS)
        return out

    def close(self):
        pass


def _evaluate(backend, **settings):
    defaults = {"iterations": 2, "limit": 5, "few_shot": False}
    return evaluate_dataset(
        backend,
        ModelInfo("test/timed", commit_sha="c" * 40),
        load_dataset("scala-da"),
        EvaluationSettings(**{**defaults, **settings}),
    )[0]


def test_known_delays_give_the_known_throughput_and_latency():
    backend = TimedBackend()
    record = _evaluate(backend)
    eff = record["efficiency"]
    assert validate_efficiency(eff) == eff
    prompts = [p for p, _ in backend.seen]
    delays = [d for _, d in backend.seen]
    assert len(set(prompts)) == len(prompts) == 5  # zero-shot: each row's prompt once, the cache serves the rest
    tokens = sum(len(p.split()) for p in prompts)
    assert eff["examples"] == 5 and eff["prompt_tokens"] == tokens
    assert eff["generated_tokens"] == 5 * ANSWER_TOKENS
    assert eff["reference_prompt_tokens"] == sum(reference_tokens.count(p) for p in prompts)
    assert eff["prompt_tokens_per_second"] == pytest.approx(tokens / sum(delays), rel=0.05)
    assert eff["generated_tokens_per_second"] == pytest.approx(5 * ANSWER_TOKENS / sum(delays), rel=0.05)
    median, p95 = np.percentile(np.array(delays) * 1000, [50, 95])
    assert eff["latency_ms"]["median"] == pytest.approx(median, rel=0.05)
    assert eff["latency_ms"]["p95"] == pytest.approx(p95, rel=0.05)
    assert sum(delays) <= eff["wall_seconds"] < sum(delays) + 120  # the runner's own work too (slow when loaded)
    assert eff["load_seconds"] == 1.25
    assert eff["hardware"]["backend"] == "timed" and eff["hardware"]["batch_size"] == 1
    assert eff["hardware"]["class"].startswith("cpu:") and eff["peak_memory_kind"] == "resident"
    assert eff["peak_memory_bytes"] > 50 * 2**20  # this Python process with torch and numpy loaded
    assert (eff["energy_joules"] is None) != (eff["energy_unavailable_reason"] is None)


def test_no_efficiency_when_switched_off_or_the_backend_reports_nothing():
    assert _evaluate(TimedBackend(), efficiency=False, limit=2, iterations=1)["efficiency"] is None

    class Silent(TimedBackend):
        """Reports its usage, but not where it runs."""

        def __getattribute__(self, name):
            if name == "device_profile":
                raise AttributeError(name)
            return super().__getattribute__(name)

    assert _evaluate(Silent(), limit=2, iterations=1)["efficiency"] is None


def test_resident_peak_is_each_windows_own():
    probe = ResidentPeak()
    probe.start()
    block = bytearray(300 * 2**20)  # touched: resident
    block[::4096] = b"x" * len(block[::4096])
    first = probe.stop()
    del block
    probe.start()
    second = probe.stop()
    assert first - second > 250 * 2**20  # the second window does not inherit the first's peak


def test_rapl_energy_sums_packages_and_survives_a_wrap(tmp_path):
    for name, energy in (("intel-rapl:0", 1_000_000), ("intel-rapl:0:0", 500), ("intel-rapl:1", 9_000_000)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "energy_uj").write_text(f"{energy}\n")
        (tmp_path / name / "max_energy_range_uj").write_text("10000000\n")
    probe = RaplEnergy(tmp_path)
    probe.start()
    (tmp_path / "intel-rapl:0" / "energy_uj").write_text("3500000\n")  # +2.5 J
    (tmp_path / "intel-rapl:0:0" / "energy_uj").write_text("999999\n")  # a sub-domain: already in its package
    (tmp_path / "intel-rapl:1" / "energy_uj").write_text("500000\n")  # wrapped: +1.5 J
    assert probe.stop() == (pytest.approx(4.0), None)
    missing = RaplEnergy(tmp_path / "absent")
    missing.start()
    joules, reason = missing.stop()
    assert joules is None and "no RAPL" in reason


def test_a_remote_server_reports_its_own_token_counts():
    """The openai backend against a real local HTTP server that answers with ``usage``: its
    counts are taken, the device is remote and memory is not claimed."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from evaluation.backends.openai import OpenAIBackend
    from evaluation.measurement import DatasetMeter, MeteredBackend

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(0.3)
            body = {
                "choices": [{"text": "correct"}],
                "usage": {"prompt_tokens": len(payload["prompt"]), "completion_tokens": 2},
            }
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 8130), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        backend = OpenAIBackend("http://127.0.0.1:8130/v1", model="test/remote", concurrency=2)
        meter = DatasetMeter(backend).start()
        prompts = ["one two", "three four five", "six"]
        assert MeteredBackend(backend, meter).generate(prompts, 4) == ["correct"] * 3
        eff = meter.finish()
    finally:
        server.shutdown()
        server.server_close()
    assert eff["hardware"]["device"] == "remote" and eff["hardware"]["class"] == "remote:openai"
    assert eff["prompt_tokens"] == sum(len(p) for p in prompts) and eff["generated_tokens"] == 6
    assert eff["examples"] == 3 and eff["latency_ms"]["median"] == pytest.approx(300, rel=0.5)
    assert eff["peak_memory_bytes"] is None and eff["peak_memory_kind"] is None
    assert eff["energy_joules"] is None and "remote server" in eff["energy_unavailable_reason"]


def test_sampled_peak_of_the_process_tree_sees_a_block_that_is_gone_again():
    # a child process (as vLLM's engine is) holds 200 MB for a moment and ends; allocated in a
    # fresh process, the block is new resident memory whatever this test process freed before
    child = (
        "import time; block = bytearray(200 * 2**20); block[::4096] = b'x' * len(block[::4096]); "
        "print('ready', flush=True); time.sleep(0.4)"
    )
    probe = TreeResidentPeak()
    probe.start()
    baseline = probe._read()
    with subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout.readline().strip() == "ready"
        proc.wait(timeout=30)
    assert probe.stop() - baseline > 150 * 2**20


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("nobody/nothing", "is not available"),
        ("sentence-transformers/all-MiniLM-L6-v2", "is an encoder"),
        ("not a model id", "is not a Hugging Face model id"),
    ],
)
def test_the_speed_command_says_clearly_which_models_it_cannot_run(model, message, capsys, monkeypatch):
    from evaluation.__main__ import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["speed", "--model", model]) == 2
    assert message in capsys.readouterr().err


def test_the_speed_prompts_are_exactly_their_length_in_gpt2_tokens():
    from evaluation.speed import prompt_of

    for length in (100, 1000):
        assert reference_tokens.count(prompt_of(length)) == length


def test_a_measurement_that_fails_costs_the_evaluation_nothing():
    class Broken(TimedBackend):
        def run_settings(self):
            return RunSettings(backend="bad\x00name", dtype="float32")  # refused by the validator

    record = _evaluate(Broken(), limit=2, iterations=1)
    assert record["efficiency"] is None and record["results"]["raw"]
