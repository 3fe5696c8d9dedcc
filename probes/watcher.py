"""Always-on watch for a training loop: cheap probes every step, expensive ones after a trip, a diagnosis on exit."""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from typing import Any

import torch

from expert.errors import ContradictionError, ProbeError
from expert.vocabulary import Observation
from probes import (
    activations,
    config_lint,
    generalization,
    grad_flow,
    loop_lint,
    loss_curve,
    loss_init,
    loss_scale,
    nonfinite,
    throughput,
    update_ratio,
    weight_norm,
)
from probes.base import at_step, emit, merge
from probes.exam import check_target

log = logging.getLogger("trainopt.watch")

SYMPTOMATIC_CURVES = ("flat_from_start", "oscillating", "spiking", "diverging", "nan_or_inf")


class TrainingTripped(ProbeError):
    """Raised by ``watch(..., on_trip="raise")`` when a probe trips; ``.diagnosis`` holds the diagnosis."""

    def __init__(self, diagnosis: Any) -> None:
        issues = "; ".join(f"{f['id']}: {f['issue']}" for f in diagnosis.findings
                           if f["severity"] in ("warning", "critical"))
        super().__init__("training diagnosis tripped", context=issues or diagnosis.status,
                         hint="see w.diagnosis / consultation.report() for the evidence and the plan")
        self.diagnosis = diagnosis


def tripped_rows(obs: dict[str, Observation]) -> list[str]:
    """Return the measurement rows (warning/critical) whose conditions hold: a cheap, engine-free check.

    The engine gives the full diagnosis only after a trip.
    """
    from knowledge.causes import ROWS as CAUSES
    from knowledge.derive import ROWS as DERIVED
    from knowledge.measurements import ROWS
    from knowledge.schema import Find, standing_rows

    # The same check the engine compiles, in its firing order: a row the engine suppresses never trips here.
    # The derive rows come along because measurement rows may need the flags they set (a measured gap above
    # the threshold is the ``generalization_gap`` flag that the overfitting row needs).

    values = {name: o.value for name, o in obs.items()}
    # issue 7: cause rows that read only what loop_lint measures trip the watch like measurement rows
    loop = [r for r in CAUSES if r.when and set(r.when) <= set(loop_lint.INFO.measures)]
    measured = {row.id for row in (*ROWS, *loop)}
    hits = [row.id for row in standing_rows((*DERIVED, *ROWS, *loop), values, ("origin:probe",))
            if row.id in measured and any(isinstance(a, Find) and a.severity != "info" for a in row.then)]
    # The seed's symptom table: these loss behaviours are symptoms by themselves (routed by the routing family).
    lb = obs.get("loss_behavior")
    if lb is not None and lb.value in SYMPTOMATIC_CURVES:
        hits.append(f"loss_behavior={lb.value}")
    return hits


