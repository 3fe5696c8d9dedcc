"""Activation health (expensive, forward hooks, sampled): dead-ReLU fraction and tanh/sigmoid saturation per layer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit

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


class ActivationsProbe(Probe):
    """Plugin: dead ReLUs and saturated tanh/sigmoid units per layer.

    Expensive (a hook on every activation module): in ``watch`` it runs for the one training forward after a
    trip; in ``examine`` for one no-grad forward of the batch before anything else touches the model.
    """

    info = INFO
    hooks = ("escalate",)
    thresholds = ("MT-DEAD-RELU", "MT-SATURATION", "MT-SAT-LEVEL")

    def attach(self, run: Any) -> None:
        """Nothing measured yet."""
        self.stats: dict[str, dict[str, float]] | None = None

    def escalate(self, run: Any) -> list[Any]:
        """Hook the activation modules for the next training forward (finite outputs only)."""
        dead: dict[str, torch.Tensor] = {}
        sat: dict[str, torch.Tensor] = {}
        self._seen = (dead, sat)

        def make(name: str, mod: torch.nn.Module) -> Callable[..., None]:
            def hook(_m: torch.nn.Module, _inp: Any, out: Any) -> None:
                t = out if isinstance(out, torch.Tensor) else None
                if t is None or not t.is_floating_point() or t.numel() == 0 or not bool(torch.isfinite(t).all()):
                    return  # statistics of NaN outputs mean nothing; the non-finite probe reports them
                if isinstance(mod, RELU):
                    dead.setdefault(name, dead_fraction(t))
                else:
                    sat.setdefault(name, saturated_fraction(t, "tanh" if isinstance(mod, torch.nn.Tanh) else "sigmoid"))
            return hook

        return [mod.register_forward_hook(make(name, mod)) for name, mod in run.model.named_modules()
                if name and isinstance(mod, RELU + SAT)]

    def settle(self, run: Any) -> None:
        """Read the fractions (after the escalated forward, off the hot path)."""
        dead, sat = self._seen
        self.stats = {"dead": {k: float(v) for k, v in dead.items()},
                      "saturated": {k: float(v) for k, v in sat.items()}}

    def summarise(self, run: Any) -> list:
        """Worst layers, when a trip measured them."""
        return observe(self.stats) if self.stats is not None else []

    def prepare(self, ex: Any) -> None:
        """One hooked no-grad forward of the examined batch, weights as found."""
        self.stats = measure(ex.model, ex.forward)

    def examine(self, ex: Any) -> list:
        """Worst layers of the examined batch."""
        return observe(self.stats) if self.stats is not None else []
