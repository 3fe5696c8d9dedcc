"""One-shot examination: a few passes and optimizer steps on one batch, then everything restored as found."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import Any

import torch

from expert.errors import ProbeError
from expert.vocabulary import Observation
from knowledge.measurements import threshold
from probes import (
    activations,
    config_lint,
    generalization,
    grad_flow,
    loop_lint,
    loss_init,
    nonfinite,
    target_scale,
    throughput,
    update_ratio,
)
from probes.base import emit, finite_or_none, merge
from probes.state import restore, take

LOADER_BATCHES = 5


def _split(batch: Any) -> tuple[Any, Any]:
    if isinstance(batch, dict) and {"inputs", "targets"} <= set(batch):
        return batch["inputs"], batch["targets"]
    if isinstance(batch, (tuple, list)) and len(batch) == 2:
        return batch[0], batch[1]
    raise ProbeError("batch must be (inputs, targets) or {'inputs': ..., 'targets': ...}",
                     context=f"got {type(batch).__name__}", hint="pass one training batch as a pair")


def _call(model: torch.nn.Module, x: Any) -> Any:
    if isinstance(x, dict):
        return model(**x)
    if isinstance(x, (tuple, list)):
        return model(*x)
    return model(x)


class UserCodeError(ProbeError):
    """The user's model, loss, optimizer or script raised: a usage error (exit 2), not a trainopt bug.

    Attributes:
        call: Which of the user's calls failed (``model(inputs)``, ``loss_fn(output, targets)``...).
        frame: The traceback's last frame in the user's code (``file:line in function``), or None.
    """

    def __init__(self, call: str, exc: BaseException, hint: str = "") -> None:
        self.call, self.frame = call, last_user_frame(exc)
        where = f"; last frame in your code: {self.frame}" if self.frame else ""
        super().__init__(f"your {call} raised {type(exc).__name__}: {exc}", context=f"while trainopt ran {call}{where}",
                         hint=hint or "run the same call outside trainopt to reproduce it; trainopt restored "
                                      "the model, optimizer and RNGs")


def last_user_frame(exc: BaseException) -> str | None:
    """The deepest traceback frame outside torch, trainopt's probes and the standard library."""
    import os
    import sysconfig
    import traceback

    skip = [os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)),
            sysconfig.get_paths()["stdlib"]]
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if not any(os.path.abspath(f.filename).startswith(d) for d in skip)]
    if not user:
        return None
    f = user[-1]
    return f"{f.filename}:{f.lineno} in {f.name}"


def user_call(call: str, fn: Callable[..., Any], *args: Any, hint: str = "", **kwargs: Any) -> Any:
    """Run one of the user's calls; whatever it raises becomes a ``UserCodeError`` naming the call."""
    try:
        return fn(*args, **kwargs)
    except ProbeError:
        raise
    except Exception as exc:  # noqa: BLE001 - any error in the user's code is reported as theirs (exit 2)
        raise UserCodeError(call, exc, hint) from exc


def check_batch(x: Any, y: Any) -> None:
    """Refuse a batch that cannot be trained on: no tensor, an empty batch, inputs and targets of unequal length.

    Raises:
        ProbeError: With what was found and what a batch should look like.
    """
    xs = list(nonfinite.tensors_in(x))
    if not xs:
        raise ProbeError("the batch's inputs hold no tensor", context=f"got {type(x).__name__}",
                         hint="pass (inputs, targets) with tensor inputs")
    for t in xs + list(nonfinite.tensors_in(y)):
        if t.numel() == 0 or (t.ndim and t.shape[0] == 0):
            raise ProbeError("the batch is empty: there is nothing to train on",
                             context=f"a tensor of shape {tuple(t.shape)}",
                             hint="check the dataset length, the sampler and drop_last")
    if isinstance(y, torch.Tensor) and y.ndim and xs[0].ndim and y.shape[0] != xs[0].shape[0]:
        raise ProbeError("inputs and targets hold different numbers of examples",
                         context=f"inputs {tuple(xs[0].shape)}, targets {tuple(y.shape)}",
                         hint="the first dimension of both is the batch")


