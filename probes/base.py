"""What every probe shares: its identity card, the plugin protocol the schedulers drive, the observation adapter.

Writing a probe
---------------
A probe is one file in ``probes/``: pure measurement functions (tensors in, device tensors or host numbers out)
and, at the end of the file, one :class:`Probe` subclass, the plugin that ``watch`` and ``examine`` drive. List
the class in ``probes.PLUGINS`` (registry order is the order of trust: the first observation of a name wins).
Nothing in ``watcher.py`` or ``exam.py`` names a probe.

The plugin declares:

* ``info``: a :class:`ProbeInfo` (id, cost ``tier``, hook point, the observation names it ``measures``);
* ``hooks``: the scheduler events it handles (:data:`HOOKS`); a ``watch`` registers a torch hook only when
  some plugin asks for that event, and calls only the plugins that declared it;
* ``thresholds``: the ``knowledge.measurements`` ids its verdicts apply (tests check they exist).

and implements what it declared, each receiving the scheduler (``run``: a ``Watch`` or an ``Exam``):

* ``attach(run)`` / ``detach(run)``: set up its (bounded) state; remove anything it registered itself.
  ``attach`` may narrow ``self.hooks`` to the events this run needs (the watch reads them after attaching):
  a plugin with nothing to do on this run, e.g. the rank probe in a single process, then costs nothing per step.
  ``sampled_hooks`` names the events among ``forward``, ``optimizer_pre`` and ``step_end`` whose handler acts
  only when ``run.sampled``: the scheduler skips those calls on the other steps. ``woken_hooks`` names those
  whose handler acts only on occurrences it asks for: the scheduler calls it only when woken
  (``run.wake(event, handler, at)``: once, at the first occurrence of the event whose clock has reached ``at``;
  the clock is ``run.forward_serial`` for ``forward``, ``run.steps`` for the others), and on sampled steps too
  when the event is also in ``sampled_hooks``. A handler woken on the steps it samples costs nothing on the
  others (a Python call inside every training step costs about a microsecond, a registered hook more).
* step events: ``forward`` (every training forward: the first input and output tensors), ``optimizer_pre``
  (every optimizer step: gradients final), ``step_end`` (``w.step`` done), and, on sampled steps only,
  ``forward_pre`` (a training forward begins) and ``optimizer_post`` (the step is taken): the scheduler
  registers those two torch hooks only around the steps that need them. Queue
  **device** tensors with ``run.record(key, tensor)`` (a tensor or a list of 0-d tensors), or host floats with
  ``run.record_host``; queue a few 0-d tensors as they come, and stack only many (the window end stacks every
  queued tensor in one call, about a microsecond each on the CPU; a stack launched inside a training step costs
  as much as 15-20 of those). Launch a reduction or two at
  most, never read a value to the host here (``float()``, ``.item()``, ``.tolist()``, ``bool(tensor)``
  synchronise a GPU), and do per-parameter work only through ``torch._foreach_*`` or on sampled steps
  (``run.sampled``, every ``run.update_every`` steps). ``backward`` is declared by a plugin that registers its
  own tensor hook (``run.params[-1].register_hook``) for the steps it needs: a hook on every backward pass
  costs a call from autograd into Python each time.
* ``unsound_loss``: called in ``w.step`` when the step's loss was not read on the host as a finite number (none
  given, a loss on an accelerator, or a NaN/Inf on the CPU), before the step is counted: what it records is this
  step's. A check that a finite host loss makes needless waits here instead of running in every step (the
  non-finite probe's look at a CPU input).
* ``accumulate(run, window)``: the window end. ``window.get(key)`` gives this window's values of a key as
  ``(step, [floats])`` in step order: the scheduler has read every queued tensor in one stacked transfer.
  Update bounded summaries here; the cost must be the window's, not the history's.
* ``escalate(run)`` (tier ``expensive``): hooks for the one training forward after a trip; return their
  handles, the scheduler removes them after that forward and calls ``settle(run)``.
* ``summarise(run)``: observations of everything measured so far (through :func:`emit`, stamped with the step
  they were measured at). ``stale(known, fresh)`` (optional) names earlier observations in the consultation
  that the fresh summary replaces; ``watch`` forgets them before adding it. A plugin that sets
  ``trips_causes = True`` lets cause rows reading only its observations trip the watch; ``trips_rows`` names
  investigation rows of the diagnostician that do.
* the one-shot examination (``probes.exam.Exam``, passed as ``ex``) calls, when the plugin defines them:
  ``prepare(ex)`` (before anything runs: weights as found), ``after_forward(ex)`` (the first forward and loss
  are in ``ex.output`` / ``ex.loss_value``), ``after_backward(ex, i)`` (``ex.named`` gradients; setting
  ``ex.flags[place] = False`` stops the stepping there), ``before_step(ex, i)`` / ``after_step(ex, i)`` around
  each optimizer step, and ``examine(ex)``: the observations. ``examine`` restores everything afterwards.

Quantities more than one probe needs are on the scheduler: ``run.first_output`` / ``run.first_input`` (small
copies sampled from the first training forward's tensors, kept until the first summary; the full output's shape
is ``run.first_output_shape``), ``run.num_classes()``, ``run.nonfinite_at`` (place ->
first step a probe saw a non-finite value there; the non-finite probe reports the earliest), ``run.params``,
``run.pnames``, ``run.steps``, ``run.update_every``.

A minimal plugin (``probes/weight_norm.py``, listed as ``"weight_norm:WeightNormProbe"``, is a fuller one)::

    INFO = ProbeInfo("weight_norm", "cheap", "optimizer_step", ("weight_norm",))

    class WeightNormProbe(Probe):
        info, hooks = INFO, ("optimizer_post", "window")

        def attach(self, run):
            self.last = None

        def optimizer_post(self, run):                        # sampled steps only
            run.record("wn", torch.stack(torch._foreach_norm(run.params)))  # no host read

        def accumulate(self, run, window):
            for step, norms in window.get("wn"):              # host floats, read with the window
                self.last = (step, math.sqrt(sum(x * x for x in norms)))

        def summarise(self, run):
            return [] if self.last is None else [emit(INFO, "weight_norm", self.last[1], step=self.last[0])]
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any, ClassVar

from knowledge.measurements import MEASURE_BY_ID
from knowledge.record import dataclass
from knowledge.vocabulary import Observation

TIERS = ("free", "cheap", "expensive")
WINDOW = 200
"""Default steps per watch window, for ``watch`` and the framework callbacks alike. A window end reads the queue,
folds it into the summaries, summarises and runs the trip check: about 3 ms on the 2-core reference machine,
whatever the model. At 200 steps that is under 20 us a step amortised (issue 21: at most 60 us a step added on the
small MLP, window ends included); a fault is still seen within 200 steps, and a run's exit always reads its last,
partial window."""
HOOKS = ("forward_pre", "forward", "backward", "optimizer_pre", "optimizer_post", "step_end", "unsound_loss",
         "window", "escalate")
"""Scheduler events a plugin may declare (``window`` = ``accumulate`` at each window end)."""


@dataclass(frozen=True)
class ProbeInfo:
    """A probe's identity card.

    Attributes:
        id: Stable id; observations it emits carry the provenance ``probe:<id>``.
        tier: ``free`` (reads live objects, no tensor work), ``cheap`` (a few device reductions per step,
            safe always-on) or ``expensive`` (hooks on every module or extra passes; only on a trip).
        hook: Where it attaches (``static``, ``forward``, ``backward``, ``optimizer_step``, ``history``...).
        measures: The observation names it can emit.
    """

    id: str
    tier: str
    hook: str
    measures: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.tier not in TIERS:
            raise ValueError(f"probe {self.id}: tier must be one of {TIERS}")

    @property
    def source(self) -> str:
        """Provenance string of this probe's observations."""
        return f"probe:{self.id}"


