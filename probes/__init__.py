"""Tensor probes: measure the live model, optimizer, data and loss, and hand the engine observations.

``examine`` is a one-shot examination that leaves everything as found; ``watch`` is an always-on context
manager for a training loop. Importing this package is cheap; torch loads with the first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["examine", "watch", "PROBES"]

PROBES = ("config_lint", "loss_init", "grad_flow", "update_ratio", "nonfinite", "activations", "loss_curve",
          "generalization", "throughput")
"""Probe modules, one quantity family per file (each defines ``INFO`` with its id, tier and hook point)."""


def __getattr__(name: str) -> Any:
    if name == "examine":
        from probes.exam import examine

        return examine
    if name == "watch":
        from probes.watcher import watch

        return watch
    raise AttributeError(name)
