"""Always-on watch for a training loop: cheap probes every step, expensive ones after a trip, a diagnosis on exit."""

from __future__ import annotations

import logging
import time
from typing import Any

import torch

from expert.errors import ContradictionError, ProbeError
from expert.vocabulary import Observation
from probes import (
    activations,
    config_lint,
    generalization,
    grad_flow,
    loss_curve,
    loss_init,
    nonfinite,
    throughput,
    update_ratio,
)
from probes.base import merge
from probes.exam import check_target

log = logging.getLogger("trainopt.watch")

# buffer columns (one row per step of the window)
_LOSS, _GNORM, _IN_OK, _OUT_OK = range(4)


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
    from knowledge.measurements import ROWS
    from knowledge.schema import Find, standing_rows

    # The same check the engine compiles, in its firing order: a row the engine suppresses never trips here.
    values = {name: o.value for name, o in obs.items()}
    hits = [row.id for row in standing_rows(ROWS, values, ("origin:probe",))
            if any(isinstance(a, Find) and a.severity != "info" for a in row.then)]
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
        self.device = params[0].device
        self._reset_buf()
        self._i = 0
        self._float_loss: list[float | None] = []
        self._loss_hist: list[float] = []
        self._gnorm_hist: list[float] = []
        self._out_bad_step: int | None = None
        self._in_bad_step: int | None = None
        self._metrics: dict[str, list[float]] = {}
        self._metric_tensors: list[tuple[str, Any]] = []
        self._carry = torch.zeros((), device=self.device)
        self._upd: list[torch.Tensor] = []
        self._upd_hist: list[list[float]] = []
        self._uf: torch.Tensor | None = None
        self._last_pn: torch.Tensor | None = None
        self._last_named: list[tuple[str, torch.Tensor]] = []
        self._no_grad: list[str] = []
        self._before: list[torch.Tensor] | None = None
        self._data_t: list[float] = []
        self._compute_t: list[float] = []
        self._t_end: float | None = None
        self._t_fwd: float | None = None
        self._awaiting = True
        self._first_bw = False
        self._first_forward_done = False
        self._escalate = False
        self._expensive: list[Any] = []
        self._act_stats: dict[str, dict[str, float]] | None = None
        self._module_bad: str | None = None
        self._pending = False
        self._static = {"struct": grad_flow.structure(self.model, self.optimizer)}
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

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
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
        # Per column, (row in window, 0-d device tensor): appending a reference launches no kernel and never
        # synchronises; the window end stacks each column and reads it once.
        self._cols: tuple[list[tuple[int, torch.Tensor]], ...] = ([], [], [], [])

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
        x = nonfinite.tensors_in(args)
        first = next(x, None)
        if first is not None and first.is_floating_point():
            self._cols[_IN_OK].append((self._i, torch.isfinite(first).all()))
        if not self._first_forward_done:
            self._first_in = first
        if self._escalate:
            self._install_expensive()

    def _fwd_post(self, _m: torch.nn.Module, _args: Any, out: Any) -> None:
        if not torch.is_grad_enabled():
            return
        t = next(nonfinite.tensors_in(out), None)
        if t is not None and t.is_floating_point():
            self._cols[_OUT_OK].append((self._i, torch.isfinite(t).all()))
        if not self._first_forward_done:
            self._first_forward_done = True
            self._first_out = t.detach() if t is not None else None
        if self._expensive:
            self._remove_expensive()
            self._pending = True

    def _opt_pre(self, _opt: Any, _args: Any, _kwargs: Any) -> None:
        named = [(n, p.grad) for n, p in zip(self._pnames, self._params) if p.grad is not None]
        if len(named) != len(self._last_named):
            self._no_grad = [n for n, p in zip(self._pnames, self._params) if p.grad is None]
        self._last_named = named
        if named:
            pn = grad_flow.norms([g for _, g in named])
            self._last_pn = pn
            self._cols[_GNORM].append((self._i, grad_flow.global_norm(pn)))
        if self.steps % self.update_every == 0:
            self._before = torch._foreach_mul([p.detach() for p in self._params], 1.0)
            if named and named[0][1].dtype in grad_flow.LOW_PRECISION:
                self._uf = grad_flow.underflow_fraction([g for _, g in named])

    def _opt_post(self, _opt: Any, _args: Any, _kwargs: Any) -> None:
        if self._before is not None:
            self._upd.append(update_ratio.ratios(self._before, self._params))
            self._before = None
        self._t_end = time.perf_counter()
        if self._t_fwd is not None:
            self._compute_t.append(self._t_end - self._t_fwd)
        self._awaiting = True
        # The carry-over check costs four kernels; a loop without zero_grad carries over on every step, so
        # sampling it on the update-ratio steps finds it as surely and keeps the common step lighter.
        self._first_bw = self.steps % self.update_every == 0

    def _carry_hook(self, g: torch.Tensor) -> None:
        if self._first_bw:
            self._first_bw = False
            old = self._params[-1].grad
            if old is not None:
                ratio = torch.linalg.vector_norm(old.float()) / (torch.linalg.vector_norm(g.float()) + 1e-30)
                self._carry = torch.maximum(self._carry, ratio)

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

    # ------------------------------------------------------------------ per step

    def step(self, loss: Any = None, **metrics: Any) -> None:
        """Record one training step: the loss (tensor or float) and any metrics (``val_loss``, ``val_acc``.

        ``train_acc`` ...). Tensors stay on the device until the window ends.
        """
        if isinstance(loss, torch.Tensor):
            self._cols[_LOSS].append((self._i, loss.detach().reshape(-1)[0]))
            self._float_loss.append("tensor")
        else:
            self._float_loss.append(None if loss is None else float(loss))
        for k, v in metrics.items():
            if v is not None:
                self._metric_tensors.append((k, v.detach() if isinstance(v, torch.Tensor) else float(v)))
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
        cols = self._cols
        flat = [t.float().reshape(1) for c in cols for _, t in c]
        vals = torch.cat(flat).to("cpu").tolist() if flat else []  # the window's one host read
        rows = [[float("nan"), -1.0, 1.0, 1.0] for _ in range(n)]  # -1: no optimizer step in this row
        k = 0
        for col, entries in enumerate(cols):
            for i, _ in entries:
                rows[i][col] = vals[k]
                k += 1
        self._reset_buf()
        for j, (row, fl) in enumerate(zip(rows, self._float_loss)):
            self._loss_hist.append(row[_LOSS] if fl == "tensor" else fl)
            if row[_GNORM] != -1.0:
                self._gnorm_hist.append(row[_GNORM])
            if row[_OUT_OK] < 0.5 and self._out_bad_step is None:
                self._out_bad_step = start + j
            if row[_IN_OK] < 0.5 and self._in_bad_step is None:
                self._in_bad_step = start + j
        self._float_loss = []
        for k, v in self._metric_tensors:
            self._metrics.setdefault(k, []).append(float(v))
        self._metric_tensors = []
        for u in self._upd:
            self._upd_hist.append(u.tolist())
        self._upd = []
        obs = self.observations()
        trips = tripped_rows({o.name: o for o in obs})
        new = set(trips) - self._diagnosed
        if new:
            self.trips.append({"step": self.steps, "rows": sorted(new)})
            self._diagnosed |= new
            self._escalate = True  # the next training forward runs the expensive probes, then we diagnose

    # ------------------------------------------------------------------ observations and diagnosis

    def observations(self) -> list[Observation]:
        """Summary observations for everything measured so far (one per name)."""
        groups: list[list[Observation]] = []
        losses = self._loss_hist
        # non-finite timeline: earliest of inputs / forward output / loss / gradients
        import math

        bad_loss = next((i for i, v in enumerate(losses) if v is not None and not math.isfinite(v)), None)
        bad_grad = next((i for i, v in enumerate(self._gnorm_hist) if not math.isfinite(v)), None)
        cands = [(s, loc) for s, loc in ((self._in_bad_step, "inputs"), (self._out_bad_step, "activations"),
                                          (bad_loss, "loss"), (bad_grad, "gradients")) if s is not None]
        if cands:
            order = {k: i for i, k in enumerate(nonfinite.ORDER)}
            step, loc = min(cands, key=lambda c: (c[0], order[c[1]]))
            groups.append(nonfinite.observe(loc, step=step, module=self._module_bad))
        finite_losses = [v for v in losses if v is not None]
        if finite_losses:
            groups.append(loss_curve.observe(finite_losses))
        out_t = self._first_out
        nc = self.num_classes
        if nc is None and isinstance(out_t, torch.Tensor) and out_t.ndim == 2 and self.loss_fn is not None \
                and config_lint.loss_name(self.loss_fn) in ("cross_entropy", "nll"):
            nc = int(out_t.shape[1])
        carry = float(self._carry) if self.steps > 1 else None
        groups.append(config_lint.observe(
            model=self.model, optimizer=self.optimizer, loss_fn=self.loss_fn, scheduler=self.scheduler,
            scaler=self.scaler, output=out_t, inputs=self._first_in, carryover=carry,
            batch_size=int(out_t.shape[0]) if isinstance(out_t, torch.Tensor) and out_t.ndim else None,
            device_type=self.device.type))
        if finite_losses:
            groups.append(loss_init.observe(loss_init.check(
                losses[0] if losses[0] is not None else float("nan"), nc,
                config_lint.loss_name(self.loss_fn) if self.loss_fn is not None else None, self.at_init), nc))
        ratio = None
        per_param: dict[str, float] = {}
        if self._last_pn is not None and self._last_named:
            vals = self._last_pn.tolist()
            per_param = dict(zip([n for n, _ in self._last_named], vals))
            ratio = grad_flow.layer_ratio(self._last_named, vals)
        gh = self._gnorm_hist
        groups.append(grad_flow.observe(struct=self._static["struct"], per_param=per_param, no_grad=self._no_grad,
                                        global_norms=gh, ratio=ratio,
                                        underflow=None if self._uf is None else float(self._uf)))
        if self._upd_hist:
            import warnings

            import numpy as np

            from knowledge.measurements import threshold

            healthy = threshold("MT-UPD-HEALTHY")
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                arr = np.asarray(self._upd_hist, dtype=np.float64)
                # Median over layers per sample, smoothed over 3 samples; report the stretch of the run farthest
                # from the healthy ratio (early too-large updates matter even when the weights grow later).
                per_sample = np.nanmedian(arr, axis=1)
                k = min(3, len(per_sample))
                smooth = np.array([np.nanmedian(per_sample[i:i + k]) for i in range(len(per_sample) - k + 1)])
                ok = np.isfinite(smooth) & (smooth > 0)
                pick = int(np.argmax(np.where(ok, np.abs(np.log10(np.where(ok, smooth, 1.0) / healthy)),
                                              -1.0))) if ok.any() else 0
                per_layer = np.nanmedian(arr[pick:pick + k], axis=0)
            s = update_ratio.summarize(per_layer.tolist(), self._pnames)
            if s is not None:
                s["samples"] = len(per_sample)
                s["from_step_sample"] = pick
            groups.append(update_ratio.observe(s))
        m = self._metrics
        groups.append(generalization.observe(train_acc=m.get("train_acc", ()), val_acc=m.get("val_acc", ()),
                                             val_loss=m.get("val_loss", ()), train_loss=m.get("train_loss", ()),
                                             num_classes=nc))
        if len(self._data_t) >= 2 and self._compute_t:
            # medians per step: the first steps carry one-time costs (allocations, lazy optimizer state)
            import statistics

            d, c = statistics.median(self._data_t), statistics.median(self._compute_t)
            groups.append(throughput.observe(d * self.steps, c * self.steps, self.steps, self.device))
        if self._act_stats is not None:
            groups.append(activations.observe(self._act_stats))
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
