"""Outputs against targets (free): shapes, ranges, the normalised dimension, target kind, reduction, batch order.

What one batch shows about the contract between the model's output, the targets and the loss: prediction and
target shapes that broadcast, targets a bounded output activation cannot reach or the loss does not accept, a
softmax over the wrong dimension, multi-hot rows given to cross-entropy, and a summed (not averaged) loss. Under
``watch`` the probe reads the loss module's own forward (``loss_fn`` given as an ``nn.Module``): the first call's
output and targets (small copies, judged at the window end) and, on sampled steps, each batch's class counts on the
device, from which the window end measures how sorted by label the batches are.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from knowledge.terms import REGRESSION_LOSSES
from probes.base import Probe, ProbeInfo, emit
from probes.config_lint import inner_losses, loss_name
from probes.state import loss_state, restore_loss_state

INFO = ProbeInfo("output_target", "free", "forward", ("target_shape", "target_range", "output_norm_dim",
                                                      "target_kind", "loss_reduction", "label_sortedness"))

CLASS_LOSSES = ("cross_entropy", "nll")
BINARY_LOSSES = ("bce", "bce_with_logits")
BOUNDED = {torch.nn.Sigmoid: (0.0, 1.0), torch.nn.Tanh: (-1.0, 1.0), torch.nn.Hardtanh: (-1.0, 1.0),
           torch.nn.Softmax: (0.0, 1.0), torch.nn.Hardsigmoid: (0.0, 1.0)}
OUTSIDE_SHARE = 0.1
"""Share of targets outside a bounded output's range that counts (a few outliers at the edge are rounding)."""
SAMPLE_ROWS = 256
"""Examples kept from the first call under watch (whole batches up to this size: dim-0 checks need them whole)."""
MIN_PURITY_BATCH = 8
"""Batches smaller than this say nothing about order: one or two examples are always 'pure'."""
MIN_PURITY_BATCHES = 4
MAX_COUNTED_CLASSES = 1024


def output_bound(model: torch.nn.Module | None) -> tuple[float, float] | None:
    """The range of the model's last registered module when it is a bounded activation (sigmoid, tanh...)."""
    if model is None:
        return None
    last = None
    for m in model.modules():
        if not list(m.children()):
            last = m
    for cls, rng in BOUNDED.items():
        if isinstance(last, cls):
            return rng
    return None


def normalised_dims(out: torch.Tensor) -> list[int]:
    """Dimensions along which the output is a softmax (non-negative, sums to 1) or a log-softmax (exp sums to 1)."""
    if out.ndim < 2 or not out.is_floating_point() or out.numel() < 4:
        return []
    y = out.detach().float()
    if not bool(torch.isfinite(y).all()):
        return []
    p = y if bool((y >= 0).all()) else (y.exp() if bool((y <= 0).all()) else None)
    if p is None:
        return []
    return [d for d in range(y.ndim) if y.shape[d] >= 2
            and bool(torch.allclose(p.sum(d), torch.ones((), device=p.device), atol=1e-3))]


def target_kind(out: torch.Tensor, y: torch.Tensor, kind: str | None) -> str | None:
    """class_index, one_hot, probabilities, multi_hot, integer or continuous (None when it cannot be told).

    ``integer``: targets of an integer dtype given to a loss that is not a class loss (a regression loss computes
    on them silently; torch's class losses need them, its binary ones refuse them).
    """
    if not y.is_floating_point():
        if kind in CLASS_LOSSES:
            return "class_index"
        return "integer" if y.dtype != torch.bool and kind in REGRESSION_LOSSES else "continuous"
    t = y.detach().float()
    if not bool(torch.isfinite(t).all()):
        return None
    if t.ndim >= 2 and t.shape == out.shape and t.shape[1] >= 2:
        binary = bool(((t == 0) | (t == 1)).all())
        sums = t.sum(1)
        if binary:
            return "one_hot" if bool((sums == 1).all()) else "multi_hot"
        if bool((t >= 0).all()) and bool(torch.allclose(sums, torch.ones((), device=t.device), atol=1e-3)):
            return "probabilities"
    return "continuous"


