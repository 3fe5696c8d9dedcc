"""Gradient flow (cheap, optimizer step): norms, frozen/orphan/no-grad parameters, vanishing, exploding, spikes."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit, finite_or_none, median_rows, norms, stored
from probes.loss_reference import loss_per, loss_start  # noqa: F401  (loss_start re-exported: torch-free home)
from probes.medians import median

INFO = ProbeInfo("grad_flow", "cheap", "optimizer_step",
                 ("grad_norm_global", "grad_layer_ratio", "grad_norm_trend", "params_without_grad",
                  "frozen_params", "frozen_fraction", "params_missing_from_optimizer",
                  "grad_underflow_fraction", "model_params", "grad_norm_steady_rise"))

LOW_PRECISION = (torch.float16, torch.bfloat16)
# Up to this many per-parameter norms a step are queued as 0-d tensors for the window end's single stack; more
# are stacked in the step. Measured on CPU: a stack launched inside a training step costs about as much as
# stacking 15-20 queued tensors at the window end, where the work runs in one tight call.
STACK_AT_WINDOW_END = 16
# The per-step gradient norm reads every gradient once: on a CPU it is most of what the watch costs a step (issue
# 21: 100-180 us on the small MLP's 1.6 MB of gradients when the step has pushed them out of cache). It runs on
# every optimizer step while the run is young (the spike reference is the median of the previous PAST norms, and
# the run's scale its first norms), then on a stride chosen so that each window still gets NORMS_PER_WINDOW norms
# or more (a window's median and trend need a handful, not fifty), and always on the sampled steps (the
# per-layer picture). A short window (``every`` <= 2 * NORMS_PER_WINDOW) keeps the norm on every step.
NORMS_PER_WINDOW = 5


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


SPARSE_TABLES = (torch.nn.Embedding, torch.nn.EmbeddingBag)


def lookup_tables(model: torch.nn.Module) -> frozenset[str]:
    """Names of the parameters of embedding tables (``nn.Embedding``, ``nn.EmbeddingBag``), shared ones included.

    A table's gradient reaches only the rows a batch looks up, so its RMS over the whole table is tiny for a
    large vocabulary however well gradients flow: it says nothing about flow through depth.
    """
    tables = {id(p) for mod in model.modules() if isinstance(mod, SPARSE_TABLES) for p in mod.parameters(False)}
    return frozenset(n for n, p in model.named_parameters(remove_duplicate=False) if id(p) in tables)


def block_of(name: str) -> str:
    """The block a parameter belongs to: its name up to the first index (``encoder.layer.0``, ``net.3``).

    A parameter without an index in its name (``fc1.weight``) is its own block (its module's path).
    """
    parts = name.split(".")
    for i, p in enumerate(parts[:-1]):
        if p.isdigit():
            return ".".join(parts[: i + 1])
    return ".".join(parts[:-1]) or name


def layer_ratio(named: Sequence[tuple[str, torch.Tensor]], per_param: torch.Tensor,
                skip: Collection[str] = ()) -> dict[str, Any] | None:
    """First-layer over last-layer RMS gradient, over weight matrices (ndim >= 2) in registration order.

    Args:
        named: (name, grad) pairs, aligned with ``per_param``.
        per_param: Their norms (host floats or a tensor).
        skip: Parameter names left out of the comparison (embedding tables: ``lookup_tables``), since a
            row-sparse gradient is not a vanishing one.
    """
    idx = [i for i, (n, g) in enumerate(named) if g.ndim >= 2 and n not in skip]
    if len(idx) < 2:
        return None
    vals = per_param.tolist() if hasattr(per_param, "tolist") else list(per_param)
    last = idx[-1]
    # The first layer is the first block: in a stack of blocks (a transformer layer, a ResNet stage) the first
    # matrix registered is often one whose gradient is small by design (attention's query and key projections,
    # whose gradient passes through the softmax of near-zero scores at init) while its value path is well fed.
    # Vanishing means no path into the first block gets gradient: its best-fed matrix is the one compared.
    block = block_of(named[idx[0]][0])
    firsts = [i for i in idx[:-1] if block_of(named[i][0]) == block] or idx[:1]
    rms = {i: vals[i] / math.sqrt(named[i][1].numel()) for i in firsts}
    first = max(firsts, key=lambda i: rms[i])
    rms_first = rms[first]
    rms_last = vals[last] / math.sqrt(named[last][1].numel())
    ratio = rms_first / rms_last if rms_last > 0 else (math.inf if rms_first > 0 else 1.0)
    out = {"first": named[first][0], "last": named[last][0], "rms_first": rms_first, "rms_last": rms_last,
           "ratio": ratio}
    left_out = sorted(set(skip) & {n for n, _ in named})
    if left_out:
        out["lookup_tables_left_out"] = left_out[:5]
    return out


def count_spikes(history: Sequence[float]) -> dict[str, Any]:
    """Give steps whose norm exceeds ``MT-GRAD-SPIKE`` times the median of the (up to 64) steps before."""
    st = NormStats()
    st.update(list(enumerate(history)))
    return {"spikes": st.spikes, "steps": st.n, "max_over_median": st.max_over_median}


@dataclass
class NormStats:
    """Incremental gradient-norm summary: a window end costs the window, and memory is bounded.

    Keeps the first finite norm (a blow-up at step 0 is not hidden by a later median), the largest window
    median and the latest one (the run's phases), the first non-finite step, and spikes against the median of
    the previous ``PAST`` finite norms that are also large against the run's starting norm
    (the median of its first five, ``MT-GRAD-SPIKE-ABS``). Non-finite norms are not "exploding": the
    non-finite probe owns them.
    """

    PAST = 64
    n: int = 0
    first: float | None = None
    first_step: int | None = None
    peak_median: float | None = None
    peak_step: int | None = None
    last_median: float | None = None
    last_step: int | None = None
    nonfinite_step: int | None = None
    spikes: int = 0
    max_over_median: float = 0.0
    scale: float | None = None
    recent: list[float] = field(default_factory=list)

    def update(self, pairs: Sequence[tuple[int, float]]) -> None:
        """Feed (step, norm) pairs of one window, in step order."""
        import numpy as np

        fin = [(s, v) for s, v in pairs if math.isfinite(v)]
        if self.nonfinite_step is None:
            self.nonfinite_step = next((s for s, v in pairs if not math.isfinite(v)), None)
        self.n += len(pairs)
        if not fin:
            return
        if self.first is None:
            self.first_step, self.first = fin[0]
        vals = np.asarray([v for _, v in fin], dtype=np.float64)
        med = median(vals)
        if self.scale is None:
            self.scale = median(vals[:5])  # the gradient scale the run starts from: its first norms
        self.last_median, self.last_step = med, fin[-1][0]
        if self.peak_median is None or med > self.peak_median:
            self.peak_median, self.peak_step = med, fin[-1][0]
        past = np.asarray(self.recent, dtype=np.float64)
        y = np.r_[past, vals]
        k0 = past.size
        refs = np.full(y.size, np.nan)
        full = np.arange(max(k0, self.PAST), y.size)
        if full.size:  # one vectorized median per window: each norm against the PAST norms before it
            refs[full] = median_rows(np.lib.stride_tricks.sliding_window_view(y, self.PAST)[full - self.PAST], 1)
        for i in range(max(k0, 4), min(y.size, self.PAST)):  # the run's first steps: fewer norms before them
            refs[i] = median(y[:i])
        new = np.arange(k0, y.size)
        ok = np.isfinite(refs[new])
        if ok.any():
            r = np.maximum(refs[new][ok], 1e-12)
            cur = y[new][ok]
            self.max_over_median = max(self.max_over_median, float(np.max(cur / r)))
            # a spike stands out against the running median and is also large against the gradients the run
            # started with: late in a converged run a 0.01 norm among 4e-4 ones is noise, not instability
            floor = threshold("MT-GRAD-SPIKE-ABS") * (self.scale or 0.0)
            self.spikes += int(np.sum((cur > threshold("MT-GRAD-SPIKE") * r) & (cur > floor)))
        self.recent = y[-self.PAST:].tolist()

    def headline(self, per: float = 1.0) -> tuple[float | None, int | None]:
        """The norm that speaks for the run, and its step.

        The first norm or the peak window when either explodes (a blow-up is not averaged away), else the
        latest window (the run as it is now).

        Args:
            per: How many times a mean-reduced loss's size the loss is (``loss_per``): the bound grows with it.
        """
        big = threshold("MT-GRAD-EXPLODE-ABS") * per
        if self.first is not None and self.first > big and self.first >= (self.peak_median or 0.0):
            return self.first, self.first_step
        if self.peak_median is not None and self.peak_median > big:
            return self.peak_median, self.peak_step
        return self.last_median, self.last_step


DENSE_STEPS = NormStats.PAST
"""Every optimizer step's norm is taken until the spike reference (the previous ``PAST`` norms) is full."""


def flow_ratio(latest: dict[str, Any] | None, best: dict[str, Any] | None) -> dict[str, Any] | None:
    """The layer ratio a run's gradient-flow verdict rests on (pure).

    Vanishing gradients starve the first layer from the start: the ratio stays low at every window end. A run
    whose first layer got its share earlier and whose ratio fell only later has converged (a fitted model's
    gradients shrink unevenly), which is not a flow problem: then the ratio reported is the best one seen, with
    the latest kept in the evidence. A ratio that is high now is reported as it is (explosion is judged on the
    present).

    Args:
        latest: ``layer_ratio`` of the latest sampled step.
        best: The highest ``layer_ratio`` a window end has seen (with its ``step``).
    """
    if latest is None or best is None or finite_or_none(latest["ratio"]) is None:
        return latest
    if latest["ratio"] < threshold("MT-GRAD-VANISH-RATIO") <= best["ratio"]:
        return {**best, "latest": {k: latest[k] for k in ("first", "last", "ratio")},
                "note": "the first block got its share of the gradient earlier (at the step given); the ratio fell "
                        "as the run converged"}
    return latest


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


def steady_rise(head: float | None, start: float | None, spikes: int) -> dict[str, float] | None:
    """The rise of a norm over ``MT-GRAD-EXPLODE-ABS`` when it was gradual, else None (pure).

    Gradual: the run started under the bound (the median of its first norms), no step spiked against the running
    median, and the norm grew less than ``MT-GRAD-RISE`` times. A norm over the bound from the start (a bad init,
    an RNN's recurrence), a spike, or growth by orders of magnitude is an explosion whatever the loss does.

    Args:
        head: The norm that speaks for the run (``NormStats.headline``), per the loss's size.
        start: The run's starting norm (``NormStats.scale``), per the loss's size.
        spikes: Spikes counted against the running median.
    """
    bound = threshold("MT-GRAD-EXPLODE-ABS")
    if head is None or start is None or not head > bound or not 0.0 < start <= bound or spikes:
        return None
    growth = head / start
    return {"start": start, "norm": head, "growth": growth} if growth < threshold("MT-GRAD-RISE") else None


def underflow_fraction(grads: Sequence[torch.Tensor]) -> torch.Tensor | None:
    """Fraction of low-precision gradient elements that are exactly zero (device tensor), or None."""
    low = [g for g in grads if g.dtype in LOW_PRECISION]
    if not low:
        return None
    zeros = torch.stack([(g == 0).sum() for g in low]).sum()
    return zeros.float() / float(sum(g.numel() for g in low))


def observe_structure(struct: dict[str, Any]) -> list:
    """Observations of the static structure: frozen parameters, trainable size, parameters the optimizer misses."""
    out = [emit(INFO, "frozen_params", struct["frozen"], {"params": struct["params"]}),
           emit(INFO, "frozen_fraction", round(struct["frozen_fraction"], 6),
                {"frozen_elements_fraction": struct["frozen_fraction"]}, ("MT-FROZEN",)),
           emit(INFO, "model_params", struct["trainable_elements"])]
    if struct["missing_from_optimizer"] is not None:
        out.append(emit(INFO, "params_missing_from_optimizer", len(struct["missing_from_optimizer"]),
                        {"names": struct["missing_from_optimizer"][:20]}))
    return out


def observe(*, struct: dict[str, Any], per_param: dict[str, float] | None, no_grad: list[str],
            global_norms: Sequence[float] | NormStats, ratio: dict[str, Any] | None, underflow: float | None = None,
            step: int | None = None, stepped: bool = False, struct_obs: list | None = None,
            stopped: dict[str, int] | None = None, loss_start: float | None = None) -> list:
    """Observations from measured gradient numbers (host floats).

    Args:
        struct: ``structure()`` output.
        per_param: Latest per-parameter norms by name (evidence).
        no_grad: Trainable parameters without a gradient.
        global_norms: Global norm per probed step, or a ``NormStats`` fed incrementally (``watch``).
        ratio: ``layer_ratio()`` output.
        underflow: Fraction of zero low-precision gradient elements.
        step: Step of the latest measurement.
        stepped: Optimizer steps were seen (even with no gradient at all: ``params_without_grad`` still counts).
        struct_obs: ``observe_structure(struct)`` made earlier (a watch's structure does not change).
        stopped: Parameters whose gradient turned exactly zero after being non-zero (name -> the step it was
            found): they receive no gradient now, and count with ``no_grad``.
        loss_start: The loss at the start of the run, when known (``watch``): a loss summed over many elements
            has its norm judged per ``MT-GRAD-LOSS-REF`` of it (``loss_per``).
    """
    out = list(struct_obs) if struct_obs is not None else observe_structure(struct)
    st = global_norms if isinstance(global_norms, NormStats) else None
    if st is None:
        st = NormStats()
        st.update(list(enumerate(global_norms)))
    if st.n == 0 and not stepped:
        return out
    missing: dict[str, Any] = {"names": no_grad[:20]}
    if stopped:
        missing["stopped_receiving"] = dict(list(stopped.items())[:20])  # name -> the window end that found it
    out.append(emit(INFO, "params_without_grad", len(no_grad) + len(stopped or ()), missing, step=step))
    if st.n == 0:
        return out
    per = loss_per(loss_start)
    head, head_step = st.headline(per)
    raw = head
    if head is not None and per > 1.0:
        # the norm a mean-reduced loss would give: a summed VAE loss in the thousands has norms in the hundreds
        # from its first step, healthy (issue 17: a false "exploding" is worse than a missed one)
        head = head / per
    r = ratio["ratio"] if ratio and finite_or_none(ratio["ratio"]) is not None else None
    ev = {"headline_norm": head, "headline_step": head_step, "first_norm": st.first, "peak_window_median":
          st.peak_median, "latest_window_median": st.last_median, "steps": st.n,
          "spikes": {"spikes": st.spikes, "max_over_median": st.max_over_median}, "layer_ratio": ratio,
          "first_nonfinite_step": st.nonfinite_step, "largest": dict(sorted((per_param or {}).items(),
                                                                              key=lambda kv: -kv[1])[:5])}
    if head is not None:
        # trend from finite norms only: a NaN norm is the non-finite probe's finding, not an explosion
        last = st.last_median / per if st.last_median is not None else None
        t = trend(head if head > threshold("MT-GRAD-EXPLODE-ABS") else last, r, st.spikes)
        if per > 1.0:
            ev = {**ev, "raw_norm": raw, "loss_start": loss_start,
                  "note": f"the loss starts at {loss_start:.4g}: summed over many elements, so the norm is read "
                          f"per {threshold('MT-GRAD-LOSS-REF'):g} of it (divided by {per:.4g})"}
        out.append(emit(INFO, "grad_norm_trend", t, ev, ("MT-GRAD-EXPLODE-ABS", "MT-GRAD-VANISH-ABS",
                                                          "MT-GRAD-VANISH-RATIO", "MT-GRAD-EXPLODE-RATIO",
                                                          "MT-GRAD-SPIKE", "MT-GRAD-SPIKE-ABS"), step=head_step))
        gev = {"first": st.first, "peak_window_median": st.peak_median, "latest_window_median": st.last_median}
        if per > 1.0:
            gev.update(raw_norm=raw, loss_start=loss_start, divided_by=per)
        out.append(emit(INFO, "grad_norm_global", head, gev,
                        ("MT-GRAD-EXPLODE-ABS", "MT-GRAD-LOSS-REF") if per > 1.0 else ("MT-GRAD-EXPLODE-ABS",),
                        step=head_step))
        rise = steady_rise(head, st.scale / per if st.scale is not None else None, st.spikes)
        if rise is not None:  # only a norm over the bound is at stake; the knowledge weighs it with the loss curve
            out.append(emit(INFO, "grad_norm_steady_rise", True, {**rise, "spikes": st.spikes},
                            ("MT-GRAD-EXPLODE-ABS", "MT-GRAD-RISE"), step=head_step))
    if r is not None:
        out.append(emit(INFO, "grad_layer_ratio", r, ratio, ("MT-GRAD-VANISH-RATIO", "MT-GRAD-EXPLODE-RATIO"),
                        step=step))
    if underflow is not None and finite_or_none(underflow) is not None:
        out.append(emit(INFO, "grad_underflow_fraction", min(1.0, max(0.0, underflow)), {}, ("MT-UNDERFLOW",),
                        step=step))
    return out


class GradFlowProbe(Probe):
    """Plugin: gradient norms per step and per layer, frozen and orphan parameters.

    Per step one ``torch._foreach_norm`` over the gradients, its per-parameter norms queued on the device; the
    window end gets them in the one stacked read and takes each step's global norm on the host. The per-layer
    picture (first/last layer ratio, the largest layers) is the latest sampled step's; low-precision
    underflow is measured on sampled steps only.

    The per-step norm is the largest part of the watch's cost on a CPU (issue 21: about 50 us on the small MLP's
    1.6 MB of gradients when they are in cache, 100-140 us when the step has pushed them out, on the 2-core
    reference machine): it reads every gradient once. It runs on every optimizer step for the first
    ``DENSE_STEPS`` (init and LR faults show there, and the spike reference fills), then on a stride that leaves
    ``NORMS_PER_WINDOW`` or more a window, and on every sampled step. The price, after the dense start: a one-step
    spike is seen when it falls on a measured step, and a gradient that turns non-finite while the loss is finite
    is located at the next forward's output (activations) unless that step was measured. A sustained blow-up or
    collapse, which is what the trend rows judge, is seen within the stride. The norm is one foreach kernel whose
    result carries any NaN or Inf, so no separate finiteness check runs beside it.
    """

    info = INFO
    hooks = ("optimizer_pre", "window")
    # called on sampled steps and on the steps it wakes itself for (every step of the dense start, then the
    # stride): the steps between cost nothing
    sampled_hooks = woken_hooks = ("optimizer_pre",)
    # a parameter that gets no gradient (none at all, or none any more) is measured outright: its check trips
    trips_rows = ("DX-GRAD-01",)
    thresholds = ("MT-FROZEN", "MT-GRAD-EXPLODE-ABS", "MT-GRAD-VANISH-ABS", "MT-GRAD-VANISH-RATIO",
                  "MT-GRAD-EXPLODE-RATIO", "MT-GRAD-SPIKE", "MT-GRAD-SPIKE-ABS", "MT-UNDERFLOW", "MT-GRAD-LOSS-REF",
                  "MT-GRAD-RISE")

    def attach(self, run: Any) -> None:
        """Static structure; empty norm statistics."""
        self.struct = structure(run.model, run.optimizer)
        self._struct_obs: list | None = None  # emitted once: the structure is fixed at attach
        self.tables = lookup_tables(run.model)  # embedding tables: left out of the layer ratio
        self.stats = NormStats()
        self.per_param: list[float] | None = None
        self.underflow: float | None = None
        self._count = -1
        self._dense = True
        self.loss_start: float | None = None  # fixed from the first window's raw losses (``loss_start``)
        self._named: list[tuple[str, torch.Tensor]] = []  # (name, parameter) with a gradient: shapes only
        self.no_grad: list[str] = []
        self._one_device = len({p.device for p in run.params}) == 1
        self.flowed: dict[str, Any] | None = None  # the highest layer ratio a window end has seen
        # parameters whose gradient was non-zero at some measured step, and those among them whose gradient has
        # been exactly zero at every measured step of a window since (name -> the window end that found it)
        self.fed: set[str] = set()
        self.stopped: dict[str, int] = {}
        every = getattr(run, "every", 0)
        self._stride = max(1, every // NORMS_PER_WINDOW) if every > 2 * NORMS_PER_WINDOW else 1
        self._last = 0  # the step count of the last norm taken
        if hasattr(run, "wake"):
            run.wake("optimizer_pre", self.optimizer_pre, 0)

    def optimizer_pre(self, run: Any) -> None:
        """Queue the per-parameter gradient norms (one foreach kernel; no sync) on the steps that take them."""
        # the stride counts from the last norm taken, not ``steps % stride``: under gradient accumulation the
        # optimizer steps fall on every k-th ``w.step`` and a modulus could miss all of them
        if run.opt_steps > DENSE_STEPS and run.steps - self._last < self._stride and run.steps % run.update_every:
            run.wake("optimizer_pre", self.optimizer_pre, self._last + self._stride)
            return
        self._last = run.steps
        # the next call: the very next optimizer step in the dense start, else a stride on (sampled steps come
        # anyway); the same steps as a check here on every step would pick
        run.wake("optimizer_pre", self.optimizer_pre,
                 run.steps if run.opt_steps < DENSE_STEPS else self._last + self._stride)
        grads = [g for g in [p.grad for p in run.params] if g is not None]
        if len(grads) != self._count:
            # which parameters have a gradient changes rarely: names are recomputed only when the count does
            self._count = len(grads)
            self._named = [(n, p) for n, p in zip(run.pnames, run.params) if p.grad is not None]
            self.no_grad = [n for n, p in zip(run.pnames, run.params) if p.grad is None]
            # a gradient's layout is its module's (a sparse embedding's), fixed: looked at only here, not in
            # every step (a call per parameter per step costs more than the foreach norm's launch)
            self._dense = all(g.layout == torch.strided for g in grads)
        if not self._dense:
            grads = [stored(g) for g in grads]
        if not grads:
            return
        if not self._one_device:
            run.record("gf:norms", norms(grads))
        elif len(grads) <= STACK_AT_WINDOW_END:
            # a few 0-d results ride to the window end's one stack: a kernel launch inside the step costs more
            run.record("gf:norms", torch._foreach_norm(grads))
        else:  # many: one vector a step (the window end would pay per tensor)
            run.record("gf:norms", torch.stack(torch._foreach_norm(grads)))
        if run.sampled and grads[0].dtype in LOW_PRECISION:
            uf = underflow_fraction(grads)
            if uf is not None:
                run.record("gf:uf", uf)

    def accumulate(self, run: Any, window: Any) -> None:
        """Global norm per step (host), the latest sampled per-parameter norms, underflow."""
        import numpy as np

        if self.loss_start is None:  # the first window with a finite loss sets it, once
            self.loss_start = loss_start([v[0] for _, v in window.get("loss")])
        items = window.get("gf:norms")
        if not items:
            return
        ue = run.update_every
        if all(len(v) == len(items[0][1]) for _, v in items):
            with np.errstate(all="ignore"):  # inf and NaN carry through to the step's global norm
                g = np.sqrt(np.square(np.asarray([v for _, v in items], dtype=np.float64)).sum(axis=1)).tolist()
        else:  # the set of parameters with a gradient changed within the window
            g = [math.sqrt(sum(x * x for x in v)) for _, v in items]
        pairs = [(step, n) for (step, _), n in zip(items, g)]
        for step, v in items:
            if step % ue == 0:
                self.per_param = v
        self.stats.update(pairs)
        self._stopped(run, items)
        if self.per_param is not None and len(self.per_param) == len(self._named):
            r = layer_ratio(self._named, self.per_param, self.tables)
            if r is not None and finite_or_none(r["ratio"]) is not None and \
                    (self.flowed is None or r["ratio"] > self.flowed["ratio"]):
                self.flowed = {**r, "step": run.steps}
        if self.stats.nonfinite_step is not None and "gradients" not in run.nonfinite_at:
            run.nonfinite_at["gradients"] = self.stats.nonfinite_step
        for _, v in window.get("gf:uf"):
            self.underflow = v[0]

    def _stopped(self, run: Any, items: list[tuple[int, list[float]]]) -> None:
        """Parameters that stopped receiving gradient: exactly zero at every norm of this window, non-zero before.

        Read from the norms the window already holds (no extra work in the step). An exact zero over a whole
        window is no small gradient but none at all: a layer cut from the graph, frozen or zeroed part way. A
        parameter that never had a gradient is left to ``no_grad`` (or to its structure) instead.
        """
        n = len(self._named)
        rows = [v for _, v in items if len(v) == n]
        if not rows:
            return
        for i, (name, _) in enumerate(self._named):
            col = [v[i] for v in rows]
            if any(x != 0.0 for x in col):  # NaN included: a non-finite gradient is the non-finite probe's
                self.fed.add(name)
                self.stopped.pop(name, None)
            elif name in self.fed and name not in self.stopped:
                self.stopped[name] = run.steps

    def summarise(self, run: Any) -> list:
        """Gradient observations of the run so far."""
        ratio = None
        per_param: dict[str, float] = {}
        if self.per_param is not None and len(self.per_param) == len(self._named):
            per_param = dict(zip([n for n, _ in self._named], self.per_param))
            ratio = layer_ratio(self._named, self.per_param, self.tables)
        ratio = flow_ratio(ratio, self.flowed)
        if self._struct_obs is None:
            self._struct_obs = observe_structure(self.struct)
        return observe(struct=self.struct, per_param=per_param, no_grad=self.no_grad, global_norms=self.stats,
                       ratio=ratio, underflow=self.underflow, step=run.steps, stepped=run.opt_steps > 0,
                       struct_obs=self._struct_obs,
                       # every parameter at once is no layer cut from the rest: a loss whose gradient is zero
                       # everywhere (saturated outputs), which the loss and loop probes read
                       stopped=self.stopped if len(self.stopped) < len(self._named) else None,
                       loss_start=self.loss_start)

    # ------------------------------------------------------------------ examine

    def prepare(self, ex: Any) -> None:
        """Static structure before anything runs."""
        self.struct = structure(ex.model, ex.optimizer)
        self.global_norms: list[float] = []
        self.ratio: dict[str, Any] | None = None
        self.per_name: dict[str, float] = {}
        self.underflow = None

    def after_backward(self, ex: Any, i: int) -> None:
        """The batch's gradients: per-layer picture on the first backward, the global norm after every one."""
        if i == 0:
            named = ex.named
            if not named:
                return
            pn = norms([g for _, g in named])
            self.per_name = dict(zip([n for n, _ in named], pn.tolist()))
            self.global_norms.append(float(global_norm(pn)))
            self.ratio = layer_ratio(named, pn, lookup_tables(ex.model))
            uf = underflow_fraction([g for _, g in named])
            self.underflow = None if uf is None else float(uf)
            from probes.nonfinite import all_finite

            ex.flags["gradients"] = all(all_finite(g) for _, g in named)
            return
        gl = [stored(p.grad) for _, p in ex.trainable if p.grad is not None]
        self.global_norms.append(float(global_norm(norms(gl))))
        if not math.isfinite(self.global_norms[-1]):
            ex.flags["gradients"] = False

    def examine(self, ex: Any) -> list:
        """Gradient observations of the examination."""
        struct = self.struct | ({"missing_from_optimizer": None} if ex.optimizer is None else {})
        return observe(struct=struct, per_param=self.per_name, no_grad=ex.no_grad, global_norms=self.global_norms,
                       ratio=self.ratio, underflow=self.underflow)
