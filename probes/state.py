"""Snapshot and exact restore of what a probe may touch: tensors, grads, flags, modes, optimizer, scaler, RNGs."""

from __future__ import annotations

import collections
import copy
import enum
import functools
import io
import logging
import random
import re
import sys
import types
import weakref
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
    attrs: list[tuple[str, Any, Any]] = field(default_factory=list)
    """Python-side state: (kind, object, shallow copy) for every mutable object reachable from the modules."""
    generators: list[tuple[torch.Generator, torch.Tensor]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What could not be recorded for an exact restore (an attribute that cannot be copied)."""


_MODULE_BASE = frozenset(vars(torch.nn.Module()))
"""Attributes every module has (parameters, buffers, submodules, hooks, mode)."""

MAX_PYTHON_OBJECTS = 200_000
"""Objects of Python-side state recorded per examination; deeper state is named in a note, not recorded."""
MAX_PYTHON_TENSOR_BYTES = 64 << 20
"""Bytes of plain tensors (not parameters or buffers) copied from Python-side state, such as a cache or old-style
``weight_norm``'s derived weight; a larger one is named in a note instead of copied."""

_LEAVES = (int, float, complex, str, bytes, bool, type(None), frozenset, range, type, enum.Enum, torch.dtype,
           torch.device, torch.layout, torch.memory_format, types.ModuleType, types.FunctionType,
           types.BuiltinFunctionType, types.MethodType, types.MethodWrapperType, types.WrapperDescriptorType,
           functools.partial, weakref.ref, logging.Logger, logging.Handler, io.IOBase, re.Pattern, torch.ScriptObject)
"""Values walked past: immutable, or code, loggers, files and weak references that a forward pass uses without
owning (their state is the process's, not the model's); and TorchScript objects, such as a quantised layer's
packed weights (examine names those as not measured)."""
_RUNTIME_MODULES = ("lightning", "pytorch_lightning", "lightning_fabric", "accelerate", "deepspeed", "torch._dynamo",
                    "torch.distributed", "torch.utils.data", "torch.optim", "torch.cuda", "threading", "_thread",
                    "queue", "concurrent", "multiprocessing", "asyncio", "socket", "subprocess", "tensorboard",
                    "torch.utils.tensorboard", "wandb", "mlflow")
"""Packages whose objects a model may hold a reference to without owning them: a training framework's runtime
(a trainer, its strategy and loggers), data pipelines, optimizers and schedulers, threads and processes. A
forward pass does not update them; walking them would copy the run around the model (its dataset included)."""
MAX_DEPTH = 12
"""References followed from a module's attribute; state deeper than this is not recorded (and is named)."""
_MISSING = object()


def _runtime(v: Any) -> bool:
    mod = type(v).__module__ or ""
    return mod.startswith(_RUNTIME_MODULES) and any(mod == m or mod.startswith(m + ".") for m in _RUNTIME_MODULES)


def _slots(obj: Any) -> list[str]:
    names: list[str] = []
    for klass in type(obj).__mro__:
        sl = klass.__dict__.get("__slots__", ())
        for n in (sl,) if isinstance(sl, str) else sl:
            if n not in ("__dict__", "__weakref__") and n not in names:
                names.append(n)
    return names


class _Recorder:
    """Walks the Python-side state reachable from the model's modules and records each mutable object once.

    Each record is a shallow copy (a list's items, a dict's items in order, an object's ``__dict__`` and slots,
    a tensor's value, a generator's state). Shallow copies keep the identity of what they hold, so putting
    every recorded object back in place restores the whole graph exactly: nested lists and dicts, counters on
    objects held in a list, a cache dict inside a helper object; and every object is the same object as before.
    """

    def __init__(self, skip: set[int], notes: list[str]) -> None:
        self.skip = skip
        self.notes = notes
        self.records: list[tuple[str, Any, Any]] = []
        self.seen: set[int] = set()
        self.tensor_bytes = 0
        self.unrecorded: list[str] = []

    def walk(self, roots: list[tuple[Any, str]]) -> None:
        stack = [(v, where, 0) for v, where in reversed(roots)]
        while stack:
            v, where, depth = stack.pop()
            if isinstance(v, _LEAVES) or id(v) in self.seen or id(v) in self.skip or _runtime(v):
                continue
            if depth > MAX_DEPTH:
                self.unrecorded.append(f"{where} (more than {MAX_DEPTH} references deep)")
                continue
            self.seen.add(id(v))
            if len(self.seen) > MAX_PYTHON_OBJECTS:
                self.notes.append(f"more than {MAX_PYTHON_OBJECTS:,} objects of Python-side state under the model "
                                  f"(at {where}): if forward changes state past them, examine cannot put it back")
                return
            children = self._record(v, where)
            stack.extend((c, w, depth + 1) for c, w in reversed(children))

    def _record(self, v: Any, where: str) -> list[tuple[Any, str]]:
        """Record one object; return what it holds, to walk next."""
        if isinstance(v, tuple):
            return [(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, torch.Tensor):
            size = v.numel() * v.element_size() if v.layout == torch.strided else 0
            if v.is_meta or v.layout != torch.strided or v.is_quantized:
                self.unrecorded.append(f"{where} ({v.layout}, {v.dtype} tensor)")
            elif self.tensor_bytes + size > MAX_PYTHON_TENSOR_BYTES:
                self.unrecorded.append(f"{where} (a {size >> 20} MiB tensor, not copied)")
            else:
                self.tensor_bytes += size
                self.records.append(("tensor", v, (v._version, v.detach().clone())))
            return []
        if isinstance(v, torch.Generator):
            self.records.append(("torch_rng", v, v.get_state()))
            return []
        if isinstance(v, random.Random):
            self.records.append(("random", v, v.getstate()))
            return [(x, f"{where}.{k}") for k, x in vars(v).items()]
        np = sys.modules.get("numpy")
        if np is not None:
            if isinstance(v, np.ndarray):
                if v.dtype.hasobject or not v.flags.writeable:
                    return [] if not v.dtype.hasobject else [(x, f"{where}[...]") for x in v.flat]
                self.records.append(("ndarray", v, v.copy()))
                return []
            if isinstance(v, np.random.Generator):
                self.records.append(("np_rng", v.bit_generator, v.bit_generator.state))
                return []
            if isinstance(v, np.random.RandomState):
                self.records.append(("np_state", v, v.get_state()))
                return []
        if isinstance(v, list):
            self.records.append(("list", v, list(v)))
            return [(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, collections.deque):
            self.records.append(("deque", v, list(v)))
            return [(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, bytearray):
            self.records.append(("bytearray", v, bytes(v)))
            return []
        if isinstance(v, dict):
            self.records.append(("dict", v, list(dict.items(v))))
            return [(x, f"{where}[{k!r}]") for k, x in dict.items(v)]
        if isinstance(v, (set, frozenset)):
            if isinstance(v, set):
                self.records.append(("set", v, set(v)))
            return []
        children: list[tuple[Any, str]] = []
        d = getattr(v, "__dict__", None)
        slots = _slots(v)
        if isinstance(d, dict):
            self.records.append(("object", v, dict(d)))
            children += [(x, f"{where}.{k}") for k, x in d.items()]
        if slots:
            saved = {n: getattr(v, n, _MISSING) for n in slots}
            self.records.append(("slots", v, saved))
            children += [(x, f"{where}.{k}") for k, x in saved.items() if x is not _MISSING]
        if not isinstance(d, dict) and not slots and not callable(v):
            self.unrecorded.append(f"{where} ({type(v).__name__})")
        return children


def _put_back(kind: str, v: Any, saved: Any) -> None:
    """Restore one recorded object in place (writing only where it differs)."""
    if kind == "tensor":
        version, value = saved
        if v._version != version:
            with torch.no_grad():
                if v.shape == value.shape:
                    v.copy_(value)
                else:  # resized in place
                    v.set_(value.clone())
    elif kind == "torch_rng":
        v.set_state(saved)
    elif kind == "random":
        v.setstate(saved)
    elif kind == "ndarray":
        if v.shape == saved.shape and not (v == saved).all():
            v[...] = saved
    elif kind == "np_rng":
        v.state = saved
    elif kind == "np_state":
        v.set_state(saved)
    elif kind in ("list", "deque"):
        # by identity, element by element: == on tensors inside a list would compare values
        if len(v) != len(saved) or any(a is not b for a, b in zip(v, saved)):
            if kind == "list":
                list.__setitem__(v, slice(None), saved)
            else:
                v.clear()
                v.extend(saved)
    elif kind == "bytearray":
        if v != saved:
            v[:] = saved
    elif kind == "dict":
        now = list(dict.items(v))
        if len(now) != len(saved) or any(a is not c or b is not d for (a, b), (c, d) in zip(now, saved)):
            # dict's own methods: a subclass may refuse deletion (transformers' ModelOutput does)
            dict.clear(v)
            dict.update(v, saved)
    elif kind == "set":
        if v != saved:
            set.clear(v)
            set.update(v, saved)
    elif kind == "object":
        d = v.__dict__
        for k in [k for k in d if k not in saved]:
            del d[k]
        for k, x in saved.items():
            if d.get(k, _MISSING) is not x:
                d[k] = x
    elif kind == "slots":
        for k, x in saved.items():
            now = getattr(v, k, _MISSING)
            if now is x:
                continue
            if x is _MISSING:
                object.__delattr__(v, k)
            else:
                object.__setattr__(v, k, x)


def loader_generators(loader: Any) -> list[torch.Generator]:
    """The torch generators a data loader draws from (its own, its sampler's, its batch sampler's sampler's)."""
    out: list[torch.Generator] = []
    for obj in (loader, getattr(loader, "sampler", None), getattr(getattr(loader, "batch_sampler", None),
                                                                   "sampler", None)):
        g = getattr(obj, "generator", None)
        if isinstance(g, torch.Generator) and all(g is not o for o in out):
            out.append(g)
    return out


def _record_python_state(s: Snapshot, model: torch.nn.Module, optimizer: Any, scaler: Any, loader: Any) -> None:
    """Record every module's Python-side state, nested containers and helper objects included.

    What is restored field by field elsewhere is not walked: parameters, buffers and their gradients, the
    optimizer (and its state), the scaler, the loader.
    """
    skip: set[int] = {id(x) for x in (optimizer, scaler, loader) if x is not None}
    mods = dict(model.named_modules(remove_duplicate=True))
    skip |= {id(m) for m in mods.values()}
    for p in model.parameters():
        skip.add(id(p))
        if p.grad is not None:
            skip.add(id(p.grad))
    skip |= {id(b) for b in model.buffers()}
    if optimizer is not None:
        skip |= {id(t) for st in getattr(optimizer, "state", {}).values() for t in st.values()}
    rec = _Recorder(skip, s.notes)
    roots: list[tuple[Any, str]] = []
    for name, mod in mods.items():
        where = name or "model"
        # The module's own attribute dict: rebinding, additions (a cache, a lazily built submodule) and removals.
        rec.records.append(("object", mod, dict(vars(mod))))
        for k, v in vars(mod).items():
            if k in _MODULE_BASE:
                if isinstance(v, dict):  # hooks, parameters, buffers, submodules: which entries, not their values
                    rec.records.append(("dict", v, list(dict.items(v))))
                    rec.seen.add(id(v))
                continue
            roots.append((v, f"{where}.{k}"))
    rec.walk(roots)
    s.attrs = rec.records
    if rec.unrecorded:
        shown = ", ".join(rec.unrecorded[:5]) + (f" and {len(rec.unrecorded) - 5} more" if len(rec.unrecorded) > 5
                                                  else "")
        s.notes.append(f"Python-side state examine cannot copy: {shown}; if forward changes it in place, examine "
                       "cannot put it back")


def take(model: torch.nn.Module, optimizer: Any | None = None, scaler: Any | None = None,
         loader: Any | None = None) -> Snapshot:
    """Record the state (clones of every tensor; the grad objects themselves are kept for re-attachment).

    Besides tensors, modes, optimizer, scaler and RNGs: every module's Python attributes and the generators a
    ``loader`` shuffles with; what cannot be copied is listed in ``notes``.
    """
    s = Snapshot()
    s.generators = [(g, g.get_state()) for g in loader_generators(loader)] if loader is not None else []
    _record_python_state(s, model, optimizer, scaler, loader)
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
    for kind, obj, saved in s.attrs:
        _put_back(kind, obj, saved)
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


def loss_state(loss_fn: Any) -> list[tuple[torch.nn.Module, dict[str, Any], dict[str, torch.Tensor]]]:
    """Each module's plain numbers (a call counter, a running weight) and buffer copies, before an extra call.

    ``examine`` and ``output_target.inner_calls`` call the user's loss more often than their step would: a
    stateful loss module (a counter, an EMA buffer) must be left as found. Not a module: nothing recorded.
    Objects other than numbers and tensors are not copied (not ours to clone).
    """
    if not isinstance(loss_fn, torch.nn.Module):
        return []
    return [(m, {k: v for k, v in vars(m).items() if type(v) in (int, float, bool)},
             {k: b.detach().clone() for k, b in m.named_buffers(recurse=False) if b is not None})
            for m in loss_fn.modules()]


def restore_loss_state(saved: list[tuple[torch.nn.Module, dict[str, Any], dict[str, torch.Tensor]]]) -> None:
    """Put back what ``loss_state`` took: the numbers as they were, buffers copied in place."""
    with torch.no_grad():
        for m, nums, bufs in saved:
            for k, v in nums.items():
                setattr(m, k, v)
            for k, b in bufs.items():
                cur = getattr(m, k, None)
                if isinstance(cur, torch.Tensor) and cur.shape == b.shape:
                    cur.copy_(b)
                else:
                    setattr(m, k, b)