def reduction_of(loss_fn: Any, out: torch.Tensor | None = None, y: Any = None) -> str | None:
    """``mean`` or ``sum``: a torch loss's ``reduction``, else the additive identity over two halves of a batch.

    A summed loss is additive over disjoint halves (L(a) + L(b) = L(a + b)); a mean over equal halves averages
    (L(a) + L(b) = 2 L(a + b)). The loss is called on detached copies, under ``no_grad``.
    """
    r = getattr(loss_fn, "reduction", None)
    if r in ("mean", "sum"):
        return r
    parts = _batch_first(out)
    if parts is None or not isinstance(y, torch.Tensor) or y.ndim < 1 or y.shape[0] != parts[0].shape[0] \
            or y.shape[0] < 4:
        return None
    h = y.shape[0] // 2
    o, t = [p.detach()[:2 * h] for p in parts], y.detach()[:2 * h]

    def cut(s: slice) -> Any:
        # the output as the model gave it (a tensor, or a tuple or list of them), cut to the rows ``s``
        return o[0][s] if isinstance(out, torch.Tensor) else rebuild(out, [p[s] for p in o])
    try:
        with torch.no_grad():
            whole, a, b = (float(loss_fn(cut(slice(None)), t)), float(loss_fn(cut(slice(0, h)), t[:h])),
                           float(loss_fn(cut(slice(h, None)), t[h:])))
    except Exception:  # noqa: BLE001 - a loss that cannot take half a batch tells us nothing
        return None
    if not all(math.isfinite(v) for v in (whole, a, b)) or abs(whole) < 1e-12:
        return None
    tol = 1e-3 * max(1.0, abs(whole))
    if abs(a + b - whole) <= tol and abs(a + b - 2 * whole) > tol:
        return "sum"
    if abs(a + b - 2 * whole) <= tol:
        return "mean"
    return None


def rebuild(out: Any, parts: list[Any]) -> Any:
    """``parts`` in the container ``out`` came in: a namedtuple as itself, any other tuple or list as its kind.

    A namedtuple's constructor takes its fields one by one, not an iterable (``type(out)(gen)`` raises), and a
    tuple or list subclass may have a constructor of its own: the plain kind is what a loss indexes the same.
    """
    make = getattr(type(out), "_make", None)
    if isinstance(out, tuple) and callable(make):
        return make(parts)
    return list(parts) if isinstance(out, list) else tuple(parts)


def _batch_first(out: Any) -> list[torch.Tensor] | None:
    """The output's tensors when it is one batch-first tensor, or a tuple or list of them with one batch size.

    A model that returns several tensors (a multi-task model's heads, a VAE's ``(logits, mu, logvar)``) gives
    its loss a tuple: the loss is still a sum or a mean over the same rows of every part.
    """
    if isinstance(out, torch.Tensor):
        return [out] if out.ndim >= 1 else None
    if isinstance(out, (tuple, list)) and out and all(isinstance(p, torch.Tensor) and p.ndim >= 1 for p in out) \
            and len({p.shape[0] for p in out}) == 1:
        return list(out)
    return None


_BENIGN = {"target_shape": "matches", "loss_reduction": "mean", "target_range": "inside", "output_norm_dim": "class"}
"""The healthy value of each contract reading: a loss term's other value outranks it in a composite loss."""


def _judgeable(args: tuple[Any, ...]) -> bool:
    """Whether a loss term's call has an output and a target with a batch dimension to judge.

    A term on 0-d tensors (a regulariser ``mse(o.mean(), 0)``) has no rows: no shape, range or reduction to read.
    """
    return len(args) >= 2 and isinstance(args[0], torch.Tensor) and isinstance(args[1], torch.Tensor) \
        and args[0].ndim >= 1 and args[1].ndim >= 1


