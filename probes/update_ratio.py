"""Update-to-weight ratio (cheap, sampled around an optimizer step): |w_after - w_before| / |w_before| per layer."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from probes.base import ProbeInfo, emit

INFO = ProbeInfo("update_ratio", "cheap", "optimizer_step", ("update_ratio",))


def ratios(before: Sequence[torch.Tensor], after: Sequence[torch.Tensor]) -> torch.Tensor:
    """Per-tensor update/weight ratios on the device (no sync); unmoved or zero tensors give NaN (skipped later)."""
    if not before:
        return torch.zeros(0)
    deltas = torch._foreach_sub([a.detach() for a in after], list(before))
    dn = torch.stack([n.float() for n in torch._foreach_norm(deltas)])
    wn = torch.stack([n.float() for n in torch._foreach_norm(list(before))])
    # A tensor that did not move at all (no gradient reached it) says nothing about the LR: leave it out.
    return torch.where((wn > 0) & (dn > 0), dn / wn, torch.full_like(wn, float("nan")))


def summarize(values: Sequence[float], names: Sequence[str] | None = None) -> dict[str, object] | None:
    """Median ratio over layers (finite ones), plus the extremes, from host floats."""
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v)
    if not ok.any():
        return None
    med = float(np.median(v[ok]))
    out: dict[str, object] = {"median": med, "min": float(v[ok].min()), "max": float(v[ok].max()),
                              "layers": int(ok.sum())}
    if names is not None:
        order = np.argsort(np.where(ok, v, -np.inf))[::-1][:3]
        out["largest"] = {names[i]: float(v[i]) for i in order if ok[i]}
    return out


def observe(summary: dict[str, object] | None) -> list:
    """``update_ratio`` with the healthy value and the bands applied."""
    if not summary:
        return []
    return [emit(INFO, "update_ratio", summary["median"], summary,
                 ("MT-UPD-HEALTHY", "MT-UPD-LOW", "MT-UPD-HIGH"))]
