"""Throughput (cheap, timing hooks): data-loading vs compute time per step; GPU utilization via pynvml if present."""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from typing import Any

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit

INFO = ProbeInfo("throughput", "cheap", "forward_pre+optimizer_step", ("data_time_fraction", "gpu_utilization_pct"))


def fraction(data_s: float, compute_s: float) -> float | None:
    """Share of the step spent waiting for data (None without any timing)."""
    total = data_s + compute_s
    return None if total <= 0 else min(1.0, max(0.0, data_s / total))


def gpu_utilization(device: Any = None) -> float | None:
    """GPU utilization in percent via pynvml, or None (no pynvml, no GPU, or any NVML error)."""
    try:
        import pynvml  # optional dependency
    except ImportError:
        return None
    try:
        import torch

        if not torch.cuda.is_available():
            return None
        idx = torch.cuda.current_device() if device is None or getattr(device, "index", None) is None \
            else device.index
        pynvml.nvmlInit()
        try:
            h = pynvml.nvmlDeviceGetHandleByIndex(idx)
            return float(pynvml.nvmlDeviceGetUtilizationRates(h).gpu)
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - NVML errors mean "unknown", never a crash
        return None


def observe(data_s: float, compute_s: float, steps: int, device: Any = None) -> list:
    """``data_time_fraction`` (and ``gpu_utilization_pct`` when measurable).

    The fraction is left out when the wait per step is under ``MT-DATA-MIN-MS``: such a wait is the per-batch
    cost every loader pays, not a bottleneck a loader change can remove, however small the step beside it.
    """
    out = []
    f = fraction(data_s, compute_s)
    if f is not None and steps > 0 and 1000 * data_s / steps >= threshold("MT-DATA-MIN-MS"):
        out.append(emit(INFO, "data_time_fraction", f, {"data_s": data_s, "compute_s": compute_s, "steps": steps,
                                                        "data_ms_per_step": 1000 * data_s / steps},
                        ("MT-DATA-FRAC",)))
    u = gpu_utilization(device) if device is not None and getattr(device, "type", "") == "cuda" else None
    if u is not None:
        out.append(emit(INFO, "gpu_utilization_pct", u))
    return out


class _RunQueue:
    """Nanoseconds the calling thread has spent runnable but waiting for a CPU (Linux ``schedstat``), else 0.

    On a host whose cores are shared (ranks of one job, other jobs) the scheduler preempts the training thread at
    random moments; a preemption between a step's end and the next forward reads as time waiting on data, though
    the loop was ready. The kernel counts that run-queue time per thread: it is taken out of each data wait. A
    loop that does wait on its loader sleeps on the workers' queue, which is not run-queue time, and keeps its
    wait. One ``pread`` of an open file (under a microsecond), on sampled steps only.
    """

    def __init__(self) -> None:
        self._fd: int | None = None
        self._tid: int | None = None

    def ns(self) -> int:
        """The thread's run-queue time so far (0 where the kernel does not say).

        Differences of two readings mean something only when the same thread took both (``same``).
        """
        tid = threading.get_native_id()
        if tid != self._tid:  # first use, or another thread runs the steps: its own counter
            self.close()
            self._tid = tid
            try:
                self._fd = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:  # not Linux, or no schedstat: waits stay as measured
                self._fd = None
        if self._fd is None:
            return 0
        try:
            return int(os.pread(self._fd, 64, 0).split()[1])
        except (OSError, IndexError, ValueError):
            return 0

    def same(self) -> bool:
        """Whether the calling thread is the one the last reading was taken in."""
        return threading.get_native_id() == self._tid

    def close(self) -> None:
        """Close the counter's file."""
        if self._fd is not None:
            os.close(self._fd)
        self._fd = self._tid = None


LOADER_BATCHES = 5
"""Batches ``examine`` draws from a loader to time it."""


