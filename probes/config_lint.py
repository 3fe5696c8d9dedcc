"""Configuration lint from live objects (free): optimizer, schedule, precision, loss vs output, mode, inputs."""

from __future__ import annotations

from collections import deque
from typing import Any

import torch

from knowledge.terms import canonical_loss, canonical_schedule
from knowledge.vocabulary import OPTIMIZERS
from probes.base import Probe, ProbeInfo, emit, finite_or_none

INFO = ProbeInfo("config_lint", "free", "static",
                 ("optimizer", "learning_rate", "weight_decay", "adam_eps", "warmup", "lr_schedule",
                  "mixed_precision", "grad_scaler", "loss_fn", "custom_loss", "output_activation", "model_eval_mode",
                  "input_scale", "grad_carryover", "architecture", "batch_size", "task", "grad_accum_steps",
                  "loss_scaled_for_accum"))

_OPT_NAMES = set(OPTIMIZERS.split())
_BEHAVES_DIFFERENTLY = (torch.nn.modules.dropout._DropoutNd, torch.nn.modules.batchnorm._BatchNorm)


def optimizer_name(opt: Any) -> str:
    """Vocabulary name of an optimizer object (SGD with momentum is ``sgd_momentum``)."""
    cls = type(opt).__name__.lower()
    if cls == "sgd":
        return "sgd_momentum" if any(g.get("momentum", 0) for g in opt.param_groups) else "sgd"
    if cls in ("adam", "adamw"):
        return cls
    return cls if cls in _OPT_NAMES else "other"


def loss_name(loss_fn: Any) -> str:
    """Map a loss to its normalized name: torch losses by family (``knowledge.terms``), anything else ``custom``."""
    name = type(loss_fn).__name__ if isinstance(loss_fn, torch.nn.Module) else getattr(loss_fn, "__name__", "")
    # Only torch's own names are looked up: a user's function called ``ce`` is their own loss, not cross-entropy.
    builtin = bool(name) and (hasattr(torch.nn, name) or hasattr(torch.nn.functional, name))
    return (canonical_loss(name) if builtin else None) or "custom"


def inner_losses(loss_fn: Any) -> list[tuple[str, torch.nn.Module]]:
    """The built-in torch losses a user's own loss module holds, as (normalised name, module), in order.

    A multi-task loss (``self.ce(out[0], y0) + self.mse(out[1], y1)``), a VAE's reconstruction term or a loss
    with a regulariser wraps built-in losses: the contracts between an output and a target hold where each of
    them is called, not at the user's module. Empty for a built-in loss itself, a plain function or none.
    """
    if not isinstance(loss_fn, torch.nn.Module) or loss_name(loss_fn) != "custom":
        return []
    out = []
    for m in loss_fn.modules():
        if m is not loss_fn and isinstance(m, torch.nn.modules.loss._Loss):
            name = loss_name(m)
            if name != "custom":
                out.append((name, m))
    return out


def composite_kind(loss_fn: Any) -> str | None:
    """The kind that speaks for a user's loss module built of torch losses: its class loss, else its one kind.

    A loss that sums a cross-entropy with a regression or a regularisation term is judged as a cross-entropy
    where a check needs a class loss (softmax before it, the chance level): the class term is the only one
    those checks concern. None when it holds no built-in loss, or several kinds and no single class loss.
    """
    kinds = list(dict.fromkeys(n for n, _ in inner_losses(loss_fn)))
    cls = [k for k in kinds if k in ("cross_entropy", "nll")]
    if len(cls) == 1:
        return cls[0]
    return kinds[0] if len(kinds) == 1 else None


def _schedule_name(name: str) -> str:
    # torch's schedulers by family (``knowledge.terms``); anything else, a user's own included, is ``other``
    return (canonical_schedule(name) if hasattr(torch.optim.lr_scheduler, name) else None) or "other"


def loss_floor(loss_fn: Any, num_classes: int | None) -> float:
    """The lowest value a loss can reach: the entropy of label-smoothed targets for a smoothed cross-entropy.

    A run that has converged to this floor has not plateaued; the curve classifier measures progress
    against ``start - floor``.
    """
    import math

    eps = float(getattr(loss_fn, "label_smoothing", 0.0) or 0.0)
    if eps <= 0 or not num_classes or num_classes < 2 or loss_name(loss_fn) != "cross_entropy":
        return 0.0
    hi, lo = 1.0 - eps + eps / num_classes, eps / num_classes
    return -(hi * math.log(hi) + (num_classes - 1) * lo * math.log(lo))