class Probe:
    """A probe plugin (see the module docstring for the protocol). Subclasses set the class attributes.

    Attributes:
        info: The probe's identity card.
        hooks: Scheduler events handled (a subset of :data:`HOOKS`).
        thresholds: Threshold ids (``knowledge.measurements``) its verdicts use.
    """

    info: ClassVar[ProbeInfo]
    hooks: ClassVar[tuple[str, ...]] = ()
    thresholds: ClassVar[tuple[str, ...]] = ()
    sampled_hooks: ClassVar[tuple[str, ...]] = ()
    """Events of ``hooks`` (``forward``, ``optimizer_pre``, ``step_end``) whose handler does nothing unless
    ``run.sampled``: ``watch`` calls them on sampled steps only (a call is a cost paid inside every training
    step). The handler keeps its own check, so ``examine`` or a caller that ignores this gets the same result."""
    woken_hooks: ClassVar[tuple[str, ...]] = ()
    """Events of ``hooks`` (``forward``, ``optimizer_pre``, ``step_end``) whose handler acts only on the
    occurrences it asks for with ``run.wake`` (the first request goes in ``attach``): ``watch`` calls it then
    only (and on sampled steps when the event is also in ``sampled_hooks``)."""
    gradless_hooks: ClassVar[tuple[str, ...]] = ()
    """Events of ``hooks`` (``optimizer_pre`` only) whose handler acts only on an optimizer step that finds no
    gradient on the first trainable parameter, and reads nothing a step's own work changes but the gradients:
    on a step whose optimizer pre-hook is not registered (the hook itself costs the step more than its handlers
    on most steps), ``watch`` calls it just after the optimizer's own step instead, when that parameter still has
    no gradient (a closure that computed gradients has then left them). The handler must give the same result
    called either way."""
    trips_causes: ClassVar[bool] = False
    """Whether cause rows (``knowledge.causes``) that read only this probe's observations trip ``watch`` like
    measurement rows do (a loop fault the probe measures outright)."""
    trips_rows: ClassVar[tuple[str, ...]] = ()
    """Ids of the diagnostician's investigation rows (``knowledge.diagnostician``) that read this probe's
    measurements and trip ``watch`` like measurement rows do (a check the seed runs by hand, measured here)."""

    @property
    def tier(self) -> str:
        """Cost tier (``free``, ``cheap``, ``expensive``)."""
        return self.info.tier

    @property
    def measures(self) -> tuple[str, ...]:
        """Observation names it may emit."""
        return self.info.measures

    def attach(self, run: Any) -> None:
        """Set up state before the first step (``watch``'s ``__enter__``)."""

    def detach(self, run: Any) -> None:
        """Remove whatever the probe registered itself (``watch``'s ``__exit__``, always called)."""

    def forward_pre(self, run: Any, module: Any) -> None:
        """A training forward of a sampled step begins."""

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """A training forward ended; ``first`` / ``out``: the first input / output tensor (or None)."""

    def backward(self, run: Any, grad: Any) -> None:
        """A gradient reached the last trainable parameter (once per backward pass)."""

    def optimizer_pre(self, run: Any) -> None:
        """Before ``optimizer.step()`` (gradients final)."""

    def optimizer_post(self, run: Any) -> None:
        """After ``optimizer.step()`` of a sampled step."""

    def step_end(self, run: Any) -> None:
        """``w.step()`` finished (the user's bookkeeping for the step is done)."""

    def unsound_loss(self, run: Any) -> None:
        """``w.step`` of a step whose loss was not read as a finite host number (before the step is counted)."""

    def accumulate(self, run: Any, window: Any) -> None:
        """Window end: fold the window's host values into bounded summaries."""

    def escalate(self, run: Any) -> list[Any]:
        """Expensive hooks for the next training forward after a trip; return their handles."""
        return []

    def settle(self, run: Any) -> None:
        """The escalated forward is over (its hooks are removed): turn what it saw into host numbers."""

    def summarise(self, run: Any) -> list[Observation]:
        """Observations for everything measured so far."""
        return []

    def stale(self, known: Any, fresh: list[Observation]) -> list[str]:
        """Names of observations already in the consultation (``known``, by name) that ``fresh`` makes stale.

        ``watch`` forgets them before adding its summary (a newer summary that replaces an older one whole).
        """
        return []

    def examine(self, ex: Any) -> list[Observation]:
        """Observations of the one-shot examination (``probes.exam``)."""
        return []


