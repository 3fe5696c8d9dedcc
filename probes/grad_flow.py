"""Gradient flow (cheap, optimizer step): norms, frozen/orphan/no-grad parameters, vanishing, exploding, spikes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import ProbeInfo, emit, finite_or_none

INFO = ProbeInfo("grad_flow", "cheap", "optimizer_step",
                 ("grad_norm_global", "grad_layer_ratio", "grad_norm_trend", "params_without_grad",
                  "frozen_params", "frozen_fraction", "params_missing_from_optimizer",
                  "grad_underflow_fraction", "model_params"))

LOW_PRECISION = (torch.float16, torch.bfloat16)


def norms(tensors: Sequence[torch.Tensor]) -> torch.Tensor:
    """Per-tensor L2 norms as one float32 tensor on the tensors' device (``torch._foreach_norm``; no sync).

    Mixed devices are grouped; the result lives on the first tensor's device.
    """
    if not tensors:
        return torch.zeros(0)
    dev = tensors[0].device
    if all(t.device == dev for t in tensors):
        return torch.stack([n.float() for n in torch._foreach_norm(list(tensors))])
    return torch.stack([t.detach().float().norm().to(dev) for t in tensors])


def global_norm(per_param: torch.Tensor) -> torch.Tensor:
    """Give the global L2 norm from per-parameter norms (device tensor)."""
    return torch.linalg.vector_norm(per_param) if per_param.numel() else torch.zeros((), device=per_param.device)


def structure(model: torch.nn.Module, optimizer: Any | None = None) -> dict[str, Any]:
    """Give static facts: frozen parameters and trainable parameters missing from every optimizer group."""
    params = list(model.parameters())
    frozen = [p for p in params if not p.requires_grad]
    total = sum(p.numel() for p in params)
    in_opt: set[int] = set()
    if optimizer is not None:
        for g in optimizer.param_groups:
            in_opt.update(id(p) for p in g["params"])
    missing = [n for n, p in model.named_parameters() if p.requires_grad and optimizer is not None
               and id(p) not in in_opt]
    return {"params": len(params), "elements": total, "frozen": len(frozen),
            "frozen_fraction": (sum(p.numel() for p in frozen) / total) if total else 0.0,
            "missing_from_optimizer": missing,
            "trainable_elements": sum(p.numel() for p in params if p.requires_grad)}


def layer_ratio(named: Sequence[tuple[str, torch.Tensor]], per_param: torch.Tensor) -> dict[str, Any] | None:
    """First-layer over last-layer RMS gradient, over weight matrices (ndim >= 2) in registration order.

    Args:
        named: (name, grad) pairs, aligned with ``per_param``.
        per_param: Their norms (host floats or a tensor).
    """
    idx = [i for i, (_, g) in enumerate(named) if g.ndim >= 2]
    if len(idx) < 2:
        return None
    vals = per_param.tolist() if hasattr(per_param, "tolist") else list(per_param)
    first, last = idx[0], idx[-1]
    rms_first = vals[first] / math.sqrt(named[first][1].numel())
    rms_last = vals[last] / math.sqrt(named[last][1].numel())
    ratio = rms_first / rms_last if rms_last > 0 else (math.inf if rms_first > 0 else 1.0)
    return {"first": named[first][0], "last": named[last][0], "rms_first": rms_first, "rms_last": rms_last,
            "ratio": ratio}


def count_spikes(history: Sequence[float]) -> dict[str, Any]:
    """Give steps whose norm exceeds ``MT-GRAD-SPIKE`` times the running median of the steps before (vectorized)."""
    import numpy as np

    h = np.asarray(history, dtype=np.float64)
    if h.size < 8:
        return {"spikes": 0, "steps": int(h.size)}
    # running median of everything before each step, approximated by an expanding window capped at 64
    med = np.array([np.median(h[max(0, i - 64):i]) for i in range(4, h.size)])
    cur = h[4:]
    hit = np.isfinite(cur) & (cur > threshold("MT-GRAD-SPIKE") * np.maximum(med, 1e-12))
    return {"spikes": int(hit.sum()), "steps": int(h.size), "max_over_median": float(np.max(cur / np.maximum(
        med, 1e-12))) if cur.size else 0.0}


def trend(global_norm_value: float | None, ratio: float | None, spikes: int) -> str:
    """Classify the gradient norms as exploding, vanishing, spiky or normal (thresholds from the knowledge)."""
    if global_norm_value is None or global_norm_value > threshold("MT-GRAD-EXPLODE-ABS"):
        return "exploding"
    if ratio is not None and ratio > threshold("MT-GRAD-EXPLODE-RATIO"):
        return "exploding"
    if global_norm_value < threshold("MT-GRAD-VANISH-ABS"):
        return "vanishing"
    if ratio is not None and ratio < threshold("MT-GRAD-VANISH-RATIO"):
        return "vanishing"
    if spikes > 0:
        return "spiky"
    return "normal"


def underflow_fraction(grads: Sequence[torch.Tensor]) -> torch.Tensor | None:
    """Fraction of low-precision gradient elements that are exactly zero (device tensor), or None."""
    low = [g for g in grads if g.dtype in LOW_PRECISION]
    if not low:
        return None
    zeros = torch.stack([(g == 0).sum() for g in low]).sum()
    return zeros.float() / float(sum(g.numel() for g in low))


def observe(*, struct: dict[str, Any], per_param: dict[str, float] | None, no_grad: list[str],
            global_norms: Sequence[float], ratio: dict[str, Any] | None, underflow: float | None = None
            ) -> list:
    """Observations from measured gradient numbers (host floats).

    Args:
        struct: ``structure()`` output.
        per_param: Latest per-parameter norms by name (evidence).
        no_grad: Trainable parameters without a gradient.
        global_norms: Global norm per probed step.
        ratio: ``layer_ratio()`` output.
        underflow: Fraction of zero low-precision gradient elements.
    """
    out = [emit(INFO, "frozen_params", struct["frozen"], {"params": struct["params"]}),
           emit(INFO, "frozen_fraction", round(struct["frozen_fraction"], 6),
                {"frozen_elements_fraction": struct["frozen_fraction"]}, ("MT-FROZEN",)),
           emit(INFO, "model_params", struct["trainable_elements"])]
    if struct["missing_from_optimizer"] is not None:
        out.append(emit(INFO, "params_missing_from_optimizer", len(struct["missing_from_optimizer"]),
                        {"names": struct["missing_from_optimizer"][:20]}))
    if not global_norms:
        return out
    out.append(emit(INFO, "params_without_grad", len(no_grad), {"names": no_grad[:20]}))
    import numpy as np

    finite = [g for g in global_norms if finite_or_none(g) is not None]
    med = float(np.median(finite)) if finite else None
    sp = count_spikes(global_norms)
    r = ratio["ratio"] if ratio and finite_or_none(ratio["ratio"]) is not None else None
    t = trend(med if len(finite) == len(global_norms) else None, r, sp["spikes"])
    worst = sorted(per_param.items(), key=lambda kv: -kv[1])[:5] if per_param else []
    ev = {"median_global_norm": med, "steps": len(global_norms), "spikes": sp, "layer_ratio": ratio,
          "largest": dict(worst)}
    out.append(emit(INFO, "grad_norm_trend", t, ev, ("MT-GRAD-EXPLODE-ABS", "MT-GRAD-VANISH-ABS",
                                                      "MT-GRAD-VANISH-RATIO", "MT-GRAD-EXPLODE-RATIO",
                                                      "MT-GRAD-SPIKE")))
    if med is not None:
        out.append(emit(INFO, "grad_norm_global", med, {"per_step": list(global_norms)[-20:]},
                        ("MT-GRAD-EXPLODE-ABS",)))
    if r is not None:
        out.append(emit(INFO, "grad_layer_ratio", r, ratio, ("MT-GRAD-VANISH-RATIO", "MT-GRAD-EXPLODE-RATIO")))
    if underflow is not None and finite_or_none(underflow) is not None:
        out.append(emit(INFO, "grad_underflow_fraction", min(1.0, max(0.0, underflow)), {}, ("MT-UNDERFLOW",)))
    return out