def identify_loss(loss_fn: Any, output: Any, target: Any, value: float) -> str | None:
    """Name the built-in loss a user's own function computes, by comparing values on the same batch.

    A loss wrapped in a function (``def loss(o, y): return F.cross_entropy(o, y)``) reads as ``custom`` by
    name; its value on the batch tells what it is, so checks that need the loss's kind (softmax before
    cross-entropy, sigmoid before BCE-with-logits, a negative loss) still apply. None when nothing matches.

    Args:
        loss_fn: The user's loss (only its measured ``value`` is used).
        output: The model output it was given.
        target: The targets it was given.
        value: ``loss_fn(output, target)`` as a float.
    """
    import math

    F = torch.nn.functional
    if not isinstance(output, torch.Tensor) or not isinstance(target, torch.Tensor) or not math.isfinite(value):
        return None
    o = output.detach().float()
    cands: list[tuple[str, Any]] = []
    if not target.is_floating_point() and o.ndim >= 2 and target.shape == o.shape[:1] + o.shape[2:]:
        t = target.long()
        cands += [("cross_entropy", lambda: F.cross_entropy(o, t)), ("nll", lambda: F.nll_loss(o, t))]
        if o.ndim == 2 and int(t.max()) < o.shape[1] and int(t.min()) >= 0:
            hot = F.one_hot(t, o.shape[1]).float()
            cands += [("bce_with_logits", lambda: F.binary_cross_entropy_with_logits(o, hot)),
                      ("mse", lambda: F.mse_loss(o, hot))]
            if bool(((o >= 0) & (o <= 1)).all()):
                cands.append(("bce", lambda: F.binary_cross_entropy(o, hot)))
    elif target.shape == o.shape:
        t = target.detach().float()
        cands += [("mse", lambda: F.mse_loss(o, t)), ("l1", lambda: F.l1_loss(o, t)),
                  ("smooth_l1", lambda: F.smooth_l1_loss(o, t)),
                  ("bce_with_logits", lambda: F.binary_cross_entropy_with_logits(o, t))]
        if bool(((o >= 0) & (o <= 1)).all()) and bool(((t >= 0) & (t <= 1)).all()):
            cands.append(("bce", lambda: F.binary_cross_entropy(o, t)))
    for name, f in cands:
        try:
            ref = float(f())
        except (RuntimeError, ValueError, IndexError):
            continue
        if math.isfinite(ref) and abs(ref - value) <= 1e-4 * max(1.0, abs(ref)):
            return name
    return None


def schedule(scheduler: Any | None, optimizer: Any | None) -> tuple[str | None, bool | None]:
    """(lr_schedule, warmup) from a scheduler object; a scheduler attached but not given reads as ``other``."""
    if scheduler is None:
        attached = optimizer is not None and any("initial_lr" in g for g in optimizer.param_groups)
        return ("other", None) if attached else (("none", False) if optimizer is not None else (None, None))
    name = type(scheduler).__name__
    if name == "SequentialLR":
        parts = [type(s).__name__ for s in getattr(scheduler, "_schedulers", [])]
        kinds = [_schedule_name(p) for p in parts]
        warm = bool(parts) and parts[0] in ("LinearLR", "ConstantLR", "LambdaLR")
        main = next((k for k in reversed(kinds) if k not in ("none",)), "other")
        return main, warm
    if name == "OneCycleLR":
        return "onecycle", True
    if name == "LinearLR":
        return "linear", getattr(scheduler, "start_factor", 1.0) < getattr(scheduler, "end_factor", 1.0)
    return _schedule_name(name), False


def precision(model: torch.nn.Module, device_type: str) -> str:
    """``fp16``/``bf16`` from an active autocast or from half-precision parameters, else ``none``."""
    try:
        if torch.is_autocast_enabled(device_type):
            dt = torch.get_autocast_dtype(device_type)
            return "bf16" if dt == torch.bfloat16 else "fp16"
    except (TypeError, RuntimeError, AttributeError):
        pass
    dts = {p.dtype for p in model.parameters() if p.is_floating_point()}
    if torch.float16 in dts:
        return "fp16"
    if torch.bfloat16 in dts:
        return "bf16"
    return "none"


