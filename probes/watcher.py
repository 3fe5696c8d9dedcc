"""Always-on watch for a training loop: cheap probes every step, expensive ones after a trip, a diagnosis on exit."""

from __future__ import annotations

import ctypes
import functools
import logging
import operator
from itertools import groupby, repeat
from typing import Any

import torch

from knowledge.errors import ContradictionError, ProbeError
from knowledge.vocabulary import Observation
from probes.base import HOOKS, WINDOW, merge, values_only
from probes.config_lint import loss_name
from probes.exam import check_target
from probes.nonfinite import tensors_in
from probes.ranks import LocalShards
from probes.update_ratio import weight_matrix

log = logging.getLogger("trainopt.watch")

_UNSET = object()
SYMPTOMATIC_CURVES = ("flat_from_start", "oscillating", "spiking", "diverging", "nan_or_inf")
NEVER = 1 << 62  # a wake-up clock no run reaches: nothing woken for that event
_WAKE = {"forward": "_wake_fwd", "optimizer_pre": "_wake_opt", "step_end": "_wake_end"}
"""The attribute holding each woken event's earliest wake-up clock."""


class TrainingTripped(ProbeError):
    """Raised by ``watch(..., on_trip="raise")`` when a probe trips; ``.diagnosis`` holds the diagnosis."""

    def __init__(self, diagnosis: Any, rows: Any = ()) -> None:
        if diagnosis is None:  # a watch handed nothing that diagnoses: the measurement rows that tripped
            issues = "measurement rows " + ", ".join(rows)
        else:
            issues = "; ".join(f"{f['id']}: {f['issue']}" for f in diagnosis.findings
                               if f["severity"] in ("warning", "critical")) or diagnosis.status
        super().__init__("training diagnosis tripped", context=issues,
                         hint="see w.diagnosis / consultation.report() for the evidence and the plan")
        self.diagnosis = diagnosis


def tripped_rows(obs: dict[str, Observation], probes: Any = None) -> list[str]:
    """Return the measurement rows (warning/critical) whose conditions hold: a cheap, engine-free check.

    The engine gives the full diagnosis only after a trip. Cause rows that read only the observations of one
    plugin declaring ``trips_causes`` (``probes``: plugin instances or classes; default every listed plugin)
    count as measurement rows.
    """
    from knowledge import all_joins
    from knowledge.schema import chain

    # The rows forward-chained as the engine does (derived observations and joins included, same check, same
    # firing order): a row the engine suppresses never trips here.
    values = {name: o.value for name, o in obs.items()}
    if probes is None:
        from probes.registry import plugins

        probes = plugins()
    rows, alarms = _trip_rows(tuple(p.info.measures for p in probes if p.trips_causes),
                              tuple(sorted({r for p in probes for r in p.trips_rows})))
    run = chain(rows, values, ("origin:probe",), all_joins())
    # a row whose finding a later one explained away (dead units behind a layer without gradient) does not stand
    standing = {key for kind, key, _ in run.facts if kind == "finding"}
    hits = [row.id for row in run.fired if row.id in alarms and row.id in standing]
    # The seed's symptom table: these loss behaviours are symptoms by themselves (routed by the routing family).
    lb = obs.get("loss_behavior")
    if lb is not None and lb.value in SYMPTOMATIC_CURVES:
        hits.append(f"loss_behavior={lb.value}")
    return hits


SAMPLE_EDGE = 16  # elements kept along each dimension but the class dimension (1) of a first-forward sample


