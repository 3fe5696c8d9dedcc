"""Non-finite locator: NaN/Inf in inputs, labels, weights, gradients, optimizer state, loss or a module's output."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import torch

from probes.base import ProbeInfo, emit

INFO = ProbeInfo("nonfinite", "expensive", "forward", ("nan_location", "nan_step", "nonfinite_module",
                                                       "loss_behavior", "nan_onset"))

# Pipeline order: the earliest place a non-finite value shows up is the one reported.
ORDER = ("inputs", "labels", "weights", "optimizer_state", "activations", "loss", "gradients")


def tensors_in(obj: Any) -> Iterator[torch.Tensor]:
    """Every tensor in a nested structure (tuple, list, dict, dataclass-like objects are not walked)."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from tensors_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from tensors_in(v)


def all_finite(obj: Any) -> bool:
    """Check that every floating tensor in ``obj`` is finite (integer tensors always are)."""
    for t in tensors_in(obj):
        if (t.is_floating_point() or t.is_complex()) and t.numel() and not bool(torch.isfinite(t).all()):
            return False
    return True


def first_nonfinite_module(model: torch.nn.Module, forward: Callable[[], Any]) -> str | None:
    """Run ``forward`` once with hooks on every module; name the first (in execution order) whose output is.

    non-finite. Hooks are removed whatever happens.
    """
    found: list[str] = []
    handles = []

    def make(name: str) -> Callable[..., None]:
        def hook(_m: torch.nn.Module, _inp: Any, out: Any) -> None:
            if not found and not all_finite(out):
                found.append(name or type(_m).__name__)
        return hook

    try:
        for name, mod in model.named_modules():
            handles.append(mod.register_forward_hook(make(name)))
        with torch.no_grad():
            forward()
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None


def scan_static(inputs: Any, labels: Any, model: torch.nn.Module, optimizer: Any | None) -> dict[str, bool]:
    """Finiteness of what exists before any forward pass."""
    state_ok = True
    if optimizer is not None:
        state_ok = all(all_finite(s) for s in optimizer.state.values())
    return {"inputs": all_finite(inputs), "labels": all_finite(labels),
            "weights": all(all_finite(p) for p in model.parameters()), "optimizer_state": state_ok}


def earliest(flags: dict[str, bool]) -> str | None:
    """Give the earliest non-finite place in pipeline order (``flags`` maps place -> finite?)."""
    return next((k for k in ORDER if k in flags and not flags[k]), None)


def observe(location: str | None, *, step: int | None = None, module: str | None = None,
            flags: dict[str, bool] | None = None) -> list:
    """Observations for a located non-finite value (nothing when everything was finite)."""
    if location is None:
        return []
    ev = {"finite": flags or {}, "module": module, "step": step}
    out = [emit(INFO, "nan_location", location, ev), emit(INFO, "loss_behavior", "nan_or_inf", ev)]
    if step is not None:
        out.append(emit(INFO, "nan_step", step, ev))
        out.append(emit(INFO, "nan_onset", "immediate" if step == 0 else "after_steps", ev))
    if module:
        out.append(emit(INFO, "nonfinite_module", module, ev))
    return out