def inner_calls(loss_fn: Any, out: Any, y: Any) -> list[tuple[str, torch.nn.Module, Any, Any]]:
    """Call a composite loss once (no_grad) and record each built-in term's (name, module, input, target).

    Nothing for a loss that holds no built-in loss module; a loss that raises here records nothing (examine
    has called it already: its error is reported there).
    """
    calls: list[tuple[str, torch.nn.Module, Any, Any]] = []
    terms = inner_losses(loss_fn)
    if not terms:
        return calls
    handles = [m.register_forward_hook(lambda m, a, o, n=n: calls.append((n, m, a[0], a[1])) if _judgeable(a)
                                       else None) for n, m in terms]
    saved = loss_state(loss_fn)
    try:
        with torch.no_grad():
            loss_fn(out, y)
    except Exception:  # noqa: BLE001 - the user's loss: examine reports its errors where it calls it first
        calls.clear()
    finally:
        for h in handles:
            h.remove()
        restore_loss_state(saved)
    return calls


def composite_contract(res: dict[str, tuple[Any, dict[str, Any]]],
                       calls: list[tuple[str, torch.nn.Module, Any, Any]],
                       whole_batch: bool = True) -> dict[str, tuple[Any, dict[str, Any]]]:
    """The contract of a loss built of torch losses: each term judged where it is called, merged with ``res``.

    The first reading of a name stands unless a later term reads an unhealthy value (a summed term, a target
    that broadcasts): one broken term is the fault whatever the others do.
    """
    out = dict(res)
    for name, module, o, t in calls:
        if not _judgeable((o, t)):
            continue
        for k, (v, ev) in contract(o, t, name, None, module, whole_batch).items():
            if k not in out or (out[k][0] == _BENIGN.get(k) and v != _BENIGN.get(k, v)):
                out[k] = (v, {**ev, "loss_term": f"{name} ({type(module).__name__})"})
    return out