def stored(t: Any) -> Any:
    """The stored values of a tensor: itself when dense, the values of a sparse one.

    A sparse gradient (``nn.Embedding(sparse=True)``) has no dense kernels for norms or finiteness checks; its
    unstored entries are zeros, so the norm, the extremes that matter and the finiteness of its stored values
    are those of the whole tensor.
    """
    import torch

    if t is None or t.layout == torch.strided:
        return t
    if t.layout == torch.sparse_coo:
        return t.coalesce().values()
    return t.values()  # CSR/CSC/BSR/BSC: values() holds every stored entry


def norms(tensors: Any) -> Any:
    """Per-tensor L2 norms as one float32 tensor on the tensors' device (``torch._foreach_norm``; no sync).

    Gradients and weights alike (no autograd record). Mixed devices are grouped; the result lives on the first
    tensor's device.
    """
    import torch

    if not tensors:
        return torch.zeros(0)
    tensors = [stored(t) for t in tensors]
    dev = tensors[0].device
    with torch.no_grad():
        if all(t.device == dev for t in tensors):
            return torch.stack([n.float() for n in torch._foreach_norm(list(tensors))])
        return torch.stack([t.detach().float().norm().to(dev) for t in tensors])


DIGEST_MAX = 1 << 20
"""Largest input (elements) that :func:`input_digest` reads whole: its weights are kept on the input's device, one
vector per dtype and device (4 MB in float32 at most)."""
DIGEST_SCALE = 2.0 ** -20  # times weights in [0.25, 0.5): a digest is at most half the input's largest magnitude
DIGEST_DTYPES = ("float32", "float64")