def keep_sample(t: Any) -> Any:
    """A small detached copy of ``t`` that keeps its layout (None for None).

    Dimension 1 (classes, channels) stays whole; every other one is thinned to ``SAMPLE_EDGE`` evenly spaced
    entries. What the first forward is read for (output activation, input scale, class count) needs rows and a spread of
    values, not the whole batch.
    """
    if t is None:
        return None
    x = t.detach()
    if x.numel() <= 65536:
        return x.clone()
    steps = [max(1, n // SAMPLE_EDGE) for n in x.shape]
    index = tuple(slice(None) if d == 1 else slice(0, k * SAMPLE_EDGE, k) for d, k in enumerate(steps))
    return x[index].clone()


@functools.cache
def _trip_rows(own: tuple[tuple[str, ...], ...], checks: tuple[str, ...] = ()
               ) -> tuple[tuple[Any, ...], frozenset[str]]:
    """The rows a window end judges, and the ids among them that trip (warning/critical measurement rows).

    ``own``: the observation names of each plugin declaring ``trips_causes``; ``checks``: the investigation rows
    the plugins name in ``trips_rows``. Built once per set of plugins.
    The derive rows come along because measurement rows may need the flags they set (a measured gap above the
    threshold is the ``generalization_gap`` flag that the overfitting row needs).
    """
    from knowledge.causes import ROWS as CAUSES
    from knowledge.causes import TWINS
    from knowledge.contracts import ROWS as CONTRACTS
    from knowledge.derive import ROWS as DERIVED
    from knowledge.distributed import ROWS as DISTRIBUTED
    from knowledge.measurements import ROWS
    from knowledge.schema import Find

    twins = {m.id for _, m in TWINS}
    caused = [r for r in (*CAUSES, *DISTRIBUTED)
              if r.when and r.id not in twins and any(set(r.when) <= set(m) for m in own)]
    # the contract rows are measurement rows too (outputs vs targets, settings, the applied LR, clipping, order)
    # and so are the measured forms of declared causes (one entry per cause, listed with the causes)
    from knowledge.diagnostician import ROWS as INVESTIGATION

    # and the investigation checks a plugin measures outright (a parameter that gets no gradient)
    measured = (*ROWS, *CONTRACTS, *(m for _, m in TWINS), *(r for r in INVESTIGATION if r.id in checks))
    alarms = frozenset(row.id for row in (*measured, *caused)
                       if any(isinstance(a, Find) and a.severity != "info" for a in row.then))
    return (*DERIVED, *measured, *caused), alarms


_KEY, _ROW, _VALUE = operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)  # a queued entry's parts

_Tensor = torch.Tensor  # (module globals: the forward handler reads them in every training forward)
_grad_enabled = torch.is_grad_enabled

_C_SCALAR = {torch.float32: ctypes.c_float, torch.float64: ctypes.c_double}
"""The C type of each dtype whose CPU scalar ``_host_scalar`` reads straight from memory."""


def _host_scalar(t: torch.Tensor) -> float:
    """The value of a 0-d CPU tensor as a Python float, read from its memory without a torch op when it can be.

    ``Tensor.item`` is a dispatched op (``aten._local_scalar_dense``), and ``w.step`` reads every step's CPU loss:
    it was the one torch op the watch added to every step (issue 21; an op dispatched in caches the step has
    flushed costs far more than its work). A CPU op has finished when it returns, so the loss's bytes are its
    value: a float32/float64 scalar is read at its data pointer (the same double ``item`` gives). Any other dtype,
    or a tensor without plain storage (a functional or lazy wrapper: ``data_ptr`` raises), goes through ``item``.
    """
    c = _C_SCALAR.get(t.dtype)
    # a negative or conjugate view (``_neg_view``, ``conj``) keeps the un-negated value in memory, its sign a lazy
    # bit: only ``item`` reads it right
    if c is not None and t.layout is torch.strided and not t.is_neg() and not t.is_conj():
        try:
            return c.from_address(t.data_ptr()).value
        except RuntimeError:
            pass
    return float(t.item())


def _first(item: tuple[int, Any]) -> int:
    """A window row's step (its sort key)."""
    return item[0]


class Window:
    """One window's measurements, read to the host: ``get(key)`` is ``[(step, [floats]), ...]`` in step order."""

    __slots__ = ("start", "end", "_items")

    def __init__(self, start: int, end: int, items: dict[str, list[tuple[int, list[float]]]]) -> None:
        self.start, self.end, self._items = start, end, items

    def get(self, key: str) -> list[tuple[int, list[float]]]:
        """Give this window's values of ``key`` (empty when nothing was recorded under it)."""
        return self._items.get(key, [])

    def keys(self) -> list[str]:
        """The keys recorded in this window."""
        return list(self._items)


def _idle_step_code() -> None:
    """What a copied or unpickled optimizer calls after its step instead of a watch's counter: nothing."""


def _idle() -> Any:
    return _idle_step_code


class _StepCounter:
    """The watch's count of optimizer steps, called by the optimizer itself just after each step's own work.

    Installed as the optimizer's ``_optimizer_step_code`` (an empty method ``torch.optim.Optimizer``'s step
    wrapper calls on every step, between the pre- and post-hooks; shadowed on the instance, given back on exit).
    It replaces a call the step made anyway, so counting costs the step a few bytecodes where a registered
    pre-hook cost it tens of microseconds (issue 21): the pre-hook is registered only for the steps that need it
    (decided at each ``Watch.step``). On the other steps the handlers that act only on a step that found no gradient
    (``Probe.gradless_hooks``) are called from here when the first parameter has none. A copy of the optimizer
    (``copy.deepcopy``, pickle) gets an idle function instead: the watch is not copied with it.
    """

    __slots__ = ("watch",)

    def __init__(self, watch: Watch) -> None:
        self.watch = watch

    def __call__(self) -> None:
        w = self.watch
        n = w._done + 1
        w._done = w.opt_steps = n
        if w._pre_ran:
            w._pre_ran = False  # the pre-hook ran this step: it counted, and its handlers looked
        elif w._on_gradless and w.params[0].grad is None:
            w._call(w._on_gradless)

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return _idle, ()

    def __deepcopy__(self, memo: Any) -> Any:
        return _idle_step_code


class Watch:
    """The context manager returned by ``watch``; see there.

    A generic scheduler: it registers a torch hook only for events some plugin declared, calls the plugins
    that declared each event, queues what they record on the device, reads a window's queue to the host in one
    stacked transfer, and hands the window to every plugin's ``accumulate``. Plugins (``probes.PLUGINS``) own
    every measurement; see ``probes.base`` for the protocol.
    """

    def __init__(self, model: torch.nn.Module, optimizer: Any, consultation: Any = None, every: int = WINDOW,
                 on_trip: str = "log", *, loss_fn: Any = None, num_classes: int | None = None, scaler: Any = None,
                 scheduler: Any = None, update_every: int | None = None, at_init: bool = True,
                 plugins: Any = None, loader: Any = None) -> None:
        if on_trip not in ("log", "raise"):
            raise ProbeError(f"on_trip must be 'log' or 'raise', not {on_trip!r}")
        if not isinstance(every, int) or every < 2:
            raise ProbeError("every must be an integer >= 2 (steps per window)")
        if optimizer is None or not hasattr(optimizer, "register_step_pre_hook"):
            raise ProbeError("watch needs the torch optimizer (it hooks optimizer steps)",
                             context=f"got {type(optimizer).__name__}",
                             hint="pass the optimizer your loop steps: watch(model, optimizer)")
        self.model, self.optimizer, self.consultation = model, optimizer, consultation
        self.every, self.on_trip = every, on_trip
        self.loss_fn, self.given_classes, self.scaler, self.scheduler = loss_fn, num_classes, scaler, scheduler
        # two sampled steps a window by default: the sampled reads (a weight copy and four foreach kernels for
        # the update ratio, hooks for activations, the loss multiplier and loader timing) cost a few percent of
        # a small model's step at four a window, and the window's median needs no more
        self.update_every = update_every or max(1, every // 2)
        self.at_init = at_init
        self.loader = loader  # optional: its length and sampler let the rank probe compare ranks' epochs
        self.diagnosis: Any = None
        self.trips: list[dict[str, Any]] = []
        self.steps = 0
        self.empty_batches = 0
        self.opt_steps = 0
        self._plugin_classes = plugins
        self.shards: Any = None  # this rank's shards of FSDP2 parameters (set on entry)
        self._pre_handle: Any = None
        self._post_handle: Any = None
        self._opt_handle: Any = None  # the optimizer's pre-hook, while registered
        self._step_code: _StepCounter | None = None  # the step counter, while installed (see _StepCounter)
        self._hooked = False  # between _hook and _unhook
        self._done = 0  # optimizer steps finished (the counter's; ``opt_steps`` is it, or it + 1 inside a step)
        self._pre_ran = False  # the pre-hook ran in the optimizer step under way
        self._opt_always = True
        self._on_gradless: list[Any] = []
        self.probes: list[Any] = []
        self.switched_off: dict[str, str] = {}
        """Probes that raised on this model, by id, with the error: switched off, the training went on."""
        self._handles: list[Any] = []
        self._diagnosed: set[str] = set()

    # ------------------------------------------------------------------ what plugins share

    @property
    def sampled(self) -> bool:
        """Whether this step is a sampled one (every ``update_every`` steps).

        Sampled steps are the place for reads that cost more than a reduction or two.
        """
        return self.steps % self.update_every == 0

    def record(self, key: str, value: Any) -> None:
        """Queue device tensors (a tensor, or a sequence of 0-d tensors) under ``key`` for this step; no sync."""
        self._buf.append((key, self._i, value))

    def record_host(self, key: str, value: float) -> None:
        """Queue a host number under ``key`` for this step."""
        self._hostbuf.append((key, self._i, float(value)))

    def num_classes(self) -> int | None:
        """Classes as given, else the width of a cross-entropy/NLL output (read from the first forward)."""
        if self._nc is _UNSET:
            shape = self.first_output_shape
            nc = self.given_classes
            # classes are dimension 1 of any (N, C, ...) layout a cross-entropy reads (sequences, dense maps)
            if nc is None and shape is not None and len(shape) >= 2 and self.loss_fn is not None \
                    and loss_name(self.loss_fn) in ("cross_entropy", "nll"):
                nc = int(shape[1])
            if self._first_forward_done:
                self._nc = nc  # settled: the first forward is all it depends on
            return nc
        return self._nc

    def probe(self, probe_id: str) -> Any:
        """The attached plugin with this id, or None."""
        return next((p for p in self.probes if p.info.id == probe_id), None)

    def wake(self, event: str, handler: Any, at: int) -> None:
        """Call ``handler`` (a plugin's handler of ``event``, declared in its ``woken_hooks``) once, at ``at``.

        At the first occurrence of ``event`` whose clock has reached ``at`` (``forward``: ``forward_serial``,
        counted before the handlers run, so the next forward is ``forward_serial + 1``; ``optimizer_pre`` and
        ``step_end``: ``steps``, so ``at=steps`` is the next occurrence). One wake-up per handler and event: a new
        request replaces an earlier one. Between wake-ups the handler costs the step nothing.
        """
        due = self._woken[event]
        due[handler] = at
        setattr(self, _WAKE[event], min(due.values()))
        if event != "forward":
            self._quiet_to = 0  # the next w.step schedules in full: this wake-up (and the pre-hook, on now) is seen
        if event == "optimizer_pre" and self._opt_handle is None and self._hooked:
            # woken from a forward or the optimizer's post-hook: this step's or the next optimizer step must
            # see it (the pre-hook is registered, never inside its own dispatch: it is registered there)
            self._opt_handle = self.optimizer.register_step_pre_hook(self._opt_pre)

    def _due(self, event: str, clock: int, fns: list[Any]) -> list[Any]:
        """``fns`` and the handlers of ``event`` woken at ``clock`` (taken off the table: a wake-up is once)."""
        due = self._woken[event]
        if len(due) == 1:
            # one handler waiting (the usual case: the batch-order probe on a marked forward): no scan
            (f, at), = due.items()
            if at > clock:
                return fns
            del due[f]
            setattr(self, _WAKE[event], NEVER)
            return fns if f in fns else fns + [f]
        now = [f for f, at in due.items() if at <= clock]
        for f in now:
            del due[f]
        setattr(self, _WAKE[event], min(due.values(), default=NEVER))
        return fns + [f for f in now if f not in fns]

    # ------------------------------------------------------------------ set-up

    def __enter__(self) -> Watch:
        params = check_target(self.model)
        self.params = [p for g in self.optimizer.param_groups for p in g["params"] if p.requires_grad]
        if not self.params:
            raise ProbeError("the optimizer holds no trainable parameters", hint="build it over model.parameters()")
        names = {id(p): n for n, p in self.model.named_parameters()}
        self.pnames = [names.get(id(p), f"param{i}") for i, p in enumerate(self.params)]
        # FSDP2 (DTensor) parameters: the probes measure this rank's own shards (see probes.ranks.LocalShards)
        self.shards = LocalShards.of(self.params, self.pnames)
        if self.shards is not None:
            self.params, self.pnames = self.shards.local, self.shards.names
        # tokens and learned positions (broadcast, near-zero at init) are judged with the biases, not as matrices
        self.pmatrix = [weight_matrix(n, p.shape) for n, p in zip(self.pnames, self.params, strict=True)]
        self.device = params[0].device
        self._reset_buf()
        self._i = 0
        self.nonfinite_at: dict[str, int] = {}
        self.first_input: Any = None
        self.first_output: Any = None
        self.first_output_shape: tuple[int, ...] | None = None
        self._first_forward_done = False
        self.forward_serial = 0
        # base.input_digest's: (forward_serial, id of the input, digest) of the last forward, and its weights per
        # (dtype, device), shared by the probes that read the digest
        self.digest_memo: tuple[int, int, Any] | None = None
        self.digest_weights: dict[tuple[Any, Any], Any] = {}
        self.loss_step = -2  # the last step whose w.step was given the loss (the non-finite probe reads it)
        self._nc: Any = _UNSET
        self._escalate = False
        self._expensive: list[Any] = []
        self._pending = False
        self._empty_now = False
        from probes.registry import plugins

        classes = self._plugin_classes if self._plugin_classes is not None else plugins()
        self.probes = [c() for c in classes]
        self._on_fwd_pre, self._on_fwd, self._on_bw, self._on_opt_pre, self._on_opt_post, self._on_step_end, \
            self._on_window, self._on_escalate = [], [], [], [], [], [], [], []
        self._on_fwd_rest, self._on_opt_pre_rest, self._on_step_end_rest = [], [], []
        self._on_unsound: list[Any] = []
        # handlers woken for given occurrences only (``wake``; requested from ``attach`` on): handler -> clock
        self._woken: dict[str, dict[Any, int]] = {"forward": {}, "optimizer_pre": {}, "step_end": {}}
        # the earliest wake-up clock of each event, as a plain attribute (``_WAKE``): a hook compares one integer
        self._wake_fwd = self._wake_opt = self._wake_end = NEVER
        # w.step's end-of-step scheduling (tables, hooks, wake-ups, window end) is skipped below this step count
        self._quiet_to = 0
        # the window's one collective under torch.distributed (the rank probe): after the local trip check
        self._on_exchange = [p for p in self.probes if hasattr(p, "exchange")]
        self._collective_trip = False
        try:
            for p in self.probes:
                p.attach(self)
            # The event tables are read after attach: a plugin may narrow its own ``hooks`` there to what this
            # run needs (the rank probe outside torch.distributed needs none), so it costs nothing per step.
            # (a woken handler is called when woken, and on sampled steps when it is a sampled one too)
            on = {h: [getattr(p, h) for p in self.probes if h in p.hooks
                      and (h not in p.woken_hooks or h in p.sampled_hooks)]
                  for h in HOOKS if h not in ("window", "escalate")}
            self._on_fwd_pre, self._on_fwd, self._on_bw = on["forward_pre"], on["forward"], on["backward"]
            self._on_opt_pre, self._on_opt_post, self._on_step_end = on["optimizer_pre"], on["optimizer_post"], \
                on["step_end"]
            self._on_unsound = on["unsound_loss"]
            # the same events on the steps that are not sampled: without the handlers that act on sampled steps
            # only (same order; a call costs about a microsecond inside the step even when it returns at once)
            rest = {h: [getattr(p, h) for p in self.probes if h in p.hooks and h not in p.sampled_hooks
                        and h not in p.woken_hooks] for h in ("forward", "optimizer_pre", "step_end")}
            self._on_fwd_rest, self._on_opt_pre_rest, self._on_step_end_rest = rest["forward"], \
                rest["optimizer_pre"], rest["step_end"]
            self._choose_tables()
            # handlers acting only on a step that finds no gradient: called after the optimizer's step on the
            # steps whose pre-hook is off (see _StepCounter)
            self._on_gradless = [p.optimizer_pre for p in self.probes if "optimizer_pre" in p.hooks
                                 and "optimizer_pre" in p.gradless_hooks]
            # the pre-hook stays on for every step when a handler acts on ordinary steps, with a scaler (its
            # stage is read before the step) and with sharded parameters (synced before the handlers read them)
            self._opt_always = self.scaler is not None or self.shards is not None or any(
                f not in self._on_gradless for f in self._on_opt_pre_rest)
            self._on_window = [p for p in self.probes if "window" in p.hooks]
            self._on_escalate = [p for p in self.probes if "escalate" in p.hooks]
            # One-time set-up of the trip check (the knowledge tables it reads, loaded and ordered): paid here,
            # when the watch opens, not at the first window end inside the training loop (tens of ms there).
            tripped_rows({}, self.probes)
            self._hook()
        except BaseException:
            self._detach()
            raise
        return self

    @property
    def loss_history(self) -> tuple[list[float], list[float]]:
        """The losses seen so far as (steps, values): bounded, each point the mean of ``stride`` steps.

        Read at window ends (host-side already), so reading it costs no device synchronisation.
        """
        p = next((p for p in self.probes if hasattr(p, "loss_history")), None)
        return p.loss_history() if p is not None else ([], [])

    @property
    def metric_history(self) -> dict[str, list[float]]:
        """The last values of each metric given to :meth:`step` (at most 64 each), by name."""
        p = next((p for p in self.probes if hasattr(p, "metric_history")), None)
        return p.metric_history() if p is not None else {}

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            self._remove_expensive()
            if self.forward_serial > self.steps and self._on_unsound:
                # The loop left after a training forward whose w.step never came (``if isnan(loss): break``): no
                # finite loss vouched for that forward, so what was held for it is looked at now, as a step whose
                # loss was not read would be. Recorded in this (partial) window's row for that step.
                self._call(self._on_unsound)
            if self._i or self._buf or self._hostbuf:
                # a partial last window stays local: ranks may leave their loops at different steps, and a
                # collective here would wait for a rank that has already finished
                self._flush(final=True)
        finally:
            self._detach()
        if exc_type is None or exc_type is TrainingTripped:
            self._finish()

    def _hook(self) -> None:
        """Register the hooks and the step counter (on entry; the bench's ``_resume`` too)."""
        self._hooked = True
        self._quiet_to = 0  # the next w.step schedules in full (the pre-hook below comes off then if idle)
        # The forward hook always runs: it finds training forwards, empty batches and the first output.
        self._handles = [self.model.register_forward_hook(self._fwd_post)]
        opt = self.optimizer
        # the step counter, when the optimizer's step wrapper calls the method it shadows and no one else has
        # shadowed it; otherwise the pre-hook counts, on every step. Not under a framework callback's stand-in
        # (trainopt._callback.DeferredHooks): its hooks fire at the framework's own points, which the counter
        # inside the real step would not match
        cls = type(opt)
        # (only the base class's empty method: a subclass's own override does work the counter would skip)
        if getattr(cls, "_optimizer_step_code", None) is torch.optim.Optimizer._optimizer_step_code \
                and "_optimizer_step_code" not in vars(opt) \
                and getattr(cls, "register_step_pre_hook", None) is torch.optim.Optimizer.register_step_pre_hook:
            self._step_code = opt._optimizer_step_code = _StepCounter(self)
        else:
            self._opt_always = True
        # on for the first step: nothing is known yet of the gradients the loop leaves
        self._opt_handle = opt.register_step_pre_hook(self._opt_pre)
        self._pre_ran = False
        self._arm()

    def _unhook(self) -> None:
        """Remove every hook and the step counter (on exit; the bench's ``_pause`` too)."""
        self._hooked = False
        for h in self._handles + [self._pre_handle, self._post_handle, self._opt_handle]:
            if h is not None:
                h.remove()
        self._handles = []
        self._pre_handle = self._post_handle = self._opt_handle = None
        if self._step_code is not None:
            # given back only when it is still ours (something installed after the watch keeps its own)
            if vars(self.optimizer).get("_optimizer_step_code") is self._step_code:
                del self.optimizer._optimizer_step_code
            self._step_code = None

    def _detach(self) -> None:
        self._unhook()
        for p in self.probes:
            p.detach(self)

    def _reset_buf(self) -> None:
        # Device tensors recorded during the window, each tagged with its key and row (step in the window);
        # appending a reference launches no kernel and never synchronises. The window end stacks them and reads
        # them to the host once. Host numbers (float losses and metrics) wait beside them.
        self._buf: list[tuple[str, int, Any]] = []
        self._hostbuf: list[tuple[str, int, float]] = []

    # ------------------------------------------------------------------ hooks (no host sync in here)

    # Every step: one forward hook (it sees the inputs too) and the optimizer's pre-step hook. The forward
    # pre-hook and the optimizer post-hook are registered only for the steps that need them (sampled steps, the
    # forward after a trip) and remove themselves: a registered module hook slows every call of the model.

    def _arm(self) -> None:
        sampled = self.sampled
        if self._pre_handle is None and ((sampled and self._on_fwd_pre) or self._escalate):
            self._pre_handle = self.model.register_forward_pre_hook(self._fwd_pre)
        if self._post_handle is None and sampled and self._on_opt_post:
            self._post_handle = self.optimizer.register_step_post_hook(self._opt_post)

    def _fwd_pre(self, m: torch.nn.Module, args: tuple[Any, ...]) -> None:
        if not torch.is_grad_enabled():
            return  # evaluation passes are not training steps
        self._pre_handle.remove()
        self._pre_handle = None
        if self.sampled:
            self._call(self._on_fwd_pre, m)
        if self._escalate:
            self._install_expensive()

    def _fwd_post(self, m: torch.nn.Module, args: tuple[Any, ...], out: Any) -> None:
        if not _grad_enabled():
            return  # evaluation passes are not training steps
        self.forward_serial += 1  # tells plugins sharing a per-forward quantity (base.input_digest) apart
        if not args or type(first := args[0]) is not _Tensor:
            first = next(tensors_in(args), None)
        if first is not None and first.ndim and first.shape[0] == 0:
            self._empty_now = True  # shapes are host metadata: checking them costs no sync
        t = out if type(out) is _Tensor else next(tensors_in(out), None)
        if not self._first_forward_done:
            self._first_forward_done = True
            # small samples, not the tensors: a language model's first logits would stay alive until the first
            # window end (hundreds of MB); the copies are device ops, read with the window's summary
            self.first_input = keep_sample(first)
            self.first_output = keep_sample(t)
            self.first_output_shape = tuple(t.shape) if t is not None else None
        fns = self._fwd_now
        if self.forward_serial >= self._wake_fwd:
            fns = self._due("forward", self.forward_serial, fns)
        # the handlers called here, not through ``_call``: this runs in every training forward, where one more
        # Python frame and a copy of the table cost more than the handlers themselves (``_rescue`` on a failure)
        fn = None
        try:
            for fn in fns:
                fn(self, m, first, t)
        except TrainingTripped:
            raise
        except Exception as exc:  # noqa: BLE001 - as in _call
            self._rescue(fns, fn, exc, m, first, t)
        if self._expensive:
            self._remove_expensive()
            self._pending = True
            self._quiet_to = 0  # w.step diagnoses

    def _opt_pre(self, _opt: Any, _args: Any, _kwargs: Any) -> None:
        if self.shards is not None:
            self.shards.sync()
        if self._step_code is None:
            self._done += 1  # no counter: counted here, on every step (the pre-hook then stays on)
            self.opt_steps = self._done
        else:
            self.opt_steps = self._done + 1  # this step, counted by the counter when it ends
            self._pre_ran = True
        fns = self._opt_now
        if self.steps >= self._wake_opt:
            fns = self._due("optimizer_pre", self.steps, fns)
        fn = None
        try:  # inline, as in _fwd_post
            for fn in fns:
                fn(self)
        except TrainingTripped:
            raise
        except Exception as exc:  # noqa: BLE001 - as in _call
            self._rescue(fns, fn, exc)

    def _opt_post(self, _opt: Any, _args: Any, _kwargs: Any) -> None:
        # (removed by w.step, not here: the optimizer is iterating over its hooks while it calls this one)
        if self.sampled:
            self._call(self._on_opt_post)

    def _choose_tables(self) -> bool:
        """Pick the forward and optimizer handler tables for the step now counted; return whether it is sampled.

        Chosen once a step, in ``w.step`` (and on entry): the two hooks then read a table instead of working out
        whether the step is sampled each time (both run inside every training step). The tables are the lists
        that ``_switch_off`` edits in place, so a probe switched off leaves them too.
        """
        sampled = self.steps % self.update_every == 0
        self._fwd_now = self._on_fwd if sampled else self._on_fwd_rest
        self._opt_now = self._on_opt_pre if sampled else self._on_opt_pre_rest
        return sampled

    def _call(self, fns: list[Any], *args: Any) -> None:
        """Run plugin hooks; a probe that raises on this model is switched off (with a warning), never the loop.

        The hooks run inside the user's forward and ``optimizer.step()``: an exception there would end their
        training for a measurement's sake (a model PyTorch can build that a probe did not foresee).
        """
        for fn in list(fns):
            try:
                fn(self, *args)
            except TrainingTripped:
                raise
            except Exception as exc:  # noqa: BLE001 - see above
                self._switch_off(getattr(fn, "__self__", None), exc)

    def _rescue(self, fns: list[Any], failed: Any, exc: Exception, *args: Any) -> None:
        """A handler called inline from a hook raised: switch its probe off, then call the handlers after it."""
        rest = list(fns)
        rest = rest[rest.index(failed) + 1:] if failed in rest else []
        self._switch_off(getattr(failed, "__self__", None), exc)
        self._call(rest, *args)

    def _switch_off(self, probe: Any, exc: BaseException) -> None:
        pid = getattr(getattr(probe, "info", None), "id", type(probe).__name__)
        self.switched_off[pid] = f"{type(exc).__name__}: {exc}"[:300]
        log.warning("trainopt watch: step %d: probe %s failed on this model (%s) and is switched off; training "
                    "goes on without its measurements", self.steps, pid, self.switched_off[pid])
        for hooks in (self._on_fwd_pre, self._on_fwd, self._on_bw, self._on_opt_pre, self._on_opt_post,
                      self._on_step_end, self._on_fwd_rest, self._on_opt_pre_rest, self._on_step_end_rest,
                      self._on_unsound):
            hooks[:] = [f for f in hooks if getattr(f, "__self__", None) is not probe]
        for event, due in self._woken.items():
            for f in [f for f in due if getattr(f, "__self__", None) is probe]:
                del due[f]
            setattr(self, _WAKE[event], min(due.values(), default=NEVER))
        self._on_gradless[:] = [f for f in self._on_gradless if getattr(f, "__self__", None) is not probe]
        self._on_window[:] = [p for p in self._on_window if p is not probe]
        self._on_escalate[:] = [p for p in self._on_escalate if p is not probe]
        self.probes[:] = [p for p in self.probes if p is not probe]

    # ------------------------------------------------------------------ expensive probes (after a trip)

    def _install_expensive(self) -> None:
        self._escalate = False
        self._escalated = list(self._on_escalate)
        for p in self._escalated:
            self._expensive += p.escalate(self)

    def _remove_expensive(self) -> None:
        if not getattr(self, "_escalated", None):
            return
        for h in self._expensive:
            h.remove()
        self._expensive = []
        for p in self._escalated:
            p.settle(self)
        self._escalated = []

    # ------------------------------------------------------------------ per step

    def step(self, loss: Any = None, **metrics: Any) -> None:
        """Record one training step: the loss (tensor or float) and any metrics (``val_loss``, ``val_acc``,.

        ``train_acc`` ...). Tensors on an accelerator stay there until the window ends; a CPU loss is read at
        once (there is no device to wait for, and a finite one vouches for the step's input). A step whose batch
        was empty is refused: its loss (NaN, the mean of nothing) is not the run's; it is counted in
        ``empty_batches``.
        """
        if self.shards is not None:
            self.shards.sync()
        sound = False  # whether this step's loss was read on the host and is finite
        if type(loss) is torch.Tensor and loss.ndim == 0 and loss.is_cpu and not self._empty_now:
            # the usual CPU step, first: a scalar loss read now (see below), without the general path's checks
            self.loss_step = self.steps
            read = _host_scalar(loss)  # no torch op on float32/float64 (see _host_scalar)
            self._hostbuf.append(("loss", self._i, read))
            sound = read - read == 0
        elif self._empty_now:
            self._empty_now = False
            self.empty_batches += 1
            if self.empty_batches == 1:
                log.warning("trainopt watch: step %d: an empty batch was trained on; its loss is ignored",
                            self.steps)
        elif type(loss) is torch.Tensor or isinstance(loss, torch.Tensor):
            self.loss_step = self.steps
            if loss.ndim and loss.numel() == 0:
                raise ProbeError("w.step(loss): the loss tensor is empty", hint="pass the scalar training loss")
            if loss.is_cpu:
                # a CPU loss is read now: no device to wait for, and a read costs less than the detach it saves
                # (the host value also tells the non-finite probe whether this step's input needs a look)
                read = (loss if loss.ndim == 0 else loss.reshape(-1)[0]).item()
                self._hostbuf.append(("loss", self._i, float(read)))
                sound = read - read == 0  # finite (NaN and both infinities give NaN)
            elif loss.ndim == 0:
                self._buf.append(("loss", self._i, loss.detach()))
            else:
                self._buf.append(("loss", self._i, loss.detach().reshape(-1)[0]))
        elif loss is not None:
            self.loss_step = self.steps
            read = float(loss)
            self._hostbuf.append(("loss", self._i, read))
            sound = read - read == 0
        for k, v in metrics.items():
            if isinstance(v, torch.Tensor):
                self._buf.append(("m:" + k, self._i, v.detach().reshape(-1)[0]))
            elif v is not None:
                self._hostbuf.append(("m:" + k, self._i, float(v)))
        if not sound and self._on_unsound:
            self._call(self._on_unsound)  # still this step's row: what it records is this step's
        self.steps += 1
        self._i += 1
        if self.steps < self._quiet_to:
            return  # nothing due at this step's end (see _quiet_to): the tables in force stay
        try:
            if self._pending:
                self._pending = False
                self._diagnose(trip=True)
            if self._i >= self.every:
                self._flush()
        finally:
            # the next step's tables (``_choose_tables``, inlined: this runs in every step)
            if self.steps % self.update_every == 0:
                sampled, fns = True, self._on_step_end
                self._fwd_now, self._opt_now = self._on_fwd, self._on_opt_pre
            else:
                sampled, fns = False, self._on_step_end_rest
                self._fwd_now, self._opt_now = self._on_fwd_rest, self._on_opt_pre_rest
            if self.steps >= self._wake_end:
                fns = self._due("step_end", self.steps, fns)
            fn = None
            try:  # inline, as in _fwd_post
                for fn in fns:
                    fn(self)
            except TrainingTripped:
                raise
            except Exception as exc:  # noqa: BLE001 - as in _call
                self._rescue(fns, fn, exc)
            if self._post_handle is not None and not sampled:
                self._post_handle.remove()
                self._post_handle = None
            # the optimizer's pre-hook for the next step: on when it has work (every step, see __enter__; a
            # wake-up due; a sampled step), else off: the step counter counts without it
            if self._opt_always or self.steps >= self._wake_opt or (sampled and self._on_opt_pre):
                if self._opt_handle is None and self._hooked:
                    self._opt_handle = self.optimizer.register_step_pre_hook(self._opt_pre)
            elif self._opt_handle is not None:
                self._opt_handle.remove()
                self._opt_handle = None
            if sampled or self._escalate:
                self._arm()
            self._quiet_to = self._next_due(sampled)

    def _next_due(self, sampled: bool) -> int:
        """The first step count at which ``w.step`` has work past counting the step (``_quiet_to``).

        That is the next step after a sampled one (its tables are put back), the next sampled step, the window's
        end, and a step-end or optimizer wake-up; every step while step-end handlers act on ordinary steps or the
        expensive probes wait for the next forward. ``wake``, a forward that escalated and ``_hook`` bring it
        forward. ``w.step`` compares one integer on the steps before it: the end-of-step scheduling it skips would
        leave everything as it is.
        """
        steps = self.steps
        if sampled or self._escalate or self._pending or self._on_step_end_rest:
            return steps + 1
        ue = self.update_every
        return min(steps - steps % ue + ue, steps + self.every - self._i, self._wake_end, self._wake_opt)

    # ------------------------------------------------------------------ window end (one sync)

    def read_window(self) -> Window:
        """Read the queued tensors to the host in one stacked transfer and reset the queue."""
        n, self._i = self._i, 0
        start = self.steps - n
        buf, hostbuf = self._buf, self._hostbuf
        self._reset_buf()
        scalars: list[torch.Tensor] = []
        vectors: list[torch.Tensor] = []
        layout: list[tuple[str, int, bool, int]] = []
        for key, row, v in buf:
            if type(v) is not torch.Tensor and not isinstance(v, torch.Tensor):
                scalars += v  # a sequence of 0-d tensors (foreach results, aminmax)
                layout.append((key, row, False, len(v)))
            elif v.ndim == 0:
                scalars.append(v)
                layout.append((key, row, False, 1))
            else:
                vectors.append(v if v.ndim == 1 else v.reshape(-1))
                layout.append((key, row, True, v.numel()))
        # the window's one host read
        vals = self._read(scalars, vectors)
        items: dict[str, list[tuple[int, list[float]]]] = {}
        ks, kv = 0, len(scalars)
        for key, row, vec, size in layout:
            if vec:
                v, kv = vals[kv:kv + size], kv + size
            else:
                v, ks = vals[ks:ks + size], ks + size
            items.setdefault(key, []).append((start + row, v))
        if hostbuf:
            # host numbers were queued in step order: only a key that has device values too needs a (stable) sort
            # to interleave them (a CPU loss, 200 a window, goes straight in)
            device = [(key, len(got)) for key, got in items.items()]  # a few keys
            # each key's rows (step, [x]) in queue order, built in C (a stable sort by key, then a group per key):
            # a CPU loss is 200 rows a window, and a Python line per row was a sixth of the window end's bytecodes
            for key, group in groupby(sorted(hostbuf, key=_KEY), _KEY):
                g = list(group)
                items.setdefault(key, []).extend(
                    zip(map(operator.add, repeat(start), map(_ROW, g)), map(list, zip(map(_VALUE, g)))))
            for key, n in device:
                if len(items[key]) != n:
                    items[key].sort(key=_first)
        return Window(start, self.steps, items)

    def _read(self, scalars: list[torch.Tensor], vectors: list[torch.Tensor]) -> list[float]:
        """Stack everything on the watched device and read it with one ``tolist``."""
        if not scalars and not vectors:
            return []
        try:
            # stack and cat promote mixed dtypes (bf16 norms, float32 losses) to a common one
            parts = ([torch.stack(scalars)] if scalars else []) + vectors
            return (parts[0] if len(parts) == 1 else torch.cat(parts)).tolist()
        except RuntimeError:
            # tensors on more than one device (inputs left on the CPU, a model split over devices): gather them
            dev = self.device
            parts = ([torch.stack([t.to(dev) for t in scalars]).float()] if scalars else []) + \
                [t.to(dev).float() for t in vectors]
            return torch.cat(parts).tolist()

    def _flush(self, final: bool = False) -> None:
        win = self.read_window()
        self._call([p.accumulate for p in self._on_window], win)
        new = self._tripped() - self._diagnosed
        escalate = bool(new)
        if self._on_exchange and not final:
            # Under torch.distributed every rank enters this window end at the same step: one small gather tells
            # each rank whether any rank tripped and what the ranks disagree on. The decision comes from the
            # gathered table alone, so every rank escalates (and stops, with on_trip="raise") at the same step.
            shared = [p.exchange(self, win, escalate) for p in self._on_exchange]
            if any(s is not None for s in shared):
                escalate = any(bool(s) for s in shared)
                self._collective_trip = escalate
                if escalate:
                    new |= self._tripped() - self._diagnosed
        if escalate:
            self.trips.append({"step": self.steps, "rows": sorted(new) or ["another rank tripped"]})
            self._diagnosed |= new
            self._escalate = True  # the next training forward runs the expensive probes, then we diagnose
            # (w.step arms the forward pre-hook for it after this)

    # ------------------------------------------------------------------ observations and diagnosis

    def _tripped(self) -> set[str]:
        """The rows the observations so far trip (``tripped_rows``), from their values alone.

        The observations are built without evidence (``probes.base.values_only``): the check reads names and
        values, and a trip's diagnosis builds them again in full (``_diagnose``).
        """
        with values_only():
            obs = self.observations()
        return set(tripped_rows({o.name: o for o in obs}, self.probes))

    def observations(self) -> list[Observation]:
        """Summary observations for everything measured so far (one per name, each stamped with its step)."""
        self.num_classes()
        groups = []
        for p in list(self.probes):
            try:
                groups.append(p.summarise(self))
            except Exception as exc:  # noqa: BLE001 - one probe's failure never ends the user's training
                self._switch_off(p, exc)
        if self._first_forward_done:
            # what the first forward showed is summarised (lint, classes): drop the references
            self.first_input = self.first_output = None
        return merge(groups)

    def _diagnose(self, trip: bool) -> Any:
        c = self.consultation
        if c is None:  # nothing to diagnose with: the trips stand as measured (w.trips), the observations too
            if trip:
                log.warning("trainopt watch: step %d: tripped %s", self.steps,
                            ", ".join(self.trips[-1]["rows"]) if self.trips else "-")
                if self.on_trip == "raise" and self.trips:
                    raise TrainingTripped(None, rows=self.trips[-1]["rows"])
            return None
        obs = self.observations()
        try:
            for p in self.probes:
                for name in p.stale(c.observations, obs):
                    c.forget(name)
            c.add(obs)
        except ContradictionError as exc:
            log.warning("trainopt watch: probe observations contradict the consultation: %s", exc.message)
            return self.diagnosis
        self.diagnosis = c.run()
        if trip:
            bad = [f for f in self.diagnosis.findings if f["severity"] in ("warning", "critical")]
            together, self._collective_trip = self._collective_trip, False
            if together and self.on_trip == "raise":
                # the ranks decided together to stop: every rank raises here, whatever its own findings
                raise TrainingTripped(self.diagnosis)
            if _rank() == 0:  # rank 0 speaks for the job
                log.warning("trainopt watch: step %d: %s; plan: %s", self.steps,
                            "; ".join(f"{f['id']} ({f['severity']}): {f['issue']}" for f in bad) or "no finding",
                            " -> ".join(self.diagnosis.plan) or "-")
            if self.on_trip == "raise" and bad:
                raise TrainingTripped(self.diagnosis)
        return self.diagnosis

    def _finish(self) -> None:
        # A trip in the last window has no training forward left to escalate into: diagnose with cheap evidence.
        if self.steps == 0:
            return
        self._diagnose(trip=False)


def _rank() -> int:
    """The rank of this process in torch.distributed (0 outside it)."""
    dist = torch.distributed
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def watch(model: torch.nn.Module, optimizer: Any, consultation: Any = None, every: int = WINDOW, on_trip: str = "log",
          **options: Any) -> Watch:
    """Watch a training loop; call ``w.step(loss, **metrics)`` once per step.

    Cheap probes run every step without host synchronisation (device accumulators, read every ``every`` steps);
    when one trips, the next training forward pass runs the expensive probes (first non-finite module,
    activation health) and the engine diagnoses the run (logged, and kept in ``w.diagnosis``). On exit the
    summary observations go into ``consultation`` (when one is given), so ``consultation.report("json")`` is the
    run's diagnosis.

    This layer measures; it does not reason: ``consultation`` is what diagnoses, handed in by the caller
    (``trainopt.watch`` wires a new ``Consultation`` when none is given, as the framework callbacks do).

    Args:
        model: The model being trained.
        optimizer: Its optimizer (step hooks see gradients and updates).
        consultation: What diagnoses: an object with ``observations``, ``add``, ``forget`` and ``run`` (an
            ``expert.Consultation``). None: the watch measures and trips (``w.trips``, ``w.observations()``)
            without a diagnosis.
        every: Steps per window (one host read per window).
        on_trip: ``log`` (default; training continues) or ``raise`` (``TrainingTripped``).
        **options: ``loss_fn`` (enables the loss/activation lint), ``num_classes``, ``scaler``, ``scheduler``,
            ``update_every`` (steps between sampled reads: update ratios, per-layer norms), ``at_init``
            (training starts at init), ``plugins`` (probe plugin classes; default ``probes.plugins()``),
            ``loader`` (the training DataLoader: under torch.distributed its length per rank names uneven batch
            counts before they hang the job, and its DistributedSampler shows a missing ``set_epoch``).

    Under torch.distributed, open the watch on every rank (the same script everywhere): each rank measures
    locally and the ranks exchange a few numbers once per window in one all-gather; every rank takes the same
    trip decision at the same step, and only rank 0 logs.

    Example:
        >>> with watch(model, opt) as w:                                  # doctest: +SKIP
        ...     for x, y in loader:
        ...         opt.zero_grad(); loss = loss_fn(model(x), y); loss.backward(); opt.step()
        ...         w.step(loss)
        >>> w.consultation.report("text")                                 # doctest: +SKIP
    """
    return Watch(model, optimizer, consultation, every, on_trip, **options)


__all__ = ["WINDOW", "TrainingTripped", "Watch", "watch", "tripped_rows"]