def _needs_closure(optimizer: Any) -> bool:
    import inspect

    try:
        p = inspect.signature(optimizer.step).parameters.get("closure")
    except (TypeError, ValueError):
        return False
    return p is not None and p.default is inspect.Parameter.empty


def check_target(model: Any, loss_fn: Any = None) -> list[torch.nn.Parameter]:
    """Refuse what cannot be probed, with a clear error; return the parameters.

    Raises:
        ProbeError: Not a module, no parameters, parameters on the meta device, or a loss that is not callable.
    """
    if not isinstance(model, torch.nn.Module):
        raise ProbeError(f"expected a torch.nn.Module, got {type(model).__name__}", hint="pass the model object")
    params = list(model.parameters())
    if not params:
        raise ProbeError("the model has no parameters: there is nothing to train or probe",
                         context=type(model).__name__, hint="check that layers are registered as sub-modules")
    meta = [n for n, p in model.named_parameters() if p.is_meta]
    if meta:
        raise ProbeError("parameters on the meta device hold no values and cannot be probed",
                         context=f"{len(meta)} meta parameter(s), e.g. {meta[0]}",
                         hint="materialize the model first (model.to_empty(device=...) and load weights)")
    if loss_fn is not None and not callable(loss_fn):
        raise ProbeError("loss_fn must be callable as loss_fn(output, target)")
    return params


def _first_tensor(x: Any) -> torch.Tensor | None:
    return next(iter(nonfinite.tensors_in(x)), None)


def _accuracy(out: Any, y: Any) -> float | None:
    if not (isinstance(out, torch.Tensor) and isinstance(y, torch.Tensor)) or out.ndim != 2 or out.shape[1] < 2:
        return None
    if y.dtype not in (torch.int64, torch.int32, torch.int16, torch.uint8) or y.shape != out.shape[:1]:
        return None
    return float((out.argmax(1) == y).float().mean())


def _no_grads(params: Iterable[torch.nn.Parameter]) -> None:
    for p in params:
        p.grad = None


def examine(model: torch.nn.Module, loss_fn: Callable[[Any, Any], torch.Tensor], batch: Any, optimizer: Any = None,
            *, num_classes: int | None = None, steps: int = 3, val_batch: Any = None,
            loader: Iterable[Any] | None = None,
            scheduler: Any = None, scaler: Any = None, at_init: bool | None = None) -> list[Observation]:
    """Examine a model, its loss, one batch and the optimizer; return observations (provenance ``probe:<id>``).

    Everything is restored afterwards: parameters, buffers, gradients, optimizer state, hyperparameters and
    private flags (attributes a scheduler sets, such as ``_opt_called``, are removed again), ``requires_grad``,
    train/eval modes, GradScaler attributes and the torch CPU/CUDA, numpy and ``random`` RNGs. What cannot be
    restored is what a ``loader`` yields: examine draws up to ``LOADER_BATCHES`` (5) batches from a fresh
    ``iter(loader)``, so a generator or a one-shot iterator loses those batches. The scheduler is read, never
    stepped. Errors raised by the user's model, loss or optimizer become ``UserCodeError`` (exit 2), naming the
    call and the last frame in the user's code.

    Args:
        model: The model.
        loss_fn: ``loss_fn(output, target) -> scalar tensor``.
        batch: ``(inputs, targets)``; inputs may be a tensor, a tuple (positional) or a dict (keywords).
        optimizer: The optimizer; without it the update-ratio probe is skipped.
        num_classes: Classes for the chance-level checks (inferred from a cross-entropy output when omitted).
        steps: Optimizer steps taken (then undone) to measure update ratios and gradient trends.
        val_batch: A validation batch, for the generalization gap.
        loader: A data loader, timed for a few batches against compute.
        scheduler: The LR scheduler, for the schedule/warmup lint.
        scaler: The GradScaler, if any.
        at_init: Whether the model is untrained (default: no optimizer state and no gradients yet).

    Returns:
        Observations, one per name.

    Raises:
        ProbeError: Nothing probeable (no parameters, meta tensors, malformed, empty or mismatched batch, empty
            loader).
        UserCodeError: The model, loss or optimizer raised.
    """
    params = check_target(model, loss_fn)
    if loss_fn is None:
        raise ProbeError("examine needs loss_fn(output, target)")
    x, y = _split(batch)
    check_batch(x, y)
    if steps < 0:
        raise ProbeError("steps must be >= 0")
    snap = take(model, optimizer, scaler)
    try:
        return _examine(model, params, loss_fn, x, y, optimizer, num_classes, steps, val_batch, loader, scheduler,
                        scaler, at_init)
    finally:
        restore(snap, optimizer, scaler)