def contract(out: Any, y: Any, kind: str | None, model: torch.nn.Module | None = None,
             loss_fn: Any = None, whole_batch: bool = True) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Judge one batch's output against its targets: observation name -> (value, evidence).

    Args:
        out: The model output the loss receives.
        y: The targets.
        kind: The loss's normalised name (``cross_entropy``, ``mse``... or ``custom``).
        model: The model (its last module tells a bounded output activation).
        loss_fn: The loss (its reduction).
        whole_batch: Whether ``out`` holds the whole batch (dimension 0 may then be checked for a softmax).
    """
    res: dict[str, tuple[Any, dict[str, Any]]] = {}
    if not isinstance(out, torch.Tensor) and _batch_first(out) is not None and loss_fn is not None:
        # several outputs (a tuple): only the reduction is read from the whole; the terms are judged apart
        red = reduction_of(loss_fn, out, y)
        if red is not None:
            res["loss_reduction"] = (red, {"batch": int(_batch_first(out)[0].shape[0])})  # type: ignore[index]
        return res
    if not isinstance(out, torch.Tensor) or not isinstance(y, torch.Tensor) or not out.is_floating_point() \
            or out.numel() == 0 or y.numel() == 0:
        return res
    shapes = {"output": list(out.shape), "target": list(y.shape), "output_dtype": str(out.dtype).replace("torch.", ""),
              "target_dtype": str(y.dtype).replace("torch.", "")}
    if kind in REGRESSION_LOSSES or kind in BINARY_LOSSES:
        try:
            b = list(torch.broadcast_shapes(out.shape, y.shape))
        except RuntimeError:
            b = None
        if b is not None:
            res["target_shape"] = ("matches" if list(out.shape) == list(y.shape) else "broadcast",
                                   {**shapes, "broadcast_to": b})
    tk = target_kind(out, y, kind)
    if tk is not None:
        res["target_kind"] = (tk, shapes)
    t = y.detach().float()
    if y.is_floating_point() and bool(torch.isfinite(t).all()):
        lo, hi = float(t.min()), float(t.max())
        ev = {"target_min": lo, "target_max": hi}
        if kind in BINARY_LOSSES:
            res["target_range"] = ("outside_loss" if lo < 0.0 or hi > 1.0 else "inside", {**ev, "accepts": [0, 1]})
        elif kind in REGRESSION_LOSSES:
            bound = output_bound(model)
            if bound is not None:
                share = float(((t < bound[0]) | (t > bound[1])).float().mean())
                res["target_range"] = ("outside_activation" if share >= OUTSIDE_SHARE else "inside",
                                       {**ev, "activation_range": list(bound), "share_outside": share})
    dims = normalised_dims(out)
    if not whole_batch:
        dims = [d for d in dims if d != 0]
    if dims and out.shape[1] >= 2:
        res["output_norm_dim"] = ("class" if 1 in dims else "other", {"normalised_over_dims": dims,
                                                                       "class_dim": 1, **shapes})
    red = reduction_of(loss_fn, out, y) if loss_fn is not None else None
    if red is not None:
        res["loss_reduction"] = (red, {"batch": int(out.shape[0]) if out.ndim else 0})
    return res


def sortedness(purities: list[float], pooled: list[float]) -> float | None:
    """How much purer in one class the batches are than the pooled data: 0 as mixed as the data, 1 single-class."""
    total = sum(pooled)
    if len(purities) < MIN_PURITY_BATCHES or total <= 0:
        return None
    base = max(pooled) / total
    if base >= 1.0:
        return None
    mean = sum(purities) / len(purities)
    return min(1.0, max(0.0, (mean - base) / (1.0 - base)))


class OutputTargetProbe(Probe):
    """Plugin: the output/target contract of a batch, and (under watch) how sorted by label the batches arrive."""

    info = INFO
    hooks = ("window",)
    thresholds = ("MT-SORTED",)

    def attach(self, run: Any) -> None:
        """Hook the loss module's forward when the loss is an ``nn.Module`` (a plain function cannot be hooked)."""
        self._handle: Any = None
        self._first: tuple[Any, Any] | None = None
        self._judged: dict[str, tuple[Any, dict[str, Any]]] | None = None
        self.purities: list[float] = []
        self.pooled: list[float] = []
        self.batches = 0
        self._whole = True
        self._inner: list[Any] = []
        self._inner_first: dict[int, tuple[str, torch.nn.Module, Any, Any]] = {}
        loss_fn = getattr(run, "loss_fn", None)
        if isinstance(loss_fn, torch.nn.Module):
            self._handle = loss_fn.register_forward_hook(
                lambda m, a, o: self._guarded(run, self._loss_call, run, a))
            # a user's loss built of torch losses: each term's first call, judged apart at the window end
            self._inner = [m.register_forward_hook(lambda m, a, o, n=n: self._guarded(run, self._term_call, n, m, a))
                           for n, m in inner_losses(loss_fn)]

    def detach(self, run: Any) -> None:
        """Remove the loss-module hooks."""
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        for h in self._inner:
            h.remove()
        self._inner = []

    def _guarded(self, run: Any, fn: Any, *args: Any) -> None:
        """Run a loss-hook body; one that raises switches this probe off (the reason recorded), never the step.

        The hooks run inside the user's loss forward, outside the watcher's own handler tables: an exception
        here would end their training for a measurement's sake.
        """
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - see above
            self.detach(run)
            self._first, self._inner_first = None, {}
            off = getattr(run, "_switch_off", None)
            if callable(off):
                off(self, exc)

    def _term_call(self, name: str, module: torch.nn.Module, args: tuple[Any, ...]) -> None:
        if id(module) in self._inner_first or not torch.is_grad_enabled() or not _judgeable(args):
            return  # (a term on 0-d tensors, a scalar regulariser, has no rows to judge)
        o, t = args[0], args[1]
        # small detached copies, as the first call's (device ops, no host read)
        self._inner_first[id(module)] = (name, module, o.detach()[:SAMPLE_ROWS].clone(),
                                         t.detach()[:SAMPLE_ROWS].clone())

    def _loss_call(self, run: Any, args: tuple[Any, ...]) -> None:
        if not torch.is_grad_enabled() or len(args) < 2:
            return
        out, y = args[0], args[1]
        if _batch_first(out) is None or not isinstance(y, torch.Tensor) or y.ndim < 1:
            return  # (a 0-d target against a batch of outputs: no rows to pair)
        if self._first is None and not isinstance(out, torch.Tensor):
            self._whole = y.shape[0] <= SAMPLE_ROWS
            self._first = (rebuild(out, [p.detach()[:SAMPLE_ROWS].clone() for p in out]),
                           y.detach()[:SAMPLE_ROWS].clone())
        if not isinstance(out, torch.Tensor):
            return
        if self._first is None:
            # small detached copies (device ops, no host read): judged at the window end
            self._whole = out.ndim == 0 or out.shape[0] <= SAMPLE_ROWS
            self._first = (out.detach()[:SAMPLE_ROWS].clone(), y.detach()[:SAMPLE_ROWS].clone())
        if run.sampled and y.ndim == 1 and not y.is_floating_point() and out.ndim == 2 \
                and 2 <= out.shape[1] <= MAX_COUNTED_CLASSES and y.shape[0] >= MIN_PURITY_BATCH:
            c = out.shape[1]
            counts = torch.zeros(c, device=y.device).scatter_add_(0, y.clamp(0, c - 1),
                                                                   torch.ones_like(y, dtype=torch.float))
            run.record("ot:counts", counts)

    def accumulate(self, run: Any, window: Any) -> None:
        """Fold each sampled batch's class counts: its purity, and the pooled counts."""
        for _, counts in window.get("ot:counts"):
            n = sum(counts)
            if n <= 0:
                continue
            self.purities.append(max(counts) / n)
            if len(self.pooled) != len(counts):
                self.pooled = [0.0] * len(counts)
            self.pooled = [a + b for a, b in zip(self.pooled, counts, strict=True)]
            self.batches += 1
        if len(self.purities) > 512:
            self.purities = self.purities[-512:]

    def summarise(self, run: Any) -> list:
        """The first call's contract (judged once) and the batches' sortedness."""
        if self._judged is None and self._first is not None:
            out, y = self._first
            self._judged = contract(out, y, loss_name(run.loss_fn), run.model, run.loss_fn, self._whole)
            self._first = None
        if self._inner_first and self._judged is not None:
            self._judged = composite_contract(self._judged, list(self._inner_first.values()), self._whole)
            self._inner_first = {}
        obs = [emit(INFO, k, v, ev) for k, (v, ev) in (self._judged or {}).items()]
        s = sortedness(self.purities, self.pooled)
        if s is not None:
            obs.append(emit(INFO, "label_sortedness", s, {"batches": self.batches,
                                                          "mean_batch_purity": sum(self.purities) / len(self.purities),
                                                          "pooled_majority_share": max(self.pooled) / sum(self.pooled)},
                            ("MT-SORTED",), step=run.steps))
        return obs

    def examine(self, ex: Any) -> list:
        """The examined batch's contract (one batch cannot show the order of batches)."""
        res = contract(ex.output_tensor, ex.y, ex.loss_kind, ex.model, ex.loss_fn)
        if isinstance(ex.output, (tuple, list)):
            res.update(contract(ex.output, ex.y, ex.loss_kind, ex.model, ex.loss_fn))  # the reduction of the whole
        res = composite_contract(res, inner_calls(ex.loss_fn, ex.output, ex.y))
        return [emit(INFO, k, v, ev) for k, (v, ev) in res.items()]