def output_activation(out: Any) -> str | None:
    """Give what the model output already looks like: softmax rows, log-softmax rows, sigmoid range, or raw."""
    if not isinstance(out, torch.Tensor) or not out.is_floating_point() or out.numel() == 0:
        return None
    y = out.detach().float()
    if not bool(torch.isfinite(y).all()):
        return None
    if y.ndim >= 2 and y.shape[1] >= 2:
        rows = y.movedim(1, -1).reshape(-1, y.shape[1])[:256]
        ones = torch.ones(len(rows), device=rows.device)  # on the output's device: CUDA outputs too
        if bool((rows >= 0).all()) and bool(torch.allclose(rows.sum(-1), ones, atol=1e-3)):
            return "softmax"
        if bool((rows <= 0).all()) and bool(torch.allclose(rows.exp().sum(-1), ones, atol=1e-3)):
            return "log_softmax"
    if bool((y > 0).all()) and bool((y < 1).all()) and y.numel() > 1:
        return "sigmoid"
    return "none"


def architecture(model: torch.nn.Module) -> str:
    """Model family from its module types."""
    kinds = {type(m) for m in model.modules()}
    if any(issubclass(k, (torch.nn.RNNBase,)) for k in kinds):
        return "rnn"
    if any(issubclass(k, (torch.nn.MultiheadAttention, torch.nn.TransformerEncoderLayer,
                          torch.nn.TransformerDecoderLayer)) for k in kinds):
        return "transformer"
    if any(issubclass(k, torch.nn.modules.conv._ConvNd) for k in kinds):
        return "cnn"
    if any(issubclass(k, torch.nn.Linear) for k in kinds):
        return "mlp"
    return "other"


def eval_mode_while_training(model: torch.nn.Module) -> dict[str, Any]:
    """Dropout/normalization layers in eval mode while training (only those change behaviour)."""
    layers = [n for n, m in model.named_modules() if isinstance(m, _BEHAVES_DIFFERENTLY)]
    off = [n for n, m in model.named_modules() if isinstance(m, _BEHAVES_DIFFERENTLY) and not m.training]
    return {"layers": len(layers), "in_eval": off[:20], "root_training": model.training}