def _examine(model: torch.nn.Module, params: list[torch.nn.Parameter], loss_fn: Any, x: Any, y: Any, optimizer: Any,
             num_classes: int | None, steps: int, val_batch: Any, loader: Any, scheduler: Any, scaler: Any,
             at_init: bool | None) -> list[Observation]:
    groups: list[list[Observation]] = []
    dev = params[0].device
    struct = grad_flow.structure(model, optimizer)
    flags = nonfinite.scan_static(x, y, model, optimizer)
    if at_init is None:
        # untrained: no optimizer state yet and no gradient left by a previous backward pass
        at_init = (optimizer is None or len(optimizer.state) == 0) and all(p.grad is None for p in params)
    existing = {n for n, p in model.named_parameters() if p.grad is not None}
    fwd = lambda: user_call("model(inputs)", _call, model, x)  # noqa: E731 - a thunk for the hook-based probes

    def loss_of(out: Any) -> Any:
        hint = ("the model returns a " + type(out).__name__ + "; give examine a loss_fn that takes that output "
                "(e.g. lambda out, y: criterion(out[0], y))") if not isinstance(out, torch.Tensor) else ""
        loss = user_call("loss_fn(output, targets)", loss_fn, out, y, hint=hint)
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise ProbeError("loss_fn must return a scalar tensor", context=f"got {type(loss).__name__}"
                             + (f" of shape {tuple(loss.shape)}" if isinstance(loss, torch.Tensor) else ""),
                             hint="reduce the loss with .mean() or .sum()")
        return loss

    # activation health (one hooked pass, no grad)
    stats = activations.measure(model, fwd)

    _no_grads(params)
    t0 = time.perf_counter()
    with torch.enable_grad():
        out = fwd()
        loss = loss_of(out)
    lv = float(loss.detach())
    out_t = _first_tensor(out)
    flags["activations"] = nonfinite.all_finite(out)
    flags["loss"] = finite_or_none(lv) is not None
    classification = isinstance(out_t, torch.Tensor) and out_t.ndim == 2 and isinstance(y, torch.Tensor) \
        and not y.is_floating_point() and y.ndim == 1
    lname = config_lint.loss_name(loss_fn)
    behaves_as = config_lint.identify_loss(loss_fn, out_t, y, lv) if lname == "custom" else None
    eff_name = behaves_as or lname
    if num_classes is None and classification and eff_name in ("cross_entropy", "nll"):
        num_classes = int(out_t.shape[1])
    bs = int(out_t.shape[0]) if isinstance(out_t, torch.Tensor) and out_t.ndim >= 1 else None

    # generalization: the weights as found (backward changed only .grad), eval mode, no grad
    if val_batch is not None:
        vx, vy = _split(val_batch)
        modes = [(m, m.training) for m in model.modules()]
        try:
            model.eval()
            with torch.no_grad():
                va = _accuracy(user_call("model(val_inputs)", _call, model, vx), vy)
                ta = _accuracy(fwd(), y)
        finally:
            for m, t in modes:
                m.training = t
        if va is not None and ta is not None:
            groups.append(generalization.observe(train_acc=[ta], val_acc=[va], num_classes=num_classes))

    norms_per_step: list[float] = []
    upd: list[list[float]] = []
    per_param: dict[str, float] = {}
    ratio = None
    underflow = None
    no_grad: list[str] = []
    carry = None
    losses = [lv]
    step_s: list[float] = []
    bad_step: int | None = None if all(flags.values()) else 0
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if flags["loss"] and loss.requires_grad:
        user_call("loss.backward()", loss.backward)
        step_s.append(time.perf_counter() - t0)
        named = [(n, p.grad) for n, p in trainable if p.grad is not None]
        no_grad = [n for n, p in trainable if p.grad is None]
        if named:
            pn = grad_flow.norms([g for _, g in named])
            per_param = dict(zip([n for n, _ in named], pn.tolist()))
            norms_per_step.append(float(grad_flow.global_norm(pn)))
            ratio = grad_flow.layer_ratio(named, pn, grad_flow.lookup_tables(model))  # issue 9 (H3): tables out
            uf = grad_flow.underflow_fraction([g for _, g in named])
            underflow = None if uf is None else float(uf)
            flags["gradients"] = all(nonfinite.all_finite(g) for _, g in named)
            if not flags["gradients"] and bad_step is None:
                bad_step = 0
            # A gradient left from the user's last step is normal between steps, and a converged model's fresh
            # gradient on one batch can be many times smaller than the last one: examine cannot tell a left-over
            # from a gradient never zeroed, so it judges carry-over only when there is none (watch sees the loop).
            carry = 0.0 if not any(n in existing for n, _ in named) else None
        # optimizer steps on this batch (undone by the restore)
        if optimizer is not None and flags.get("gradients", False):
            opt_params = [p for g in optimizer.param_groups for p in g["params"] if p.requires_grad]
            opt_names = {id(p): n for n, p in model.named_parameters()}
            closure = None
            if _needs_closure(optimizer):
                def closure() -> torch.Tensor:  # LBFGS and friends re-evaluate the loss themselves
                    _no_grads(params)
                    with torch.enable_grad():
                        li = loss_of(fwd())
                        li.backward()
                    return li
            raised = update_ratio.raise_to_peak(optimizer)  # issue 9 (H3): measure at the peak LR (restored)
            for i in range(steps):
                t1 = time.perf_counter()
                before = [p.detach().clone() for p in opt_params]
                user_call("optimizer.step()", optimizer.step, *(() if closure is None else (closure,)))
                upd.append(update_ratio.ratios(before, opt_params).tolist())
                if not all(nonfinite.all_finite(p) for p in opt_params):
                    flags["weights"] = False
                    bad_step = i + 1 if bad_step is None else bad_step
                    break
                if i == steps - 1:
                    step_s.append(time.perf_counter() - t1)
                    break
                _no_grads(params)
                with torch.enable_grad():
                    oi = fwd()
                    li = loss_of(oi)
                losses.append(float(li.detach()))
                if not nonfinite.all_finite(oi):
                    flags["activations"] = False  # the model's output went bad after an update: not the loss
                    bad_step = i + 1 if bad_step is None else bad_step
                    break
                if finite_or_none(losses[-1]) is None:
                    flags["loss"] = False
                    bad_step = i + 1 if bad_step is None else bad_step
                    break
                user_call("loss.backward()", li.backward)
                gl = [p.grad for _, p in trainable if p.grad is not None]
                norms_per_step.append(float(grad_flow.global_norm(grad_flow.norms(gl))))
                if not math.isfinite(norms_per_step[-1]):
                    flags["gradients"] = False
                    bad_step = i + 1 if bad_step is None else bad_step
                    break
                step_s.append(time.perf_counter() - t1)
            flags["weights"] = flags["weights"] and all(nonfinite.all_finite(p) for p in params)
            flags["optimizer_state"] = flags["optimizer_state"] and all(
                nonfinite.all_finite(s) for s in optimizer.state.values())
            upd_names = [opt_names.get(id(p), "?") for p in opt_params]
            if upd:
                import warnings

                import numpy as np

                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore", RuntimeWarning)
                    per_layer = np.nanmedian(np.asarray(upd, dtype=np.float64), axis=0) if len(upd) > 1 \
                        else np.asarray(upd[0], dtype=np.float64)
                s = update_ratio.summarize(per_layer.tolist(), upd_names, [p.ndim >= 2 for p in opt_params])
                near_peak, lr, peak = _lr_near_peak(optimizer)
                if s is not None:
                    s.update({"lr": lr, "peak_lr": peak, "lr_near_peak": near_peak, "raised_to_peak": raised})
                    if not near_peak and lr and peak:
                        # an annealed LR (end of a cosine or one-cycle schedule) is meant to be small: judge the
                        # LR the run trains with, at its peak
                        update_ratio.at_peak_value(s, lr, peak)
                    groups.append(update_ratio.observe(s))

    # non-finite: earliest place, with the first module when the forward output went bad
    where = nonfinite.earliest(flags)
    if where == "loss" and eff_name != "custom":
        # A built-in loss is not the cause of a NaN from finite outputs and labels it was given: outputs out of
        # the range it can represent (an explosion) are.
        where = "activations"
    module = None
    if where in ("activations", "inputs", "weights"):
        module = nonfinite.first_nonfinite_module(model, fwd)
    groups.insert(0, nonfinite.observe(where, step=bad_step if where else None, module=module, flags=flags))

    lint = config_lint.observe(model=model, optimizer=optimizer, loss_fn=loss_fn, scheduler=scheduler,
                               scaler=scaler, output=out_t, inputs=_first_tensor(x), carryover=carry,
                               batch_size=bs, device_type=dev.type, classification=classification)
    if behaves_as is not None:
        # the user's own function computes a built-in loss: checks that need the loss's kind can fire
        ev = {"object": getattr(loss_fn, "__name__", type(loss_fn).__name__), "behaves_as": behaves_as}
        lint = [o for o in lint if o.name not in ("loss_fn", "custom_loss")] + [
            emit(config_lint.INFO, "loss_fn", behaves_as, ev), emit(config_lint.INFO, "custom_loss", False, ev)]
        if behaves_as in ("cross_entropy", "nll") and not any(o.name == "task" for o in lint):
            lint.append(emit(config_lint.INFO, "task", "classification", ev))
    groups.append(lint)
    groups.append(loop_lint.observe_params(model, optimizer))  # issue 7: optimizer vs model, weight dtype
    groups.append(target_scale.observe(y, eff_name))  # issue 7: raw-unit regression targets
    groups.append(loss_init.observe(loss_init.check(lv, num_classes, eff_name, at_init), num_classes))
    groups.append(grad_flow.observe(struct=struct | ({"missing_from_optimizer": None} if optimizer is None else {}),
                                    per_param=per_param, no_grad=no_grad, global_norms=norms_per_step, ratio=ratio,
                                    underflow=underflow))
    groups.append(activations.observe(stats))
    if loader is not None:
        import statistics

        # median step: the first pass carries one-time costs (allocations, lazy optimizer state)
        groups.append(_time_loader(loader, statistics.median(step_s) if step_s else 0.0, dev))
    return merge(groups)


def _lr_near_peak(optimizer: Any) -> tuple[bool, float | None, float | None]:
    """Whether the LR now is near the schedule's peak (``max_lr`` of one-cycle, ``initial_lr`` of the others)."""
    lr, peak = update_ratio.lr_now_and_peak(optimizer)
    if lr is None or peak is None or peak <= 0:
        return True, lr, peak
    return lr >= threshold("MT-UPD-LR-PEAK") * peak, lr, peak


def _time_loader(loader: Iterable[Any], compute_per_step: float, device: torch.device) -> list[Observation]:
    it = iter(loader)
    data_s, n = 0.0, 0
    for _ in range(LOADER_BATCHES):
        t = time.perf_counter()
        try:
            next(it)
        except StopIteration:
            break
        data_s += time.perf_counter() - t
        n += 1
    if n == 0:
        raise ProbeError("the loader yielded no batches", hint="check the dataset length and drop_last")
    return throughput.observe(data_s, compute_per_step * n, n, device)
