"""Throughput (cheap, timing hooks): data-loading vs compute time per step; GPU utilization via pynvml if present."""

from __future__ import annotations

from typing import Any

from probes.base import ProbeInfo, emit

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
    """``data_time_fraction`` (and ``gpu_utilization_pct`` when measurable)."""
    out = []
    f = fraction(data_s, compute_s)
    if f is not None and steps > 0:
        out.append(emit(INFO, "data_time_fraction", f, {"data_s": data_s, "compute_s": compute_s, "steps": steps,
                                                        "data_ms_per_step": 1000 * data_s / steps},
                        ("MT-DATA-FRAC",)))
    u = gpu_utilization(device) if device is not None and getattr(device, "type", "") == "cuda" else None
    if u is not None:
        out.append(emit(INFO, "gpu_utilization_pct", u))
    return out
