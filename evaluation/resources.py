"""Peak memory and energy over a stretch of work, measured, never estimated.

Each probe has ``start()`` and ``stop()``; the device a backend runs on picks its probes
(:mod:`evaluation.hardware`).

Memory: on a CPU, the process's peak resident set (Linux's ``VmHWM``, reset to the current
size at ``start`` through ``/proc/self/clear_refs``, so each dataset gets its own peak rather
than ``ru_maxrss``'s lifetime peak, which the model load or an earlier dataset would set;
where the reset is refused, a thread samples ``/proc/self/statm`` every 20 ms instead). On a
CUDA GPU, ``torch.cuda.max_memory_allocated`` (tensors this process allocated; the caching
allocator's spare blocks are not counted), or the device's used memory sampled through NVML for
backends whose model runs in another process (vLLM).

Energy: CPU package energy from RAPL (``/sys/class/powercap/intel-rapl:N/energy_uj``; the
whole package, so other processes on the machine count too), GPU energy from NVML
(``nvmlDeviceGetTotalEnergyConsumption``). Where neither can be read, ``None`` and the reason.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

PROC = Path("/proc/self")
POWERCAP = Path("/sys/class/powercap")
SAMPLE_SECONDS = 0.02


class ResidentPeak:
    """The peak resident memory of this process while it runs (VmHWM, reset at the start)."""

    kind = "resident"

    def __init__(self, proc: Path = PROC):
        self.proc = proc
        self._sampler: _Sampler | None = None

    def start(self) -> None:
        """Reset the peak resident memory (or, where that cannot be done, start sampling it)."""
        try:
            (self.proc / "clear_refs").write_text("5")  # peak RSS := current RSS (Linux >= 4.0)
        except OSError:
            self._sampler = _Sampler(self._resident)
            self._sampler.start()

    def stop(self) -> int:
        """The peak resident memory in bytes since :meth:`start`."""
        if self._sampler is not None:
            return self._sampler.stop()
        match = re.search(r"^VmHWM:\s+(\d+)\s*kB", (self.proc / "status").read_text(), re.MULTILINE)
        return int(match.group(1)) * 1024 if match else self._resident()

    def _resident(self) -> int:
        pages = int((self.proc / "statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")


class _SampledPeak:
    """The peak of ``_read()`` sampled by a thread between ``start`` and ``stop``."""

    def _read(self) -> int:
        raise NotImplementedError

    def start(self) -> None:
        self._sampler = _Sampler(self._read)
        self._sampler.start()

    def stop(self) -> int:
        return self._sampler.stop()


class TreeResidentPeak(_SampledPeak):
    """Resident memory of this process and its children together, sampled (psutil)."""

    kind = "resident"

    def __init__(self):
        import psutil

        self.process = psutil.Process()

    def _read(self) -> int:
        import psutil

        total = 0
        for proc in [self.process, *self.process.children(recursive=True)]:
            try:
                total += proc.memory_info().rss
            except psutil.Error:  # a child that ended meanwhile
                continue
        return total


class CudaPeak:
    """The peak GPU memory torch allocated on every device while it runs."""

    kind = "gpu"

    def __init__(self, torch):
        self.torch = torch

    def start(self) -> None:
        """Reset every GPU's peak memory statistics."""
        for k in range(self.torch.cuda.device_count()):
            self.torch.cuda.reset_peak_memory_stats(k)

    def stop(self) -> int:
        """The peak GPU memory torch allocated since :meth:`start`, in bytes, summed over the GPUs."""
        return sum(self.torch.cuda.max_memory_allocated(k) for k in range(self.torch.cuda.device_count()))


class NvmlPeak(_SampledPeak):
    """Used memory of the GPUs, sampled (the model lives in another process of this machine)."""

    kind = "gpu"

    def __init__(self, nvml, handles):
        self.nvml, self.handles = nvml, handles

    def _read(self) -> int:
        return sum(int(self.nvml.nvmlDeviceGetMemoryInfo(h).used) for h in self.handles)


class NoMemory:
    """A remote server's memory: not visible from here."""

    kind = None

    def start(self) -> None:
        """Nothing to start."""

    def stop(self) -> None:
        """No peak: None."""
        return None


class _Sampler:
    def __init__(self, read):
        self.read = read
        self.peak = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="memory-sampler")

    def start(self) -> None:
        self.peak = self.read()
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(SAMPLE_SECONDS):
            self.peak = max(self.peak, self.read())

    def stop(self) -> int:
        self._done.set()
        self._thread.join()
        return max(self.peak, self.read())


# --- energy --------------------------------------------------------------------------------


class RaplEnergy:
    """CPU package energy, summed over the packages (``intel-rapl:N``, not their sub-domains)."""

    def __init__(self, root: Path = POWERCAP):
        self.root = root
        self.reason: str | None = None
        self._start: dict[Path, int] = {}

    def _domains(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir() if re.fullmatch(r"intel-rapl:\d+", p.name))

    def start(self) -> None:
        """Read the RAPL counters, or note why there are none."""
        domains = self._domains()
        if not domains:
            self.reason = f"no RAPL energy counters on this machine ({self.root} has no intel-rapl domain)"
            return
        try:
            self._start = {d: int((d / "energy_uj").read_text()) for d in domains}
        except PermissionError:
            self.reason = "the RAPL energy counters are readable by root only on this machine"
        except (OSError, ValueError) as exc:
            self.reason = f"the RAPL energy counters could not be read ({type(exc).__name__})"

    def stop(self) -> tuple[float | None, str | None]:
        """The joules used since :meth:`start` (over every RAPL domain), or None and why."""
        if self.reason is not None:
            return None, self.reason
        total = 0
        try:
            for domain, before in self._start.items():
                after = int((domain / "energy_uj").read_text())
                if after < before:  # the counter wrapped around once
                    after += int((domain / "max_energy_range_uj").read_text())
                total += after - before
        except (OSError, ValueError) as exc:
            return None, f"the RAPL energy counters could not be read ({type(exc).__name__})"
        return total / 1e6, None


class NvmlEnergy:
    """GPU energy (millijoules since the driver loaded, Volta and later), summed over the GPUs."""

    def __init__(self, nvml, handles, reason: str | None = None):
        self.nvml, self.handles = nvml, handles
        self.reason = reason
        self._start: list[int] = []

    def start(self) -> None:
        """Read the GPUs' energy counters, or note why they cannot be read."""
        if self.reason is None:
            try:
                self._start = [int(self.nvml.nvmlDeviceGetTotalEnergyConsumption(h)) for h in self.handles]
            except Exception as exc:  # NVMLError_NotSupported on older GPUs
                self.reason = f"NVML cannot read this GPU's energy counter ({type(exc).__name__})"

    def stop(self) -> tuple[float | None, str | None]:
        """The joules the GPUs used since :meth:`start`, or None and why."""
        if self.reason is not None:
            return None, self.reason
        after = [int(self.nvml.nvmlDeviceGetTotalEnergyConsumption(h)) for h in self.handles]
        return sum(a - b for a, b in zip(after, self._start, strict=True)) / 1000.0, None


class NoEnergy:
    """An energy meter that measures nothing, and says why."""

    def __init__(self, reason: str):
        self.reason = reason

    def start(self) -> None:
        """Nothing to start."""

    def stop(self) -> tuple[None, str]:
        """No energy: None, and why."""
        return None, self.reason
