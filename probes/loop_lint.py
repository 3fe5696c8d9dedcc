"""Loop lint (free): does the optimizer hold the model's parameters, how often does it step, in what dtype.

Pure functions over live objects and counters; nothing here runs a kernel or synchronises the device. The
plugin at the end compares the watch's optimizer-step count (its step pre-hook) with the training steps and
asks :func:`stepped_outside_scaler` inside that hook; in ``examine`` it reads only the parameter checks, since
examine steps the optimizer itself.
"""

from __future__ import annotations

from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit

INFO = ProbeInfo("loop_lint", "free", "optimizer_step",
                 ("optimizer_params", "optimizer_step_call", "scaler_skips", "step_grads", "weights_dtype"))

_HALF = {torch.float16: "fp16", torch.bfloat16: "bf16"}


def optimizer_coverage(model: torch.nn.Module, optimizer: Any) -> dict[str, list[str]]:
    """Compare the tensors an optimizer holds with the model's parameters, by identity.

    Returns:
        ``stale``: tensors the optimizer holds that are not parameters of the model (described by group and
        shape); ``missing``: trainable model parameters in no param group; ``frozen_held``: model parameters the
        optimizer holds although they are frozen (``requires_grad=False``).
    """
    named = list(model.named_parameters())
    model_ids = {id(p) for _, p in named}
    held: dict[int, torch.Tensor] = {}
    stale: list[str] = []
    for gi, group in enumerate(getattr(optimizer, "param_groups", ())):
        for p in group.get("params", ()):
            held[id(p)] = p
            if id(p) not in model_ids:
                stale.append(f"group {gi}: tensor {tuple(p.shape)}")
    missing = [n for n, p in named if p.requires_grad and id(p) not in held]
    frozen = [n for n, p in named if not p.requires_grad and id(p) in held]
    return {"stale": stale, "missing": missing, "frozen_held": frozen}


def params_verdict(coverage: dict[str, list[str]]) -> str:
    """The ``optimizer_params`` value for a coverage: the most serious finding first (stale, missing, frozen)."""
    for key in ("stale", "missing", "frozen_held"):
        if coverage.get(key):
            return key
    return "all"


def weights_dtype(model: torch.nn.Module) -> str | None:
    """``fp16``/``bf16`` when trainable floating parameters are stored in half precision, else ``fp32``.

    None when the model has no trainable floating parameter (nothing to judge).
    """
    dts = [p.dtype for p in model.parameters() if p.requires_grad and p.is_floating_point()]
    if not dts:
        return None
    for dt, name in _HALF.items():
        if dt in dts:
            return name
    return "fp32"


def scaler_enabled(scaler: Any) -> bool:
    """Whether ``scaler`` is an enabled loss scaler (GradScaler or a look-alike)."""
    if scaler is None:
        return False
    try:
        return bool(scaler.is_enabled())
    except Exception:  # noqa: BLE001 - an object without the method is not a scaler we can read
        return False


def stepped_outside_scaler(scaler: Any, optimizer: Any) -> bool:
    """Tell, inside an optimizer step pre-hook, whether this step bypasses ``scaler.step``.

    ``scaler.step(optimizer)`` unscales the gradients (stage ``UNSCALED``) before it calls ``optimizer.step()``;
    a direct call finds the optimizer still ``READY`` (or unknown to the scaler since its last update). A step
    right after ``scaler.step`` (stage ``STEPPED``) is a second step, counted by the step ratio instead.
    """
    if not scaler_enabled(scaler):
        return False
    states = getattr(scaler, "_per_optimizer_states", None)
    if not isinstance(states, dict):
        return False
    state = states.get(id(optimizer))  # .get: never create an entry in the scaler's defaultdict
    if state is None:
        return True
    stage = getattr(state.get("stage"), "name", None)
    return stage == "READY"