class Watch:
    """The context manager returned by ``watch``; see there."""

    def __init__(self, model: torch.nn.Module, optimizer: Any, consultation: Any = None, every: int = 50,
                 on_trip: str = "log", *, loss_fn: Any = None, num_classes: int | None = None, scaler: Any = None,
                 scheduler: Any = None, update_every: int | None = None, at_init: bool = True) -> None:
        if on_trip not in ("log", "raise"):
            raise ProbeError(f"on_trip must be 'log' or 'raise', not {on_trip!r}")
        if not isinstance(every, int) or every < 2:
            raise ProbeError("every must be an integer >= 2 (steps per window)")
        if optimizer is None or not hasattr(optimizer, "register_step_pre_hook"):
            raise ProbeError("watch needs the torch optimizer (it hooks optimizer steps)")
        self.model, self.optimizer, self.consultation = model, optimizer, consultation
        self.every, self.on_trip = every, on_trip
        self.loss_fn, self.num_classes, self.scaler, self.scheduler = loss_fn, num_classes, scaler, scheduler
        self.update_every = update_every or max(1, every // 4)
        self.at_init = at_init
        self.diagnosis: Any = None
        self.trips: list[dict[str, Any]] = []
        self.steps = 0
        self.empty_batches = 0
        self._handles: list[Any] = []
        self._diagnosed: set[str] = set()

    # ------------------------------------------------------------------ set-up

    def __enter__(self) -> Watch:
        params = check_target(self.model)
        self._params = [p for g in self.optimizer.param_groups for p in g["params"] if p.requires_grad]
        if not self._params:
            raise ProbeError("the optimizer holds no trainable parameters", hint="build it over model.parameters()")
        names = {id(p): n for n, p in self.model.named_parameters()}
        self._pnames = [names.get(id(p), f"param{i}") for i, p in enumerate(self._params)]
        self._pmatrix = [p.ndim >= 2 for p in self._params]
        self.device = params[0].device
        self._reset_buf()
        self._i = 0
        # Bounded summaries, updated once per window: memory and window-end cost do not grow with the run.
        self._loss = loss_curve.History()
        self._spikes = loss_curve.SpikeCounter()
        self._first_loss: float | None = None
        self._loss_points = 0
        self._bad_loss_step: int | None = None
        self._norms = grad_flow.NormStats()
        self._phases = update_ratio.Phases()
        self._out_bad_step: int | None = None
        self._in_bad_step: int | None = None
        self._metrics: dict[str, deque[float]] = {}
        self._metric_steps: dict[str, deque[int]] = {}
        self._carry_max = 0.0
        self._uf: float | None = None
        self._pn: list[float] | None = None
        self._accum_k: deque[int] = deque(maxlen=64)
        # issue 9 (H3): the loss multiplier read from the output gradient (loss_scale), sampled steps only
        lname = config_lint.loss_name(self.loss_fn) if self.loss_fn is not None else ""
        self._mul_kind = lname if loss_scale.supported(self.loss_fn, lname) else None
        self._mul: deque[float] = deque(maxlen=64)
        self._acts = activations.Sampler(self.model)  # issue 9 (H3): always-on sampled activation health
        self._wtrack = weight_norm.Track(names=list(self._pnames), matrices=list(self._pmatrix))  # issue 9 (H3)
        self._last_named: list[tuple[str, torch.Tensor]] = []
        self._named_now: list[str] = []
        self._no_grad: list[str] = []
        self._before: list[torch.Tensor] | None = None
        self._data_t: deque[float] = deque(maxlen=256)
        self._compute_t: deque[float] = deque(maxlen=256)
        self._t_end: float | None = None
        self._t_fwd: float | None = None
        self._awaiting = True
        self._first_bw = False
        self._backwards = 0
        self._first_forward_done = False
        self._escalate = False
        self._expensive: list[Any] = []
        self._act_stats: dict[str, dict[str, float]] | None = None
        self._module_bad: str | None = None
        self._pending = False
        self._empty_now = False
        self._eval_fwd = 0
        self._opt_steps = 0
        self._direct_steps = 0  # issue 7 (loop_lint): optimizer steps taken outside scaler.step
        self._nc: int | None = self.num_classes
        self._static = {"struct": grad_flow.structure(self.model, self.optimizer),
                        "tables": grad_flow.lookup_tables(self.model)}  # issue 9 (H3): embedding tables
        self._lint: list[Observation] | None = None
        self._first_out: Any = None
        self._first_in: Any = None
        self._handles = [
            self.model.register_forward_pre_hook(self._fwd_pre),
            self.model.register_forward_hook(self._fwd_post),
            self.optimizer.register_step_pre_hook(self._opt_pre),
            self.optimizer.register_step_post_hook(self._opt_post),
            self._params[-1].register_hook(self._carry_hook),
        ]
        return self

    @property
    def loss_history(self) -> tuple[list[float], list[float]]:
        """The losses seen so far as (steps, values): bounded, each point the mean of ``stride`` steps.

        Read at window ends (host-side already), so reading it costs no device synchronisation.
        """
        values = self._loss.array().tolist()
        stride = self._loss.stride
        # a point stands for `stride` consecutive steps: place it at the middle of them
        return [i * stride + (stride - 1) / 2 for i in range(len(values))], values

    @property
    def metric_history(self) -> dict[str, list[float]]:
        """The last values of each metric given to :meth:`step` (at most 64 each), by name."""
        return {k: list(v) for k, v in self._metrics.items()}

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            self._acts.disarm()
            self._remove_expensive()
            if self._i:
                self._flush()
        finally:
            for h in self._handles:
                h.remove()
            self._handles = []
        if exc_type is None or exc_type is TrainingTripped:
            self._finish()

    def _reset_buf(self) -> None:
        # Device tensors recorded during the window, each tagged with its kind and row (step in the window);
        # appending a reference launches no kernel and never synchronises. The window end concatenates them
        # and reads them to the host once. Host numbers (float losses and metrics) wait beside them.
        self._buf: list[tuple[str, int, torch.Tensor]] = []
        self._hostbuf: list[tuple[str, int, float]] = []

    # ------------------------------------------------------------------ hooks (no host sync in here)

    def _fwd_pre(self, _m: torch.nn.Module, args: tuple[Any, ...]) -> None:
        if not torch.is_grad_enabled():
            return  # evaluation passes are not training steps
        now = time.perf_counter()
        if self._awaiting:
            if self._t_end is not None:
                self._data_t.append(now - self._t_end)
            self._t_fwd = now
            self._awaiting = False
        first = next(nonfinite.tensors_in(args), None)
        if first is not None and first.ndim and first.shape[0] == 0:
            self._empty_now = True  # shapes are host metadata: checking them costs no sync
        if first is not None and first.is_floating_point() and first.numel():
            # one read-only reduction: NaN propagates into min/max, and an Inf is an extreme
            self._buf.append(("in", self._i, torch.stack(torch.aminmax(first.detach())).float()))
        if not _m.training:
            self._eval_fwd += 1  # a training forward (grad on) through a model in eval mode
        if not self._first_forward_done:
            self._first_in = first
        if self._escalate:
            self._install_expensive()
        elif self._i == 0:  # issue 9 (H3): one sampled forward per window
            row = self._i
            self._acts.arm(lambda key, t: self._buf.append(("act:" + key, row, t.float().reshape(1))))

    def _fwd_post(self, _m: torch.nn.Module, _args: Any, out: Any) -> None:
        if not torch.is_grad_enabled():
            return
        t = next(nonfinite.tensors_in(out), None)
        if t is not None and t.is_floating_point() and t.numel():
            self._buf.append(("out", self._i, torch.stack(torch.aminmax(t.detach())).float()))
        if self._mul_kind and t is not None and t.requires_grad and t.ndim == 2 \
                and self.steps % self.update_every == 0:
            t.register_hook(self._mul_hook(t.detach()))  # issue 9 (H3): loss multiplier, no sync
        if not self._first_forward_done:
            self._first_forward_done = True
            self._first_out = t.detach() if t is not None else None
        self._acts.disarm()  # issue 9 (H3)
        if self._expensive:
            self._remove_expensive()
            self._pending = True

    def _opt_pre(self, _opt: Any, _args: Any, _kwargs: Any) -> None:
        self._opt_steps += 1
        self._direct_steps += loop_lint.stepped_outside_scaler(self.scaler, self.optimizer)  # issue 7: host-only
        named = [(n, p.grad) for n, p in zip(self._pnames, self._params) if p.grad is not None]
        if len(named) != len(self._last_named) or self._opt_steps == 1:
            self._no_grad = [n for n, p in zip(self._pnames, self._params) if p.grad is None]
            self._named_now = [n for n, _ in named]
        self._last_named = named
        sample = self.steps % self.update_every == 0
        if named:
            pn = grad_flow.norms([g for _, g in named])
            self._buf.append(("gnorm", self._i, grad_flow.global_norm(pn).float().reshape(1)))
            if sample:
                self._buf.append(("pn", self._i, pn))
        if sample:
            self._before = torch._foreach_mul([p.detach() for p in self._params], 1.0)
            if named and named[0][1].dtype in grad_flow.LOW_PRECISION:
                uf = grad_flow.underflow_fraction([g for _, g in named])
                if uf is not None:
                    self._buf.append(("uf", self._i, uf.float().reshape(1)))
            if self._backwards > 1:
                self._accum_k.append(self._backwards)  # backward passes into this step: micro-batches
        if sample:
            self._lr_now, peak = update_ratio.lr_now_and_peak(self.optimizer)
            if peak is not None:
                self._lr_peak = max(self._lr_peak, peak)

    def _opt_post(self, _opt: Any, _args: Any, _kwargs: Any) -> None:
        if self._before is not None:
            self._buf.append(("upd", self._i, update_ratio.ratios(self._before, self._params)))
            self._buf.append(("wn", self._i, weight_norm.norms(self._params)))  # issue 9 (H3): weight norms
            self._before = None
            self._upd_lr = min(self._upd_lr, self._lr_now) if self._lr_now is not None else self._upd_lr
        self._t_end = time.perf_counter()
        if self._t_fwd is not None:
            self._compute_t.append(self._t_end - self._t_fwd)
        self._awaiting = True
        # The carry-over check costs four kernels; a loop without zero_grad carries over on every step, so
        # sampling it on the update-ratio steps finds it as surely and keeps the common step lighter.
        self._first_bw = self.steps % self.update_every == 0
        self._backwards = 0

    def _mul_hook(self, out: torch.Tensor) -> Any:
        row = self._i

        def hook(g: torch.Tensor) -> None:
            m = loss_scale.multiplier(out, g, self._mul_kind or "", float(getattr(self.loss_fn, "label_smoothing",
                                                                                   0.0) or 0.0))
            sc = getattr(self.scaler, "_scale", None)  # a GradScaler's scale multiplies the loss too
            if isinstance(sc, torch.Tensor):
                m = m / sc.float().reshape(())
            self._buf.append(("lossmul", row, m.reshape(1)))
        return hook

    _act_stats_step: int | None = None
    _lr_now: float | None = None
    _lr_peak: float = 0.0
    _upd_lr: float = float("inf")

    def _carry_hook(self, g: torch.Tensor) -> None:
        if self._params[-1].grad is None:
            # issue 9 (H3): gradients cleared since the last backward (zero_grad after a step a GradScaler skipped
            # on an overflow): a new step starts here, not one more micro-batch of an accumulation
            self._backwards = 0
        self._backwards += 1
        if self._first_bw:
            self._first_bw = False
            old = self._params[-1].grad
            if old is not None:
                ratio = torch.linalg.vector_norm(old.float()) / (torch.linalg.vector_norm(g.float()) + 1e-30)
                self._buf.append(("carry", self._i, ratio.reshape(1)))

    # ------------------------------------------------------------------ expensive probes (after a trip)

    def _install_expensive(self) -> None:
        self._escalate = False
        dead: dict[str, torch.Tensor] = {}
        sat: dict[str, torch.Tensor] = {}
        bad: list[str] = []

        def make(name: str, mod: torch.nn.Module) -> Any:
            def hook(_m: torch.nn.Module, _inp: Any, out: Any) -> None:
                t = next(nonfinite.tensors_in(out), None)
                if t is None or not t.is_floating_point() or t.numel() == 0:
                    return
                if not bool(torch.isfinite(t).all()):
                    if not bad:
                        bad.append(name or type(mod).__name__)
                    return  # activation statistics of NaN outputs mean nothing
                if isinstance(mod, activations.RELU):
                    dead.setdefault(name, activations.dead_fraction(t))
                elif isinstance(mod, activations.SAT):
                    sat.setdefault(name, activations.saturated_fraction(
                        t, "tanh" if isinstance(mod, torch.nn.Tanh) else "sigmoid"))
            return hook

        for name, mod in self.model.named_modules():
            if name:
                self._expensive.append(mod.register_forward_hook(make(name, mod)))
        self._exp_out = (dead, sat, bad)

    def _remove_expensive(self) -> None:
        if not self._expensive:
            return
        for h in self._expensive:
            h.remove()
        self._expensive = []
        dead, sat, bad = self._exp_out
        self._act_stats = {"dead": {k: float(v) for k, v in dead.items()},
                           "saturated": {k: float(v) for k, v in sat.items()}}
        self._module_bad = bad[0] if bad else None
        self._act_stats_step = self.steps  # issue 9 (H3): the step these were measured at

    # ------------------------------------------------------------------ per step

    def step(self, loss: Any = None, **metrics: Any) -> None:
        """Record one training step: the loss (tensor or float) and any metrics (``val_loss``, ``val_acc``,.

        ``train_acc`` ...). Tensors stay on the device until the window ends. A step whose batch was empty is
        refused: its loss (NaN, the mean of nothing) is not the run's, and it is counted in ``empty_batches``.
        """
        if self._empty_now:
            self._empty_now = False
            self.empty_batches += 1
            if self.empty_batches == 1:
                log.warning("trainopt watch: step %d: an empty batch was trained on; its loss is ignored",
                            self.steps)
        elif isinstance(loss, torch.Tensor):
            if loss.numel() == 0:
                raise ProbeError("w.step(loss): the loss tensor is empty", hint="pass the scalar training loss")
            self._buf.append(("loss", self._i, loss.detach().reshape(-1)[:1].float()))
        elif loss is not None:
            self._hostbuf.append(("loss", self._i, float(loss)))
        for k, v in metrics.items():
            if isinstance(v, torch.Tensor):
                self._buf.append(("m:" + k, self._i, v.detach().reshape(-1)[:1].float()))
            elif v is not None:
                self._hostbuf.append(("m:" + k, self._i, float(v)))
        self.steps += 1
        self._i += 1
        try:
            if self._pending:
                self._pending = False
                self._diagnose(trip=True)
            if self._i >= self.every:
                self._flush()
        finally:
            if self._awaiting:
                # The user's bookkeeping after the optimizer step (metrics, logging, our own window work) is not
                # data loading: the data clock starts when step() returns.
                self._t_end = time.perf_counter()

    # ------------------------------------------------------------------ window end (one sync)

    def _flush(self) -> None:
        n, self._i = self._i, 0
        start = self.steps - n
        buf, hostbuf = self._buf, self._hostbuf
        self._reset_buf()
        # the window's one host read
        vals = torch.cat([t.reshape(-1) for _, _, t in buf]).tolist() if buf else []
        k = 0
        losses: list[tuple[int, float]] = []
        norms: list[tuple[int, float]] = []
        upd: list[list[float]] = []
        pn: list[float] | None = None
        items: list[tuple[str, int, list[float]]] = []
        for kind, row, t in buf:
            items.append((kind, row, vals[k:k + t.numel()]))
            k += t.numel()
        items += [(kind, row, [x]) for kind, row, x in hostbuf]
        items.sort(key=lambda it: it[1])  # step order within the window
        for kind, row, v in items:
            stepno = start + row
            if kind == "loss":
                losses.append((stepno, v[0]))
            elif kind == "gnorm":
                norms.append((stepno, v[0]))
            elif kind in ("in", "out"):
                if not all(math.isfinite(x) for x in v):
                    if kind == "in" and self._in_bad_step is None:
                        self._in_bad_step = stepno
                    if kind == "out" and self._out_bad_step is None:
                        self._out_bad_step = stepno
            elif kind == "upd":
                upd.append(v)
            elif kind == "pn":
                pn = v
            elif kind == "carry":
                if math.isfinite(v[0]):
                    self._carry_max = max(self._carry_max, v[0])
            elif kind == "uf":
                self._uf = v[0]
            elif kind == "lossmul":
                self._mul.append(v[0])
            elif kind == "wn":
                self._wtrack.update(v, stepno)
            elif kind.startswith("act:"):
                self._acts.update(kind[4:], v[0], stepno)
            elif kind.startswith("m:"):
                q = self._metrics.setdefault(kind[2:], deque(maxlen=64))
                q.append(v[0])
                self._metric_steps.setdefault(kind[2:], deque(maxlen=64)).append(stepno)  # issue 9 (H3)
        finite = [x for _, x in losses if math.isfinite(x)]
        if losses and self._first_loss is None and math.isfinite(losses[0][1]):
            self._first_loss = losses[0][1]
        if self._bad_loss_step is None:
            self._bad_loss_step = next((s for s, x in losses if not math.isfinite(x)), None)
        self._loss.extend(finite)
        self._spikes.update(finite)
        self._loss_points += len(finite)
        self._norms.update(norms)
        if pn is not None:
            self._pn = pn
        if upd:
            import warnings

            import numpy as np

            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                per_layer = np.nanmedian(np.asarray(upd, dtype=np.float64), axis=0)
            lr = None if self._upd_lr == float("inf") else self._upd_lr
            self._phases.update(per_layer.tolist(), self._pnames, self._pmatrix, lr, self.steps,
                                self._lr_peak or None)
            self._upd_lr = float("inf")
        obs = self.observations()
        trips = tripped_rows({o.name: o for o in obs})
        new = set(trips) - self._diagnosed
        if new:
            self.trips.append({"step": self.steps, "rows": sorted(new)})
            self._diagnosed |= new
            self._escalate = True  # the next training forward runs the expensive probes, then we diagnose

    # ------------------------------------------------------------------ observations and diagnosis

    def _static_lint(self) -> list[Observation]:
        # What the first forward shows (output activation, input scale, mode, configuration) is read once.
        if self._lint is None:
            out_t = self._first_out
            nc = self.num_classes
            if nc is None and isinstance(out_t, torch.Tensor) and out_t.ndim == 2 and self.loss_fn is not None \
                    and config_lint.loss_name(self.loss_fn) in ("cross_entropy", "nll"):
                nc = int(out_t.shape[1])
            self._nc = nc
            self._lint = config_lint.observe(
                model=self.model, optimizer=self.optimizer, loss_fn=self.loss_fn, scheduler=self.scheduler,
                scaler=self.scaler, output=out_t, inputs=self._first_in, carryover=None,
                batch_size=int(out_t.shape[0]) if isinstance(out_t, torch.Tensor) and out_t.ndim else None,
                device_type=self.device.type)
            self._lint += loop_lint.observe_params(self.model, self.optimizer)  # issue 7: optimizer vs model
            self._first_out = self._first_in = None  # drop the references: the lint is all we needed
        return self._lint

    def observations(self) -> list[Observation]:
        """Summary observations for everything measured so far (one per name, each stamped with its step)."""
        groups: list[list[Observation]] = []
        cands = [(s, loc) for s, loc in ((self._in_bad_step, "inputs"), (self._out_bad_step, "activations"),
                                          (self._bad_loss_step, "loss"), (self._norms.nonfinite_step, "gradients"))
                 if s is not None]
        if cands:
            order = {k: i for i, k in enumerate(nonfinite.ORDER)}
            step, loc = min(cands, key=lambda c: (c[0], order[c[1]]))
            if loc == "loss" and config_lint.loss_name(self.loss_fn) not in ("custom", "") and self.loss_fn:
                # A built-in loss on finite outputs overflows only on outputs out of range: the model's doing.
                loc = "activations"
            groups.append(nonfinite.observe(loc, step=step, module=self._module_bad))
        lint = list(self._static_lint())
        if self._loss_points:
            floor = config_lint.loss_floor(self.loss_fn, self._nc)
            groups.append(at_step(loss_curve.observe(self._loss.array(), spikes=self._spikes, floor=floor),
                                  self.steps))
        if self._eval_fwd:
            ev = {"training_forwards_in_eval_mode": self._eval_fwd, "steps": self.steps}
            lint = [o for o in lint if o.name != "model_eval_mode"] + [
                emit(config_lint.INFO, "model_eval_mode", True, ev, step=self.steps)]
        if self.steps > 1:
            lint.append(emit(config_lint.INFO, "grad_carryover", max(0.0, self._carry_max), {},
                             ("MT-CARRYOVER",), step=self.steps))
        # issue 7 (loop_lint): optimizer steps per training step, steps outside the scaler, scaler skips
        lint += loop_lint.observe_steps(self.steps, self._opt_steps, self._direct_steps, self.scaler,
                                        bool(self._accum_k), step=self.steps)
        if self._accum_k:
            import statistics

            # Whether the loss was divided by k cannot be read from gradient norms (the first micro-batch's
            # gradient is divided too); the gradient reaching the output shows the loss's multiplier instead.
            k_acc = int(statistics.median(self._accum_k))
            lint.append(emit(config_lint.INFO, "grad_accum_steps", k_acc, {"micro_batches": k_acc}, step=self.steps))
            lint += at_step(loss_scale.observe(list(self._mul), k_acc), self.steps)  # issue 9 (H3)
        groups.append(lint)
        nc = self._nc
        if self._first_loss is not None:
            groups.append(at_step(loss_init.observe(loss_init.check(
                self._first_loss, nc, config_lint.loss_name(self.loss_fn) if self.loss_fn is not None else None,
                self.at_init), nc), 0))
        ratio = None
        per_param: dict[str, float] = {}
        if self._pn is not None and self._last_named and len(self._pn) == len(self._last_named):
            per_param = dict(zip([n for n, _ in self._last_named], self._pn))
            ratio = grad_flow.layer_ratio(self._last_named, self._pn, self._static["tables"])  # issue 9 (H3)
        groups.append(grad_flow.observe(struct=self._static["struct"], per_param=per_param, no_grad=self._no_grad,
                                        global_norms=self._norms, ratio=ratio, underflow=self._uf, step=self.steps,
                                        stepped=self._opt_steps > 0))
        s = self._phases.summary()
        if s is not None:
            groups.append(update_ratio.observe(s))
        groups.append(weight_norm.observe(self._wtrack))  # issue 9 (H3)
        m = self._metrics
        groups.append(at_step(generalization.observe(
            train_acc=list(m.get("train_acc", ())), val_acc=list(m.get("val_acc", ())),
            val_loss=list(m.get("val_loss", ())), train_loss=list(m.get("train_loss", ())), num_classes=nc),
            self.steps))
        if "val_loss" in m:  # issue 9 (H3): overfitting from the watch's own training loss against val_loss
            groups.append(generalization.observe_val_loss(list(self._metric_steps["val_loss"]), list(m["val_loss"]),
                                                          *self.loss_history, step=self.steps))
        if len(self._data_t) >= 2 and self._compute_t:
            # medians per step: the first steps carry one-time costs (allocations, lazy optimizer state)
            import statistics

            d, c = statistics.median(self._data_t), statistics.median(self._compute_t)
            groups.append(at_step(throughput.observe(d * self.steps, c * self.steps, self.steps, self.device),
                                  self.steps))
        if self._act_stats is not None:
            groups.append(at_step(activations.observe(self._act_stats), self._act_stats_step))
        sampled = self._acts.stats()  # issue 9 (H3): after the trip's full measurement, which wins the merge
        if sampled is not None:
            groups.append(at_step(activations.observe(sampled), self._acts.step))
        return merge(groups)

    def _consultation(self) -> Any:
        if self.consultation is None:
            from expert.consultation import Consultation

            self.consultation = Consultation()
        return self.consultation

    def _diagnose(self, trip: bool) -> Any:
        c = self._consultation()
        obs = self.observations()
        try:
            for name in generalization.superseded(c.observations, obs):  # issue 9 (H3): stale metrics go
                c.forget(name)
            c.add(obs)
        except ContradictionError as exc:
            log.warning("trainopt watch: probe observations contradict the consultation: %s", exc.message)
            return self.diagnosis
        self.diagnosis = c.run()
        if trip:
            bad = [f for f in self.diagnosis.findings if f["severity"] in ("warning", "critical")]
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


def watch(model: torch.nn.Module, optimizer: Any, consultation: Any = None, every: int = 50, on_trip: str = "log",
          **options: Any) -> Watch:
    """Watch a training loop; call ``w.step(loss, **metrics)`` once per step.

    Cheap probes run every step without host synchronisation (device accumulators, read every ``every`` steps);
    when one trips, the next training forward pass runs the expensive probes (first non-finite module,
    activation health) and the engine diagnoses the run (logged, and kept in ``w.diagnosis``). On exit the
    summary observations go into ``consultation`` (a new one if None), so ``consultation.report("json")`` is the
    run's diagnosis.

    Args:
        model: The model being trained.
        optimizer: Its optimizer (step hooks see gradients and updates).
        consultation: Where observations go; a new ``Consultation`` when None (``w.consultation``).
        every: Steps per window (one host read per window).
        on_trip: ``log`` (default; training continues) or ``raise`` (``TrainingTripped``).
        **options: ``loss_fn`` (enables the loss/activation lint), ``num_classes``, ``scaler``, ``scheduler``,
            ``update_every`` (steps between update-ratio samples), ``at_init`` (training starts at init).

    Example:
        >>> with watch(model, opt) as w:                                  # doctest: +SKIP
        ...     for x, y in loader:
        ...         opt.zero_grad(); loss = loss_fn(model(x), y); loss.backward(); opt.step()
        ...         w.step(loss)
        >>> w.consultation.report("text")                                 # doctest: +SKIP
    """
    return Watch(model, optimizer, consultation, every, on_trip, **options)


__all__ = ["TrainingTripped", "Watch", "watch", "tripped_rows"]