def input_digest(run: Any, x: Any) -> Any:
    """One device op over a training forward's whole input: a fixed positive weighting of every element (or None).

    Equal batches give equal digests, and any NaN or Inf entry makes the digest non-finite: the non-finite probe
    and the batch-order probe read the same number, computed once per forward (``run.forward_serial`` tells the
    forwards apart) instead of a min/max reduction and a sampled projection each. The weights sum to less than
    half of one (``DIGEST_SCALE``), so a finite input never overflows the digest; they follow a fixed
    low-discrepancy sequence, so the first ``n`` of them are the same whatever the longest input seen.

    None when the input is not a dense contiguous float32/float64 tensor of at most ``DIGEST_MAX`` elements: the
    callers then measure it their own way.
    """
    serial = getattr(run, "forward_serial", None)
    memo = getattr(run, "digest_memo", None)
    key = id(x)
    if memo is not None and memo[0] == serial and memo[1] == key and serial is not None:
        return memo[2]
    d = None
    n = x.numel()
    if 0 < n <= DIGEST_MAX and x.layout is _strided() and x.dtype in _digest_dtypes() and x.is_contiguous():
        if x.requires_grad:
            x = x.detach()
        d = _dot()(x.view(-1), _digest_weights(run, n, x.dtype, x.device))
    if serial is not None:
        run.digest_memo = (serial, key, d)  # the input's id, not the input: nothing is kept alive
    return d


@functools.cache
def _strided() -> Any:
    import torch

    return torch.strided


@functools.cache
def _digest_dtypes() -> frozenset[Any]:
    import torch

    return frozenset(getattr(torch, n) for n in DIGEST_DTYPES)


@functools.cache
def _dot() -> Any:
    import torch

    return torch.dot


def _digest_weights(run: Any, n: int, dtype: Any, device: Any) -> Any:
    """The first ``n`` digest weights, kept per dtype and device on ``run`` (grown to a power of two as needed)."""
    import torch

    cache = getattr(run, "digest_weights", None)
    if cache is None:  # a run other than the Watch (which declares it)
        cache = run.digest_weights = {}
    key = (dtype, device)
    w = cache.get(key)
    if w is None or w.numel() < n:
        size = 1 << max(10, (n - 1).bit_length())
        i = torch.arange(size, dtype=torch.float64)
        frac = torch.remainder(i * 0.6180339887498949, 1.0)  # golden-ratio sequence: evenly spread, fixed
        w = cache[key] = ((0.25 + 0.25 * frac) * DIGEST_SCALE).to(device=device, dtype=dtype)
    return w[:n] if w.numel() != n else w


