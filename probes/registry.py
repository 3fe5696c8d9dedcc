"""The probe plugins ``watch`` and ``examine`` run, in order of trust, and how to load them."""

from __future__ import annotations

PLUGINS = ("ranks:RankProbe", "nonfinite:NonfiniteProbe", "config_lint:ConfigLintProbe", "loss_curve:LossCurveProbe",
           "loss_init:LossInitProbe", "grad_flow:GradFlowProbe", "update_ratio:UpdateRatioProbe",
           "generalization:GeneralizationProbe", "throughput:ThroughputProbe", "activations:ActivationsProbe",
           "loss_scale:LossScaleProbe", "weight_norm:WeightNormProbe", "loop_lint:LoopLintProbe",
           "target_scale:TargetScaleProbe", "output_target:OutputTargetProbe", "opt_hparams:OptHparamsProbe",
           "layer_lint:LayerLintProbe", "lr_applied:LrAppliedProbe", "clipping:ClippingProbe",
           "grad_reset:GradResetProbe", "batch_order:BatchOrderProbe")
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