def time_loader(loader: Any, compute_per_step: float, device: Any) -> list:
    """Time up to ``LOADER_BATCHES`` batches of a fresh ``iter(loader)`` against the compute time of a step.

    Raises:
        ProbeError: The loader yielded nothing.
    """
    from knowledge.errors import ProbeError

    it = iter(loader)
    data_s, n = 0.0, 0
    for _ in range(LOADER_BATCHES):
        t = time.perf_counter()
        try:
            next(it)
        except StopIteration:
            break
        data_s += time.perf_counter() - t
        n += 1
    if n == 0:
        raise ProbeError("the loader yielded no batches", hint="check the dataset length and drop_last")
    return observe(data_s, compute_per_step * n, n, device)


class ThroughputProbe(Probe):
    """Plugin: time spent waiting for data against compute, from host clocks (no device work).

    The data clock runs from the end of ``w.step`` (the user's bookkeeping done) to the next training forward;
    the compute clock from that forward to the end of the optimizer step. Sampled steps only; of the last 256
    of each, the median compute and the lower quartile of the waits (see ``summarise``).
    """

    info = INFO
    hooks = ("forward_pre", "optimizer_post", "step_end")
    sampled_hooks = ("step_end",)
    thresholds = ("MT-DATA-FRAC",)
    KEEP = 256

    def attach(self, run: Any) -> None:
        """Clocks not started."""
        self.data: deque[float] = deque(maxlen=self.KEEP)
        self.compute: deque[float] = deque(maxlen=self.KEEP)
        self._t_end: float | None = None
        self._q_end = 0
        self._t_fwd: float | None = None
        self._queue = _RunQueue()

    def detach(self, run: Any) -> None:
        """Close the run-queue clock."""
        self._queue.close()

    def forward_pre(self, run: Any, module: Any) -> None:
        """The first training forward of a sampled step ends its data wait."""
        now = time.perf_counter()
        if self._t_end is not None:
            # time the thread sat runnable but preempted (other processes on its cores) is no wait for data
            queued = (self._queue.ns() - self._q_end) * 1e-9 if self._queue.same() else 0.0
            self.data.append(max(0.0, now - self._t_end - queued))
            self._t_end = None  # one wait per sampled step (step_end is not called on the steps between)
        self._t_fwd = now

    def optimizer_post(self, run: Any) -> None:
        """The optimizer step ends the sampled step's compute."""
        if self._t_fwd is not None:
            self.compute.append(time.perf_counter() - self._t_fwd)
            self._t_fwd = None

    def step_end(self, run: Any) -> None:
        """Before a sampled step, start the data clock: the user's bookkeeping up to here is not data loading."""
        self._t_end = time.perf_counter() if run.sampled else None  # (the watch calls it before sampled steps)
        if self._t_end is not None:
            self._q_end = self._queue.ns()

    def restart(self) -> None:
        """Restart a running data clock: the time since the last step was the caller's own work, not data.

        A framework evaluates, saves checkpoints and logs between two training steps (the Hugging Face Trainer
        right after ``on_step_end``, Lightning after ``on_train_batch_end``); its callback calls this when that
        work ends, so an in-memory dataset never reads as a loop waiting on data.
        """
        if self._t_end is not None:
            self._t_end = time.perf_counter()
            self._q_end = self._queue.ns()

    def summarise(self, run: Any) -> list:
        """``data_time_fraction`` from median data and compute times per step."""
        if len(self.data) < 2 or not self.compute:
            return []
        import statistics

        from probes.base import at_step

        # per step: the median compute (the first steps carry one-time costs: allocations, lazy optimizer
        # state), and the lower quartile of the data waits. A loader that cannot keep up makes every step
        # wait; the scheduler of an oversubscribed host (ranks sharing cores) preempts a process at random
        # moments, adding a time slice to some waits but not to most: the lower quartile keeps the first and
        # drops the second (a healthy 2-process run on 2 shared cores read a 0.1 ms fetch as a 3 ms wait)
        d = statistics.quantiles(self.data, n=4, method="inclusive")[0] if len(self.data) >= 4 \
            else min(self.data)
        c = statistics.median(self.compute)
        return at_step(observe(d * run.steps, c * run.steps, run.steps, run.device), run.steps)

    def examine(self, ex: Any) -> list:
        """Time the loader, when one was given, against the median examined step."""
        if ex.loader is None:
            return []
        import statistics

        return time_loader(ex.loader, statistics.median(ex.step_s) if ex.step_s else 0.0, ex.device)
