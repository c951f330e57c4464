"""Where a model runs: the device's identity and the probes that measure it.

A backend names its device (``backend.device_profile()``): a :class:`CpuDevice`, a
:class:`CudaDevice` or a :class:`RemoteDevice` (an OpenAI-compatible server). The profile
gives the hardware part of the ``efficiency`` object (:mod:`evaluation.efficiency`) and the
memory and energy probes that fit it (:mod:`evaluation.resources`). Efficiency numbers compare
only within one hardware ``class``: the device, its name and how many of it.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path

from evaluation.resources import (
    CudaPeak,
    NoEnergy,
    NoMemory,
    NvmlEnergy,
    NvmlPeak,
    RaplEnergy,
    ResidentPeak,
    TreeResidentPeak,
)


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``, else the platform's), at most 120 characters."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    name = match.group(1) if match else platform.processor() or platform.machine() or "unknown CPU"
    return " ".join(name.split())[:120]


def cpu_threads() -> int:
    """The CPU threads this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def version(package: str) -> str | None:
    """The installed version of ``package``, or None."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def software() -> dict:
    """The versions of torch, vLLM and transformers installed here."""
    return {"torch": version("torch") or "none", "vllm": version("vllm"), "transformers": version("transformers")}


def nvml():
    """``pynvml`` initialised, or ``None`` (not installed: it comes with vLLM; no driver)."""
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml
    except Exception:
        return None


@dataclass(frozen=True)
class RunSettings:
    """What the backend chose: the hardware identity's software half."""

    backend: str
    dtype: str
    quantisation: str | None = None


class CpuDevice:
    """This machine's CPU. ``process_tree``: the model runs in child processes too (vLLM's
    engine core), so their resident memory is sampled along with this process's."""

    device = "cpu"

    def __init__(self, *, process_tree: bool = False):
        self.process_tree = process_tree

    def identity(self) -> dict:
        """The CPU's identity for an efficiency record: hardware class, model and threads."""
        model, threads = cpu_model(), cpu_threads()
        return {
            "class": f"cpu:{model} x{threads} threads",
            "device": "cpu",
            "device_name": model,
            "device_count": 1,
            "driver": None,
        }

    def memory_probe(self):
        """A probe of the peak resident memory (of this process, or of its process tree)."""
        return TreeResidentPeak() if self.process_tree else ResidentPeak()

    def energy_probe(self):
        """A probe of the CPU's energy (RAPL, where readable)."""
        return RaplEnergy()


class CudaDevice:
    """CUDA GPUs. ``in_process``: the model's tensors live in this process (transformers), so
    torch's allocator counts its memory; otherwise (vLLM's engine process) NVML samples it."""

    device = "cuda"

    def __init__(self, *, in_process: bool = True):
        import torch

        self.torch = torch
        self.in_process = in_process
        self.nvml = nvml()
        count = torch.cuda.device_count()
        self.handles = [self.nvml.nvmlDeviceGetHandleByIndex(k) for k in range(count)] if self.nvml else []

    def identity(self) -> dict:
        """The GPUs' identity for an efficiency record: hardware class, name, count and driver."""
        count = self.torch.cuda.device_count()
        name = " ".join(self.torch.cuda.get_device_name(0).split())[:120]
        driver = None
        if self.nvml is not None:
            driver = self.nvml.nvmlSystemGetDriverVersion()
            driver = driver.decode() if isinstance(driver, bytes) else str(driver)
        elif getattr(self.torch.version, "cuda", None):
            driver = f"CUDA runtime {self.torch.version.cuda}"
        return {
            "class": f"cuda:{name} x{count}",
            "device": "cuda",
            "device_name": name,
            "device_count": count,
            "driver": driver,
        }

    def memory_probe(self):
        """A probe of the peak GPU memory: torch's allocator when the model is in this process, else NVML."""
        if self.in_process or self.nvml is None:
            return CudaPeak(self.torch)
        return NvmlPeak(self.nvml, self.handles)

    def energy_probe(self):
        """A probe of the GPUs' energy through NVML, or none (and why) without it."""
        if self.nvml is None:
            return NoEnergy("NVML is not available (the nvidia-ml-py package or the NVIDIA driver is missing)")
        return NvmlEnergy(self.nvml, self.handles)


class RemoteDevice:
    """A model behind an OpenAI-compatible server: its hardware is not visible from here."""

    device = "remote"

    def __init__(self, backend: str):
        self.backend = backend

    def identity(self) -> dict:
        """The server's identity for an efficiency record: remote, its hardware unknown."""
        return {
            "class": f"remote:{self.backend}",
            "device": "remote",
            "device_name": "remote server",
            "device_count": 1,
            "driver": None,
        }

    def memory_probe(self):
        """No memory probe: the server's memory is not visible from here."""
        return NoMemory()

    def energy_probe(self):
        """No energy probe: the server's energy is not visible from here."""
        return NoEnergy("the model ran on a remote server, whose energy is not visible from here")


def hardware(profile, settings: RunSettings, batch_size: int | None) -> dict:
    """The ``hardware`` object: the device's identity, this machine's CPU, software, settings
    (``batch_size``: the largest batch the backend formed, or the benchmark's batch)."""
    return {
        **profile.identity(),
        "cpu_model": cpu_model(),
        "cpu_threads": cpu_threads(),
        **software(),
        "backend": settings.backend,
        "dtype": settings.dtype,
        "quantisation": settings.quantisation,
        "batch_size": batch_size,
    }
