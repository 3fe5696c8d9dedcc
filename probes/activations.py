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
                    # a non-finite unit is not a dead one (the non-finite probe owns it). A ReLU's output is never
                    # -inf, so a unit is alive exactly when its column's max is not <= 0 (positive, +inf or NaN:
                    # amax keeps a NaN): one pass over the sample instead of three (issue 21)
                    alive = (~(flat.amax(dim=0) <= 0)).float().mean()
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


class ActivationsProbe(Probe):
    """Plugin: dead ReLUs and saturated tanh/sigmoid units per layer.

    Two ways in ``watch``: a ``Sampler`` on the activation modules for one sampled training forward per window
    (device reductions recorded with the window, read in its one stacked transfer), so a saturated network that
    still learns slowly is seen without a trip; and the full measurement, with a hook on every activation
    module, for the one training forward after a trip (it wins over the sample). In ``examine`` one no-grad
    forward of the batch before anything else touches the model.
    """

    info = INFO
    hooks = ("forward_pre", "forward", "window", "escalate")
    sampled_hooks = ("forward",)  # the sampler is armed only in a sampled step's forward_pre
    thresholds = ("MT-DEAD-RELU", "MT-SATURATION", "MT-SAT-LEVEL")

    def attach(self, run: Any) -> None:
        """Nothing measured yet; the sampler finds the activation modules."""
        self.stats: dict[str, dict[str, float]] | None = None
        self.stats_step: int | None = None
        self.sampler = Sampler(run.model)
        self._window: int | None = None

    def detach(self, run: Any) -> None:
        """Remove the sampler's hooks if a forward was left armed."""
        sampler = getattr(self, "sampler", None)  # None when the watch's set-up failed before attach
        if sampler is not None:
            sampler.disarm()

    def forward_pre(self, run: Any, module: Any) -> None:
        """On the first sampled training forward of a window, hook the activation modules for it."""
        window = run.steps // run.every
        if window != self._window and self.sampler.modules:
            self._window = window
            self.sampler.arm(lambda key, t: run.record("act:" + key, t))

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """The sampled forward is over: remove its hooks (a host check on the other steps)."""
        if self.sampler.handles:
            self.sampler.disarm()

    def accumulate(self, run: Any, window: Any) -> None:
        """The sampled fractions, read with the window."""
        for key in window.keys():
            if key.startswith("act:"):
                for step, v in window.get(key):
                    self.sampler.update(key[4:], v[0], step)

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
        self.stats_step = run.steps  # the step these were measured at

    def summarise(self, run: Any) -> list:
        """Worst layers: a trip's full measurement first (it wins the merge), then the latest sample."""
        from probes.base import at_step

        out = at_step(observe(self.stats), self.stats_step) if self.stats is not None else []
        sampled = self.sampler.stats()
        if sampled is not None:
            names = {o.name for o in out}
            out += [o for o in at_step(observe(sampled), self.sampler.step) if o.name not in names]
        return out

    def prepare(self, ex: Any) -> None:
        """One hooked no-grad forward of the examined batch, weights as found."""
        self.stats = measure(ex.model, ex.forward)

    def examine(self, ex: Any) -> list:
        """Worst layers of the examined batch."""
        return observe(self.stats) if self.stats is not None else []