def median_rows(a: Any, axis: int) -> Any:
    """``numpy.median(a, axis=axis)`` for finite values, by one sort (same values, less overhead)."""
    import numpy as np

    s = np.sort(np.asarray(a, dtype=np.float64), axis=axis)
    n = s.shape[axis]
    mid = n // 2
    hi = np.take(s, mid, axis=axis)
    return hi if n % 2 else (np.take(s, mid - 1, axis=axis) + hi) / 2.0


def finite_or_none(x: Any) -> float | None:
    """``float(x)`` when finite, else None (non-finite numbers never become observation values)."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def jsonable(v: Any) -> Any:
    """Turn measured numbers into JSON-ready evidence; non-finite floats become the strings 'nan'/'inf'."""
    t = type(v)
    if t is str or t is int or t is bool or v is None:
        return v
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if hasattr(v, "item") and getattr(v, "ndim", 1) == 0:
        v = v.item()
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return float(f"{v:.6g}")
    return v


def threshold_evidence(*mids: str) -> dict[str, Any]:
    """Evidence entries naming the thresholds applied and their sources."""
    out = {mid: _threshold_entry(mid) for mid in mids}
    return {"thresholds": out} if out else {}


@functools.cache
def _threshold_entry(mid: str) -> dict[str, Any]:
    # built once per threshold: every window end cites the same ones (evidence is read, never mutated)
    m = MEASURE_BY_ID[mid]
    return {"value": m.value, "source": m.source}


VALUES_ONLY: ContextVar[bool] = ContextVar("trainopt_values_only", default=False)
"""Set while a window end builds observations for its trip check alone (``values_only``): ``emit`` then keeps
the names, values and steps and leaves the evidence out. The trip check reads values only, and the evidence
(every measured number made JSON-ready, the thresholds cited) was a quarter of a window end's work (issue 21);
a trip's diagnosis builds the observations again, evidence and all."""


@contextlib.contextmanager
def values_only() -> Iterator[None]:
    """Within this block, probe observations carry no evidence (see ``VALUES_ONLY``)."""
    token = VALUES_ONLY.set(True)
    try:
        yield
    finally:
        VALUES_ONLY.reset(token)


def emit(info: ProbeInfo, name: str, value: Any, evidence: dict[str, Any] | None = None,
         thresholds: Iterable[str] = (), step: int | None = None) -> Observation:
    """Build one validated observation from a probe, with its measured numbers as evidence.

    Args:
        info: The emitting probe.
        name: Vocabulary name (must be one of ``info.measures``).
        value: The value (finite numbers, enums, flags only).
        evidence: Measured numbers behind it.
        thresholds: Threshold ids applied, recorded with their sources.
        step: Training step of the measurement (``at_step`` sets it for a whole group when omitted).

    Raises:
        ValueError: The probe emits a name it does not declare (a defect).
    """
    if name not in info.measures:
        raise ValueError(f"probe {info.id} does not declare {name!r}")
    if VALUES_ONLY.get():
        return Observation.make(name, value, info.source, None, step)  # the trip check reads no evidence
    ev = jsonable(dict(evidence or {}))
    ev.update(threshold_evidence(*thresholds))
    return Observation.make(name, value, info.source, ev, step)


def at_step(obs: Iterable[Observation], step: int | None) -> list[Observation]:
    """Stamp observations that carry no step with ``step`` (the step the summary was taken at)."""
    from dataclasses import replace

    return [o if o.step is not None or step is None else replace(o, step=step) for o in obs]


def merge(groups: Iterable[Iterable[Observation]]) -> list[Observation]:
    """Flatten probe outputs; the first observation of a name wins (probes run in order of trust)."""
    seen: dict[str, Observation] = {}
    for g in groups:
        for o in g:
            seen.setdefault(o.name, o)
    return [seen[k] for k in sorted(seen)]
