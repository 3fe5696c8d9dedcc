"""Snapshot and exact restore of what a probe may touch: tensors, grads, flags, modes, optimizer, scaler, RNGs."""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

import torch


def _clone(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return v.detach().clone()
    return copy.deepcopy(v)


def _put(dst: Any, src: Any) -> Any:
    """Write ``src`` back into ``dst`` in place when both are tensors of one shape (keeps object identity)."""
    if isinstance(dst, torch.Tensor) and isinstance(src, torch.Tensor) and dst.shape == src.shape \
            and dst.dtype == src.dtype and dst.device == src.device:
        with torch.no_grad():
            dst.copy_(src)
        return dst
    return _clone(src)


@dataclass
class Snapshot:
    """Everything needed to put a model, optimizer and the RNGs back exactly as found."""

    params: list[tuple[torch.nn.Parameter, torch.Tensor, Any, torch.Tensor | None, bool]] = field(default_factory=list)
    buffers: list[tuple[torch.nn.Module, str, torch.Tensor | None, torch.Tensor | None]] = field(default_factory=list)
    modes: list[tuple[torch.nn.Module, bool]] = field(default_factory=list)
    opt_state: dict[Any, dict[str, Any]] | None = None
    opt_refs: dict[Any, dict[str, Any]] | None = None
    opt_groups: list[dict[str, Any]] | None = None
    opt_attrs: dict[str, Any] = field(default_factory=dict)
    opt_attr_names: set[str] | None = None
    scaler_state: dict[str, Any] | None = None
    rng: dict[str, Any] = field(default_factory=dict)
    grad_enabled: bool = True
    attrs: list[tuple[torch.nn.Module, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    """Per module: its Python attributes as found (the objects) and copies of the mutable ones."""
    generators: list[tuple[torch.Generator, torch.Tensor]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What could not be recorded for an exact restore (an attribute that cannot be copied)."""


_MODULE_BASE = frozenset(vars(torch.nn.Module()))
"""Attributes every module has (parameters, buffers, hooks, mode): restored field by field, not as Python state."""
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), frozenset, range, type)


def _immutable(v: Any) -> bool:
    if isinstance(v, tuple):
        return all(_immutable(x) for x in v)
    return isinstance(v, _IMMUTABLE) or callable(v) and not hasattr(v, "__dict__")


def _python_state(mod: torch.nn.Module, notes: list[str], name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A module's own Python attributes and copies of those that can change in place.

    These are what ``forward`` may update: counters, caches, histories, and derived weights such as old-style
    ``weight_norm``'s ``weight``.
    """
    found = {k: v for k, v in vars(mod).items() if k not in _MODULE_BASE}
    copies: dict[str, Any] = {}
    for k, v in found.items():
        # Shallow copies: cheap, never refused, and they keep the identity of what the containers hold; they
        # undo appends, removals and rebinding (a counter, a history, a cache), not changes deeper inside.
        if isinstance(v, torch.Tensor):
            copies[k] = (v._version, v.detach().clone())
        elif isinstance(v, torch.nn.Module) or _immutable(v):
            continue
        elif isinstance(v, (list, bytearray)):
            copies[k] = list(v) if isinstance(v, list) else bytearray(v)
        elif isinstance(v, (dict, set)):
            copies[k] = v.copy()
        elif isinstance(getattr(v, "__dict__", None), dict):
            copies[k] = dict(v.__dict__)
        else:
            notes.append(f"{name or 'model'}.{k} ({type(v).__name__}): if forward changes it in place, examine "
                         "cannot put it back")
    return found, copies


def _restore_python_state(mod: torch.nn.Module, found: dict[str, Any], copies: dict[str, Any]) -> None:
    d = vars(mod)
    for k in [k for k in d if k not in _MODULE_BASE and k not in found]:
        del d[k]  # added by the examination (a cache, a counter that did not exist)
    for k, v in found.items():
        d[k] = v  # the same object as before, even where forward rebound the name
        saved = copies.get(k)
        if saved is None:
            continue
        if isinstance(v, torch.Tensor):
            version, value = saved
            if v._version != version:
                with torch.no_grad():
                    v.copy_(value)
        elif isinstance(v, (list, bytearray)):
            # by identity, element by element: == on tensors inside a list would compare values
            if len(v) != len(saved) or any(a is not b for a, b in zip(v, saved)):
                v[:] = saved
        elif isinstance(v, (dict, set)):
            if v.keys() != saved.keys() if isinstance(v, dict) else v != saved:
                v.clear()
                v.update(saved)
            elif isinstance(v, dict):
                for kk, vv in saved.items():
                    if v[kk] is not vv:
                        v[kk] = vv
        elif isinstance(getattr(v, "__dict__", None), dict):
            for kk in [kk for kk in v.__dict__ if kk not in saved]:
                del v.__dict__[kk]
            for kk, vv in saved.items():
                if v.__dict__.get(kk, saved) is not vv:
                    v.__dict__[kk] = vv


def loader_generators(loader: Any) -> list[torch.Generator]:
    """The torch generators a data loader draws from (its own, its sampler's, its batch sampler's sampler's)."""
    out: list[torch.Generator] = []
    for obj in (loader, getattr(loader, "sampler", None), getattr(getattr(loader, "batch_sampler", None),
                                                                   "sampler", None)):
        g = getattr(obj, "generator", None)
        if isinstance(g, torch.Generator) and all(g is not o for o in out):
            out.append(g)
    return out


def take(model: torch.nn.Module, optimizer: Any | None = None, scaler: Any | None = None,
         loader: Any | None = None) -> Snapshot:
    """Record the state (clones of every tensor; the grad objects themselves are kept for re-attachment).

    Besides tensors, modes, optimizer, scaler and RNGs: every module's Python attributes and the generators a
    ``loader`` shuffles with; what cannot be copied is listed in ``notes``.
    """
    s = Snapshot()
    for name, mod in model.named_modules():
        found, copies = _python_state(mod, s.notes, name)
        if found:
            s.attrs.append((mod, found, copies))
    s.generators = [(g, g.get_state()) for g in loader_generators(loader)] if loader is not None else []
    for p in model.parameters():
        g = p.grad
        s.params.append((p, p.detach().clone(), g, None if g is None else g.detach().clone(), p.requires_grad))
    for mod in model.modules():
        for name, b in mod._buffers.items():
            s.buffers.append((mod, name, b, None if b is None else b.detach().clone()))
        s.modes.append((mod, mod.training))
    if optimizer is not None:
        s.opt_refs = {p: dict(st) for p, st in optimizer.state.items()}
        s.opt_state = {p: {k: _clone(v) for k, v in st.items()} for p, st in optimizer.state.items()}
        s.opt_groups = [{k: (v if k == "params" else _clone(v)) for k, v in g.items()} for g in optimizer.param_groups]
        # flags and caches (LBFGS's ``_numel_cache`` starts as None)
        s.opt_attrs = {k: _clone(v) for k, v in vars(optimizer).items() if k not in ("state", "param_groups",
                       "defaults") and (v is None or isinstance(v, (bool, int, float)))}
        # Flags a step adds (a scheduler's ``_opt_called``, step counters) did not exist before: remove them again.
        s.opt_attr_names = set(vars(optimizer))
    if scaler is not None and hasattr(scaler, "state_dict"):
        s.scaler_state = {k: _clone(v) for k, v in vars(scaler).items()}
    s.rng["torch"] = torch.get_rng_state()
    s.rng["random"] = random.getstate()
    try:
        import numpy as np

        s.rng["numpy"] = np.random.get_state()
    except ImportError:  # pragma: no cover - numpy ships with torch here
        pass
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        s.rng["cuda"] = torch.cuda.get_rng_state_all()
    s.grad_enabled = torch.is_grad_enabled()
    return s


def restore(s: Snapshot, optimizer: Any | None = None, scaler: Any | None = None) -> None:
    """Put everything back as recorded (values bit for bit, same tensor objects where they still fit)."""
    with torch.no_grad():
        for p, value, grad_obj, grad_val, req in s.params:
            p.copy_(value)
            if grad_obj is not None:
                grad_obj.copy_(grad_val)
            p.grad = grad_obj
            p.requires_grad_(req)
        for mod, name, b, val in s.buffers:
            if b is None:
                mod._buffers[name] = None
            else:
                b.copy_(val)
                mod._buffers[name] = b
    for mod, training in s.modes:
        mod.training = training
    if optimizer is not None and s.opt_state is not None and s.opt_refs is not None:
        for p in list(optimizer.state.keys()):
            if p not in s.opt_state:
                del optimizer.state[p]
        for p, st in s.opt_state.items():
            refs = s.opt_refs[p]
            optimizer.state[p] = {k: _put(refs.get(k), v) for k, v in st.items()}
        for g, saved in zip(optimizer.param_groups, s.opt_groups or []):
            for k in list(g.keys()):
                if k not in saved:
                    del g[k]
            for k, v in saved.items():
                g[k] = v if k == "params" else _put(g.get(k), v)
        for k, v in s.opt_attrs.items():
            setattr(optimizer, k, v)
        if s.opt_attr_names is not None:
            for k in set(vars(optimizer)) - s.opt_attr_names:
                delattr(optimizer, k)
    if scaler is not None and s.scaler_state is not None:
        for k, v in s.scaler_state.items():
            setattr(scaler, k, _clone(v))
    for mod, found, copies in s.attrs:
        _restore_python_state(mod, found, copies)
    for g, state in s.generators:
        g.set_state(state)
    torch.set_rng_state(s.rng["torch"])
    random.setstate(s.rng["random"])
    if "numpy" in s.rng:
        import numpy as np

        np.random.set_state(s.rng["numpy"])
    if "cuda" in s.rng:
        torch.cuda.set_rng_state_all(s.rng["cuda"])
    torch.set_grad_enabled(s.grad_enabled)


def fingerprint(model: torch.nn.Module, optimizer: Any | None = None) -> dict[str, Any]:
    """Return a comparable picture of the state, for tests: tensors as bytes, flags, modes and RNG states."""
    import numpy as np

    def b(t: torch.Tensor | None) -> Any:
        if t is not None and t.layout != torch.strided:  # a sparse gradient: compare what it means, densely
            t = t.detach().to_dense()
        return None if t is None else (str(t.dtype), tuple(t.shape), t.detach().cpu().contiguous().view(-1)
                                       .view(torch.uint8).numpy().tobytes() if t.numel() else b"")

    fp: dict[str, Any] = {
        "params": [(n, b(p), b(p.grad), p.requires_grad) for n, p in model.named_parameters()],
        "buffers": [(n, b(x)) for n, x in model.named_buffers()],
        "modes": [(n, m.training) for n, m in model.named_modules()],
        "torch_rng": bytes(torch.get_rng_state().numpy()),
        "random": random.getstate(),
        "numpy": np.random.get_state()[1].tobytes() + repr(np.random.get_state()[2:]).encode(),
    }
    if optimizer is not None:
        pid = {id(p): i for i, p in enumerate(q for g in optimizer.param_groups for q in g["params"])}
        fp["opt_state"] = sorted((pid.get(id(p), -1), k, b(v) if isinstance(v, torch.Tensor) else repr(v))
                                 for p, st in optimizer.state.items() for k, v in st.items())
        fp["opt_groups"] = [{k: (repr(v) if k != "params" else len(v)) for k, v in g.items()}
                            for g in optimizer.param_groups]
        fp["opt_flags"] = sorted((k, repr(v)) for k, v in vars(optimizer).items()
                                 if isinstance(v, (bool, int, float)))
    return fp