def classify_steps(train_steps: int, optimizer_steps: int, direct_steps: int, scaler_on: bool,
                   accumulating: bool) -> dict[str, Any]:
    """Judge the optimizer-step count against the training steps.

    Args:
        train_steps: Training steps recorded (``w.step`` calls).
        optimizer_steps: Optimizer steps taken (step pre-hook calls).
        direct_steps: Of those, steps taken outside ``scaler.step`` while a scaler was enabled.
        scaler_on: Whether an enabled GradScaler was given.
        accumulating: Whether several backward passes feed one optimizer step (skips cannot be counted then).

    Returns:
        Observation values (``optimizer_step_call``, ``scaler_skips``) with an ``evidence`` entry; empty while
        fewer than ``MT-STEP-MIN`` training steps were seen.
    """
    if train_steps < threshold("MT-STEP-MIN"):
        return {}
    ratio = optimizer_steps / train_steps
    ev = {"training_steps": train_steps, "optimizer_steps": optimizer_steps, "steps_outside_scaler": direct_steps,
          "optimizer_steps_per_training_step": ratio}
    out: dict[str, Any] = {"evidence": ev}
    if scaler_on and direct_steps > 0:
        out["optimizer_step_call"] = "outside_scaler"
    elif ratio > threshold("MT-STEP-TWICE-MAX"):
        return {}  # the loop records only some of its steps: the count says nothing
    elif ratio > threshold("MT-STEP-TWICE"):
        out["optimizer_step_call"] = "twice"
    elif optimizer_steps == 0:
        # with a scaler, a step skipped on inf/NaN gradients never reaches optimizer.step()
        if scaler_on:
            out["scaler_skips"] = "persistent"
        else:
            out["optimizer_step_call"] = "missing"
    else:
        out["optimizer_step_call"] = "once"
        if scaler_on and not accumulating:
            skipped = max(0, train_steps - optimizer_steps)
            ev["skipped_steps"] = skipped
            frac = skipped / train_steps
            out["scaler_skips"] = ("persistent" if frac > threshold("MT-SKIP-PERSISTENT")
                                   else "occasional" if skipped else "none")
    return out


def has_grad(params: Any) -> bool:
    """Whether any of ``params`` holds a gradient (host attributes only; stops at the first that does)."""
    return any(p.grad is not None for p in params)


def classify_step_grads(optimizer_steps: int, steps_without_grad: int, all_grads_zero: bool = False) -> str | None:
    """Judge what the optimizer found in ``.grad`` over its steps: ``none``, ``zero`` or ``present``.

    Args:
        optimizer_steps: Optimizer steps seen.
        steps_without_grad: Of those, steps at which no trainable parameter held a gradient.
        all_grads_zero: Every gradient norm measured at a step was exactly zero (gradients zeroed in place).

    Returns:
        The verdict, or None before ``MT-STEP-NOGRAD-MIN`` optimizer steps.
    """
    if optimizer_steps < threshold("MT-STEP-NOGRAD-MIN"):
        return None
    if steps_without_grad / optimizer_steps >= threshold("MT-STEP-NOGRAD"):
        return "none"
    return "zero" if all_grads_zero else "present"


def observe_params(model: torch.nn.Module, optimizer: Any | None) -> list:
    """Observations of the parameters the optimizer holds and of the weights' dtype."""
    out = []
    if optimizer is not None:
        cov = optimizer_coverage(model, optimizer)
        out.append(emit(INFO, "optimizer_params", params_verdict(cov), {k: v[:20] for k, v in cov.items()}))
    wd = weights_dtype(model)
    if wd is not None:
        out.append(emit(INFO, "weights_dtype", wd))
    return out


def observe_steps(train_steps: int, optimizer_steps: int, direct_steps: int, scaler: Any, accumulating: bool,
                  step: int | None = None) -> list:
    """Observations of the optimizer-step count (see :func:`classify_steps`)."""
    verdict = classify_steps(train_steps, optimizer_steps, direct_steps, scaler_enabled(scaler), accumulating)
    ev = verdict.pop("evidence", {})
    marks = {"optimizer_step_call": ("MT-STEP-MIN", "MT-STEP-TWICE", "MT-STEP-TWICE-MAX"),
             "scaler_skips": ("MT-SKIP-PERSISTENT",)}
    return [emit(INFO, name, value, ev, marks[name], step=step) for name, value in sorted(verdict.items())]


