"""Normalisation and regularisation layers (free): BatchNorm's per-device batch, the largest dropout probability.

A BatchNorm layer in training mode normalises each channel over the examples of the batch on its device (and the
spatial positions); its statistics come from the first dimension of the batch, read from the first training
forward's output shape (host metadata, no sync). Dropout rates are read from the modules.
"""

from __future__ import annotations

from typing import Any

import torch

from probes.base import Probe, ProbeInfo, emit

INFO = ProbeInfo("layer_lint", "free", "static", ("bn_batch", "dropout_max"))

_BN = (torch.nn.modules.batchnorm._BatchNorm,)
_DROPOUT = (torch.nn.modules.dropout._DropoutNd,)


def batchnorm_layers(model: torch.nn.Module) -> list[str]:
    """BatchNorm layers that use batch statistics in training mode (not SyncBatchNorm, which pools devices)."""
    return [n for n, m in model.named_modules() if isinstance(m, _BN) and m.training
            and not isinstance(m, torch.nn.SyncBatchNorm) and getattr(m, "track_running_stats", True) is not None]


def dropout_max(model: torch.nn.Module) -> tuple[float, str] | None:
    """The largest dropout probability and its layer (None without dropout); MultiheadAttention's too."""
    best: tuple[float, str] | None = None
    for n, m in model.named_modules():
        p = getattr(m, "p", None) if isinstance(m, _DROPOUT) else getattr(m, "dropout", None) \
            if isinstance(m, torch.nn.MultiheadAttention) else None
        if isinstance(p, (int, float)) and 0.0 <= p <= 1.0 and (best is None or p > best[0]):
            best = (float(p), n)
    return best


def observe(model: torch.nn.Module, batch: int | None) -> list:
    """``bn_batch`` (BatchNorm in training mode and the batch known) and ``dropout_max``."""
    out = []
    bn = batchnorm_layers(model)
    if bn and batch:
        out.append(emit(INFO, "bn_batch", int(batch), {"layers": bn[:10], "per_device_batch": int(batch)},
                        ("MT-BN-BATCH",)))
    d = dropout_max(model)
    if d is not None:
        out.append(emit(INFO, "dropout_max", d[0], {"layer": d[1]}, ("MT-DROPOUT-HIGH",)))
    return out


class LayerLintProbe(Probe):
    """Plugin: BatchNorm's per-device batch and dropout rates, from the first training forward."""

    info = INFO
    thresholds = ("MT-BN-BATCH", "MT-DROPOUT-HIGH")

    def attach(self, run: Any) -> None:
        """Nothing measured yet."""
        self._obs: list | None = None

    def summarise(self, run: Any) -> list:
        """Judged once, from the first forward's batch size (a smaller last batch of an epoch is not the run)."""
        if self._obs is None and run.first_output_shape:
            self._obs = observe(run.model, int(run.first_output_shape[0]) if run.first_output_shape else None)
        return list(self._obs or [])

    def examine(self, ex: Any) -> list:
        """The examined model with the examined batch."""
        return observe(ex.model, ex.batch_size)