def input_scale(x: Any) -> float | None:
    """max(|mean|, std) of a float input batch (None for integer inputs such as token ids)."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() < 2:
        return None
    xf = x.detach().float()
    if not bool(torch.isfinite(xf).all()):
        return None
    return max(abs(float(xf.mean())), float(xf.std()))


def observe(*, model: torch.nn.Module, optimizer: Any | None = None, loss_fn: Any | None = None,
            scheduler: Any | None = None, scaler: Any | None = None, output: Any = None, inputs: Any = None,
            carryover: float | None = None, batch_size: int | None = None, device_type: str = "cpu",
            classification: bool = False) -> list:
    """Give configuration observations from live objects (only what is actually known is emitted)."""
    out = [emit(INFO, "architecture", architecture(model))]
    if optimizer is not None and optimizer.param_groups:
        groups = optimizer.param_groups
        lrs = [finite_or_none(g.get("lr")) for g in groups]
        lrs = [x for x in lrs if x is not None and x > 0]
        out.append(emit(INFO, "optimizer", optimizer_name(optimizer), {"class": type(optimizer).__name__,
                                                                       "groups": len(groups)}))
        if lrs:
            out.append(emit(INFO, "learning_rate", min(max(lrs), 10.0), {"per_group": lrs}))
        wds = [finite_or_none(g.get("weight_decay", 0.0)) or 0.0 for g in groups]
        out.append(emit(INFO, "weight_decay", min(max(wds), 10.0), {"per_group": wds}))
        eps = [finite_or_none(g.get("eps")) for g in groups if "eps" in g]
        eps = [e for e in eps if e is not None and e > 0]
        if eps and optimizer_name(optimizer) in ("adam", "adamw", "other"):
            out.append(emit(INFO, "adam_eps", min(eps), {"per_group": eps}, ("MT-EPS-FP16",)))
    sched, warm = schedule(scheduler, optimizer)
    if sched is not None:
        out.append(emit(INFO, "lr_schedule", sched, {"scheduler": type(scheduler).__name__ if scheduler else None}))
    if warm is not None:
        out.append(emit(INFO, "warmup", warm))
    mp = precision(model, device_type)
    out.append(emit(INFO, "mixed_precision", mp))
    if scaler is not None:
        enabled = bool(getattr(scaler, "is_enabled", lambda: True)())
        out.append(emit(INFO, "grad_scaler", enabled, {"class": type(scaler).__name__}))
    elif mp == "fp16":
        out.append(emit(INFO, "grad_scaler", False, {"note": "no GradScaler was passed to the probe"}))
    if loss_fn is not None:
        ln = loss_name(loss_fn)
        inner = composite_kind(loss_fn) if ln == "custom" else None
        ev: dict[str, Any] = {"object": type(loss_fn).__name__}
        if inner is not None:
            # the user's module is built of torch losses: its class term is the loss the output meets
            ev["inner_losses"] = [n for n, _ in inner_losses(loss_fn)]
        out.append(emit(INFO, "loss_fn", inner or ln, ev))
        out.append(emit(INFO, "custom_loss", ln == "custom"))
        ln = inner or ln
        if ln in ("cross_entropy", "nll"):
            out.append(emit(INFO, "task", "classification"))
    elif classification:
        out.append(emit(INFO, "task", "classification"))
    act = output_activation(output) if output is not None else None
    if act is not None:
        out.append(emit(INFO, "output_activation", act))
    ev = eval_mode_while_training(model)
    out.append(emit(INFO, "model_eval_mode", bool(ev["in_eval"]), ev))
    s = input_scale(inputs) if inputs is not None else None
    if s is not None:
        out.append(emit(INFO, "input_scale", s, {}, ("MT-INPUT-SCALE",)))
    if carryover is not None and finite_or_none(carryover) is not None:
        out.append(emit(INFO, "grad_carryover", max(0.0, carryover), {}, ("MT-CARRYOVER",)))
    if batch_size:
        out.append(emit(INFO, "batch_size", batch_size))
    return out


class ConfigLintProbe(Probe):
    """Plugin: the configuration as the live objects show it, plus what the loop reveals about itself.

    The static lint (optimizer, schedule, precision, loss against the first output, input scale, modes) is
    read once, from the first training forward. Per step it only counts training forwards through a model in
    eval mode (host flags). On the sampled steps a hook on the last trainable parameter counts the backward
    passes into the step (gradient accumulation) and compares the gradient already there with the new one
    (gradients never cleared carry over on every step, so a sample finds them as surely).
    """

    info = INFO
    hooks = ("forward", "backward", "optimizer_pre", "step_end", "window")
    sampled_hooks = ("optimizer_pre", "step_end")
    thresholds = ("MT-EPS-FP16", "MT-INPUT-SCALE", "MT-CARRYOVER")

    def attach(self, run: Any) -> None:
        """Arm the backward counter for the first (sampled) step."""
        self._lint: list | None = None
        self.eval_forwards = 0
        self.carry_max = 0.0
        self.accum: deque[int] = deque(maxlen=64)
        self._hook: Any = None
        self._arm(run, carry=False)

    def detach(self, run: Any) -> None:
        """Remove the backward hook if armed."""
        if self._hook is not None:
            self._hook.remove()
            self._hook = None

    def _arm(self, run: Any, carry: bool) -> None:
        self._backwards = 0
        self._carry = carry
        if self._hook is None:
            self._hook = run.params[-1].register_hook(lambda g: self.backward(run, g))

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """Count training forwards through a model in eval mode."""
        if not module.training:
            self.eval_forwards += 1

    def backward(self, run: Any, grad: Any) -> None:
        """Count a backward pass; on the first of a sampled step, queue old/new gradient norm."""
        if run.params[-1].grad is None:
            # gradients cleared since the last backward (zero_grad after a step a GradScaler skipped on an
            # overflow): a new step starts here, not one more micro-batch of an accumulation
            self._backwards = 0
        self._backwards += 1
        if self._carry:
            self._carry = False
            old = run.params[-1].grad
            if old is not None:
                ratio = torch.linalg.vector_norm(old.float()) / (torch.linalg.vector_norm(grad.float()) + 1e-30)
                run.record("lint:carry", ratio)

    def accumulating_now(self) -> bool:
        """Whether the sampled step being counted has had a backward pass already before this point of it.

        Asked at a forward: a backward earlier in the same optimizer step makes this forward a later micro-batch,
        so the step accumulates (it will count more than one) before ``optimizer_pre`` records the count.
        """
        return self._hook is not None and self._backwards >= 1

    def optimizer_pre(self, run: Any) -> None:
        """On a sampled step, the backward passes into it are its micro-batches."""
        if self._hook is not None and run.sampled:
            if self._backwards > 1:
                self.accum.append(self._backwards)
            self._hook.remove()
            self._hook = None

    def step_end(self, run: Any) -> None:
        """Arm the hook when the next step is a sampled one."""
        if run.sampled:
            self._arm(run, carry=True)

    def accumulate(self, run: Any, window: Any) -> None:
        """Keep the largest carry-over ratio."""
        import math

        for _, v in window.get("lint:carry"):
            if math.isfinite(v[0]):
                self.carry_max = max(self.carry_max, v[0])

    def summarise(self, run: Any) -> list:
        """The static lint, eval-mode forwards, carry-over and micro-batches."""
        if self._lint is None:
            out_t, in_t = run.first_output, run.first_input
            self._lint = observe(model=run.model, optimizer=run.optimizer, loss_fn=run.loss_fn,
                                 scheduler=run.scheduler, scaler=run.scaler, output=out_t, inputs=in_t,
                                 carryover=None, batch_size=int(run.first_output_shape[0])
                                 if run.first_output_shape else None, device_type=run.device.type)
        lint = list(self._lint)
        if self.eval_forwards:
            ev = {"training_forwards_in_eval_mode": self.eval_forwards, "steps": run.steps}
            lint = [o for o in lint if o.name != "model_eval_mode"] + [
                emit(INFO, "model_eval_mode", True, ev, step=run.steps)]
        if run.steps > 1:
            lint.append(emit(INFO, "grad_carryover", max(0.0, self.carry_max), {}, ("MT-CARRYOVER",), step=run.steps))
        if self.accum:
            import statistics

            # Whether the loss was divided by k cannot be read from gradient norms (the first micro-batch's
            # gradient is divided too); the loss-scale probe reads the loss's multiplier at the output instead.
            k = int(statistics.median(self.accum))
            lint.append(emit(INFO, "grad_accum_steps", k, {"micro_batches": k}, step=run.steps))
        return lint

    def examine(self, ex: Any) -> list:
        """The static lint of the examined objects, with what the batch showed (output, inputs, carry-over)."""
        carry = None
        if ex.named:
            # A gradient left from the user's last step is normal between steps, and a converged model's fresh
            # gradient on one batch can be many times smaller than the last one: examine cannot tell a left-over
            # from a gradient never zeroed, so it judges carry-over only when there is none (watch sees the loop).
            carry = 0.0 if not any(n in ex.existing for n, _ in ex.named) else None
        lint = observe(model=ex.model, optimizer=ex.optimizer, loss_fn=ex.loss_fn, scheduler=ex.scheduler,
                       scaler=ex.scaler, output=ex.output_tensor, inputs=next(iter(_tensors(ex.x)), None),
                       carryover=carry, batch_size=ex.batch_size, device_type=ex.device.type,
                       classification=ex.classification)
        if ex.behaves_as is not None:
            # the user's own function computes a built-in loss: checks that need the loss's kind can fire
            ev = {"object": getattr(ex.loss_fn, "__name__", type(ex.loss_fn).__name__), "behaves_as": ex.behaves_as}
            lint = [o for o in lint if o.name not in ("loss_fn", "custom_loss")] + [
                emit(INFO, "loss_fn", ex.behaves_as, ev), emit(INFO, "custom_loss", False, ev)]
            if ex.behaves_as in ("cross_entropy", "nll") and not any(o.name == "task" for o in lint):
                lint.append(emit(INFO, "task", "classification", ev))
        return lint


def _tensors(obj: Any) -> list[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in _tensors(v)]
    return []