class LoopLintProbe(Probe):
    """Plugin: optimizer against model parameters, weight dtype, optimizer steps per training step.

    Host-only: the optimizer's step pre-hook asks the scaler's stage (a step outside ``scaler.step``) and whether
    any parameter holds a gradient (a step that finds none, runs no closure and leaves none is gradient-free:
    zero_grad between backward and step); the scheduler counts steps; the parameter checks are read once, at
    the first summary. Cause rows that read only these observations trip the watch (``trips_causes``).
    """

    info = INFO
    hooks = ("optimizer_pre", "forward", "step_end")
    # the forward (a closure's) and the step's end matter only after a step that found no gradient: woken then
    woken_hooks = ("forward", "step_end")
    # the step count is the watch's; what the pre-hook looks for (a step that finds no gradient) is still there
    # just after the optimizer's step, where the watch looks on the steps its pre-hook is off (a scaler's stage
    # is not: with a scaler the watch keeps the pre-hook on)
    gradless_hooks = ("optimizer_pre",)
    thresholds = ("MT-STEP-MIN", "MT-STEP-TWICE", "MT-STEP-TWICE-MAX", "MT-SKIP-PERSISTENT", "MT-STEP-NOGRAD",
                  "MT-STEP-NOGRAD-MIN")
    trips_causes = True

    def attach(self, run: Any) -> None:
        """No step counted yet."""
        self.direct_steps = 0
        self.steps_without_grad = 0
        self._empty_pre = False
        self._closure = False
        self._params: list | None = None

    def optimizer_pre(self, run: Any) -> None:
        """Count a step that bypasses ``scaler.step``; note one that finds no gradient (host attributes only)."""
        if run.scaler is not None:
            self.direct_steps += stepped_outside_scaler(run.scaler, run.optimizer)
        # a healthy step stops at the first parameter with a gradient (looked at inline: this runs every step)
        if not self._empty_pre and run.params[0].grad is None:
            self._empty_pre = not has_grad(run.params)
            if self._empty_pre:
                run.wake("forward", self.forward, run.forward_serial + 1)
                run.wake("step_end", self.step_end, run.steps)

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """A forward after a gradient-free step began: the step's closure computes the gradients (LBFGS)."""
        if self._empty_pre:
            self._closure = True

    def step_end(self, run: Any) -> None:
        """Count a step that found no gradient, ran no closure and left none behind."""
        if self._empty_pre:
            self.steps_without_grad += not self._closure and not has_grad(run.params)
            self._empty_pre = self._closure = False

    def summarise(self, run: Any) -> list:
        """Parameter checks (once) and the step-count verdicts so far."""
        if self._params is None:
            self._params = observe_params(run.model, run.optimizer)
        lint = run.probe("config_lint")
        accumulating = bool(getattr(lint, "accum", None))
        return (self._params + observe_steps(run.steps, run.opt_steps, self.direct_steps, run.scaler, accumulating,
                                             step=run.steps) + self._step_grads(run))

    def _step_grads(self, run: Any) -> list:
        """``step_grads``: gradients missing (or all exactly zero) whenever the optimizer steps."""
        gf = run.probe("grad_flow")
        stats = getattr(gf, "stats", None)
        # gradients zeroed in place (set_to_none=False): every window's median norm, the largest included, is 0
        # (read defensively: the statistics are grad_flow's to shape)
        zero = (getattr(stats, "n", 0) >= threshold("MT-STEP-NOGRAD-MIN")
                and getattr(stats, "peak_median", None) == 0.0)
        verdict = classify_step_grads(run.opt_steps, self.steps_without_grad, zero)
        if verdict is None:
            return []
        ev = {"optimizer_steps": run.opt_steps, "steps_without_grad": self.steps_without_grad,
              "gradients_all_zero": zero}
        return [emit(INFO, "step_grads", verdict, ev, ("MT-STEP-NOGRAD", "MT-STEP-NOGRAD-MIN"), step=run.steps)]

    def examine(self, ex: Any) -> list:
        """Parameter checks only: examine steps the optimizer itself."""
        return observe_params(ex.model, ex.optimizer)
