"""Tensor probes: measure the live model, optimizer, data and loss, and hand the engine observations.

``examine`` is a one-shot examination that leaves everything as found; ``watch`` is an always-on context
manager for a training loop. Both are generic schedulers over the probe plugins listed in ``PLUGINS`` (the
protocol is in ``probes.base``): adding a probe is writing its file and listing its plugin here. Importing
this package is cheap; torch loads with the first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["examine", "watch", "PROBES", "PLUGINS", "plugins"]

PLUGINS = ("ranks:RankProbe", "nonfinite:NonfiniteProbe", "config_lint:ConfigLintProbe", "loss_curve:LossCurveProbe",
           "loss_init:LossInitProbe", "grad_flow:GradFlowProbe", "update_ratio:UpdateRatioProbe",
           "generalization:GeneralizationProbe", "throughput:ThroughputProbe", "activations:ActivationsProbe",
           "loss_scale:LossScaleProbe", "weight_norm:WeightNormProbe", "loop_lint:LoopLintProbe",
           "target_scale:TargetScaleProbe")
"""The plugins ``watch`` and ``examine`` run, as ``module:Class`` in ``probes/``, in order of trust: when two
probes emit the same observation name, the one listed first wins."""

PROBES = tuple(dict.fromkeys(p.split(":")[0] for p in PLUGINS))
"""Probe modules, one quantity family per file (each defines ``INFO`` with its id, tier and hook point)."""


def plugins(names: tuple[str, ...] = PLUGINS) -> list[type]:
    """The plugin classes of ``names`` (``module:Class`` in ``probes/``), imported now (torch loads)."""
    import importlib

    out = []
    for spec in names:
        mod, _, cls = spec.partition(":")
        out.append(getattr(importlib.import_module(f"probes.{mod}"), cls))
    return out


def __getattr__(name: str) -> Any:
    if name == "examine":
        from probes.exam import examine

        return examine
    if name == "watch":
        from probes.watcher import watch

        return watch
    raise AttributeError(name)
