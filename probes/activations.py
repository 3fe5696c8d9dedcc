"""Activation health (expensive, forward hooks, sampled): dead-ReLU fraction and tanh/sigmoid saturation per layer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import ProbeInfo, emit

INFO = ProbeInfo("activations", "expensive", "forward", ("dead_relu_fraction", "saturation_fraction"))
RELU = (torch.nn.ReLU, torch.nn.ReLU6)
SAT = (torch.nn.Tanh, torch.nn.Sigmoid)
SAMPLE = 256


def dead_fraction(out: torch.Tensor) -> torch.Tensor:
    """Fraction of units (every position except the batch dimension) that are zero for the whole batch."""
    flat = out.detach().reshape(out.shape[0], -1)[:SAMPLE]
    return 1.0 - (flat > 0).any(dim=0).float().mean()


def saturated_fraction(out: torch.Tensor, kind: str) -> torch.Tensor:
    """Fraction of tanh (|y| > level) or sigmoid (y outside [1-level, level]) outputs that are saturated."""
    level = threshold("MT-SAT-LEVEL")
    y = out.detach().reshape(out.shape[0], -1)[:SAMPLE].float()
    if kind == "tanh":
        return (y.abs() > level).float().mean()
    return ((y > level) | (y < 1.0 - level)).float().mean()


def measure(model: torch.nn.Module, forward: Callable[[], Any]) -> dict[str, dict[str, float]]:
    """Run ``forward`` once with hooks on ReLU/tanh/sigmoid modules; per-layer fractions (host floats)."""
    dead: dict[str, torch.Tensor] = {}
    sat: dict[str, torch.Tensor] = {}
    handles = []

    def make(name: str, mod: torch.nn.Module) -> Callable[..., None]:
        def hook(_m: torch.nn.Module, _inp: Any, out: Any) -> None:
            if not isinstance(out, torch.Tensor) or out.ndim < 1 or out.numel() == 0:
                return
            if not bool(torch.isfinite(out).all()):
                return  # statistics of NaN outputs mean nothing; the non-finite locator reports them
            if isinstance(mod, RELU):
                dead.setdefault(name, dead_fraction(out))
            else:
                sat.setdefault(name, saturated_fraction(out, "tanh" if isinstance(mod, torch.nn.Tanh)
                                                        else "sigmoid"))
        return hook

    try:
        for name, mod in model.named_modules():
            if isinstance(mod, RELU + SAT):
                handles.append(mod.register_forward_hook(make(name, mod)))
        with torch.no_grad():
            forward()
    finally:
        for h in handles:
            h.remove()
    return {"dead": {k: float(v) for k, v in dead.items()}, "saturated": {k: float(v) for k, v in sat.items()}}


def observe(stats: dict[str, dict[str, float]]) -> list:
    """Give the worst layer's dead and saturated fractions, with every layer's value as evidence."""
    out = []
    if stats["dead"]:
        worst = max(stats["dead"], key=stats["dead"].get)
        out.append(emit(INFO, "dead_relu_fraction", min(1.0, max(0.0, stats["dead"][worst])),
                        {"worst_layer": worst, "per_layer": stats["dead"]}, ("MT-DEAD-RELU",)))
    if stats["saturated"]:
        worst = max(stats["saturated"], key=stats["saturated"].get)
        out.append(emit(INFO, "saturation_fraction", min(1.0, max(0.0, stats["saturated"][worst])),
                        {"worst_layer": worst, "per_layer": stats["saturated"]}, ("MT-SATURATION", "MT-SAT-LEVEL")))
    return out


MIN_ROWS_DEAD = 16  # a unit silent on a handful of examples is not dead: judge dead units on at least 16 rows


class Sampler:
    """Always-on activation health: hooks on the activation modules for one training forward per window.

    Cheap by construction: only ReLU/tanh/sigmoid modules, one forward in a window, device reductions appended
    to the window's buffer (no sync); the window end reads them with everything else. A saturated network that
    still learns slowly trips nothing else, so its activations are never measured after a trip: this sees it.

    Attributes:
        latest: Per-layer fractions from the latest sampled forward (``{"dead": {...}, "saturated": {...}}``).
        step: Step of that sample.
    """

    def __init__(self, model: torch.nn.Module) -> None:
        self.modules = [(n or type(m).__name__, m) for n, m in model.named_modules() if isinstance(m, RELU + SAT)]
        self.handles: list[Any] = []
        self.latest: dict[str, dict[str, float]] = {"dead": {}, "saturated": {}}
        self.step: int | None = None

    def arm(self, sink: Callable[[str, torch.Tensor], None]) -> None:
        """Hook the activation modules for the next forward; ``sink(key, device_scalar)`` receives each fraction."""
        if self.handles or not self.modules:
            return
        for name, mod in self.modules:
            self.handles.append(mod.register_forward_hook(self._hook(name, mod, sink)))

    @staticmethod
    def _hook(name: str, mod: torch.nn.Module, sink: Callable[[str, torch.Tensor], None]) -> Callable[..., None]:
        def hook(_m: torch.nn.Module, _inp: Any, out: Any) -> None:
            if not isinstance(out, torch.Tensor) or out.ndim < 2 or out.numel() == 0 \
                    or not out.is_floating_point():
                return
            if isinstance(mod, RELU):
                if out.shape[0] >= MIN_ROWS_DEAD:
                    flat = out.detach().reshape(out.shape[0], -1)[:SAMPLE]
                    # a non-finite unit is not a dead one (the non-finite probe owns it)
                    alive = ((flat > 0) | ~torch.isfinite(flat)).any(dim=0).float().mean()
                    sink("dead:" + name, 1.0 - alive)
            else:
                sink("saturated:" + name, saturated_fraction(out, "tanh" if isinstance(mod, torch.nn.Tanh)
                                                             else "sigmoid"))
        return hook

    def disarm(self) -> None:
        """Remove the hooks (after the sampled forward)."""
        for h in self.handles:
            h.remove()
        self.handles = []

    def update(self, key: str, value: float, step: int) -> None:
        """Record one fraction read at the window end (``key`` as given to the sink)."""
        kind, _, name = key.partition(":")
        if self.step != step:
            self.latest = {"dead": {}, "saturated": {}}
            self.step = step
        self.latest[kind][name] = float(value)

    def stats(self) -> dict[str, dict[str, float]] | None:
        """The latest sample's per-layer fractions, or None before any."""
        return self.latest if (self.latest["dead"] or self.latest["saturated"]) else None
